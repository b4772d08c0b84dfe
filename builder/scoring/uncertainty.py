"""How sure each number is: item-level bootstrap intervals and rank ranges.

**Method (for the methodology page).** Every rate on a board is an average over items, and
the uncertainty that matters to a reader is which items happened to be in the benchmark, so
we resample *items*, never samples. We draw B = 1000 (configurable) Poisson(1) bootstrap
weights per item — the Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012),
a standard large-sample equivalent of resampling items with replacement that needs no
fixed item count, so one weight matrix serves every board, split, subfield and
submission. A cell's replicate b is Σ_i w_bi·a_i / Σ_i w_bi·d_i over the cell's items
(a_i/d_i is the item's score), and its 95% interval is the 2.5th–97.5th percentile of the
replicates, widened if need be to contain the point estimate. Because all cells use the
same weights, differences, composites (Capability, Avg-R …), DRG and ranks are *paired*:
two models answering the same items are compared on the same resampled items.

**Ranks.** Rows are ranked by the board's ranking metric (ties share the better rank, as
in 1-2-2-4). In each replicate we rank the models again on the same resampled items; a
model's ``rank_range`` is the central 95% of its replicate ranks (2.5th percentile rounded
down, 97.5th rounded up, always including its point rank), shown only when it spans more
than one rank — that is, when the data cannot separate the model from a neighbour. We
chose replicate ranks over pairwise tests because they use the same paired resamples as the
intervals, need no multiplicity correction across ~300 models, and cost one sort per
replicate. They are marginal intervals: a range says which places a model plausibly holds,
not a joint statement about all ranks at once.

**Determinism.** The weight of item i in replicate b is a pure function of (seed, item id,
b) — SplitMix64 over a SHA-256 of the id, mapped through the Poisson(1) inverse CDF — so it
does not depend on numpy's generator version, the order of rows, submission names, or
which other items exist (adding a month of LiveMathematicianBench items does not move an
older edition's interval). Item scores are handled as exact integers over a common
denominator, so every sum is exact in floating point and independent of summation order.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from builder.scoring.tables import Cell

LOW, HIGH = 0.025, 0.975
_MAX_EXACT_DENOMINATOR = 1 << 20


def _splitmix64(x: np.ndarray) -> np.ndarray:
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _poisson1_cdf() -> np.ndarray:
    terms = [math.exp(-1.0) / math.factorial(k) for k in range(25)]
    return np.cumsum(terms)


_CDF = _poisson1_cdf()


def poisson_weights(item_ids: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """(B, I) float64 Poisson(1) weights; column i depends only on (seed, item_ids[i])."""
    keys = np.array(
        [int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:8], "little") for i in item_ids],
        dtype=np.uint64,
    )
    reps = _splitmix64(np.arange(replicates, dtype=np.uint64) + np.uint64(seed & 0xFFFFFFFFFFFFFFFF))
    u = _splitmix64(reps[:, None] ^ keys[None, :])
    uniform = (u >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
    # Small integers: exact in float32, which halves the cost of the replicate products.
    return np.searchsorted(_CDF, uniform, side="right").astype(np.float32)


@dataclass
class Estimate:
    """One column for every submission: point values, replicates, items, flags."""

    value: np.ndarray  # (S,) float, NaN where undefined
    reps: np.ndarray | None  # (B, S) float (NaN where a replicate is undefined) or None: no interval
    n: np.ndarray  # (S,) items the value rests on
    min_n: np.ndarray  # (S,) smallest item count among the cells it was computed from
    flag: np.ndarray  # (S,) object: why the value is undefined, or None
    integer: bool = False  # a count: rendered as int

    def take(self, idx: np.ndarray) -> "Estimate":
        return Estimate(
            self.value[idx], None if self.reps is None else self.reps[:, idx], self.n[idx], self.min_n[idx], self.flag[idx], self.integer
        )


def lcm_of(values: np.ndarray) -> int | None:
    """Least common multiple of the distinct positive integers in `values` (None if huge)."""
    u = np.unique(values[values > 0]).astype(np.int64)
    if not len(u):
        return 1
    out = 1
    for v in u.tolist():
        out = math.lcm(out, int(v))
        if out > _MAX_EXACT_DENOMINATOR:
            return None
    return out


def weighted_sums(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(B, S) = weights (B, I) @ x (S, I)ᵀ, exact when x holds integers.

    Every partial sum of integers below 2^24 (float32) or 2^53 (float64) is exact, so the
    result does not depend on the order BLAS adds in. Single precision is used when the
    largest possible sum allows it.
    """
    bound = float(np.abs(x).max(initial=0.0)) * float(weights.sum(axis=1, dtype=np.float64).max(initial=0.0))
    if bound < 2**24 and np.array_equal(x, np.rint(x)):
        return (weights @ x.T.astype(np.float32)).astype(np.float64)
    return weights.astype(np.float64) @ x.T.astype(np.float64)


