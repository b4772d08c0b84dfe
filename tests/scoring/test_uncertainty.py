"""Intervals and rank ranges (builder.scoring.uncertainty), against hand computations.

The method (the module's docstring): a rate p̂ = Σa/Σd over n items has the item-clustered
variance V = n/(n−1)·Σ((a_i − p̂ d_i)/Σd)², n_eff = p̂(1−p̂)/V (n when V or p̂(1−p̂) is 0),
reduced by Korn & Graubard's factor (z/t_{n−1})², and Wilson's interval with that many
trials. Sums of rates use MOVER with the item-level correlation. The t quantiles below are
read from a printed t table (97.5th percentile).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from builder.scoring.uncertainty import competition_ranks, linear, ratio, t975
from tests.scoring.reference_stats import scipy_stats

from .frames import Instance, cell, row

Z = 1.959964
T_TABLE = {3: 3.182446, 29: 2.045230, 338: 1.967007}


def wilson_only(p: float, n: float) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z√(p(1−p)/n + z²/4n²)) / (1 + z²/n)."""
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def wilson(p: float, n: float) -> tuple[float, float]:
    """The published interval for rate p with n (Korn–Graubard-adjusted) trials: Wilson's,
    widened to contain Clopper–Pearson's with x = p·n successes where x or n − x is below 10
    (beta quantiles from scipy.stats, not the code's betaincinv)."""
    lo, hi = wilson_only(p, n)
    x = p * n
    if min(x, n - x) < 10:
        cp_lo = scipy_stats().beta.ppf(0.025, x, n - x + 1) if x > 0 else 0.0
        cp_hi = scipy_stats().beta.ppf(0.975, x + 1, n - x) if n - x > 0 else 1.0
        lo, hi = min(lo, cp_lo), max(hi, cp_hi)
    return max(lo, 0.0), min(hi, 1.0)


def one_row(y: list[float], d: float = 1.0):
    a = np.array([y]) * d
    return ratio(a, np.full_like(a, d), np.ones_like(a, dtype=bool), np.array([None], dtype=object))


def test_t_quantiles_match_the_table():
    assert t975(np.array([3, 29, 338])) == pytest.approx([T_TABLE[3], T_TABLE[29], T_TABLE[338]], abs=2e-5)


def _two_models(p_a: str, p_b: str, n: int = 30) -> dict:
    inst = Instance("soohak")
    for i in range(n):
        inst.item(f"m{i:02d}", "mini", gold=str(i + 1))
    for sub, p in (("acme/a", p_a), ("beta/b", p_b)):
        inst.sub(sub)
        for i in range(n):
            inst.answer(sub, f"m{i:02d}", "111" if p[i % len(p)] == "1" else "000")
    return inst.score()


def test_a_perfect_score_has_a_lower_limit_below_one():
    # p̂ = 1 on 30 items: V says nothing, n_eff = 30 items, × (z/t_29)²; Wilson at p = 1 is
    # [n/(n + z²), 1].
    mini = _two_models("1101001110", "1")["mini"]
    n = 30 * (Z / T_TABLE[29]) ** 2  # 27.5514
    perfect = cell(mini, "beta/b", "avg@3")
    assert perfect.value == 1.0 and perfect.ci_high == 1.0
    # Wilson's n/(n + z²) = 0.8776; Clopper–Pearson's 0.025^(1/n) = 0.8747 is lower: the union
    assert perfect.ci_low == pytest.approx(min(n / (n + Z * Z), 0.025 ** (1 / n)), abs=1e-5)
    assert perfect.ci_low == pytest.approx(0.8747, abs=1e-4)
    for r in mini.rows:
        for c in r.metrics.values():
            assert 0.0 <= c.ci_low <= c.value <= c.ci_high <= 1.0


def test_zero_on_339_items_is_not_a_zero_width_interval():
    est = one_row([0.0] * 339, d=3.0)
    n = 339 * (Z / T_TABLE[338]) ** 2  # 336.58
    assert (est.value[0], est.lo[0]) == (0.0, 0.0)
    assert est.hi[0] == pytest.approx(Z * Z / (n + Z * Z), abs=1e-6)  # 0.0113


def test_design_effect_from_samples_that_move_together():
    # 4 items, 3 samples each: 3/3, 0/3, 1/3, 2/3 correct -> item scores 1, 0, 1/3, 2/3.
    est = one_row([1, 0, 1 / 3, 2 / 3], d=3.0)  # a_i = correct samples, d_i = 3
    # p̂ = 6/12 = 0.5; (a_i − p̂ d_i)/Σd = (1.5, −1.5, −0.5, 0.5)/12
    v = 4 / 3 * (1.5**2 + 1.5**2 + 0.5**2 + 0.5**2) / 144  # 0.0462963
    n_eff = 0.25 / v  # 5.4 (of 12 samples: the design effect is 12/5.4 = 2.2)
    lo, hi = wilson(0.5, n_eff * (Z / T_TABLE[3]) ** 2)  # n = 2.0482
    assert est.value[0] == 0.5
    assert (est.lo[0], est.hi[0]) == pytest.approx((lo, hi), abs=1e-5)
    assert wilson_only(0.5, n_eff * (Z / T_TABLE[3]) ** 2) == pytest.approx((0.0962, 0.9038), abs=1e-4)
    assert (lo, hi) == pytest.approx((0.0136, 0.9864), abs=1e-4)  # 1.02 successes of 2.05: Clopper–Pearson's limits


