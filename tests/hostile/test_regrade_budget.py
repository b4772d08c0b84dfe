"""Regrading under a per-bundle time budget (issue 22, "Hostile logs and answers").

A bundle full of ``(x+1)^{999}`` answers (each runs math-verify into its 5-second alarm) is
rejected with ``regrade-budget`` while the other bundle publishes; math-verify runs in a
child process, on its main thread, under a wall-clock limit that holds wherever the build
runs (also from a thread, where math-verify's signal alarm would not). Control: answers that
need the equivalence path but are ordinary grade within the budget, with the verdicts the
equivalence path gives.
"""

from __future__ import annotations

import threading
import time

import pytest

from builder.pipeline.regrade_budget import grade_within
from builder.scoring import regrade
from hostile.support import ACME, BETA, BETA_ROWS, assert_rejected, reseal, rows_bytes, run, where_of

SLOW = "(x+{k})^{{999}}"


def _rows_with_answers(answer) -> list[dict]:  # type: ignore[no-untyped-def]
    rows = [dict(r) for r in BETA_ROWS]
    for k, r in enumerate(rows):
        r["answer"] = answer(k, r)
    return rows


def test_a_bundle_of_unbounded_answers_is_rejected_and_the_rest_publish(inst, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEALBOARD_REGRADE_BUDGET_S", "3")
    reseal(inst, BETA, rows_bytes(_rows_with_answers(lambda k, r: SLOW.format(k=k))))
    start = time.monotonic()
    report = run(inst)
    assert_rejected(report, (where_of(BETA), "regrade-budget"), publishes=[ACME])
    (rej,) = report.rejections
    assert "(x+" not in rej.message and "999" not in rej.message  # answers are embargoed
    # Hundreds of 5-second answers, stopped at the budget (generous: the machine is shared).
    assert time.monotonic() - start < 120


def test_control_ordinary_equivalence_answers_grade_within_the_budget(inst, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEALBOARD_REGRADE_BUDGET_S", "60")
    # "2 \cdot 5" is not read by the exact path: math-verify decides it.
    reseal(
        inst,
        BETA,
        rows_bytes(_rows_with_answers(lambda k, r: r["answer"] if r["answer"] is None else f"\\left({r['answer']}\\right)^{{1}}")),
    )
    report = run(inst)
    assert report.rejections == []
    assert {ACME, BETA} <= set(report.benchmarks[0].results["submission"])


def test_budget_holds_off_the_main_thread() -> None:
    found: list[object] = []
    pairs = [("integer", "10", SLOW.format(k=k)) for k in range(1, 4)]
    worker = threading.Thread(target=lambda: found.append(grade_within(pairs, 2.0)))
    start = time.monotonic()
    worker.start()
    worker.join(60)
    assert not worker.is_alive() and found == [None]
    assert time.monotonic() - start < 60


def test_verdicts_from_the_child_equal_the_equivalence_path() -> None:
    pairs = [("expression", "2\\sqrt{3}", "\\sqrt{12}"), ("integer", "100", "10^2"), ("integer", "100", "10^3")]
    verdicts = grade_within(pairs, 60.0)
    assert verdicts == [regrade.equivalent(*p) for p in pairs]
    assert [v.correct for v in verdicts] == [True, True, False]


def test_a_bundle_after_one_over_the_budget_is_still_graded_in_a_new_child() -> None:
    from builder.pipeline.regrade_budget import grade_bundles

    slow = [("integer", "10", SLOW.format(k=k)) for k in range(5, 8)]
    fast = [("integer", "100", "10^2")]
    verdicts, over = grade_bundles([("lab/slow", slow), ("lab/fast", fast)], 2.0)
    assert over == ["lab/slow"]
    assert verdicts == {fast[0]: regrade.equivalent(*fast[0])}
