r"""How sure each number is: item-clustered score intervals and rank ranges.

**Method (for the methodology page).** Every rate on a board is an average over items, and
the uncertainty that matters to a reader is which items happened to be in the benchmark,
so the unit of uncertainty is the *item*: the samples, languages and variants of one item
move together (a cluster), never independently.

*Single rates* (accuracy, pass@k, refusal rate, SCF, disagreement rate, the human cohort)
get a **Wilson score interval with a design effect** (Kish) **and Korn & Graubard's
degrees-of-freedom adjustment**: a cell :formula:`rate` over n items has the item-clustered
(linearised, "sandwich") variance :formula:`variance`, the effective number of independent
trials is :formula:`n_eff`, and, because V is estimated from only n items, Korn & Graubard
(1998) shrink it by the ratio of the normal to Student's quantile: :formula:`korn_graubard`,
with :formula:`z` and :math:`t_{n-1}` the 97.5th percentile of Student's t with n−1 degrees
of freedom (at 13 items :formula:`korn_graubard_13`). The interval is Wilson's with
:math:`n^*` trials: :formula:`wilson`. When V says nothing (p̂ is 0 or 1, or every item
scores alike) :math:`n_{\mathrm{eff}}` is the item count n: each item counts as one trial,
the least information a cluster can carry. So accuracy 0 on 339 items is shown as
[0, 0.011], not [0, 0]. Where the effective counts are small — :formula:`small_counts` — the
normal approximation behind Wilson's limits undercovers, so the interval is widened to
contain **Clopper–Pearson's** with :math:`x^*` successes in :math:`n^*` trials (Korn &
Graubard's own form): :formula:`lower` (the beta quantile taken as 0 when :math:`x^* = 0`)
and :formula:`upper` (taken as 1 when :math:`x^* = n^*`), :math:`B^{-1}` the beta
distribution's quantile function. At p̂ = 0 the count :math:`x^*` is 0, so the upper limit
is the larger of Wilson's :formula:`wilson_at_0` and Clopper–Pearson's :formula:`cp_at_0`
(at p̂ = 1 the lower limit is one minus it): Clopper–Pearson's on boards of up to 48 items
(at 24 items 0.157, where Wilson's is 0.151), Wilson's on larger ones (at 339 items 0.011).

*Differences, composites and DRG* are sums :formula:`linear` of such rates, computed on the
same items, so they are **paired**. Their interval is Zou & Donner's MOVER (method of
variance estimates recovery, the correlated form of Newcombe's square-and-add): with each
term's distances to its own limits :formula:`distances`, and the item-level correlation
:math:`\rho_{jk}` of the two estimates (from the same linearisation, so a shared item moves
both), the limits are :formula:`mover`. It inherits Wilson's behaviour at 0 and 1 and is
exact for the paired design's correlation. Unbounded quantities (output tokens, cost per
correct answer, calibration slope and intercept) get a Wald interval :formula:`wald` from
the same item-clustered variance.

We chose these over the percentile bootstrap we used before because the bootstrap cannot
produce width where the data have none: on 78 items at p = 0.02 a fifth of its intervals
were [0, 0] and it covered 78% of the time. ``bench/bench_coverage.py`` simulates every
regime the boards meet (items, rate) ∈ {(340, 0.3), (24, 0.5), (99, 0.05), (78, 0.02),
(78, 0.97), (339, 0)}, each with 3 samples per item and with one, and one sample per item
at p ∈ {0.002, 0.02, 0.98} on 24, 78 and 340 items, with item-level correlation; this
method covers at least 93% in each (the table is printed by that script; Wilson alone
covered 85% at 78 items and p = 0.002 with one sample). It is also analytic: no
replicates, a few vector operations per cell.

**Ranks.** Rows are ranked by the board's ranking metric (ties share the better rank, as
in 1-2-2-4; a rate is a ratio of integer sums, a difference or mean of rates a combination
of such ratios, and their ties are decided on these exact rationals, never on
floating-point rounding). Model j is
*separated* from model s when the paired MOVER interval of
:math:`\theta_j - \theta_s` excludes 0. A model's ``rank_range`` runs from 1 + (models separated above it) to
(ranked models) − (models separated below it), always containing its point rank; it is
shown only when it spans more than one rank. A 3–0 disagreement on otherwise identical
answers is not a separation (its interval contains 0), so neither model is a sole #1. The
ranges are marginal, like the intervals: each says which places a model plausibly holds,
not a joint statement about all ranks at once.

**Differences on the compare page.** After a benchmark's release, a difference between
two models on a board is **paired** when the release published both models' per-item
results on every item of the board (so a board of a partly released benchmark that rests on
any embargoed item is not) and the board's ranking metric is a mean of per-item scores
(accuracy, avg@k, pass@k; not a gain, a composite, a slope or a cost per correct answer):
its interval is the MOVER limit above, with ρ the correlation over the board's n items of
the two models' per-item scores (``data/<benchmark>/paired.json``) — for one 0/1 sample per
item, Newcombe's (1998) method 10 for paired proportions, with each model's item-clustered
Wilson limits. It is labelled "paired, n = …", and a Δ it separates from 0 is a separation
of the rank ranges too. Otherwise (under embargo, when per-item results are sealed; a model
whose lab keeps them private; other metrics) the page combines the two published intervals
by Newcombe's square-and-add as if independent (ρ = 0), labelled "not paired": conservative
for models that ran the same items.

**Determinism.** No randomness: every figure is a closed-form function of the item scores,
independent of row order, submission names, or which other items exist.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from builder.scoring import exact as X
from builder.scoring.disclosure import Term
from builder.scoring.nulls import is_none
from builder.scoring.tables import Cell

Z = 1.959963984540054  # two-sided 95% normal quantile
Z_TEX = r"z = 1.95996"
_MAX_EXACT_DENOMINATOR = 1 << 20


@dataclass
class Estimate:
    """One column for every submission: point values, interval, item influences, flags.

    `infl` (S, len(cols)) holds each row's linearised item influences on the global item
    indices `cols`, scaled so that Σ infl² is the variance: what pairs estimates (the
    correlation of two cells is the cosine of their influence rows).
    """

    value: np.ndarray  # (S,) float, NaN where undefined
    lo: np.ndarray  # (S,) interval, NaN where there is none
    hi: np.ndarray
    infl: np.ndarray | None  # (S, C) or None: a fixed value without uncertainty
    cols: np.ndarray  # (C,) global item index of each influence column
    n: np.ndarray  # (S,) items the value rests on
    min_n: np.ndarray  # (S,) smallest item count among the cells it was computed from
    flag: np.ndarray  # (S,) object: why the value is undefined, or None
    integer: bool = False  # a count: rendered as int
    # What each row is a linear functional of (builder.scoring.disclosure): internal, for the
    # embargo's disclosure audit; empty for figures the audit does not cover (lab-reported).
    basis: tuple[Term, ...] = ()
    # Each row's exact rational where the figure is one (builder.scoring.exact): ranks and
    # combined figures are decided on it, not on floating-point rounding.
    exact: X.Exact | None = None

    def take(self, idx: np.ndarray) -> "Estimate":
        return Estimate(
            self.value[idx],
            self.lo[idx],
            self.hi[idx],
            None if self.infl is None else self.infl[idx],
            self.cols,
            self.n[idx],
            self.min_n[idx],
            self.flag[idx],
            self.integer,
            tuple(t.take(idx) for t in self.basis),
            None if self.exact is None else self.exact.take(idx),
        )


def lcm_of(values: np.ndarray) -> int | None:
    """Least common multiple of the distinct positive integers in `values` (None if huge)."""
    v = values[values > 0]
    if v.size and v.max() < 1 << 16 and np.array_equal(v, np.floor(v)):
        u = np.flatnonzero(np.bincount(v.astype(np.int64)))  # sample counts: small integers, linear time
    else:
        u = np.unique(v).astype(np.int64)
    if not len(u):
        return 1
    out = 1
    for k in u.tolist():
        out = math.lcm(out, int(k))
        if out > _MAX_EXACT_DENOMINATOR:
            return None
    return out


# The formulas the module text (the Methodology page) cites as :formula:`name`, in TeX for
# KaTeX, each beside the code that computes it; FORMULAS below gathers them, and
# tests/scoring/test_methodology_formulas.py evaluates every one against that code.
WILSON_TEX = r"\Bigl(\hat p + \frac{z^2}{2n^*} \pm z \sqrt{\frac{\hat p (1 - \hat p)}{n^*} + \frac{z^2}{4 n^{*2}}}\Bigr) \Big/ \Bigl(1 + \frac{z^2}{n^*}\Bigr)"
WILSON_AT_0_TEX = r"\frac{z^2}{n^* + z^2}"  # its upper limit at p̂ = 0


def wilson(p: np.ndarray, n_eff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for proportion `p` with `n_eff` trials (NaN where n_eff ≤ 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        z2n = Z * Z / n_eff
        centre = (p + z2n / 2) / (1 + z2n)
        half = Z / (1 + z2n) * np.sqrt(np.maximum(p * (1 - p), 0.0) / n_eff + z2n / (4 * n_eff))
        lo, hi = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    bad = ~(n_eff > 0)
    lo[bad] = hi[bad] = np.nan
    # the point value lies inside in exact arithmetic; rounding must not push it out
    return np.fmin(lo, p), np.fmax(hi, p)


_T_SMALL = {
    1: 12.706204736174698,
    2: 4.302652729749464,
    3: 3.182446305284263,
    4: 2.7764451051977934,
    5: 2.570581835636314,
    6: 2.4469118511449786,
    7: 2.364624251592784,
    8: 2.306004135204166,
    9: 2.262157162798205,
}


def t975(df: np.ndarray) -> np.ndarray:
    """97.5th percentile of Student's t with `df` degrees of freedom (tabulated for df ≤ 9, else
    the Cornish–Fisher expansion of Abramowitz & Stegun 26.7.5, within 1e-5 of the exact value)."""
    nu = np.maximum(np.asarray(df, dtype=np.float64), 1.0)
    z = Z
    g = [
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    ]
    out = z + g[0] / nu + g[1] / nu**2 + g[2] / nu**3 + g[3] / nu**4
    for k, t in _T_SMALL.items():
        out = np.where(nu == k, t, out)
    return out


SMALL_COUNT = 10.0  # below this many effective successes (or failures) Clopper–Pearson's limits widen Wilson's
SMALL_COUNTS_TEX = r"x^* = \hat p\, n^* < 10 \ \text{or}\ n^* - x^* < 10"
LOWER_TEX = r"\text{lower} = \min\bigl(\text{Wilson's},\ B^{-1}(0.025;\ x^*,\ n^* - x^* + 1)\bigr)"
UPPER_TEX = r"\text{upper} = \max\bigl(\text{Wilson's},\ B^{-1}(0.975;\ x^* + 1,\ n^* - x^*)\bigr)"
CP_AT_0_TEX = r"1 - 0.025^{1/n^*}"  # B⁻¹(0.975; 1, n*), the upper limit at x* = 0


def clopper_pearson(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson limits for `x` successes in `n` trials, both real (beta quantiles):
    lower B(0.025; x, n−x+1) (0 at x = 0), upper B(0.975; x+1, n−x) (1 at x = n)."""
    from scipy.special import betaincinv

    x = np.asarray(x, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    tiny = np.finfo(np.float64).tiny
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(x > 0, betaincinv(np.maximum(x, tiny), n - x + 1, 0.025), 0.0)
        hi = np.where(n - x > 0, betaincinv(x + 1, np.maximum(n - x, tiny), 0.975), 1.0)
    return lo, hi


N_EFF_TEX = r"n_{\mathrm{eff}} = \frac{\hat p (1 - \hat p)}{V}"
KORN_GRAUBARD_TEX = r"n^* = n_{\mathrm{eff}} \left(\frac{z}{t_{n-1}}\right)^2"
KORN_GRAUBARD_13_TEX = r"t_{12} = 2.179, \text{ so } n^* = 0.81\, n_{\mathrm{eff}}"
WALD_TEX = r"\hat\theta \pm t_{n-1} \sqrt{V}"


def _interval(value: np.ndarray, var: np.ndarray, n: np.ndarray, bounded: bool) -> tuple[np.ndarray, np.ndarray]:
    """Korn–Graubard-adjusted Wilson (widened to Clopper–Pearson at small counts) for a rate in [0, 1];
    Wald with Student's t otherwise (see the module text)."""
    t = t975(np.asarray(n) - 1)
    if bounded:
        p = np.clip(value, 0.0, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            informative = (var > 0) & (p > 0) & (p < 1)
            n_eff = np.where(informative, p * (1 - p) / np.where(informative, var, 1.0), n.astype(np.float64))
        # Korn & Graubard's degrees-of-freedom adjustment: few items, fewer effective trials
        trials = n_eff * (Z / t) ** 2
        lo, hi = wilson(p, trials)
        # Few effective successes or failures: Wilson's normal approximation undercovers
        # there (one sample per item, p = 0.002 on 78 items: 85%), the exact binomial does
        # not. Their union: never narrower than Wilson's. At p = 0 or 1 x is 0 or n, so the
        # union always applies there (Clopper–Pearson's limit is the wider below ~46 trials).
        x = p * trials
        small = (np.minimum(x, trials - x) < SMALL_COUNT) & (trials > 0)
        if small.any():
            clo, chi = clopper_pearson(x[small], trials[small])
            lo[small], hi[small] = np.fmin(clo, lo[small]), np.fmax(chi, hi[small])
        return lo, hi
    half = t * np.sqrt(var)
    return value - half, value + half


RATE_TEX = r"\hat p = \frac{\sum_i a_i}{\sum_i d_i}"
VARIANCE_TEX = r"V = \frac{n}{n-1} \sum_i \left(\frac{a_i - \hat p\, d_i}{\sum_k d_k}\right)^2"


def ratio(
    a: np.ndarray,
    d: np.ndarray,
    elig: np.ndarray,
    flag: np.ndarray,
    n: np.ndarray | None = None,
    *,
    bounded: bool = True,
    stream: tuple | None = None,
) -> Estimate:
    """Σ a / Σ d over each row's eligible items, with its item-clustered interval.

    `a` and `d` are (S, I) item numerators/denominators; `elig` (S, I) says which items
    count; rows with a `flag` are undefined. `n` defaults to the number of eligible items.
    `bounded`: the ratio is a rate in [0, 1] (Wilson) rather than an unbounded mean (Wald).
    `stream`: what the numerators are (builder.scoring.disclosure.Term), for the audit.
    """
    cols = np.flatnonzero(elig.any(axis=0))
    if len(cols) == elig.shape[1]:  # every item: no copy for the selection
        E, A, D = elig, np.where(elig, a, 0.0), np.where(elig, d, 0.0)
    else:
        E = elig[:, cols]
        A = np.where(E, a[:, cols], 0.0)
        D = np.where(E, d[:, cols], 0.0)
    items = E.sum(axis=1)
    if n is None:
        n = items
    sa, sd = A.sum(axis=1), D.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(sd != 0, sa / np.where(sd != 0, sd, 1.0), np.nan)
        # linearised influence of item i on Σa/Σd, with the n/(n−1) small-sample factor;
        # zero outside the row's items, where A and D are zero
        scale = np.where((sd != 0) & (items > 1), np.sqrt(items / np.maximum(items - 1, 1)) / np.where(sd != 0, sd, 1.0), 0.0)
        A -= np.nan_to_num(value)[:, None] * D
        A *= scale[:, None]
        infl = A
    var = np.einsum("ij,ij->i", infl, infl)
    flag = flag.copy()
    flag[np.isnan(value) & is_none(flag)] = "undefined"
    bad = ~is_none(flag)
    value[bad] = np.nan
    if bad.any():
        infl[bad] = 0.0
    lo, hi = _interval(value, np.where(items > 1, var, 0.0), items, bounded)
    lo[bad] = hi[bad] = np.nan
    n = np.asarray(n, dtype=np.int64)
    basis = () if stream is None else (Term(1.0, stream, np.arange(elig.shape[0]), elig, d),)
    # sa / sd above is the correctly rounded float of this rational already
    return Estimate(value, lo, hi, infl, cols, n, n.copy(), flag, basis=basis, exact=X.Exact.of_sums(sa, sd))


def _aligned(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The influence matrices of (cols, infl) `parts` on the union of their item columns."""
    cols = np.unique(np.concatenate([c for c, _ in parts])) if parts else np.zeros(0, dtype=np.int64)
    out = []
    for e_cols, e_infl in parts:
        if len(e_cols) == len(cols):
            out.append(e_infl)
            continue
        z = np.zeros((e_infl.shape[0], len(cols)))
        z[:, np.searchsorted(cols, e_cols)] = e_infl
        out.append(z)
    return cols, out


DISTANCES_TEX = r"e_j^- = c_j \hat\theta_j - \mathrm{lower}(c_j \theta_j),\ e_j^+ = \mathrm{upper}(c_j \theta_j) - c_j \hat\theta_j"
MOVER_TEX = r"\hat\theta \mp \sqrt{\textstyle\sum_{j,k} \rho_{jk}\, e_j^{\mp} e_k^{\mp}}"


def mover(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, infl: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """MOVER limits of Σ_j values[j] per row: `values`, `lo`, `hi` are (J, S) for the signed
    terms c_j·θ_j (lo ≤ value ≤ hi), `infl` their (S, C) influences on common columns."""
    el, eu = values - lo, hi - values  # (J, S) distances to each term's limits
    norms = [np.sqrt(np.einsum("ij,ij->i", z, z)) for z in infl]
    qlo = np.zeros(values.shape[1])
    qhi = np.zeros(values.shape[1])
    for j in range(len(infl)):
        qlo += el[j] ** 2
        qhi += eu[j] ** 2
        for k in range(j):
            with np.errstate(invalid="ignore", divide="ignore"):
                denom = norms[j] * norms[k]
                rho = np.where(denom > 0, np.einsum("ij,ij->i", infl[j], infl[k]) / np.where(denom > 0, denom, 1.0), 0.0)
            qlo += 2 * rho * el[j] * el[k]
            qhi += 2 * rho * eu[j] * eu[k]
    total = values.sum(axis=0)
    return total - np.sqrt(np.maximum(qlo, 0.0)), total + np.sqrt(np.maximum(qhi, 0.0))


def _exact_sum(terms: list[tuple[float | Fraction, Estimate]]) -> tuple[X.Exact | None, np.ndarray]:
    """Σ c·value per row, and its exact rationals where every term has them.

    Values stay as floating point computes them (published numbers do not move by a last
    bit), except a tie rounding split: rows sharing a rational but not a float are all
    published as the rational's correctly rounded float (X.tied_floats).
    """
    # np.asarray: sum() starts from the int 0 (types say it may return it); the arrays are unchanged
    value = np.asarray(sum(float(c) * e.value for c, e in terms))
    parts = [(Fraction(c), e.exact) for c, e in terms]
    if not all(x is not None for _, x in parts):
        return None, value
    exact = X.combine([(c, x) for c, x in parts if x is not None])
    return exact, X.tied_floats(exact, value)


LINEAR_TEX = r"\hat\theta = \sum_j c_j \hat\theta_j"


def linear(terms: list[tuple[float | Fraction, Estimate]], n: np.ndarray | None = None) -> Estimate:
    """Σ c·estimate, paired item by item (MOVER interval). Undefined if any term is.

    Where every term is exact the sum's rationals are kept (ranks use them) and rows
    sharing a rational are published as one float (_exact_sum); pass a coefficient such as
    1/3 as a Fraction.
    """
    exact, value = _exact_sum(terms)
    floats = [(float(c), e) for c, e in terms]
    flag = np.array([None] * len(value), dtype=object)
    for _, e in reversed(floats):
        flag = np.where(is_none(e.flag), flag, e.flag)
    ok = is_none(flag)
    value = np.where(ok, value, np.nan).astype(np.float64)
    if n is None:
        n = np.asarray(sum(e.n for _, e in floats))
    min_n = np.minimum.reduce([e.min_n for _, e in floats])
    # audited only if every term is (a term the audit cannot see could carry anything)
    basis = tuple(t.scaled(c) for c, e in floats for t in e.basis) if all(e.basis for _, e in floats) else ()
    parts = [(e.cols, e.infl) for _, e in floats if e.infl is not None]
    if len(parts) < len(floats):
        nan = np.full(len(value), np.nan)
        return Estimate(value, nan, nan.copy(), None, np.zeros(0, dtype=np.int64), np.asarray(n), min_n, flag, basis=basis, exact=exact)
    cols, infl = _aligned(parts)
    signed = [c * z for (c, _), z in zip(floats, infl)]
    vals = np.stack([c * e.value for c, e in floats])
    lo = np.stack([np.fmin(c * e.lo, c * e.hi) for c, e in floats])
    hi = np.stack([np.fmax(c * e.lo, c * e.hi) for c, e in floats])
    lo_t, hi_t = mover(np.nan_to_num(vals), np.nan_to_num(lo), np.nan_to_num(hi), signed)
    total = np.asarray(sum(signed))
    lo_t[~ok] = hi_t[~ok] = np.nan
    total[~ok] = 0.0
    return Estimate(value, lo_t, hi_t, total, cols, np.asarray(n), min_n, flag, basis=basis, exact=exact)


def wald(value: np.ndarray, infl: np.ndarray, cols: np.ndarray, n: np.ndarray, flag: np.ndarray) -> Estimate:
    """An unbounded estimate with influences already scaled (Σ infl² = variance)."""
    flag = flag.copy()
    flag[np.isnan(value) & is_none(flag)] = "undefined"
    bad = ~is_none(flag)
    value = np.where(bad, np.nan, value)
    infl = np.where(bad[:, None], 0.0, infl)
    lo, hi = _interval(value, np.einsum("ij,ij->i", infl, infl), n, bounded=False)
    n = np.asarray(n, dtype=np.int64)
    return Estimate(value, lo, hi, infl, cols, n, n.copy(), flag)


FORMULAS = {
    "rate": RATE_TEX, "variance": VARIANCE_TEX, "n_eff": N_EFF_TEX, "korn_graubard": KORN_GRAUBARD_TEX, "z": Z_TEX,
    "korn_graubard_13": KORN_GRAUBARD_13_TEX, "wilson": WILSON_TEX, "small_counts": SMALL_COUNTS_TEX, "lower": LOWER_TEX,
    "upper": UPPER_TEX, "wilson_at_0": WILSON_AT_0_TEX, "cp_at_0": CP_AT_0_TEX, "linear": LINEAR_TEX,
    "distances": DISTANCES_TEX, "mover": MOVER_TEX, "wald": WALD_TEX,
}  # fmt: skip


def count(total: np.ndarray, n: np.ndarray, flag: np.ndarray) -> Estimate:
    """A count with no interval."""
    value = np.where(is_none(flag), total, np.nan).astype(np.float64)
    nan = np.full(len(value), np.nan)
    n = np.asarray(n, dtype=np.int64)
    return Estimate(value, nan, nan.copy(), None, np.zeros(0, dtype=np.int64), n, n.copy(), flag, integer=True)


def cells(est: Estimate, embargoed: bool, min_items: int, suppress: np.ndarray | None = None) -> list[Cell]:
    """Cells for every row, withholding under embargo those resting on < min_items items.

    `suppress` forces extra rows to be withheld (complementary suppression: a value that
    would let a reader subtract their way to a withheld one).
    """
    out = []
    # plain Python values once (numpy scalars are slow to touch one by one)
    values, lows, highs, ns = est.value.tolist(), est.lo.tolist(), est.hi.tolist(), est.n.tolist()
    withheld = (est.min_n < min_items) if embargoed else np.zeros(len(values), dtype=bool)
    if embargoed and suppress is not None:
        withheld = withheld | suppress
    withheld_l = withheld.tolist()
    for s, v in enumerate(values):
        n = int(ns[s])
        if est.flag[s] is not None or v != v:
            # Not withheld but undefined: its flag says why ("no-items", "cutoff-unknown"…),
            # so it never reads as an embargo withholding (issue 23, honest labels). It
            # rests on no result the audit protects: a cell with no value has no terms.
            out.append(Cell(None, None, None, n, flag=est.flag[s] or "undefined"))
        elif withheld_l[s]:
            out.append(Cell(None, None, None, n, suppressed=True))
        else:
            value: float | int = int(round(v)) if est.integer else float(v)
            lo, hi = lows[s], highs[s]
            out.append(Cell(value, None if lo != lo else lo, None if hi != hi else hi, n))
    return out


def competition_ranks(keys: np.ndarray) -> np.ndarray:
    """Row-wise 1-2-2-4 ranks of `keys` (B, S), smaller key = better; NaN keys get NaN."""
    b, s = keys.shape
    k = np.where(np.isnan(keys), np.inf, keys)
    order = np.argsort(k, axis=1, kind="stable")
    sk = np.take_along_axis(k, order, axis=1)
    new = np.ones((b, s), dtype=bool)
    new[:, 1:] = sk[:, 1:] != sk[:, :-1]
    pos = np.broadcast_to(np.arange(s), (b, s))
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    ranks = np.empty((b, s), dtype=np.float64)
    np.put_along_axis(ranks, order, start + 1.0, axis=1)
    ranks[np.isnan(keys)] = np.nan
    return ranks


def separated(value: np.ndarray, lo: np.ndarray, hi: np.ndarray, infl: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """(S, S) bool: [s, j] when s is better than j and the paired MOVER interval of the
    difference excludes 0 (rows of an Estimate's value, interval and influence matrix)."""
    sign = 1.0 if higher_is_better else -1.0
    v = sign * value
    lo, hi = (lo, hi) if higher_is_better else (-hi, -lo)
    el = np.nan_to_num(v - lo)  # (S,) distance to the lower limit
    eu = np.nan_to_num(hi - v)
    z = infl
    gram = z @ z.T
    norm = np.sqrt(np.diag(gram))
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = norm[:, None] * norm[None, :]
        rho = np.where(denom > 0, gram / np.where(denom > 0, denom, 1.0), 0.0)
    # lower limit of θ_s − θ_j: (v_s − v_j) − √(el_s² + eu_j² − 2ρ el_s eu_j)
    spread = el[:, None] ** 2 + eu[None, :] ** 2 - 2 * rho * el[:, None] * eu[None, :]
    lower = (v[:, None] - v[None, :]) - np.sqrt(np.maximum(spread, 0.0))
    return lower > 0


def _point_ranks(est: Estimate, idx: np.ndarray, sign: float) -> np.ndarray:
    """Competition ranks of rows `idx`: on the exact rationals where the figure has them."""
    if est.exact is not None:
        fr = est.exact.fractions()
        keys = [fr[i] for i in idx.tolist()]
        if all(k is not None for k in keys):
            return X.competition_ranks([k * int(sign) for k in keys if k is not None])
    return competition_ranks(sign * est.value[idx][None, :])[0]


def rank(est: Estimate, higher_is_better: bool, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rank, rank_low, rank_high) per row; NaN for rows not ranked (`usable` False)."""
    sign = -1.0 if higher_is_better else 1.0
    s = len(est.value)
    rk, lo, hi = np.full(s, np.nan), np.full(s, np.nan), np.full(s, np.nan)
    idx = np.flatnonzero(usable)
    if not len(idx):
        return rk, lo, hi
    point = _point_ranks(est, idx, sign)
    rk[idx] = point
    if est.infl is None:
        lo[idx] = hi[idx] = point
        return rk, lo, hi
    # only the rows' values, intervals and influence: not Estimate.take, which copies the
    # audit terms' (rows × items) item sets too
    sep = separated(est.value[idx], est.lo[idx], est.hi[idx], est.infl[idx], higher_is_better)
    lo[idx] = np.fmin(1 + sep.sum(axis=0), point)  # models separated above
    hi[idx] = np.fmax(len(idx) - sep.sum(axis=1), point)  # models separated below
    return rk, lo, hi
