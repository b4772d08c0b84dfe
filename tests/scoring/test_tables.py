"""The board JSON and CSV shapes (design, "Output data")."""

from __future__ import annotations

import json

from builder.scoring import BoardRow, BoardTable, Cell, MetricDef

from .frames import Instance


def _board() -> dict:
    inst = Instance("soohak")
    for i in range(6):
        inst.item(f"m{i}", "mini", gold=str(i))
    for sub, p in (("acme/a", "111"), ("beta/b", "100"), ("gamma/c", "000")):
        inst.sub(sub)
        for i in range(6):
            inst.answer(sub, f"m{i}", p if i % 2 else "110")
    return inst.score()


def test_board_json_has_the_contract_fields():
    mini = _board()["mini"].to_dict()
    assert {"benchmark", "board", "title", "metrics", "rows"} <= mini.keys()
    assert mini["benchmark"] == "soohak" and mini["board"] == "mini"
    assert [m["name"] for m in mini["metrics"]] == ["avg@3", "pass@3"]
    assert {"name", "title", "description", "unit", "higher_is_better"} <= mini["metrics"][0].keys()
    r = mini["rows"][0]
    assert {"submission", "model", "lab", "metrics", "rank"} <= r.keys()
    assert set(r["metrics"]["avg@3"]) == {"value", "ci_low", "ci_high", "n"}
    for row in mini["rows"]:
        for c in row["metrics"].values():
            assert 0 <= c["value"] <= 1  # rates are fractions
    json.dumps(mini, allow_nan=False)  # strict JSON: no NaN anywhere


def test_rank_range_only_where_tied():
    rows = _board()["mini"].to_dict()["rows"]
    assert all(("rank_range" in r) == (r["rank_range"][0] < r["rank_range"][1] if "rank_range" in r else False) for r in rows)


def test_csv_rows_one_per_submission():
    table = _board()["mini"]
    cols = table.csv_columns()
    assert cols[:6] == ["rank", "rank_low", "rank_high", "submission", "model", "lab"]
    assert cols[6:10] == ["avg@3", "avg@3_ci_low", "avg@3_ci_high", "avg@3_n"]
    rows = table.to_csv_rows()
    assert len(rows) == 3 and all(list(r) == cols for r in rows)
    assert rows[0]["avg@3_n"] == 6


def test_withheld_and_flagged_cells_serialise():
    table = BoardTable(
        benchmark="b",
        board="x",
        title="X",
        description="",
        metrics=(MetricDef("m", "M", "d"),),
        rows=(
            BoardRow("l/s", "S", "l", {"m": Cell(None, None, None, 3, suppressed=True)}),
            BoardRow("l/t", "T", "l", {"m": Cell(None, n=0, flag="no-items")}),
        ),
    )
    d = table.to_dict()
    assert d["rows"][0]["metrics"]["m"] == {"value": None, "ci_low": None, "ci_high": None, "n": 3, "suppressed": True}
    assert d["rows"][1]["metrics"]["m"]["flag"] == "no-items"
    assert d["rows"][0]["rank"] is None and "rank_range" not in d["rows"][0]
