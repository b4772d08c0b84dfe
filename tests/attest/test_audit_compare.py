"""The audit's cell-by-cell comparison (builder/audit/compare.py) on boards written by hand:
no demo, so the quick loop (-m "not slow") reaches builder.audit too."""

from __future__ import annotations

import orjson

from builder.audit.compare import compare_board


def board(*rows: tuple[str, int, dict[str, float | None]]) -> bytes:
    """A board file: rows of (submission, rank, {metric: value}); intervals and n fixed."""
    return orjson.dumps(
        {
            "rows": [
                {
                    "submission": sub,
                    "rank": rank,
                    "metrics": {
                        m: {"value": v, "ci_low": None if v is None else v - 0.1, "ci_high": None if v is None else v + 0.1, "n": 24}
                        for m, v in metrics.items()
                    },
                }
                for sub, rank, metrics in rows
            ]
        }
    )


SHOWN = board(("a/1", 1, {"acc": 0.5, "cost": None}), ("b/1", 2, {"acc": 0.25, "cost": 1.0}))


def test_an_identical_rebuild_agrees_on_every_shown_cell() -> None:
    out = compare_board("data/x/full.json", SHOWN, SHOWN, frozenset())
    # Three cells show a value (a withheld cell, value None, showed no number).
    assert out.identical and (out.agree, out.unverified, out.differ) == (3, 0, [])


def test_a_changed_number_is_found_cell_by_cell() -> None:
    rebuilt = board(("a/1", 1, {"acc": 0.5, "cost": None}), ("b/1", 2, {"acc": 0.3, "cost": 1.0}))
    out = compare_board("data/x/full.json", SHOWN, rebuilt, frozenset())
    assert not out.identical and out.agree == 2
    assert [(d["submission"], d["metric"], d["field"]) for d in out.differ] == [
        ("b/1", "acc", "value"),
        ("b/1", "acc", "ci_low"),
        ("b/1", "acc", "ci_high"),
    ]


def test_a_missing_row_differs_and_a_private_row_is_never_agreeing() -> None:
    rebuilt = board(("a/1", 1, {"acc": 0.5, "cost": None}))
    out = compare_board("data/x/full.json", SHOWN, rebuilt, frozenset())
    assert {(d["submission"], d["field"]) for d in out.differ} == {("b/1", "row")} and len(out.differ) == 2
    private = compare_board("data/x/full.json", SHOWN, rebuilt, frozenset({"b/1"}))
    # The private submission's two cells are unverified, and ranks are not compared.
    assert (private.agree, private.unverified, private.private_rows, private.differ) == (1, 2, 1, [])


def test_a_withheld_rebuilt_cell_is_unverified_and_a_moved_rank_differs() -> None:
    rebuilt = board(("a/1", 2, {"acc": None, "cost": None}), ("b/1", 1, {"acc": 0.25, "cost": 1.0}))
    out = compare_board("data/x/full.json", SHOWN, rebuilt, frozenset())
    assert out.unverified == 1 and out.agree == 2
    assert {(d["submission"], d["field"], d["shown"], d["rebuilt"]) for d in out.differ} == {("a/1", "rank", 1, 2), ("b/1", "rank", 2, 1)}
