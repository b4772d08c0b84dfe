"""A model page on a phone, in headless Chromium (issue 41): the standing table fits a 390 px
screen with every value in view, no box to scroll sideways to find the score.

A small instance (tests/factory.py: the SOOHAK boards, two labs) built once, opened from disk.
"""

from __future__ import annotations

import pytest

from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("model-page") / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, False, False] for it in inst.items}))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    out = root.parent / "site"
    build(root, out, identities=[inst.identity], now=NOW)
    return out


STANDING = """(() => {
  const t = document.querySelector('table.sb-model-standing'), wrap = t.parentElement;
  const values = [...t.tBodies[0].rows].map(tr => tr.cells[tr.cells.length - 1].getBoundingClientRect());
  return {rows: t.tBodies[0].rows.length, table: t.scrollWidth, box: wrap.clientWidth,
          valueRight: Math.max(...values.map(r => r.right)), valueWidth: Math.min(...values.map(r => r.width)),
          header: t.tHead.rows[0].cells[t.tHead.rows[0].cells.length - 1].textContent};
})()"""


@pytest.mark.parametrize("width", [390, 1440])
def test_the_standing_table_fits_the_screen_with_the_value_in_view(site, browser, width):
    page = browser.page(width, 844)
    try:
        for rel in ("soohak/models/acme/run-1.html", "soohak/models/beta/run-1.html"):
            page.goto((site / rel).as_uri())
            facts = page.eval(STANDING)
            assert facts["rows"] >= 5 and facts["header"] == "Value", facts
            assert facts["table"] <= facts["box"], f"{rel} @{width}px: the standing table scrolls sideways {facts}"
            assert facts["valueRight"] <= width and facts["valueWidth"] > 0, f"{rel} @{width}px: a value is off the screen {facts}"
            assert page.errors() == []
    finally:
        page.close()
