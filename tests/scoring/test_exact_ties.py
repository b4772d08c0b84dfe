"""Ranks and ties come from exact arithmetic (issue 19, item 6).

In floating point 1/3 − 0 = 0.3333333333333333 but 3/3 − 2/3 = 0.33333333333333337: two
TTS gains that are both exactly 1/3 were published with different last digits and ranked
apart by that bit. Every figure is a rational; equal rationals must share a rank
(competition ranking 1, 2, 2, 4) and serialise identically.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

from builder.scoring import exact as X
from builder.scoring.uncertainty import linear, rank, ratio

from .frames import Instance, row, value


def _core(inst: Instance, n: int) -> list[str]:
    return [inst.item(f"k{i:03d}", gold=str(i + 1), cohort_error_rate=0.5, year=2020, points=4) for i in range(n)]


def test_float_subtraction_would_split_this_tie():
    # the premise of the test below, so that it cannot pass by accident
    assert 1 / 3 - 0 / 3 != 3 / 3 - 2 / 3


def test_equal_tts_gains_share_a_rank_and_serialise_identically():
    inst = Instance("kcsat-ml")
    items = _core(inst, 3)
    # lab: (off pattern, on pattern) over 3 items, 1 sample each; gain = on − off by hand
    plan = {
        "cee": ("000", "110"),  # 2/3 − 0   = 2/3 -> rank 1
        "ayy": ("000", "100"),  # 1/3 − 0   = 1/3 -> rank 2
        "bee": ("110", "111"),  # 3/3 − 2/3 = 1/3 -> rank 2 (floats: 0.33333333333333337)
        "dee": ("100", "100"),  # 1/3 − 1/3 = 0   -> rank 4
    }
    for lab, (off_p, on_p) in plan.items():
        off = inst.sub(f"{lab}/off", family="fam", tts=False)
        on = inst.sub(f"{lab}/on", family="fam", tts=True)
        for item, a, b in zip(items, off_p, on_p):
            inst.answer(off, item, a)
            inst.answer(on, item, b)
    tts = inst.score()["tts"]
    gains = {lab: value(tts, f"{lab}/on", "gain") for lab in plan}
    assert gains == {"cee": float(Fraction(2, 3)), "ayy": float(Fraction(1, 3)), "bee": float(Fraction(1, 3)), "dee": 0.0}
    assert json.dumps(gains["ayy"]) == json.dumps(gains["bee"]) == "0.3333333333333333"
    assert {lab: row(tts, f"{lab}/on").rank for lab in plan} == {"cee": 1, "ayy": 2, "bee": 2, "dee": 4}


def _rate(num: list[float], den: list[float]) -> object:
    a = np.array(num, dtype=np.float64)[:, None]
    d = np.array(den, dtype=np.float64)[:, None]
    return ratio(a, d, np.ones_like(a, dtype=bool), np.array([None] * len(num), dtype=object))


def test_tied_means_of_thirds_are_published_as_one_float_and_the_rest_as_computed():
    # composite boards average metrics with weight 1/3. Rows: mean(0/7, 6/7, 7/7) and
    # mean(4/7, 7/7, 2/7) are both exactly 13/21; mean(1/7, 1/7, 2/7) = 4/21 ties nothing.
    x, y, z = _rate([0, 4, 1], [7, 7, 7]), _rate([6, 7, 1], [7, 7, 7]), _rate([7, 2, 2], [7, 7, 7])
    third = Fraction(1, 3)
    est = linear([(third, x), (third, y), (third, z)])
    computed = [(1 / 3) * a + (1 / 3) * b + (1 / 3) * c for a, b, c in zip(x.value, y.value, z.value)]
    assert computed[0] != computed[1]  # floating point alone splits the tie
    assert est.value.tolist() == [float(Fraction(13, 21))] * 2 + [computed[2]]  # the untied row keeps its float
    assert est.exact is not None and est.exact.fractions() == [Fraction(13, 21), Fraction(13, 21), Fraction(4, 21)]
    rk, _, _ = rank(est, True, np.ones(3, dtype=bool))
    assert rk.tolist() == [1.0, 1.0, 3.0]


def test_rank_decides_on_the_rationals_and_skips_unusable_rows():
    # rows: 1/3 (as 3/3 − 2/3), 1/3, 2/3, 1/2 (not usable)
    a = _rate([3, 1, 2, 1], [3, 3, 3, 2])
    b = _rate([2, 0, 0, 0], [3, 3, 3, 2])
    gain = linear([(-1.0, b), (1.0, a)])
    rk, _, _ = rank(gain, True, np.array([True, True, True, False]))
    assert rk[:3].tolist() == [2.0, 2.0, 1.0] and np.isnan(rk[3])
    assert gain.value[0] == gain.value[1]


def test_a_tie_already_published_alike_keeps_its_float():
    # 0.1 + 0.2 = 0.30000000000000004 in both rows: a tie, identical already, not rounded anew
    a, b = _rate([1, 1], [10, 10]), _rate([2, 2], [10, 10])
    est = linear([(1.0, a), (1.0, b)])
    assert est.value.tolist() == [0.1 + 0.2] * 2 and 0.1 + 0.2 != float(Fraction(3, 10))


def test_competition_ranks_by_hand():
    keys = [Fraction(-2, 3), Fraction(-1, 3), Fraction(-1, 3), Fraction(0), Fraction(-1, 3), Fraction(1)]
    assert X.competition_ranks(keys).tolist() == [1, 2, 2, 5, 2, 6]


def test_sums_a_float_cannot_hold_exactly_are_not_called_exact():
    assert X.Exact.of_sums(np.array([0.5]), np.array([1.0])) is None
    assert X.Exact.of_sums(np.array([float(1 << 54)]), np.array([3.0])) is None
    assert X.Exact.of_sums(np.array([np.nan]), np.array([3.0])) is None
    assert X.Exact.of_sums(np.array([2.0, 0.0]), np.array([6.0, 0.0])).fractions() == [Fraction(1, 3), None]
