"""Items and models, both ways (builder.release.explore): the grid, the model pages' per-item
results and the item pages' verdict rows publish verdicts only of items whose *governing*
statement publishes results, never because another statement in force does.

Hostile case: the whole version released with its text but no per-item results, then one
split with everything. A control: the text-only statement alone publishes no grid, no
per-item section and no verdict row.
"""

from __future__ import annotations

import re
from datetime import timedelta

import orjson
import pytest

from builder.pipeline.build import build
from builder.release.statement import Publish, Scope
from tests.release.support import AFTER, T
from tests.release.test_release_hostile import instance  # acme/run-1: samples right, wrong, right

pytestmark = pytest.mark.slow  # builds sites

TEXT_ONLY = Publish(items=True, results=False, transcripts=False)
ALL = Publish()


def _verdict_rows(page: str) -> list[str]:
    return re.findall(r'<tr id="(m-[^"]+)"', page)


def test_text_released_everywhere_and_results_for_one_split_shows_that_splits_verdicts_only(tmp_path):
    inst = instance(tmp_path, ("a-text", Scope(), TEXT_ONLY), ("b-mini", Scope(splits=("mini",)), ALL, T + timedelta(minutes=1)))
    site = tmp_path / "site"
    build(inst.root, site, identities=[inst.identity], now=AFTER)
    mini = {it["id"] for it in inst.items if it["split"] == "mini"}
    everything = {it["id"] for it in inst.items}
    assert mini < everything
    grid = orjson.loads((site / "data/soohak/grid.json").read_bytes())
    assert {it["id"] for it in grid["items"]} == mini
    assert [m["submission"] for m in grid["models"]] == ["acme/run-1"]
    assert grid["models"][0]["correct"] == [2] * len(mini) and grid["models"][0]["samples"] == [3] * len(mini)
    # The grid page embeds the same data (escaped for a <script> element).
    page = (site / "soohak/grid.html").read_text()
    embedded = re.search(r'<script type="application/json" data-sb-grid-data>(.*?)</script>', page, re.S).group(1)
    assert orjson.loads(embedded) == grid
    for iid in everything:
        item_page = (site / "soohak/items" / f"{iid}.html").read_text()  # every item's text is public
        assert _verdict_rows(item_page) == (["m-acme.run-1"] if iid in mini else []), iid
    model = (site / "soohak/models/acme/run-1.html").read_text()
    assert 'data-anchor="m-acme.run-1"' in model  # each link opens the item page at this row
    linked = set(re.findall(r'<a href="../../items/([^"#]+)\.html">', model))
    assert linked == mini


def test_control_text_only_publishes_no_verdict_anywhere(tmp_path):
    inst = instance(tmp_path, ("a-text", Scope(), TEXT_ONLY))
    site = tmp_path / "site"
    build(inst.root, site, identities=[inst.identity], now=AFTER)
    assert (site / "soohak/items.html").is_file()
    assert not (site / "soohak/grid.html").exists() and not (site / "data/soohak/grid.json").exists()
    assert "Per-item results" not in (site / "soohak/models/acme/run-1.html").read_text()
    for path in (site / "soohak/items").glob("*.html"):
        assert _verdict_rows(path.read_text()) == [], path.name
    assert "grid.html" not in (site / "soohak/items.html").read_text()
