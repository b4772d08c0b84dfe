"""The suite's expensive things, built once per run and shared read-only.

Writing the demo costs ~11 CPU-s (~4.4 of them its two recorded earlier deploys, builder/demo/deploys.py) and building its whole site ~15; before these fixtures nine
modules each wrote a demo of their own and the site was built 14-18 times a run. Now:

- ``demo_repo``: one demo instance (``write_demo``: its last commit amended) with a ``site_url``
  so mkdocs writes a dated sitemap (the reproducibility tests check its dates).
- ``demo_site``: its authorised mkdocs site (signed with the demo's build key), with the
  build report and the progress lines.
- ``demo_zensical``: the same commit built with Zensical (in a child process, on a hard-linked
  copy of the repository, so the shared ``.sealboard/staged`` tree is never rewritten).
- ``demo_public``: the public (no identity) site.
- ``served_demo``: ``demo_site`` over HTTP on loopback under its site_url's sub-path (``/math/``).

Never write into these: a test that must change an instance takes ``demo_copy(src, dst)``
(tests/shared_demo.py): its sealed files and git's objects are hard links, the rest is copied,
and the staged tree and site are left out.

Every whole-demo build is counted (``count_demo_build``) and the terminal summary prints the
tally (the shared authorised build and its reproducibility twin, the public and Zensical builds:
four a run; the attestation tests' history demo deploys its data contract only,
tests/attest/conftest.py), so the cost stays visible. Each is built once per run, not once per xdist worker
(``built_once``, tests/shared_demo.py): the first worker to need it builds it under a lock in
the run's common temporary folder, the others wait and reuse it, so the tests that use them
spread over every worker. ``served_demo`` is per worker (its own server on the shared site).
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest

from tests.shared_demo import (
    _COUNT_FILE,
    DEMO_CLOCK,
    DEMO_COMMITTED,
    DEMO_HUB,
    DEMO_NOW,
    DEMO_SITE_URL,
    DemoSite,
    build_in_child,
    built_once,
    count_demo_build,
    demo_copy,
    serve,
)

# The fixtures that share a whole-site build (this module's, and tests/attest/conftest.py's
# ``history``): a test using any of them, directly or through another fixture, is ``slow``.
_SHARED_BUILDS = {"demo_repo", "demo_site", "demo_zensical", "demo_public", "served_demo", "history"}


_CPU_FILE = "SEALBOARD_TEST_CPU"


def pytest_configure(config: pytest.Config) -> None:
    # The controller names the files; xdist workers and child processes inherit the variables.
    if _COUNT_FILE not in os.environ and not hasattr(config, "workerinput"):
        scratch = Path(tempfile.mkdtemp(prefix="sealboard-tests-"))
        os.environ[_COUNT_FILE] = str(scratch / "demo-builds")
        os.environ[_CPU_FILE] = str(scratch / "cpu")


def _cpu_seconds() -> float:
    """User + system CPU of this process and of every child it has waited for (builds in child
    processes, Chromium, harnesses, ssh-keygen): what a test costs on a shared machine, which
    its wall time under load does not say."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


