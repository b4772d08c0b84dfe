"""Bootstrap weights, intervals and rank ranges (builder.scoring.uncertainty)."""

from __future__ import annotations

import numpy as np
import pytest

from builder.scoring.uncertainty import competition_ranks, poisson_weights

from .frames import Instance, cell, row


def test_weights_are_poisson_one_and_deterministic():
    ids = np.array([f"item-{i}" for i in range(400)])
    w = poisson_weights(ids, 1000, seed=5)
    assert w.shape == (1000, 400)
    assert w.mean() == pytest.approx(1.0, abs=0.01)  # Poisson(1): mean 1, variance 1
    assert w.var() == pytest.approx(1.0, abs=0.03)
    assert (w == poisson_weights(ids, 1000, seed=5)).all()
    assert not (w == poisson_weights(ids, 1000, seed=6)).all()


def test_an_items_weights_do_not_depend_on_other_items():
    ids = np.array(["a", "b", "c"])
    w = poisson_weights(ids, 200, seed=1)
    more = poisson_weights(np.array(["0", "a", "b", "zz", "c"]), 200, seed=1)
    assert (w == more[:, [1, 2, 4]]).all()


def test_competition_ranks_share_the_better_rank():
    ranks = competition_ranks(np.array([[0.1, 0.3, 0.1, np.nan, 0.0]]))
    assert ranks[0, :3].tolist() == [2, 4, 2] and np.isnan(ranks[0, 3]) and ranks[0, 4] == 1


def _two_models(p_a: str, p_b: str, n: int = 30) -> dict:
    inst = Instance("soohak")
    for i in range(n):
        inst.item(f"m{i:02d}", "mini", gold=str(i + 1))
    for sub, p in (("acme/a", p_a), ("beta/b", p_b)):
        inst.sub(sub)
        for i in range(n):
            inst.answer(sub, f"m{i:02d}", "111" if p[i % len(p)] == "1" else "000")
    return inst.score()


def test_interval_contains_the_estimate_and_stays_in_unit_range():
    mini = _two_models("1101001110", "1")["mini"]
    for r in mini.rows:
        for c in r.metrics.values():
            assert 0.0 <= c.ci_low <= c.value <= c.ci_high <= 1.0
    perfect = cell(mini, "beta/b", "avg@3")
    assert (perfect.value, perfect.ci_low, perfect.ci_high) == (1.0, 1.0, 1.0)


def test_separable_models_get_no_rank_range():
    mini = _two_models("1", "0")["mini"]  # 100% vs 0% on 30 items
    assert [(r.rank, r.rank_range) for r in mini.rows] == [(1, None), (2, None)]


def test_close_models_share_a_rank_range():
    # 16/30 vs 15/30 on mostly different items: not separable
    mini = _two_models("10", "01")["mini"]
    assert row(mini, "acme/a").rank_range == (1, 2)
    assert row(mini, "beta/b").rank_range == (1, 2)


def test_identical_models_tie():
    mini = _two_models("110", "110")["mini"]
    assert [(r.rank, r.rank_range) for r in mini.rows] == [(1, None), (1, None)]


def test_intervals_are_reproducible_across_runs():
    a = _two_models("1101001110", "0110")["mini"].to_dict()
    b = _two_models("1101001110", "0110")["mini"].to_dict()
    assert a == b
