"""Snapshots in a real headless Chromium, as a visitor meets them: from the changelog.

The session's authorised demo site (tests/conftest.py ``demo_site``: the demo records two
earlier deploys, builder/demo/deploys.py, so it has snapshot pages from the first build on)
is opened from disk at 1400 and 390 px: the changelog's deploy line links to the newest
deploy's boards; the snapshot page shows every recorded board with its recorded rows; the
snapshots index links it back; nothing overflows sideways and the console stays clean.
Screenshots land in tests/render/screenshots/ for a person to look at. (Until issue 39 this
built the attestation tests' history demo a second time, a whole-demo build of its own.)
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from tests.render.cdp import CHROMIUM
from tests.render.conftest import browser  # noqa: F401 - the shared fixture (a context in the worker's Chromium)
from tests.render.test_pages_browser import SHOTS, WIDTHS, overflow_problems

if CHROMIUM is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("headless Chromium is required in CI (apt-get install chromium-headless-shell)")
    pytest.skip("chromium not installed", allow_module_level=True)

LINKS = "[...document.querySelectorAll('article a[href*=\"snapshots/\"]')].map(a => a.href)"
TABLES = """[...document.querySelectorAll('table.sb-snapshot')].map(t => ({
  title: t.closest('.sb-table-wrap').previousElementSibling.textContent.replace(/¶$/, '').trim(),
  rows: t.tBodies[0].rows.length,
  first: t.tBodies[0].rows.length ? [...t.tBodies[0].rows[0].cells].map(c => c.textContent.trim()) : [],
}))"""


@pytest.fixture(scope="module")
def site(demo_site):
    return demo_site.site


@pytest.fixture(scope="module")
def recorded(demo_site) -> Path:
    """The newest recorded deploy of the shared demo (its folder under attestations/)."""
    return sorted(p for p in (demo_site.root / "attestations").iterdir() if p.is_dir())[-1]


@pytest.mark.parametrize("width,height", WIDTHS, ids=[f"{w}px" for w, _ in WIDTHS])
def test_the_changelog_opens_the_board_as_it_stood(recorded, site, browser, width, height):  # noqa: F811
    name = recorded.name
    # A snapshot repeats every model name of the deploy: search finds model pages, not copies.
    assert f"snapshots/{name}/" not in (site / "search/search_docs.js").read_text(encoding="utf-8")
    boards = {orjson.loads(p.read_bytes())["title"]: orjson.loads(p.read_bytes()) for p in (recorded / "boards/kcsat-ml").glob("*.json")}
    assert boards, f"no recorded KCSAT-ML board in {recorded}"
    page = browser.page(width, height)
    try:
        page.goto((site / "changelog.html").resolve().as_uri())
        links = page.eval(LINKS)
        target = next(u for u in links if u.endswith(f"snapshots/{name}/kcsat-ml.html"))
        page.goto(target)
        heading = page.eval("document.querySelector('article h1').textContent")
        assert heading.startswith("KCSAT-ML as of "), heading
        tables = page.eval(TABLES)
        shown = {t["title"]: t for t in tables}
        assert set(shown) == set(boards), (sorted(shown), sorted(boards))
        for title, board in boards.items():
            assert shown[title]["rows"] == len(board["rows"]) + len(board.get("reference_rows", [])), title
        full = next(b for b in boards.values() if b["board"] == "full")
        top = min(full["rows"], key=lambda r: r["rank"])
        assert shown[full["title"]]["first"][1] == top["model"], shown[full["title"]]["first"]
        problems = overflow_problems(page, width, f"snapshot @{width}px") + page.errors()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(SHOTS / f"snapshot-kcsat-ml-{width}.png")
        page.goto((site / "snapshots.html").resolve().as_uri())
        assert any(u.endswith(f"snapshots/{name}/soohak.html") for u in page.eval(LINKS))
        problems += overflow_problems(page, width, f"snapshots index @{width}px") + page.errors()
        page.screenshot(SHOTS / f"snapshots-index-{width}.png")
        assert not problems, "\n".join(problems)
    finally:
        page.close()


def _nav_pages(nav) -> set[str]:
    out: set[str] = set()
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            out |= _nav_pages(value) if isinstance(value, list) else {value}
    return out


def test_every_generated_page_is_in_the_nav_or_kept_out_of_it(demo_site):
    """A page neither in the nav nor in ``not_in_nav`` makes mkdocs (and `mkdocs serve`)
    list it on every build: the snapshot pages are kept out like model and item pages."""
    import pathspec

    from builder.render.site_tree import NOT_IN_NAV

    staged = demo_site.root / ".sealboard" / "staged"
    nav = _nav_pages(orjson.loads((staged / "meta.json").read_bytes())["nav"])
    spec = pathspec.PathSpec.from_lines("gitignore", NOT_IN_NAV.splitlines())
    pages = sorted(p.relative_to(staged / "pages").as_posix() for p in (staged / "pages").rglob("*.md"))
    assert any(p.startswith("snapshots/") for p in pages), pages[:5]
    stray = [p for p in pages if p not in nav and not spec.match_file(p)]
    assert stray == [], stray[:10]