# CPU reaped in a test's tear-down that is not the test's: the worker's Chromium, closed in the
# last test's tear-down (its whole run's CPU reaped at once), is tallied under its own name.
_REAPED_APART: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Each test's CPU (set-up, call, tear-down; a shared fixture's cost falls on its first
    user) is appended to one file the terminal summary totals by module."""
    start = _cpu_seconds()
    yield
    path = os.environ.get(_CPU_FILE)
    if path:
        apart = dict(_REAPED_APART)
        _REAPED_APART.clear()
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{_cpu_seconds() - start - sum(apart.values()):.3f} {item.nodeid}\n")
            fh.writelines(f"{seconds:.3f} {name}\n" for name, seconds in apart.items())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Markers that follow from the fixtures a test uses, so none can be forgotten: a shared
    whole-site build makes a test ``slow``; Chromium makes it ``browser`` and ``slow``. (No
    xdist group: each shared build is made once per run by whichever worker needs it first,
    ``built_once``, so these tests spread over every worker.)"""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & _SHARED_BUILDS:
            item.add_marker(pytest.mark.slow)
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
    # The few tests of minutes go first (a stable sort keeps the rest in order): with
    # `--dist worksteal` (.ci/run) the other worker runs everything else meanwhile and takes
    # work from this one's queue, instead of the whole run waiting on one of them at its end.
    items.sort(key=lambda item: item.get_closest_marker("long_running") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The imported modules and collected items live for the whole run: frozen, the cyclic
    collector's full passes (hundreds a worker) no longer walk them. Measured with
    ``gc.callbacks`` over the quick loop: 6.3 -> 4.1 CPU-s in the collector."""
    gc.freeze()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    cpu_file = Path(os.environ.get(_CPU_FILE, "/nonexistent"))
    if cpu_file.is_file():
        by_module: Counter[str] = Counter()
        for line in cpu_file.read_text(encoding="utf-8").splitlines():
            seconds, nodeid = line.split(" ", 1)
            by_module[nodeid.split("::", 1)[0]] += float(seconds)
        cpu_file.unlink()
        total = sum(by_module.values())
        terminalreporter.write_line(
            f"test CPU (user+sys, with waited-for children): {total:.0f} s over {len(by_module)} modules; the most:"
        )
        for module, seconds in by_module.most_common(15):
            terminalreporter.write_line(f"  {seconds:7.1f} s  {module}")
    path = Path(os.environ.get(_COUNT_FILE, "/nonexistent"))
    if path.is_file():
        tally = Counter(path.read_text(encoding="utf-8").split())
        path.unlink()
        if tally:
            terminalreporter.write_line(
                f"whole demo site builds this run: {sum(tally.values())} (" + ", ".join(f"{k}: {v}" for k, v in sorted(tally.items())) + ")"
            )


# --- the demo -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo instance as `sealboard demo` writes it (two earlier deploys recorded, builder.demo.deploys;
    the last commit amended) with a site_url and
    two Hub datasets (tests/shared_demo.py). Read-only: use ``demo_copy`` to change anything."""
    return built_once(tmp_path_factory, "shared-demo", _write_demo)


def _write_demo(base: Path) -> Path:
    from builder.demo.instance import write_demo
    from builder.demo.repository import _env

    root = base / "demo"
    write_demo(root, seed=0, now=DEMO_NOW)
    # The site_url and Hub datasets join write_demo's one commit, which is re-dated a day after the demo's
    # judging time (the stamp must come from the commit, not from either clock).
    with (root / "mkdocs.yml").open("a") as fh:
        fh.write(f"site_url: {DEMO_SITE_URL}\n")
    for bench, dataset in DEMO_HUB.items():
        with (root / "leaderboards" / f"{bench}.yaml").open("a") as fh:
            fh.write(f"hf_dataset: {dataset}\n")
    subprocess.run(
        ["git", "-C", str(root), "-c", "commit.gpgsign=false", "commit", "-q", "-a", "--amend", "--no-edit", "--reset-author"],
        env=_env(DEMO_COMMITTED),
        check=True,
    )
    return root


@pytest.fixture(scope="session")
def demo_site(demo_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> DemoSite:
    """The authorised demo site, signed with the demo's build key, at <www>/math (its site_url's path)."""

    def make(base: Path) -> DemoSite:
        from builder.demo.instance import BUILD_KEY
        from builder.pipeline.build import build, load_build_key, load_identities
        from builder.render import generator

        # Served under the path of its site_url (mkdocs writes 404.html's links root-absolute there).
        out = base / "www" / urlsplit(DEMO_SITE_URL).path.strip("/")
        lines: list[str] = []
        # Progress every quarter second (default 4): test_progress_counts_pages_while_mkdocs_runs reads
        # these lines for a count between none and all (mkdocs takes several seconds here). Only the
        # building worker patches it, and only for this build.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(generator, "PROGRESS_SECONDS", 0.25)
            report = build(
                demo_repo,
                out,
                identities=load_identities(demo_repo / "keys/demo/identity.txt", None),
                build_key=load_build_key(demo_repo / "keys/demo" / BUILD_KEY, None),
                now=DEMO_CLOCK,
                progress=lines.append,
            )
        count_demo_build("authorised-mkdocs")
        return DemoSite(demo_repo, out, report, tuple(lines))

    return built_once(tmp_path_factory, "shared-demo-site", make)


@pytest.fixture(scope="session")
def demo_zensical(demo_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's commit built authorised with Zensical (skips where Zensical is missing)."""
    import importlib.util

    if importlib.util.find_spec("zensical") is None:
        pytest.skip("Zensical is not installed: pip install 'sealboard[zensical]' (.ci/run does)")

    def make(base: Path) -> Path:
        copy = demo_copy(demo_repo, base / "demo")
        return build_in_child(
            copy, base / "site", identity=True, generator="zensical", clock=DEMO_CLOCK, hash_seed=1, kind="authorised-zensical"
        )

    return built_once(tmp_path_factory, "shared-zensical", make)


@pytest.fixture(scope="session")
def demo_public(demo_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> DemoSite:
    """The demo built with no secret (its own copy: the staged tree differs)."""

    def make(base: Path) -> DemoSite:
        from builder.pipeline.build import build

        copy = demo_copy(demo_repo, base / "demo")
        report = build(copy, base / "site", identities=[], now=DEMO_CLOCK)
        count_demo_build("public-mkdocs")
        return DemoSite(copy, base / "site", report, ())

    return built_once(tmp_path_factory, "shared-public", make)


@pytest.fixture(scope="session")
def served_demo(demo_site: DemoSite) -> Iterator[tuple[Path, str]]:
    """``demo_site`` at http://127.0.0.1:<port>/math/ (a sub-path, as on GitHub Pages, and its site_url's)."""
    for base in serve(demo_site.site.parent):
        yield demo_site.site, base + demo_site.site.name + "/"


# --- the browser --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium per xdist worker; each browser test module takes a context of its
    own in it (``browser`` in tests/render/conftest.py)."""
    from tests.render.cdp import CHROMIUM, Browser

    if CHROMIUM is None:
        pytest.skip("headless Chromium not installed")
    b = Browser(CHROMIUM, tmp_path_factory.mktemp("chromium-profile"))
    yield b
    before = _cpu_seconds()
    b.close()
    _REAPED_APART["(headless Chromium, reaped at the end)"] = _cpu_seconds() - before
