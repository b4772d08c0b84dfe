"""Sorting a board table, as a visitor does it, in headless Chromium (issue 41).

No site build: the real board template (pages.board_page) renders a small board with a cost
column that some rows do not report, and the page loads the site's own tablesort and
sealboard.js from a file. Checked: rows without a value sit below every value whichever way
the column is sorted; Space and Enter on a column title sort it; a shared ``?sort=`` link
shows exactly one sort arrow.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from builder.render import pages

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSETS = Path(pages.__file__).parent / "site_template" / "assets"


def _cell(value):
    if value is None:
        return {"value": None, "ci_low": None, "ci_high": None, "n": 0, "flag": "not-reported"}
    return {"value": value, "ci_low": value * 0.9, "ci_high": value * 1.1, "n": 20}


# (model, rank, accuracy, cost): the unreported costs are spread through the rank order.
ROWS = [("m1", 1, 0.9, None), ("m2", 2, 0.8, 0.05), ("m3", 3, 0.7, None), ("m4", 4, 0.6, 0.01),
        ("m5", 5, 0.5, 0.20), ("m6", 6, 0.4, None), ("m7", None, None, 0.03)]  # fmt: skip
COSTS = {m: c for m, _, _, c in ROWS}


def _board() -> dict:
    return {
        "board": "core", "title": "Core", "description": "", "kind": "table", "rank_by": "accuracy",
        "metrics": [
            {"name": "accuracy", "title": "Accuracy", "description": "d", "unit": "fraction", "higher_is_better": True},
            {"name": "cost_per_correct", "title": "Cost", "description": "d", "unit": "usd", "higher_is_better": False},
        ],
        "rows": [
            {"submission": f"lab/{m}", "model": m, "lab": "lab", "rank": rank,
             "metrics": {"accuracy": _cell(acc), "cost_per_correct": _cell(cost)}}
            for m, rank, acc, cost in ROWS
        ],
        "reference_rows": [], "notes": [], "summary": {},
    }  # fmt: skip


@pytest.fixture(scope="module")
def board_file(tmp_path_factory) -> Path:
    """The board's table as the site renders it, with the site's own sort scripts."""
    md = pages.board_page({"id": "bench", "title": "Bench", "status": "released"}, _board(), {}, {"lab": "Lab"})
    box = re.search(r'<div class="sb-board-box">.*?</table>\n</div>\n</div>', md, re.S)
    assert box, md
    assert "press Enter or Space on it, to sort; rows without a value stay at the bottom" in md  # the page says so
    assert box.group(0).count(">not reported<") == 4  # three costs and m7's accuracy, as the visitor reads them
    root = tmp_path_factory.mktemp("board-sort")
    for name in ("tablesort.min.js", "sealboard.js"):
        shutil.copy(ASSETS / name, root / name)
    page = root / "core.html"
    page.write_text(f"<!doctype html><meta charset=utf-8><title>Core</title><body>{box.group(0)}"
                    '<script src="tablesort.min.js"></script><script src="sealboard.js"></script></body>')  # fmt: skip
    return page


ORDER = """[...document.querySelectorAll('table.sb-board tbody tr')].map(tr => tr.querySelector('.sb-model a').textContent)"""
ARROWS = """[...document.querySelectorAll('table.sb-board thead th[aria-sort]')].map(th => th.dataset.key + ':' + th.getAttribute('aria-sort'))"""


def _costs(order: list[str]) -> list[float | None]:
    return [COSTS[m] for m in order]


def _split(order: list[str]) -> tuple[list[float], list[str]]:
    """The costs shown before the first unreported row, and the rows from there on."""
    costs = _costs(order)
    first_missing = costs.index(None)
    return [c for c in costs[:first_missing] if c is not None], order[first_missing:]


def _press(page, key: str) -> None:
    """A real key press on the focused element (CDP input, as a keyboard sends it)."""
    code = {" ": "Space", "Enter": "Enter"}[key]
    vk = {" ": 32, "Enter": 13}[key]
    for kind in ("keyDown", "keyUp"):
        params = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if kind == "keyDown":
            params["text"] = "\r" if key == "Enter" else key
        page.b.send("Input.dispatchKeyEvent", params, session=page.session)


def test_not_reported_sorts_last_in_both_directions(board_file, browser):
    page = browser.page(1000, 800)
    try:
        page.goto(board_file.as_uri())
        reported = sorted(c for c in COSTS.values() if c is not None)
        page.click('th[data-key="cost_per_correct"]')  # first click: highest first
        down, tail = _split(page.eval(ORDER))
        assert page.eval(ARROWS) == ["cost_per_correct:descending"]
        assert down == reported[::-1] and _costs(tail) == [None, None, None], page.eval(ORDER)
        # The unreported rows keep the board's rank order among themselves.
        assert tail == ["m1", "m3", "m6"]
        page.click('th[data-key="cost_per_correct"]')  # second click: cheapest first
        up, tail = _split(page.eval(ORDER))
        assert page.eval(ARROWS) == ["cost_per_correct:ascending"]
        assert up == reported and _costs(tail) == [None, None, None], page.eval(ORDER)
        # The rank column: the unranked row ("—") is last both ways too.
        page.click('th[data-key="rank"]')
        first = page.eval(ORDER)
        page.click('th[data-key="rank"]')
        second = page.eval(ORDER)
        assert {first[-1], second[-1]} == {"m7"} and first[:-1] == second[:-1][::-1], (first, second)
        assert page.errors() == []
    finally:
        page.close()


def test_space_and_enter_on_a_column_title_sort_it(board_file, browser):
    page = browser.page(1000, 800)
    try:
        page.goto(board_file.as_uri())
        page.eval("document.querySelector('th[data-key=\"cost_per_correct\"]').focus()")
        _press(page, " ")
        assert page.eval(ARROWS) == ["cost_per_correct:descending"]
        assert page.eval("window.scrollY") == 0  # Space sorted; it did not scroll the page
        _press(page, "Enter")
        assert page.eval(ARROWS) == ["cost_per_correct:ascending"]
        assert _split(page.eval(ORDER))[0] == sorted(c for c in COSTS.values() if c is not None)
        # Control: Space elsewhere (the page body) sorts nothing.
        page.eval("document.activeElement.blur()")
        _press(page, " ")
        assert page.eval(ARROWS) == ["cost_per_correct:ascending"]
        assert "sort=cost_per_correct" in page.eval("location.search")
    finally:
        page.close()


@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_a_shared_sort_link_shows_one_arrow(board_file, browser, direction):
    page = browser.page(1000, 800)
    try:
        page.goto(f"{board_file.as_uri()}?sort=cost_per_correct&dir={direction}")
        want = "ascending" if direction == "asc" else "descending"
        assert page.eval(ARROWS) == [f"cost_per_correct:{want}"]
        shown, tail = _split(page.eval(ORDER))
        reported = sorted(c for c in COSTS.values() if c is not None)
        assert shown == (reported if direction == "asc" else reported[::-1]) and len(tail) == 3
        # Sorting another column from there moves the one arrow.
        page.click('th[data-key="accuracy"]')
        assert page.eval(ARROWS) == ["accuracy:descending"]
        assert page.eval("location.search").endswith("sort=accuracy&dir=desc")
    finally:
        page.close()
