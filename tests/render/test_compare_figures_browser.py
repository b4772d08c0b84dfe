"""The compare page's figures as a visitor reads them, in headless Chromium (issue 41).

No site build: the real compare template (pages.compare_page) over small hand-made boards,
with the site's own sealboard.js from a file. Checked against hand computations (Newcombe's
square-and-add, ρ = 0, since nothing is paired here): a figure carries two significant digits
of its interval's half-width; nothing reads "−0.0"; an interval that reaches 0 is never
marked separable, and a separable one never shows a limit of 0; a count is whole.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from builder.render import pages

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSETS = Path(pages.__file__).parent / "site_template" / "assets"
SUBS = {"rows": [{"submission": f"lab/{m}", "model": m, "lab": "lab", "release_date": None} for m in ("x", "y", "z", "w")]}


def _board(name: str, unit: str, cells: dict[str, tuple[float, float | None, float | None]]) -> dict:
    return {
        "board": name, "title": name.title(), "description": "", "kind": "table", "rank_by": "m",
        "metrics": [{"name": "m", "title": "m", "description": "d", "unit": unit, "higher_is_better": True}],
        "rows": [
            {"submission": f"lab/{m}", "model": m, "lab": "lab", "rank": i + 1, "rank_range": [1, 4],
             "metrics": {"m": {"value": v, "ci_low": lo, "ci_high": hi, "n": 300}}}
            for i, (m, (v, lo, hi)) in enumerate(cells.items())
        ],
        "reference_rows": [], "notes": [], "summary": {},
    }  # fmt: skip


# Figures as the page holds them (three decimals, charts.display_value).
# Δ vs x = 0 [−0.1, 0.1] (half-width 0.1 each side): each other model's interval is its value
# ± 0.1, so Δ's limits are Δ ∓ √(0.1² + 0.1²) = Δ ∓ 0.141421…, half-width 0.14 → 2 decimals.
SLOPES = _board("calibration", "slope", {
    "x": (0.0, -0.1, 0.1),
    "y": (0.145, 0.045, 0.245),      # Δ 0.145 [0.003579, 0.286421]: separable; 0.00 → 0.004
    "z": (0.14, 0.04, 0.24),         # Δ 0.14 [−0.001421, 0.281421]: reaches 0, not separable
    "w": (-0.004, -0.104, 0.096),    # Δ −0.004 [−0.145421, 0.137421]: "0.00", never "−0.00"
})  # fmt: skip
COUNTS = _board("grading", "count", {"x": (627, None, None), "y": (720, None, None), "z": (627, None, None), "w": (600, None, None)})
# The demo's kcsat-ml calibration slope that read "0.1 [−0.0, 0.2]".
DEMO_SLOPE = _board("slope", "slope", {"x": (0.07583741024975175, -0.03561659429138783, 0.18729141479089134),
                                       "y": (0.6592721454697598, 0.4892245040933585, 0.829319786846161)})  # fmt: skip


@pytest.fixture(scope="module")
def compare_file(tmp_path_factory) -> Path:
    md = pages.compare_page({"id": "bench", "title": "Bench", "status": "embargoed"}, [SLOPES, COUNTS, DEMO_SLOPE], SUBS, None)
    assert md is not None
    box = re.search(r'<div class="sb-compare".*?<div class="sb-compare-out"></div>\n</div>', md, re.S)
    assert box, md
    root = tmp_path_factory.mktemp("compare")
    shutil.copy(ASSETS / "sealboard.js", root / "sealboard.js")
    page = root / "compare.html"
    page.write_text(
        f'<!doctype html><meta charset=utf-8><title>Compare</title><body>{box.group(0)}<script src="sealboard.js"></script></body>'
    )
    return page


ROWS = """Object.fromEntries([...document.querySelectorAll('table.sb-compare-table')].map(t => [t.caption.querySelector('a').getAttribute('href'),
  Object.fromEntries([...t.tBodies[0].rows].filter(tr => tr.cells.length === 4).map(tr => [tr.dataset.sub, {value: tr.cells[2].textContent, diff: tr.cells[3].textContent, separable: tr.dataset.separable === '1'}]))]))"""


@pytest.fixture(scope="module")
def shown(compare_file, browser) -> dict:
    page = browser.page(1000, 800)
    try:
        page.goto(compare_file.as_uri() + "?m=lab/x&m=lab/y&m=lab/z&m=lab/w")
        assert page.errors() == []
        return page.eval(ROWS)
    finally:
        page.close()


def test_a_separable_difference_never_shows_a_limit_of_zero(shown):
    y = shown["calibration.html"]["lab/y"]
    assert y["separable"] and y["diff"].startswith("+0.145 [0.004, 0.286] separable"), y


def test_an_interval_that_reaches_zero_is_not_separable(shown):
    z = shown["calibration.html"]["lab/z"]
    assert not z["separable"] and z["diff"].startswith("+0.14 [0.00, 0.28]") and "separable" not in z["diff"], z


def test_nothing_reads_minus_zero(shown):
    w = shown["calibration.html"]["lab/w"]
    assert w["value"] == "0.00 [\u22120.10, 0.10]" and w["diff"].startswith("0.00 [\u22120.15, 0.14]"), w
    text = " ".join(c for board in shown.values() for row in board.values() for c in (row["value"], row["diff"]))
    assert not re.search(r"[\u2212-]0(\.0*)?(?![.0-9])", text), text


def test_decimals_follow_the_interval_width(shown):
    # Half-width 0.11 → two decimals: "0.08 [−0.04, 0.19]" (it read "0.1 [−0.0, 0.2]").
    assert shown["slope.html"]["lab/x"]["value"] == "0.08 [\u22120.04, 0.19]"
    assert shown["slope.html"]["lab/y"]["value"] == "0.66 [0.49, 0.83]"
    # Δ 0.5834 [0.3801, 0.7868] by square-and-add; half-width 0.20 → two decimals.
    assert shown["slope.html"]["lab/y"]["diff"].startswith("+0.58 [0.38, 0.79] separable")


def test_a_count_is_whole(shown):
    counts = shown["grading.html"]
    assert [counts[k]["value"] for k in ("lab/x", "lab/y", "lab/z", "lab/w")] == ["627", "720", "627", "600"]
    assert [counts[k]["diff"] for k in ("lab/x", "lab/y", "lab/z", "lab/w")] == ["reference", "+93", "0", "\u221227"]
