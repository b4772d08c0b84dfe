"""``sealboard import … --no-gold ITEMS`` (issue 21): a lab without gold answers leaves the
regraded samples to Sealboard (``correct: null``) and keeps its judge's verdict elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import ParseError
from builder.importers.common import ImportReport
from builder.importers.no_gold import leave_ungraded

SCORING = SimpleNamespace(regrade_types=("integer", "choice"), regrade_when=SimpleNamespace(equals=(("budget", ("high",)),)))


def _copy(tmp_path: Path, types: dict[str, str]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "split": "mini", "question": {"en": "?"}, "answer_type": t}) + "\n" for i, t in types.items())
    )
    return path


def _row(item: str, correct: bool, **extra) -> dict:
    return {"item": item, "lang": "en", "sample": 0, "answer": "7", "correct": correct, "refused": False, **extra}


def test_regraded_types_under_regrade_when_go_ungraded_the_rest_keep_the_verdict(tmp_path):
    copy = _copy(tmp_path, {"a": "integer", "b": "ill_posed", "c": "choice"})
    report = ImportReport(
        rows=[
            _row("a", False, budget="high"),
            _row("b", True, budget="high"),
            _row("c", False, budget="high"),
            _row("a", False, budget="low"),
        ]
    )
    leave_ungraded(report, copy, SCORING)
    assert [r["correct"] for r in report.rows] == [None, True, None, False]  # budget=low is not regraded: kept
    assert report.notes == [
        "2 sample(s) of regraded answer types written ungraded (correct: null, --no-gold): Sealboard's regrade decides "
        "them; 2 keep the harness's verdict"
    ]


def test_an_item_missing_from_the_copy_is_refused(tmp_path):
    copy = _copy(tmp_path, {"a": "integer"})
    with pytest.raises(ParseError) as exc:
        leave_ungraded(ImportReport(rows=[_row("a", False), _row("zz", False)]), copy, SCORING)
    assert exc.value.reason == "bad-item-copy" and "1 item(s) of the results (first: zz)" in exc.value.message


def test_a_file_that_is_not_an_item_copy_is_refused_with_its_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "answer_type": "integer"}\n{"id": "b"}\n')
    with pytest.raises(ParseError) as exc:
        leave_ungraded(ImportReport(rows=[_row("a", False)]), path, SCORING)
    assert exc.value.reason == "bad-item-copy" and exc.value.where == f"{path}:2"


def test_no_gold_needs_the_benchmark(tmp_path):
    log = tmp_path / "samples.jsonl"
    log.write_text("")
    copy = _copy(tmp_path, {"a": "integer"})
    result = CliRunner().invoke(
        main,
        ["import", "eee", str(log), "--no-gold", str(copy), "--out", str(tmp_path / "r.jsonl"), "--describe-out", str(tmp_path / "r.yaml")],
    )
    assert result.exit_code == 2 and "--no-gold needs --benchmark" in result.output, result.output
