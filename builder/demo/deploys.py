"""The demo's past deploys: two earlier commits, each deployed and recorded, so the site's
snapshot pages and changelog have something to show from the first build on.

The demo's bundles reach git in three commits: two and one day before the demo's clock,
the first few submissions of each benchmark (``EARLIER``: the first 1, then 3, by path);
at the clock, the rest (the demo's usual commit, message unchanged). After each earlier
commit its deploy is built as the scheduled build would (authorised, judged at the demo's
clock, stamped with the commit's time), with ``render=False``: only the data contract
(``data/index.json`` and each benchmark's board files, exactly as a full build writes them,
builder.render.data) is written and signed with the demo's build key, then recorded under
``attestations/`` (builder.attest.record) and committed. The pages of those days are not
rendered: a snapshot shows boards only, and a whole site build per past deploy would cost
the demo (and every test that writes it) ~15 CPU-s more each. With few bundles a deploy
costs ~1-2 CPU-s.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from builder.attest.record import record
from builder.demo.repository import commit_demo, commit_more
from builder.errors import BuilderError
from builder.pipeline.attestation import attest
from builder.pipeline.build import build, load_build_key, load_identities
from builder.render.data import board_files, dumps, index_data
from builder.report.records import BuildReport

# (days before the demo's clock, submissions per benchmark in git by then)
EARLIER = ((2, 1), (1, 3))
MESSAGE = "Sealboard demo: the first {n} submission(s) of each benchmark"


def _submissions(root: Path) -> dict[str, list[Path]]:
    """Each benchmark's submission folders (bundles/<bench>/<lab>/<submission>), by path."""
    out: dict[str, list[Path]] = {}
    for bench in sorted(p for p in (root / "bundles").iterdir() if p.is_dir()):
        out[bench.name] = sorted(
            s for lab in bench.iterdir() if lab.is_dir() and not lab.name.startswith("_") for s in lab.iterdir() if s.is_dir()
        )
    return out


def commit_with_history(
    root: Path, now: datetime, message: str, build_key: Path, progress: Callable[[str], None] = lambda _m: None
) -> list[Path]:
    """Commit the written demo as described above (deploys signed with ``build_key``, opened
    with keys/demo/identity.txt); return the recorded deploy folders."""
    held = Path(tempfile.mkdtemp(prefix=f".{root.name}-held-", dir=root.parent))  # same file system: renames
    later: list[tuple[Path, Path]] = []  # (where it belongs, where it waits)
    try:
        for i, sub in enumerate(p for subs in _submissions(root).values() for p in subs):
            later.append((sub, held / str(i)))
            sub.rename(held / str(i))
        folders = []
        first = True
        for days, count in EARLIER:
            when = now - timedelta(days=days)
            for subs in _by_bench(later).values():
                for sub, waiting in subs[:count]:
                    if waiting.exists():
                        waiting.rename(sub)
            text = MESSAGE.format(n=count)
            if first:
                commit_demo(root, when, text)
                first = False
            else:
                commit_more(root, when, text)
            progress(f"Deploying the demo as of {when:%Y-%m-%d} ({count} submission(s) per benchmark) and recording it")
            folders.append(_deploy(root, now, build_key, when))
            commit_more(root, when + timedelta(minutes=10), f"Record the attestation of the deploy of {when:%Y-%m-%d}")
        for sub, waiting in later:
            if waiting.exists():
                waiting.rename(sub)
        commit_more(root, now, message)
        return folders
    finally:
        for sub, waiting in later:  # on failure, nothing written is lost
            if waiting.exists() and not sub.exists():
                waiting.rename(sub)
        shutil.rmtree(held, ignore_errors=True)


def _by_bench(later: list[tuple[Path, Path]]) -> dict[str, list[tuple[Path, Path]]]:
    out: dict[str, list[tuple[Path, Path]]] = {}
    for sub, waiting in later:
        out.setdefault(sub.parent.parent.name, []).append((sub, waiting))
    return out


def _deploy(root: Path, now: datetime, build_key: Path, when: datetime) -> Path:
    """The deploy of HEAD (data contract only), signed and recorded; its folder."""
    scratch = Path(tempfile.mkdtemp(prefix="sealboard-demo-deploy-"))
    try:
        deploy_data(root, scratch, identity_file=root / "keys" / "demo" / "identity.txt", build_key=build_key, now=now)
        written = record(scratch, root)
        if written is None:
            raise BuilderError(f"the demo's deploy of {when:%Y-%m-%d} showed nothing new", where=str(root), reason="attestation-missing")
        return written
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def deploy_data(root: Path, out: Path, *, identity_file: Path, build_key: Path, now: datetime) -> BuildReport:
    """Build ``root`` authorised into ``out`` as a deploy of its data contract only
    (``data/index.json`` and each benchmark's board files, as a full build writes them),
    attested and signed with ``build_key``; return the build's report."""
    key = load_build_key(build_key, None)
    report = build(root, out, identities=load_identities(identity_file, None), now=now, render=False, build_key=key)
    version = report.registry.version if report.registry else None
    boards = {}
    for state in report.benchmarks:
        bench_boards, files = board_files(state, report.synthetic, version)
        boards[state.config.id] = bench_boards
        for rel, data in files.items():
            if rel.count("/") == 1 and rel.endswith(".json"):  # the boards and submissions, as deployed
                (out / "data" / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / "data" / rel).write_bytes(data)
    (out / "data" / "index.json").write_bytes(dumps(index_data(report, boards)))
    attest(report, out, "mkdocs", key)
    return report