def weighted_sums_shared(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """weighted_sums for an `x` with few distinct rows (denominators: which items count).

    Submissions that answered every item share one row; under contamination filtering,
    those with the same cutoff month do. Each distinct row is multiplied once.
    """
    if x.shape[0] < 8 or x.shape[1] == 0:
        return weighted_sums(weights, x)
    rows = np.ascontiguousarray(x).view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    if len(first) * 2 > x.shape[0]:
        return weighted_sums(weights, x)
    return weighted_sums(weights, x[first])[:, inverse.ravel()]


def ratio(a: np.ndarray, d: np.ndarray, elig: np.ndarray, weights: np.ndarray, flag: np.ndarray, n: np.ndarray | None = None) -> Estimate:
    """Σ a / Σ d over each row's eligible items, with bootstrap replicates.

    `a` and `d` are (S, I) item numerators/denominators (integers stored as floats where
    exactness matters); `elig` (S, I) says which items count; rows with a `flag` are
    undefined. `n` defaults to the number of eligible items.
    """
    cols = np.flatnonzero(elig.any(axis=0))
    E = elig[:, cols]
    A = np.where(E, a[:, cols], 0.0)
    D = np.where(E, d[:, cols], 0.0)
    if n is None:
        n = elig.sum(axis=1)
    sa, sd = A.sum(axis=1), D.sum(axis=1)
    W = weights[:, cols]
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(sd != 0, sa / np.where(sd != 0, sd, 1.0), np.nan)
        ra = weighted_sums(W, A)
        if E.all() and D.size and (D == D.flat[0]).all():
            # every row has every item with the same denominator (the usual case)
            rd = np.broadcast_to(W.sum(axis=1, dtype=np.float64)[:, None] * float(D.flat[0]), ra.shape)
        else:
            rd = weighted_sums_shared(W, D)
        reps = np.where(rd != 0, ra / np.where(rd != 0, rd, 1.0), np.nan)
    flag = flag.copy()
    flag[np.isnan(value) & np.equal(flag, None)] = "undefined"
    bad = ~np.equal(flag, None)
    value[bad] = np.nan
    reps[:, bad] = np.nan
    n = np.asarray(n, dtype=np.int64)
    return Estimate(value, reps, n, n.copy(), flag)


def linear(terms: list[tuple[float, Estimate]], n: np.ndarray | None = None) -> Estimate:
    """Σ c·estimate, replicate by replicate (paired). Undefined if any term is."""
    value = sum(c * e.value for c, e in terms)
    reps = None if any(e.reps is None for _, e in terms) else sum(c * e.reps for c, e in terms)
    flag = np.array([None] * len(value), dtype=object)
    for _, e in reversed(terms):
        flag = np.where(np.equal(e.flag, None), flag, e.flag)
    value = np.where(np.equal(flag, None), value, np.nan)
    if reps is not None:
        reps = np.where(np.equal(flag, None)[None, :], reps, np.nan)
    if n is None:
        n = sum(e.n for _, e in terms)
    min_n = np.minimum.reduce([e.min_n for _, e in terms])
    return Estimate(np.asarray(value, dtype=np.float64), reps, np.asarray(n), min_n, flag)


def count(total: np.ndarray, n: np.ndarray, flag: np.ndarray) -> Estimate:
    """A count with no interval."""
    value = np.where(np.equal(flag, None), total, np.nan).astype(np.float64)
    return Estimate(value, None, np.asarray(n, dtype=np.int64), np.asarray(n, dtype=np.int64), flag, integer=True)


def column_quantiles(x: np.ndarray, qs: tuple[float, ...], method: str = "linear") -> np.ndarray:
    """Quantiles `qs` of each column of `x` (B, S), ignoring NaN: shape (len(qs), S), NaN for
    an all-NaN column.

    Same definitions as numpy's ``method="linear" | "lower" | "higher"``, vectorised
    (np.nanquantile loops over columns in Python once any NaN is present). Works on the
    transposed, contiguous array, where sorting and partitioning are several times faster.
    """
    xt = np.ascontiguousarray(x.T)  # (S, B)
    s = xt.shape[0]
    if s and not np.isnan(xt).any():
        return np.quantile(xt, list(qs), axis=1, method=method)
    srt = np.sort(xt, axis=1)  # NaN sort last
    m = (~np.isnan(srt)).sum(axis=1)
    rows = np.arange(s)
    out = np.empty((len(qs), s))
    for j, q in enumerate(qs):
        pos = q * np.maximum(m - 1, 0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.ceil(pos).astype(np.int64)
        vlo, vhi = srt[rows, lo], srt[rows, hi]
        if method == "lower":
            v = vlo
        elif method == "higher":
            v = vhi
        else:
            v = vlo + (pos - lo) * (vhi - vlo)
        out[j] = np.where(m > 0, v, np.nan)
    return out


def intervals(est: Estimate) -> tuple[np.ndarray, np.ndarray]:
    """2.5th/97.5th percentiles of the replicates, widened to contain the point value."""
    s = len(est.value)
    if est.reps is None or not len(est.reps):
        return np.full(s, np.nan), np.full(s, np.nan)
    lo, hi = column_quantiles(est.reps, (LOW, HIGH))
    defined = ~np.isnan(est.value) & ~np.isnan(lo)
    lo[defined] = np.minimum(lo[defined], est.value[defined])
    hi[defined] = np.maximum(hi[defined], est.value[defined])
    return lo, hi


def cells(est: Estimate, embargoed: bool, min_items: int, suppress: np.ndarray | None = None) -> list[Cell]:
    """Cells for every row, withholding under embargo those resting on < min_items items.

    `suppress` forces extra rows to be withheld (complementary suppression: a value that
    would let a reader subtract their way to a withheld one).
    """
    lo, hi = intervals(est)
    out = []
    for s in range(len(est.value)):
        n = int(est.n[s])
        v = est.value[s]
        if est.flag[s] is not None or np.isnan(v):
            out.append(Cell(None, None, None, n, flag=est.flag[s] or "undefined"))
        elif embargoed and (est.min_n[s] < min_items or (suppress is not None and suppress[s])):
            out.append(Cell(None, None, None, n, suppressed=True))
        else:
            value: float | int = int(round(v)) if est.integer else float(v)
            out.append(Cell(value, _f(lo[s]), _f(hi[s]), n))
    return out


def _f(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


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


def rank(est: Estimate, higher_is_better: bool, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rank, rank_low, rank_high) per row; NaN for rows not ranked (`usable` False)."""
    sign = -1.0 if higher_is_better else 1.0
    s = len(est.value)
    rk, lo, hi = np.full(s, np.nan), np.full(s, np.nan), np.full(s, np.nan)
    idx = np.flatnonzero(usable)
    if not len(idx):
        return rk, lo, hi
    point = competition_ranks(sign * est.value[idx][None, :])[0]
    rk[idx] = point
    if est.reps is None:
        lo[idx] = hi[idx] = point
        return rk, lo, hi
    reps = competition_ranks(sign * est.reps[:, idx])
    qlo = column_quantiles(reps, (LOW,), "lower")[0]
    qhi = column_quantiles(reps, (HIGH,), "higher")[0]
    lo[idx] = np.fmin(qlo, point)
    hi[idx] = np.fmax(qhi, point)
    return rk, lo, hi
