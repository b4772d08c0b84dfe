"""A lab without the gold answers submits ``correct: null`` (issue 21): the build's regrade
decides every regraded sample, and a null the regrade cannot decide rejects its bundle alone.

The factory's SOOHAK items: mini and challenge are integers (regraded), refusal items are
``ill_posed`` (judge-graded: the lab's verdict is what counts there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for


@pytest.fixture()
def inst(tmp_path: Path):
    return make_instance(tmp_path / "inst")


def _ungraded(rows: list[dict], where) -> list[dict]:
    return [dict(r, correct=None) if where(r) else r for r in rows]


def test_ungraded_regraded_samples_count_by_the_regrade(inst, tmp_path):
    items = inst.items
    mini = [it["id"] for it in items if it["split"] == "mini"]
    truth = {i: [True, True, False] for i in mini}
    graded = results_for(items, truth)
    inst.add_submission("acme", "graded", graded)
    # own_answers=False: the factory's respelling of wrong answers reads a null verdict as wrong.
    inst.add_submission("beta", "ungraded", _ungraded(results_for(items, truth), lambda r: r["item"][0] in "mc"), own_answers=False)
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, render=False)
    assert report.rejections == [], [r.message for r in report.rejections]
    boards = {b.board: b for b in next(s for s in report.benchmarks if s.config.id == "soohak").boards}
    rows = {r.submission: r for r in boards["grading"].rows}
    graded_row, ungraded_row = rows["acme/graded"], rows["beta/ungraded"]
    # Both runs gave the same answers: the same Sealboard verdicts, so the same scores.
    mini_rows = {r.submission: r for r in boards["mini"].rows}
    for metric, cell in mini_rows["acme/graded"].metrics.items():
        assert mini_rows["beta/ungraded"].metrics[metric].value == cell.value, metric
    n_regraded = 3 * (len(mini) + len([it for it in items if it["split"] == "challenge"]))
    assert ungraded_row.metrics["lab_ungraded_samples"].value == n_regraded
    assert ungraded_row.metrics["disagreements"].value == 0  # nothing to disagree with: no false disagreement
    assert ungraded_row.metrics["disagreement_rate"].value is None
    assert graded_row.metrics["lab_ungraded_samples"].value == 0


def test_a_null_the_regrade_cannot_decide_rejects_that_bundle_alone(inst, tmp_path):
    items = inst.items
    inst.add_submission("acme", "good", results_for(items))
    refusal = {it["id"] for it in items if it["answer_type"] == "ill_posed"}
    inst.add_submission("beta", "bad", _ungraded(results_for(items), lambda r: r["item"] in refusal))
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, render=False)
    (rej,) = report.rejections
    assert rej.reason == "ungraded-not-regraded" and rej.lab == "beta"
    assert (
        f"{3 * len(refusal)} sample(s) have correct: null (ungraded) on items whose answer type Sealboard does not regrade" in rej.message
    )
    assert not any(i in rej.message for i in refusal)  # which item has which type is embargoed
    soohak = next(s for s in report.benchmarks if s.config.id == "soohak")
    assert {b.manifest.key for b in soohak.bundles} == {"acme/good"}
