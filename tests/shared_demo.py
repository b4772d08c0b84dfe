"""The shared demo's constants and helpers (fixtures in tests/conftest.py): copies,
builds in a child process, loopback serving, and the count of whole demo builds."""

from __future__ import annotations

import fcntl
import functools
import io
import os
import pickle
import shutil
import subprocess
import sys
import threading
import traceback
import types
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# The demo is written a few days back and committed a day after, so a date the generator took
# from the machine's clock (not the commit) differs from the stamp; releases and keys stay in
# force at the real clock (the demo schedules SOOHAK 30 days ahead, keys for a year).
DEMO_NOW = (datetime.now(timezone.utc) - timedelta(days=3)).replace(hour=12, minute=0, second=0, microsecond=0)
DEMO_COMMITTED = DEMO_NOW + timedelta(days=1, minutes=30)
DEMO_CLOCK = DEMO_COMMITTED + timedelta(minutes=5)  # the judging clock of the shared builds
# As a deployed board has them: a site_url (under a sub-path) and two benchmarks naming a Hub
# dataset, so the exports write absolute URLs and Hugging Face entries (tests/render/test_exports_demo.py).
DEMO_SITE_URL = "https://boards.example.org/math/"
DEMO_HUB = {"livemathematicianbench": "example-org/livemathematicianbench", "kcsat-ml": "example-org/kcsat-ml"}

_COUNT_FILE = "SEALBOARD_TEST_DEMO_BUILDS"


def count_demo_build(kind: str) -> None:
    """Record one whole-site build of a demo instance (see the terminal summary)."""
    path = os.environ.get(_COUNT_FILE)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(kind + "\n")


# --- built once per run, shared by every xdist worker ----------------------------------------------

T = TypeVar("T")


class SharedBuildFailed(RuntimeError):
    """A shared fixture's build failed in another xdist worker (its traceback follows)."""


def _mapping_proxy(data: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(data)


class _Pickler(pickle.Pickler):
    """A build report holds frozen mappings and the registry's Ed25519 keys, which plain pickle
    refuses: both go as their contents (a public key as its 32 raw bytes)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, types.MappingProxyType):
            return _mapping_proxy, (dict(obj),)
        if isinstance(obj, Ed25519PublicKey):
            return Ed25519PublicKey.from_public_bytes, (obj.public_bytes(Encoding.Raw, PublicFormat.Raw),)
        return NotImplemented


def built_once(tmp_path_factory: Any, name: str, make: Callable[[Path], T]) -> T:
    """``make(directory)`` once per run, whatever the number of xdist workers (pytest-xdist's
    "making session-scoped fixtures execute only once"): the first worker to need it builds it
    under an exclusive lock in the run's common temporary folder and pickles what it returns
    beside it; every other worker waits on the lock, then unpickles that (paths into the same
    read-only tree). A failed build is recorded too, so the others fail with its error instead
    of building again. Without xdist it is simply ``make`` in a fresh temporary folder."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return make(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent / "shared"  # the run's folder, above popen-gwN
    shared.mkdir(exist_ok=True)
    done, failed = shared / f"{name}.pickle", shared / f"{name}.failed"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the holder dies
        if done.is_file():
            value: T = pickle.loads(done.read_bytes())
            return value
        if failed.is_file():
            raise SharedBuildFailed(f"the shared {name!r} failed in another worker:\n{failed.read_text(encoding='utf-8')}")
        directory = shared / name
        shutil.rmtree(directory, ignore_errors=True)  # a worker killed mid-build leaves no marker
        directory.mkdir()
        try:
            value = make(directory)
        except BaseException:
            failed.write_text(traceback.format_exc(), encoding="utf-8")
            raise
        buffer = io.BytesIO()
        _Pickler(buffer).dump(value)
        done.write_bytes(buffer.getvalue())
        return value


# --- copies -------------------------------------------------------------------------------------

_NOT_COPIED = {".sealboard", "site"}


def demo_copy(src: Path, dst: Path) -> Path:
    """A cheap copy of an instance: its sealed files (``*.age``) and git's object store are
    hard links to ``src``'s (no writer changes those in place: git and the build write new
    files); everything else is a real copy, so a test may edit it. The staged tree and any
    built site are left out. To tamper with a linked file, break its link first (:func:`own`)."""

    def ignore(directory: str, names: list[str]) -> set[str]:
        return _NOT_COPIED & set(names) if Path(directory) == src else set()

    def link_or_copy(source: str, target: str) -> object:
        if source.endswith(".age") or f"{os.sep}.git{os.sep}objects{os.sep}" in source:
            os.link(source, target)
            return target
        return shutil.copy2(source, target)

    shutil.copytree(src, dst, symlinks=True, ignore=ignore, copy_function=link_or_copy)
    return dst


def own(path: Path) -> Path:
    """Break ``path``'s hard link, so appending to it leaves the original alone."""
    data = path.read_bytes()
    mode = path.stat().st_mode
    path.unlink()
    path.write_bytes(data)
    path.chmod(mode)
    return path


@dataclass(frozen=True)
class DemoSite:
    root: Path  # the demo repository (read-only)
    site: Path  # the built site
    report: Any  # builder.report.records.BuildReport (None when built in a child process)
    lines: tuple[str, ...]  # the build's progress lines


_CHILD = """
import sys
from datetime import datetime
from pathlib import Path
from builder.pipeline.build import build, load_build_key, load_identities
root, out, identity, generator, now, key = sys.argv[1:]
report = build(Path(root), Path(out), identities=load_identities(Path(identity), None) if identity else [],
               now=datetime.fromisoformat(now), site_generator=generator, build_key=load_build_key(Path(key), None) if key else None,
               progress=lambda line: print(line, flush=True))
print("stages:", " ".join(report.timings))
"""


def build_in_child(
    root: Path, out: Path, *, identity: bool, generator: str, clock: datetime, hash_seed: int, kind: str | None = None
) -> Path:
    """A whole build in a fresh interpreter (its own PYTHONHASHSEED, its own clock), as the
    reproducibility tests need; ``kind`` counts it as a demo build."""
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "SEALBOARD_IDENTITY", "SEALBOARD_BUILD_KEY")}
    env["PYTHONHASHSEED"] = str(hash_seed)
    ident = str(root / "keys/demo/identity.txt") if identity else ""
    key = str(root / "keys/demo/build_key") if identity else ""  # authorised builds sign their attestation
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(out), ident, generator, clock.isoformat(), key],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # The build summary's stages name the generator that ran (not "mkdocs" for Zensical's time).
    stages = proc.stdout.rsplit("stages:", 1)[1].split()
    assert generator in stages and ({"mkdocs", "zensical"} - {generator}).isdisjoint(stages), stages
    out.with_name(out.name + ".progress").write_text(proc.stdout, encoding="utf-8")  # the build's progress lines
    if kind:
        count_demo_build(kind)
    return out


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass


def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on loopback; yields the base URL (``http://127.0.0.1:<port>/``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
