"""Run the site generator (mkdocs or Zensical) over the staged tree in a child process
that holds nothing secret.

The authorised build holds the embargo identity and the build key (in memory, and perhaps
in ``SEALBOARD_IDENTITY``). The generator runs theme templates, Markdown extension settings
and whatever else a reviewed change may alter, so it never runs in the build's process, and
it runs confined (``render/confinement.py``), the same way for every generator:

- a fresh interpreter (exec, not fork: no copy of the build's memory), started with ``-P``
  (the staged tree is not on ``sys.path``: nothing there is imported);
- an environment that is an allow-list (no identity, no token, no CI secrets);
- no capabilities, and a Landlock domain: it reads the Python installation, Sealboard's
  own package and the staged tree it renders, writes only the staged tree and its output
  folder, and reaches no ancestor's ``/proc`` entries (the build is also non-dumpable while
  it holds a secret: ``confinement.hold_secrets``). An include of the identity file by an
  absolute or relative path, or ``/proc/<ppid>/environ``, fails with EACCES;
- mkdocs' theme templates render in Jinja's sandbox (``render/jinja_sandbox.py``).

Without Landlock (an old kernel, not Linux) the generator does not run unless the operator
sets ``SEALBOARD_INSECURE_NO_SANDBOX=1``.

While it runs, the parent reports pages done of total at least every ``PROGRESS_SECONDS``:
from the counts of pages converted and written that the generated config's progress hook
writes (``render/progress_hook.py``), or for Zensical
(which logs no per-page lines) from the files it writes: one cache entry per page
converted (two in ``.cache/`` beside the config, emptied by ``--clean``), then the HTML pages.
"""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import builder
from builder.errors import BuilderError
from builder.render import confinement

GENERATORS = ("mkdocs", "zensical")
PROGRESS_SECONDS = 4.0
# What the child may inherit: enough to find Python and its packages and to format text.
# Everything else (SEALBOARD_IDENTITY, GITHUB_TOKEN, ACTIONS_*, cloud credentials…) is dropped.
ENV_ALLOWED = frozenset(
    {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "SOURCE_DATE_EPOCH", "SYSTEMROOT"}
)
ENV_ALLOWED_PREFIXES = ("LC_",)
# The progress hook's switch (set in the child's environment) and its lines (render/progress_hook.py).
PROGRESS_ENV = "SEALBOARD_SITE_PROGRESS"
PROGRESS_PREFIX = "sealboard-site-progress"
_PROGRESS = re.compile(rf"^{PROGRESS_PREFIX} converted=(\d+) written=(\d+)$")
_LOG_TAIL = 40
# The operator's switch to run a generator without Landlock (an old kernel, macOS): the child
# can then read every file its user can, the identity file included.
INSECURE_NO_SANDBOX = "SEALBOARD_INSECURE_NO_SANDBOX"
# System files the interpreter and its libraries read; the rest of /etc stays closed.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime", "/etc/mime.types", "/dev/urandom")


def scrubbed_env(environ: dict[str, str] | None = None, *, source_date_epoch: int | None = None) -> dict[str, str]:
    """The child's environment: allow-listed names only (never a secret by construction);
    ``source_date_epoch``, the build's stamped time, dates what the generator dates."""
    source = os.environ if environ is None else environ
    env = {k: v for k, v in source.items() if k in ENV_ALLOWED or k.startswith(ENV_ALLOWED_PREFIXES)}
    if source_date_epoch is not None:
        env["SOURCE_DATE_EPOCH"] = str(source_date_epoch)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["NO_MKDOCS_2_WARNING"] = "1"  # Material's end-of-life banner; the maintainers' page covers it
    env["PYTHONHASHSEED"] = "0"
    env[PROGRESS_ENV] = "1"
    # The hooks are loaded by path from this process's builder package; what they import must
    # be the same code, not another copy an editable install or site-packages would find first.
    ours = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([ours, *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != ours)])
    return env


def command(generator: str, config: Path, site_dir: Path) -> list[str]:
    """The generator's own command line; ``-P``: the working directory (the staged tree,
    whose files a reviewed change writes) is not on ``sys.path``."""
    if generator == "mkdocs":
        return [sys.executable, "-P", "-m", "mkdocs", "build", "--clean", "-f", str(config), "-d", str(site_dir)]
    if generator == "zensical":
        return [sys.executable, "-P", "-m", "zensical", "build", "--clean", "-f", str(config)]
    raise BuilderError(
        f"unknown site generator {generator!r}",
        where="--site-generator",
        hint=f"choose one of {', '.join(GENERATORS)}",
        reason="site-generator",
    )


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def child_paths(staged: Path, site_dir: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """What the confined child may (read, write, list): the Python installation (its
    prefixes and site-packages), Sealboard's own package (the mkdocs hooks), the system's
    libraries; the staged tree and the output folder to write. A ``sys.path`` folder
    outside the installation (PYTHONPATH, an editable install's checkout) is listed only,
    so that imports find Sealboard's package in it without reading anything beside it."""
    runtime = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages())}
    runtime |= {Path(p) for p in sysconfig.get_paths().values()}
    if site.ENABLE_USER_SITE and site.getusersitepackages():
        runtime.add(Path(site.getusersitepackages()))
    package = Path(builder.__file__).resolve().parent
    read = sorted({*runtime, Path(sys.executable).resolve().parent, package, *map(Path, SYSTEM_READ)})
    roots = [*runtime, package]
    listed = sorted({Path(p).resolve() for p in sys.path if p and os.path.isdir(p)} - set(read))
    listed = [p for p in listed if not _under(p, roots)] + [package.parent]
    return read, [staged, site_dir, Path(os.devnull)], listed


