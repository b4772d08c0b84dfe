"""An item page's Regrade column counts out of the rows Sealboard regraded, never all samples.

LiveMathematicianBench regrades only its standard variant (``regrade.when``); a
substitution-resistant sample keeps the lab judge's verdict and is not regraded. The
page's "Regrade x / y" must be what ``matrix.csv`` says: y its rows with a
``regrade_correct``, x those of them that are true (issue 40: "2 / 4" for 2 of 2).
"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from builder.release.item_rows import submission_rows
from builder.release.outputs import MATRIX_FIRST, item_summaries
from builder.scoring.row_verdicts import row_verdicts
from tests.scoring.frames import Instance


def _bundle(key: str) -> SimpleNamespace:
    lab = key.split("/")[0]
    return SimpleNamespace(manifest=SimpleNamespace(key=key, lab=lab, publish_results=True, model=SimpleNamespace(name=f"Model {key}")))


def _matrix(inst: Instance) -> pd.DataFrame:
    """matrix.csv's rows as outputs.matrix_frame builds them: results joined with row_verdicts."""
    assert inst.spec is not None
    items, results, _ = inst.frames()
    verdicts = row_verdicts(inst.spec, items, results)
    frame = results.drop(columns=["lab_correct"]).join(verdicts)
    return frame[MATRIX_FIRST + ["variant", "sketch"]]


def _lmb() -> tuple[Instance, pd.DataFrame]:
    inst = Instance("livemathematicianbench")
    inst.item("p1", answer_type="choice", gold="A", published="2025-03-15", edition="2025-03", category="implication")
    both = inst.sub("acme/both", training_cutoff="2024-12")
    std_only = inst.sub("beta/std", training_cutoff="2024-12")
    # acme: 2 standard samples (both right), 2 substitution samples the lab judged right and wrong
    inst.answer(both, "p1", "11", variant="standard", sketch=False)
    inst.answer(both, "p1", [True, False], variant="substitution", sketch=False)
    # beta: 3 standard samples, one right
    inst.answer(std_only, "p1", "100", variant="standard", sketch=False)
    return inst, _matrix(inst)


def _hand_count(matrix: pd.DataFrame, sub: str) -> tuple[int, int, int]:
    rows = matrix[matrix["submission"] == sub]
    regraded = [v for v in rows["regrade_correct"].tolist() if v is not None]
    return len(rows), len(regraded), sum(bool(v) for v in regraded)


def test_regrade_column_is_out_of_the_rows_regraded():
    inst, matrix = _lmb()
    # the hand count from matrix.csv's rows: acme 4 samples, 2 regraded, 2 right; beta 3, 3, 1
    assert _hand_count(matrix, "acme/both") == (4, 2, 2)
    assert _hand_count(matrix, "beta/std") == (3, 3, 1)
    assert sorted(set(matrix.loc[matrix["regrade_correct"].isna(), "variant"])) == ["substitution"]
    state = SimpleNamespace(bundles=[_bundle("acme/both"), _bundle("beta/std")], released_items=[{"id": "p1"}])
    (summary,) = item_summaries(state, matrix)  # type: ignore[arg-type]
    rows = {r["submission"]: r for r in summary.per_submission}
    assert (rows["acme/both"]["samples"], rows["acme/both"]["regraded"], rows["acme/both"]["regrade_correct"]) == (4, 2, 2)
    html = submission_rows([dict(r, anchor=r["submission"]) for r in summary.per_submission], set())
    acme = next(tr for tr in html.split("<tr ") if 'id="acme/both"' in tr)
    beta = next(tr for tr in html.split("<tr ") if 'id="beta/std"' in tr)
    # Correct samples (3: both standard, and the lab's right substitution) and the lab's
    # verdict stay out of all samples; the regrade is out of the two standard rows
    assert "<td>3 / 4<td>3 / 4<td>2 / 2<td>" in acme, acme
    assert "<td>1 / 3<td>1 / 3<td>1 / 3<td>" in beta, beta


def test_a_submission_with_no_row_regraded_says_so():
    inst = Instance("livemathematicianbench")
    inst.item("p1", answer_type="choice", gold="A", published="2025-03-15", edition="2025-03", category="implication")
    sub = inst.sub("acme/sub", training_cutoff="2024-12")
    inst.answer(sub, "p1", "10", variant="substitution", sketch=False)
    matrix = _matrix(inst)
    assert _hand_count(matrix, sub) == (2, 0, 0)
    state = SimpleNamespace(bundles=[_bundle(sub)], released_items=[{"id": "p1"}])
    (summary,) = item_summaries(state, matrix)  # type: ignore[arg-type]
    html = submission_rows([dict(r, anchor="a") for r in summary.per_submission], set())
    assert "<td>1 / 2<td>1 / 2<td>not regraded<td>" in html