def test_a_paired_difference_uses_both_intervals_and_their_correlation():
    # 4 items, one sample each: A right on items 1-2, B right on item 1.
    a, b = one_row([1, 1, 0, 0]), one_row([1, 0, 0, 0])
    diff = linear([(-1.0, a), (1.0, b)])
    # A: p̂ 0.5, influences ±1/8, V = 4/3·4/64 = 1/12, n_eff = 3.
    # B: p̂ 0.25, influences (3/16, −1/16, −1/16, −1/16), V = 4/3·12/256 = 1/16, n_eff = 3.
    k = (Z / T_TABLE[3]) ** 2
    la, ua = wilson(0.5, 3 * k)
    lb, ub = wilson(0.25, 3 * k)
    # correlation of the influences: (3/128 − 1/128 + 1/128 + 1/128) / (√(4/64)·√(12/256)) = 1/√3
    rho = (4 / 128) / (math.sqrt(4 / 64) * math.sqrt(12 / 256))
    assert rho == pytest.approx(1 / math.sqrt(3))
    # MOVER for B − A: L = d − √((p_B − l_B)² + (u_A − p_A)² − 2ρ(p_B − l_B)(u_A − p_A)), U likewise.
    d = -0.25
    low = d - math.sqrt((0.25 - lb) ** 2 + (ua - 0.5) ** 2 - 2 * rho * (0.25 - lb) * (ua - 0.5))
    high = d + math.sqrt((ub - 0.25) ** 2 + (0.5 - la) ** 2 - 2 * rho * (ub - 0.25) * (0.5 - la))
    assert diff.value[0] == d
    assert (diff.lo[0], diff.hi[0]) == pytest.approx((low, high), abs=1e-5)


def test_a_rate_whose_items_all_agree_keeps_a_width():
    # 0/3 everywhere on two models: their difference is 0 but not known to be exactly 0.
    a, b = one_row([0.0] * 78, d=3.0), one_row([0.0] * 78, d=3.0)
    diff = linear([(-1.0, a), (1.0, b)])
    u = Z * Z / (78 * (Z / t975(np.array([77]))[0]) ** 2 + Z * Z)  # each rate's upper limit
    # both terms have zero influence, so ρ = 0: the limits are ∓√(0² + u²)
    assert (diff.value[0], diff.lo[0], diff.hi[0]) == pytest.approx((0.0, -u, u))


def test_competition_ranks_share_the_better_rank():
    ranks = competition_ranks(np.array([[0.1, 0.3, 0.1, np.nan, 0.0]]))
    assert ranks[0, :3].tolist() == [2, 4, 2] and np.isnan(ranks[0, 3]) and ranks[0, 4] == 1


def test_separable_models_get_no_rank_range():
    mini = _two_models("1", "0")["mini"]  # 100% vs 0% on 30 items
    assert [(r.rank, r.rank_range) for r in mini.rows] == [(1, None), (2, None)]


def test_close_models_share_a_rank_range():
    # 16/30 vs 15/30 on mostly different items: not separable
    mini = _two_models("10", "01")["mini"]
    assert row(mini, "acme/a").rank_range == (1, 2)
    assert row(mini, "beta/b").rank_range == (1, 2)


def test_a_three_to_nothing_disagreement_is_not_a_sole_first_place():
    # Same answers on 30 items except 3 that A solves (3/3) and B does not (exact McNemar
    # p = 0.25). The paired interval of A − B = 0.1: each influence vector is A's shifted
    # by a constant on those 3 items, so MOVER's limits straddle 0.
    a = "1" * 10 + "000" + "0" * 17
    b = "1" * 10 + "000" + "0" * 17
    a = a[:10] + "111" + a[13:]
    mini = _two_models(a, b)["mini"]
    assert [(r.submission, r.rank, r.rank_range) for r in mini.rows] == [("acme/a", 1, (1, 2)), ("beta/b", 2, (1, 2))]


def test_identical_models_tie_and_neither_is_separated():
    # Same answers everywhere: the same rank; identical data cannot show which is better,
    # so each may hold either place.
    mini = _two_models("110", "110")["mini"]
    assert [(r.rank, r.rank_range) for r in mini.rows] == [(1, (1, 2)), (1, (1, 2))]


def test_intervals_are_reproducible_across_runs():
    a = _two_models("1101001110", "0110")["mini"].to_dict()
    b = _two_models("1101001110", "0110")["mini"].to_dict()
    assert a == b
