"""The publication gate (builder.scoring.gate): under embargo, default-deny.

A field scoring adds without a rule — a summary key, a row extra, a note — is not
published under embargo (board JSON, CSV, page) until a rule admits it; outside an
embargo it is. Cells that have no value say why ("no items", "cutoff unknown"), apart from
cells the embargo withholds.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from builder.render.data import dumps, to_csv
from builder.render.pages import board_page, fmt_value
from builder.scoring import gate
from builder.scoring.kinds import REGISTRY, BoardKind

from .frames import Instance, cell

PLANTED_SUMMARY, PLANTED_EXTRA, PLANTED_NOTE = 918273, 564738, "Planted probe note 7364."


def _soohak() -> Instance:
    inst = Instance("soohak")
    for i in range(30):
        inst.item(f"m{i}", "mini", problem_type="olympiad" if i < 12 else "undergrad" if i < 22 else "graduate")
    for i in range(10):
        inst.item(f"c{i}", "challenge", problem_type="beyond")
    for sub, pattern in (("acme/a", "110"), ("beta/b", "100")):
        inst.sub(sub)
        for it in inst.items:
            inst.answer(sub, it["item"], pattern)
    return inst


@pytest.fixture
def planted(monkeypatch):
    """Every table board gains a summary key, a row extra and a note no rule knows."""
    kind = REGISTRY[BoardKind.TABLE]
    original = kind.build

    def table(*args, **kwargs):
        raw = original(*args, **kwargs)
        raw.summary["planted_probe"] = PLANTED_SUMMARY
        for extra in raw.extras:
            extra["planted_extra"] = PLANTED_EXTRA
        raw.notes.append(PLANTED_NOTE)
        return raw

    monkeypatch.setitem(REGISTRY, BoardKind.TABLE, dataclasses.replace(kind, build=table))
    return monkeypatch


def _published(board) -> str:
    data = board.to_dict()
    page = board_page({"id": "soohak", "title": "SOOHAK", "status": "embargoed"}, data)
    return "\n".join([dumps(data).decode(), to_csv(board.csv_columns(), board.to_csv_rows()).decode(), page])


def test_a_planted_field_is_published_outside_the_embargo(planted):
    out = _published(_soohak().score(embargoed=False)["mini"])
    assert str(PLANTED_SUMMARY) in out and str(PLANTED_EXTRA) in out and PLANTED_NOTE in out


def test_a_planted_field_stays_unpublished_under_embargo_until_a_rule_admits_it(planted):
    board = _soohak().score(embargoed=True)["mini"]
    assert "planted_probe" not in board.summary
    assert all("planted_extra" not in r.extra for r in board.rows)
    out = _published(board)
    assert str(PLANTED_SUMMARY) not in out and str(PLANTED_EXTRA) not in out and PLANTED_NOTE not in out
    assert cell(board, "acme/a", "avg@3").value == pytest.approx(2 / 3)  # the board itself is published

    planted.setitem(gate.SUMMARY_RULES, "planted_probe", gate._always)
    planted.setitem(gate.EXTRA_RULES, "planted_extra", gate._always)
    planted.setattr(gate, "NOTE_RULES", (*gate.NOTE_RULES, (re.compile(re.escape(PLANTED_NOTE)), gate._always)))
    out = _published(_soohak().score(embargoed=True)["mini"])
    assert str(PLANTED_SUMMARY) in out and str(PLANTED_EXTRA) in out and PLANTED_NOTE in out


def test_every_field_of_a_board_is_named_by_the_gate():
    # A field added to BoardTable that the gate does not name keeps its (empty) default
    # under embargo; this pins the list so that adding one is a decision, not an accident.
    from dataclasses import fields

    from builder.scoring.tables import BoardTable

    assert [f.name for f in fields(BoardTable)] == [
        "benchmark", "board", "title", "description", "metrics", "rows", "notes", "reference_rows", "rank_by", "kind", "summary", "withheld",
    ]  # fmt: skip


def test_withheld_cells_are_counted_and_said_on_the_page():
    inst = Instance("soohak")
    for i in range(6):
        inst.item(f"m{i}", "mini")
    for i in range(4):
        inst.item(f"c{i}", "challenge")
    inst.sub("acme/a")
    for it in inst.items:
        inst.answer("acme/a", it["item"], "110")
    boards = inst.score(embargoed=True)
    challenge = boards["challenge"]
    # Challenge rests on 4 < 5 items: both of its cells are withheld, on the one row
    assert challenge.withheld == {"disclosure": 2, "ladder": 0}
    assert challenge.to_dict()["withheld_cells"] == {"disclosure": 2, "ladder": 0}
    page = board_page({"id": "soohak", "title": "SOOHAK", "status": "embargoed"}, challenge.to_dict())
    assert "2 cell(s) of this board are withheld by the disclosure audit" in page
    assert "withheld (embargo)" in page
    assert "withheld_cells" not in inst.score(embargoed=False)["challenge"].to_dict()


def test_no_items_and_cutoff_unknown_are_not_embargo_withholdings():
    inst = Instance("livemathematicianbench")
    for i in range(20):
        inst.item(f"p{i}", answer_type="choice", gold="A", published="2025-06-10", edition="e", category="c")
    inst.sub("acme/late", training_cutoff="2026-01")  # every item is before its cutoff
    inst.sub("beta/unknown")  # no training cutoff declared
    for sub in ("acme/late", "beta/unknown"):
        for i in range(20):
            inst.answer(sub, f"p{i}", "1", variant="standard", sketch=False)
    for embargoed in (False, True):
        overall = inst.score(embargoed=embargoed)["overall"]
        late, unknown = cell(overall, "acme/late", "accuracy"), cell(overall, "beta/unknown", "accuracy")
        assert (late.value, late.suppressed, late.flag) == (None, False, "no-items")
        assert (unknown.value, unknown.suppressed, unknown.flag) == (None, False, "cutoff-unknown")
        assert "no items" in fmt_value(late.to_dict(), "fraction") and "cutoff unknown" in fmt_value(unknown.to_dict(), "fraction")
    assert "withheld (ladder)" in fmt_value({"value": None, "n": None, "suppressed": True, "flag": "ladder"}, "fraction")


ROW = {
    "submission": "beta/run-1", "lab": "beta", "model": "Beta 1", "model_id": "beta-1", "family": "Beta",
    "reasoning_effort": "high", "harness": "inspect_ai 0.3.90", "judge": None, "notes": "Greedy decoding.",
    "created": "2026-01-01T00:00:00Z", "surprise_field": "new and unruled",
}  # fmt: skip


def test_submission_facts_under_embargo_without_screening():
    out = gate.submission(ROW, embargoed=True, screened=False)
    assert out["notes"] is None and out["withheld"] == {"fields": ["notes"], "reason": "withheld until screened"}
    assert (out["model"], out["harness"], out["reasoning_effort"], out["judge"]) == ("Beta 1", "inspect_ai 0.3.90", "high", None)
    assert "surprise_field" not in out  # no rule: not published, screened or not
    assert "surprise_field" not in gate.submission(ROW, embargoed=True, screened=True)


def test_names_beyond_their_declared_shape_are_free_text():
    long_harness = "harness " + "word " * 10  # more words than a name: could hold an 8-word window
    odd = dict(ROW, harness=long_harness, judge="judge; see the question: what is 2+2?")
    out = gate.submission(odd, embargoed=True, screened=False)
    assert out["harness"] is None and out["judge"] is None
    assert out["withheld"]["fields"] == ["harness", "judge", "notes"]
    assert gate.submission(odd, embargoed=True, screened=True)["harness"] == long_harness


def test_screened_or_released_publishes_lab_text():
    assert gate.submission(ROW, embargoed=True, screened=True)["notes"] == "Greedy decoding."
    assert gate.submission(ROW, embargoed=False, screened=False) == ROW
