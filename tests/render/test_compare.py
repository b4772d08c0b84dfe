"""The compare page's embedded data and labels (render/compare.py): paired after a release
for the pairs the release made pairable, Newcombe's unpaired figure otherwise."""

from __future__ import annotations

import html
import re

import orjson

from builder.render import pages
from builder.render.compare import compare_data
from builder.scoring.paired import PairedBoard


def _board(board: str, values: dict[str, float | None]) -> dict:
    return {
        "board": board, "title": board.title(), "description": "", "kind": "table", "rank_by": "acc",
        "metrics": [{"name": "acc", "title": "acc", "description": "d", "unit": "fraction", "higher_is_better": True}],
        "rows": [
            {"submission": s, "model": s.split("/")[1], "lab": s.split("/")[0], "rank": i + 1,
             "metrics": {"acc": {"value": v, "ci_low": None if v is None else v - 0.1, "ci_high": None if v is None else v + 0.1, "n": 6}}}
            for i, (s, v) in enumerate(values.items())
        ],
        "reference_rows": [], "notes": [], "summary": {},
    }  # fmt: skip


SUBS = {"rows": [{"submission": s, "model": s.split("/")[1], "lab": s.split("/")[0], "release_date": None} for s in ("a/x", "b/y", "c/z")]}
# ρ per pair of ("a/x", "b/y", "c/z"): (x,y) (x,z) (y,z)
PAIRED = PairedBoard("mini", 6, ("a/x", "b/y", "c/z"), (333, 866, 577))


def _payload(text: str) -> dict:
    raw = re.search(r'<script type="application/json">(.*?)</script>', text, re.S)
    assert raw is not None
    return orjson.loads(html.unescape(raw.group(1)))


def test_a_released_board_carries_each_pairs_rho_and_its_items():
    data = compare_data(
        [_board("mini", {"a/x": 0.5, "b/y": 0.5, "c/z": 0.33}), _board("other", {"a/x": 0.4, "b/y": 0.3})], SUBS, {"mini": PAIRED}
    )
    assert data is not None
    mini, other = data["boards"]
    assert mini["paired"] == {"n": 6, "table": 0} and "paired" not in other  # no ρ: the page pairs nothing there
    assert data["pairing"] == [{"keys": ["a/x", "b/y", "c/z"], "rho": [333, 866, 577]}] and data["rho_scale"] == 1000


def test_a_withheld_cell_leaves_its_model_out_of_the_pairing():
    data = compare_data([_board("mini", {"a/x": 0.5, "b/y": None, "c/z": 0.33})], SUBS, {"mini": PAIRED})
    assert data is not None
    # ρ(x, z) only, re-indexed for the two models still shown
    assert data["pairing"] == [{"keys": ["a/x", "c/z"], "rho": [866]}]


def test_boards_sharing_items_and_models_share_one_rho_table():
    boards = [_board("mini", {"a/x": 0.5, "b/y": 0.5, "c/z": 0.33}), _board("tiers", {"a/x": 0.5, "b/y": 0.5, "c/z": 0.33})]
    data = compare_data(boards, SUBS, {"mini": PAIRED, "tiers": PairedBoard("tiers", 6, PAIRED.submissions, PAIRED.rho)})
    assert data is not None and len(data["pairing"]) == 1
    assert [b["paired"]["table"] for b in data["boards"]] == [0, 0]


def test_an_embargoed_page_says_not_paired_and_why():
    board = _board("mini", {"a/x": 0.5, "b/y": 0.5})
    text = pages.compare_page({"id": "soohak", "title": "SOOHAK", "status": "embargoed"}, [board], SUBS, None)
    assert text is not None
    assert "**not paired**" in text and "which the embargo keeps sealed" in text and "paired, n =" not in text
    assert _payload(text)["pairing"] == []


def test_a_released_page_explains_paired_with_n():
    board = _board("mini", {"a/x": 0.5, "b/y": 0.5, "c/z": 0.33})
    text = pages.compare_page({"id": "kcsat-ml", "title": "KCSAT-ML", "status": "released"}, [board], SUBS, {"mini": PAIRED})
    assert text is not None
    assert "**paired, n = …**" in text and "Newcombe's method 10" in text and "**not paired**" in text
    assert _payload(text)["boards"][0]["paired"] == {"n": 6, "table": 0}


def test_the_page_gets_each_boards_unit():
    """The page prints a count whole and chooses decimals from an interval's width: it needs the unit."""
    board = _board("mini", {"a/x": 0.5, "b/y": 0.25})
    board["metrics"][0]["unit"] = "count"
    data = compare_data([board, _board("other", {"a/x": 0.4, "b/y": 0.3})], SUBS)
    assert data is not None
    assert [b["unit"] for b in data["boards"]] == ["count", "fraction"]


def test_the_page_states_the_separability_rule():
    text = pages.compare_page(
        {"id": "soohak", "title": "SOOHAK", "status": "embargoed"}, [_board("mini", {"a/x": 0.5, "b/y": 0.5})], SUBS, None
    )
    assert text is not None
    assert "computed from the published figures before any rounding, lies above 0 or below 0; an interval that reaches 0 never is" in text
