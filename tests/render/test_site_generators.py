"""The demo built both ways (issue 20): mkdocs-material by default and Zensical 0.0.73 on the
same staged tree must publish the same pages and data files; the build reports its progress
in pages; the staged tree needs no Sealboard plugin; ``mkdocs`` on the instance's own
mkdocs.yml (what ``mkdocs serve`` runs) previews the last build without per-page lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builder.pipeline.build import build
from builder.render.generator import scrubbed_env
from tests.factory import NOW, make_instance, results_for


@pytest.fixture(scope="module")
def demo(demo_site):
    """The session's authorised demo site (tests/conftest.py): its root, progress lines, site."""
    return demo_site.root, list(demo_site.lines), demo_site.site


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small built instance: what the preview test needs (a staged tree), at a fraction of
    the demo's cost (mkdocs without Sealboard's hooks takes ~42 ms a page)."""
    root = tmp_path_factory.mktemp("preview") / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, False, False] for it in inst.items}))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    build(root, root / "site", identities=[inst.identity], now=NOW)
    return root


def files_of(site: Path, suffix: str) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob(f"*{suffix}")}


def test_build_reports_pages_done_of_total(demo):
    root, lines, site = demo
    staged_pages = sum(1 for _ in (root / ".sealboard/staged/docs").rglob("*.md"))
    html = files_of(site, ".html") - {"404.html"}
    assert len(html) == staged_pages  # one HTML page per staged Markdown page
    done = [line for line in lines if re.search(r"site: \d+ of \d+ pages done", line)]
    assert done and done[-1].strip().startswith(f"site: {staged_pages} of {staged_pages} pages done")
    assert any(f"({staged_pages} pages)" in line for line in lines)


def test_progress_counts_pages_while_mkdocs_runs(demo):
    """The counts come from the generated config's progress hook, while mkdocs works: a line
    between the first and the last says some pages are done and not all. (The shared build
    reports every quarter second, tests/conftest.py; mkdocs takes seconds over the demo.)"""
    root, lines, _ = demo
    total = sum(1 for _ in (root / ".sealboard/staged/docs").rglob("*.md"))
    done = [int(m[1]) for line in lines if (m := re.search(r"site: (\d+) of (\d+) pages done \((converting|writing)", line))]
    assert any(0 < d < total for d in done), lines
    site_lines = [line for line in lines if "pages done" in line]
    assert done == sorted(done) and site_lines[-1].strip().startswith(f"site: {total} of {total} pages done")


def test_staged_tree_builds_without_the_sealboard_plugin(demo):
    root, _, _ = demo
    config = orjson.loads((root / ".sealboard/staged/mkdocs.yml").read_bytes())
    plugins = config.get("plugins", [])
    assert "sealboard" not in plugins and not any(isinstance(p, dict) and "sealboard" in p for p in plugins)
    # Jinja's sandbox first (the others work in its environment), then the fragment reader,
    # the search index and the progress counts.
    assert [Path(h).name for h in config["hooks"]] == [
        "jinja_sandbox.py",
        "fragment_reader.py",
        "search_index.py",
        "progress_hook.py",
    ]
    assert all(Path(h).is_file() for h in config["hooks"])
    assert config["use_directory_urls"] is False and config["theme"]["font"] is False
    # Generated pages are raw HTML: md_in_html is dropped when no page uses it.
    assert "md_in_html" not in config.get("markdown_extensions", [])
    # A generated table is a fragment of the theme folder (render/fragments.py), not Markdown.
    path = next((root / ".sealboard/staged/docs").glob("*/items/*.md"))
    item = path.read_text()
    front = item.split("\n---\n", 1)[0]  # its front matter (a Korean item's also flags the Hangul font)
    assert item.startswith("---\n") and "\ntemplate: sealboard-fragments.html\n" in front
    assert "<table" not in item and "<!-- sealboard:fragment 1 -->" in item
    name = path.relative_to(root / ".sealboard/staged/docs").with_suffix("").as_posix()
    fragments = (root / ".sealboard/staged/overrides/fragments" / f"{name}.html").read_text()  # one file a page
    assert '<table class="sb-items sb-item-verdicts">' in fragments and 'markdown="' not in fragments


def test_zensical_builds_the_same_pages_and_data(demo, demo_zensical):
    """One commit built with each generator (the shared builds, tests/conftest.py)."""
    _, _, mk = demo
    out = demo_zensical
    assert files_of(out, ".html") == files_of(mk, ".html")
    data_mk = {p for p in files_of(mk, "") if p.startswith("data/") and (mk / p).is_file()}
    data_z = {p for p in files_of(out, "") if p.startswith("data/") and (out / p).is_file()}
    assert data_z == data_mk
    for rel in data_mk:
        assert (out / rel).read_bytes() == (mk / rel).read_bytes(), rel
    progress = out.with_name(out.name + ".progress").read_text().splitlines()
    assert progress and [line for line in progress if line.strip().startswith("site: ")], progress[-5:]
    for site in (mk, out):  # the theme puts each generated table in place, for both generators
        item = next(p for p in site.glob("*/items/*.html")).read_text()
        assert '<table class="sb-items sb-item-verdicts">' in item and "sealboard:fragment" not in item
    board = (out / "soohak/index.html").read_text()
    assert "sb-banner" in board  # Sealboard's override (the demo banner) is used by Zensical too
    assert "fonts.googleapis" not in board


def test_mkdocs_preview_of_a_built_instance_is_quiet(small, tmp_path):
    root = small
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(root / "mkdocs.yml"), "-d", str(tmp_path / "preview")],
                          capture_output=True, text=True, env=scrubbed_env(), cwd=root)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    log = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert not [line for line in log if "WARNING" in line or "not included in the" in line], log[:20]
    assert len(log) <= 5, log
    assert files_of(tmp_path / "preview", ".html") == files_of(root / "site", ".html")
