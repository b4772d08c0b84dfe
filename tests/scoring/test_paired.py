"""Paired differences' item correlations (builder.scoring.paired) on a tiny SOOHAK instance,
checked against ρ computed by hand from its definition: the correlation over the board's
items of the two models' per-item scores (avg@3: correct samples / 3)."""

from __future__ import annotations

import pytest

from builder.scoring.paired import RHO_SCALE, paired_boards

from .frames import Instance

# Six Mini items; per-item avg@3 scores (correct samples of 3):
#   a: 1 1 1 0 0 0      mean 1/2, deviations ±1/2, Σdev² = 6/4
#   b: 1 1 0 0 0 1      mean 1/2, deviations +,+,−,−,−,+ (½ each), Σdev² = 6/4
#   c: 1 ⅔ ⅓ 0 0 0      mean 1/3, deviations ⅔, ⅓, 0, −⅓, −⅓, −⅓, Σdev² = (4+1+0+1+1+1)/9 = 8/9
#   d: 1 1 1 1 1 1      no spread: ρ = 0 with anyone (its interval carries no correlation)
# ρ(a,b) = Σ dev_a·dev_b / √(Σdev_a² Σdev_b²) = (¼+¼−¼+¼+¼−¼) / (6/4) = (2/4)/(6/4) = 1/3
# ρ(a,c) = ½·(⅔+⅓+0) + ½·(⅓+⅓+⅓) = 1, over √(6/4 · 8/9) = √(4/3) = 1.1547: 0.8660
# ρ(b,c) = ½·(⅔+⅓) − ½·0 + ½·(⅓+⅓) − ½·⅓ = ⅔, over 1.1547: 0.5774
PATTERNS = {
    "acme/a": ["111", "111", "111", "000", "000", "000"],
    "beta/b": ["111", "111", "000", "000", "000", "111"],
    "gamma/c": ["111", "110", "100", "000", "000", "000"],
    "delta/d": ["111"] * 6,
}
MINI = [f"m{i}" for i in range(6)]


def _instance(extra: dict[str, list[str]] | None = None) -> Instance:
    inst = Instance("soohak")
    for item in MINI:
        inst.item(item, "mini")
    inst.item("c0", "challenge")
    for sub, pattern in {**PATTERNS, **(extra or {})}.items():
        inst.sub(sub)
        for item, p in zip(MINI, pattern):
            if p:
                inst.answer(sub, item, p)
        inst.answer(sub, "c0", "100")
    return inst


def _paired(inst: Instance, items=None, subs=None):
    items_f, results, subs_f = inst.frames()
    return paired_boards(
        inst.spec,
        items_f,
        results,
        subs_f,
        public_items=items or [*MINI, "c0"],
        public_submissions=subs or [s["submission"] for s in inst.subs],
    )


def test_rho_of_each_pair_is_the_correlation_of_item_scores():
    mini = _paired(_instance())["mini"]
    assert mini.n == 6 and mini.submissions == ("acme/a", "beta/b", "delta/d", "gamma/c")
    assert mini.correlation("acme/a", "beta/b") == pytest.approx(1 / 3, abs=0.5 / RHO_SCALE)
    assert mini.correlation("gamma/c", "acme/a") == pytest.approx(0.8660, abs=0.5 / RHO_SCALE)
    assert mini.correlation("beta/b", "gamma/c") == pytest.approx(0.5774, abs=0.5 / RHO_SCALE)
    assert mini.correlation("delta/d", "acme/a") == 0.0
    # the published integers, pair by pair: (a,b) (a,d) (a,c) (b,d) (b,c) (d,c)
    assert mini.rho == (333, 0, 866, 0, 577, 0)


def test_only_published_per_item_results_are_paired():
    inst = _instance()
    # a private submission (not opted in) is no one's pair
    assert _paired(inst, subs=["acme/a", "beta/b"])["mini"].submissions == ("acme/a", "beta/b")
    assert "mini" not in _paired(inst, subs=["acme/a"])  # one model pairs with nobody
    # a board with an item whose results are not published stays unpaired; others do not
    partial = _paired(inst, items=MINI[:-1] + ["c0"])
    assert "mini" not in partial and "challenge" in partial


def test_a_model_not_graded_on_every_item_of_the_board_is_not_paired():
    inst = _instance({"eps/e": ["111", "111", "111", "000", "000", ""]})  # no result for m5
    assert "eps/e" not in _paired(inst)["mini"].submissions


def test_a_ranking_metric_that_is_not_a_mean_of_item_scores_is_not_paired():
    got = _paired(_instance())
    # composite (mean of boards), contrast (a difference) and an unranked board: no ρ
    assert {"composite", "languages", "refusal-calibration"}.isdisjoint(got)
