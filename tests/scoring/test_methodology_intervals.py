"""The Methodology page states the interval method the code uses: published intervals are
recomputed here from the page's formula, coded independently (scipy.stats for Student's t
and the beta quantiles; nothing from builder.scoring.uncertainty)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from builder.scoring import METHODOLOGY
from tests.scoring.reference_stats import Z, scipy_stats

from .frames import Instance, cell


def page_interval(a: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """The Methodology page's interval for the rate Σa/Σd over n items (a_i correct samples
    of item i, d_i its samples), step by step as the page words it."""
    n = len(a)
    p = a.sum() / d.sum()
    v = n / (n - 1) * (((a - p * d) / d.sum()) ** 2).sum()
    n_eff = p * (1 - p) / v if (v > 0 and 0 < p < 1) else float(n)
    t = scipy_stats().t.ppf(0.975, n - 1)
    trials = n_eff * (Z / t) ** 2  # Korn & Graubard
    centre = (p + Z**2 / (2 * trials)) / (1 + Z**2 / trials)
    half = Z / (1 + Z**2 / trials) * math.sqrt(p * (1 - p) / trials + Z**2 / (4 * trials**2))
    lo, hi = centre - half, centre + half
    x = p * trials
    if min(x, trials - x) < 10:  # Clopper–Pearson widens it
        lo = min(lo, scipy_stats().beta.ppf(0.025, x, trials - x + 1) if x > 0 else 0.0)
        hi = max(hi, scipy_stats().beta.ppf(0.975, x + 1, trials - x) if trials - x > 0 else 1.0)
    return max(lo, 0.0), min(hi, 1.0)


def test_the_page_names_the_adjustment_and_both_intervals():
    text = " ".join(METHODOLOGY.split())
    # the formulas themselves are TeX in uncertainty.FORMULAS, each checked against the code
    # by test_methodology_formulas.py
    for words in (
        "Korn & Graubard",
        ":formula:`korn_graubard`",
        "Wilson's with :math:`n^*` trials: :formula:`wilson`",
        "Clopper–Pearson",
        ":formula:`small_counts`",
        ":formula:`lower`",
        ":formula:`upper`",
    ):
        assert words in text, words


# Per model, the correct samples (of 3) on each item: rates across the range, including the
# small-count edges where the page's Clopper–Pearson rule applies.
PATTERNS = {
    "acme/mid": [3, 2, 0, 1, 3, 0, 2, 1, 0, 3, 1, 2, 0],
    "acme/one": [1] + [0] * 12,
    "beta/most": [3] * 12 + [2],
    "beta/zero": [0] * 13,
    "gamma/all": [3] * 13,
    "gamma/half": [3, 0] * 6 + [1],
}


@pytest.mark.parametrize("items", [13, 40])
def test_published_intervals_are_the_pages_formula(items):
    inst = Instance("soohak")
    for i in range(items):
        inst.item(f"m{i:02d}", "mini", gold=str(i + 1))
    counts = {}
    for sub, pattern in PATTERNS.items():
        inst.sub(sub)
        counts[sub] = np.array([pattern[i % len(pattern)] for i in range(items)], dtype=float)
        for i in range(items):
            c = int(counts[sub][i])
            inst.answer(sub, f"m{i:02d}", "1" * c + "0" * (3 - c))
    mini = inst.score()["mini"]
    for sub, a in counts.items():
        published = cell(mini, sub, "avg@3")
        assert published.value == pytest.approx(a.sum() / (3 * items))
        lo, hi = page_interval(a, np.full(items, 3.0))
        assert (published.ci_low, published.ci_high) == pytest.approx((lo, hi), abs=2e-6), sub