def confined(cmd: list[str], staged: Path, site_dir: Path) -> list[str]:
    """``cmd`` run through the confinement launcher, or as it is where the operator has
    switched the sandbox off; raise BuilderError (``site-unconfined``) where there is none."""
    if confinement.landlock_abi() >= 1:
        read, write, listed = child_paths(staged, site_dir)
        return confinement.launcher(read, write, listed, cmd)
    if os.environ.get(INSECURE_NO_SANDBOX) == "1":
        return cmd
    raise BuilderError("this kernel has no Landlock: the site generator would run unconfined, able to read every file the build's user can (the identity included)",
                       where="--site-generator", reason="site-unconfined",
                       hint=f"build on Linux 5.13 or later with Landlock enabled (the CI runners are); only where no secret is on the machine, set {INSECURE_NO_SANDBOX}=1")  # fmt: skip


def _count_files(folder: Path) -> int:
    try:
        with os.scandir(folder) as it:
            return sum(1 for e in it if e.is_file(follow_symlinks=False) and not e.name.startswith("."))
    except FileNotFoundError:
        return 0


def _count_html(site_dir: Path) -> int:
    n = 0
    stack = [site_dir]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    if e.is_dir(follow_symlinks=False):
                        stack.append(Path(e.path))
                    elif e.name.endswith(".html"):
                        n += 1
        except FileNotFoundError:
            pass
    return n


def run_generator(
    generator: str,
    config: Path,
    site_dir: Path,
    total: int,
    progress: Callable[[str], None] | None = None,
    *,
    source_date_epoch: int | None = None,
) -> None:
    """Build ``config`` into ``site_dir`` in a child process; raise BuilderError (reason
    ``site-generator``) with the end of its log if it fails."""
    site_dir.mkdir(parents=True, exist_ok=True)  # the sandbox's write rule names it: it must exist
    cmd = confined(command(generator, config, site_dir), config.parent, site_dir)
    say = progress or (lambda _msg: None)
    log: list[str] = []
    counts = {"converted": 0, "written": 0}

    def pump(stream: Iterable[bytes]) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if m := _PROGRESS.match(line):
                counts["converted"], counts["written"] = int(m[1]), int(m[2])
            else:
                log.append(line)
                del log[:-_LOG_TAIL]

    try:
        child = subprocess.Popen(cmd, cwd=config.parent, env=scrubbed_env(source_date_epoch=source_date_epoch), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, close_fds=True)  # fmt: skip
    except OSError as exc:
        raise BuilderError(f"could not start {generator}: {exc}", where="--site-generator", reason="site-generator") from None
    reader = threading.Thread(target=pump, args=(child.stdout,), daemon=True)
    reader.start()
    started = time.monotonic()
    while True:
        try:
            child.wait(timeout=PROGRESS_SECONDS)
            break
        except subprocess.TimeoutExpired:
            pass
        if generator == "mkdocs":
            # Each page is read (Markdown to HTML) and then written (theme template).
            done = (counts["converted"] + counts["written"]) // 2
            phase = "converting" if counts["written"] == 0 else "writing"
        else:
            # Like mkdocs' count: each page is converted (a cache entry), then written (HTML).
            written = _count_html(site_dir)
            if written:
                done, phase = (total + written) // 2, "writing"
            else:
                # Two cache entries a page (measured on the demo: 1,960 for 979 pages).
                done, phase = _count_files(config.parent / ".cache") // 4, "converting"
        say(f"  site: {min(done, total)} of {total} pages done ({phase}, {time.monotonic() - started:.0f}s)")
    reader.join(timeout=10)
    if child.returncode == confinement.EXIT_UNCONFINED:
        raise BuilderError(f"{generator} did not run: {' '.join(log[-1:])}", where="--site-generator", reason="site-unconfined",
                           hint=f"the kernel refused the sandbox; only where no secret is on the machine, set {INSECURE_NO_SANDBOX}=1")  # fmt: skip
    if child.returncode != 0:
        tail = "\n".join(log[-15:])
        raise BuilderError(f"{generator} build failed (exit {child.returncode}):\n{tail}", where="mkdocs.yml", reason="site-generator",
                           hint="the lines above are the end of its log; a template error names the template")  # fmt: skip
    say(f"  site: {total} of {total} pages done ({time.monotonic() - started:.0f}s)")
