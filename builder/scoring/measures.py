"""Item-level scores: what each (submission, item) contributes to a cell.

Each measure yields, per (submission, item), an integer numerator ``a`` and denominator
``d`` whose ratio is the item's score (e.g. avg@3: c/n as c·(L/n) over L, with L the
least common multiple of the sample counts), so sums over items are exact. A cell is
Σa/Σd over its items — the mean of item scores for rates, a pooled ratio for cost per
correct answer and the disagreement rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from builder.scoring.nulls import is_none
from builder.scoring.spec import Filter, Measure
from builder.scoring.uncertainty import Estimate, lcm_of, linear, ratio

if TYPE_CHECKING:
    from builder.scoring.frames import Prepared

QUANTITIES = ("n", "correct", "refused", "tok", "tok_known", "cost", "cost_known")


@dataclass
class Selection:
    """Which (submission, item) pairs and which result conditions a cell uses."""

    conds: np.ndarray  # (C,) bool
    elig: np.ndarray  # (S, I) bool: item filter × contamination
    row_flag: np.ndarray  # (S,) object: e.g. "cutoff-unknown"


def select(prep: Prepared, items: Filter, results: Filter, contamination: bool) -> Selection:
    """The (submission, item) pairs and result conditions a cell uses (memoised: boards
    repeat selections, e.g. every LiveMathematicianBench board starts from the standard,
    no-sketch runs)."""
    key = ("select", items, results, contamination and prep.spec.contamination is not None)
    if key not in prep.memo:
        prep.memo[key] = _select(prep, items, results, contamination)
    return prep.memo[key]


def _select(prep: Prepared, items: Filter, results: Filter, contamination: bool) -> Selection:
    s, i = prep.n_subs, prep.n_items
    item_mask = prep.item_mask(items)
    row_flag = np.array([None] * s, dtype=object)
    elig = np.broadcast_to(item_mask, (s, i)).copy()
    c = prep.spec.contamination
    if contamination and c is not None:
        published = prep.item_start[c.item_date]  # first possible day
        cutoff = prep.subs["_cutoff_end"].to_numpy(dtype="datetime64[D]")  # last possible day
        after = published[None, :] > cutoff[:, None]  # NaT compares False: unknown is never "after"
        elig &= after
        row_flag[np.isnat(cutoff)] = "cutoff-unknown"
    return Selection(prep.cond_mask(results), elig, row_flag)


@dataclass
class Scores:
    """(S, I) item numerators/denominators of one measure under one selection."""

    measure: Measure
    a: np.ndarray
    d: np.ndarray
    L: float | None  # the common per-item denominator (None: d varies, e.g. cost)
    elig: np.ndarray
    n: np.ndarray  # samples per (submission, item)
    short: np.ndarray  # (S, I) fewer samples than the measure needs
    unreported: np.ndarray  # (S, I) some sample lacks tokens / cost
    row_flag: np.ndarray
    memo: dict[Any, Any]  # the Prepared's memo: estimates are reused across boards
    stream: tuple | None = None  # what `a` is, for the disclosure audit (None: lab-reported, not audited)


def scores(prep: Prepared, sel: Selection, measure: Measure) -> Scores:
    key = ("scores", id(sel), measure)
    if key not in prep.memo:
        prep.memo[key] = _scores(prep, sel, measure)
    return prep.memo[key]


def _scores(prep: Prepared, sel: Selection, measure: Measure) -> Scores:
    q = prep.dense(sel.conds, QUANTITIES)
    n = q["n"]
    k = measure.k
    short = n < k
    live = sel.elig & ~short
    unreported = np.zeros_like(short)
    L: float | None = 1.0
    kind = measure.kind
    if kind in ("avg", "refusal_rate", "output_tokens"):
        num = q["correct"] if kind == "avg" else q["refused"] if kind == "refusal_rate" else q["tok"]
        if kind == "output_tokens":
            unreported = q["tok_known"] < n
        lcm_key = ("lcm", id(sel), k)  # the same for every measure of this selection and k
        if lcm_key not in prep.memo:
            prep.memo[lcm_key] = lcm_of(n[live])
        base = prep.memo[lcm_key]
        if base is None:  # pathological sample counts: exactness gives way to plain floats
            a = np.divide(num, n, out=np.zeros_like(num), where=n > 0)
            L = 1.0
        else:
            L = float(base)
            a = np.divide(num * L, n, out=np.zeros_like(num), where=n > 0)
        d = np.full_like(a, L)
    elif kind == "pass":
        a, L = _pass_at_k(n, q["correct"], k, live)
        d = np.full_like(a, L)
    elif kind == "cost_per_correct":
        unreported = q["cost_known"] < n
        a = q["cost"]
        d = q["correct"] * 1e9  # cost is in nano-dollars: the ratio is USD per correct answer
        L = None
    else:  # pragma: no cover - config admits no other kind
        raise ValueError(kind)
    # Rates graded against the key (and refusals) are audited; tokens and cost are lab-reported.
    stream = (kind, measure.k if kind == "pass" else 0, sel.conds.tobytes()) if kind in RATES else None
    return Scores(measure, a, d, L, sel.elig, n, short, unreported, sel.row_flag, prep.memo, stream)


def _pass_at_k(n: np.ndarray, c: np.ndarray, k: int, live: np.ndarray) -> tuple[np.ndarray, float]:
    """Unbiased pass@k per item, 1 − C(n−c, k)/C(n, k), as (C(n,k) − C(n−c,k))·(L/C(n,k)) over L."""
    ni = n[live].astype(np.int64)
    ci = c[live].astype(np.int64)
    span = int(ci.max(initial=0)) + 1
    key = ni * span + ci
    size = (int(ni.max(initial=0)) + 1) * span
    # (n, c) are sample counts: a few small integers, so the distinct pairs are counted in a
    # table (linear time) rather than sorted; a pathological range falls back to np.unique.
    codes = np.flatnonzero(np.bincount(key, minlength=size)) if size <= 1 << 20 else np.unique(key)
    pairs = np.stack([codes // span, codes % span], axis=1)
    totals = {int(x): math.comb(int(x), k) for x in np.unique(pairs[:, 0])}
    base = 1
    for t in totals.values():
        base = math.lcm(base, t)
    exact = base <= (1 << 20)
    L = float(base) if exact else 1.0
    lookup = np.zeros(len(codes))
    for j, (nn, cc) in enumerate(pairs.tolist()):
        total = totals[nn]
        fail = math.comb(nn - cc, k)
        lookup[j] = float((total - fail) * (base // total)) if exact else 1.0 - fail / total
    a = np.zeros(n.shape, dtype=np.float64)
    a[live] = lookup[np.searchsorted(codes, key)]  # every live key is one of `codes`
    return a, L


def flags(sc: Scores, elig: np.ndarray) -> np.ndarray:
    """Why each row's cell is undefined on items `elig`, or None."""
    s = elig.shape[0]
    out = np.array([None] * s, dtype=object)
    count = elig.sum(axis=1)
    missing = ((sc.n == 0) | ~elig).all(axis=1)
    short = (sc.short & elig).any(axis=1)
    unreported = (sc.unreported & elig).any(axis=1)
    out[unreported] = "not-reported"
    out[short] = "fewer-than-k-samples"
    out[missing] = "not-evaluated"
    out[count == 0] = "no-items"
    has = ~is_none(sc.row_flag)
    out[has] = sc.row_flag[has]
    if sc.measure.kind == "cost_per_correct":
        none_right = (np.where(elig, sc.d, 0).sum(axis=1) == 0) & is_none(out)
        out[none_right] = "no-correct"
    return out


RATES = ("avg", "pass", "refusal_rate")  # item scores in [0, 1]: Wilson intervals


def _rows(est: Estimate, subs: np.ndarray) -> Estimate:
    """`est` (computed on rows picked by `subs`) with its audit terms naming those submissions."""
    est.basis = tuple(t.on(subs) for t in est.basis)
    return est


def estimate(sc: Scores, items: np.ndarray | None = None) -> Estimate:
    """The cell Σa/Σd for every submission, over the eligible items (∩ `items`)."""
    key = ("estimate", id(sc), None if items is None else items.tobytes())
    if key not in sc.memo:
        elig = sc.elig if items is None else sc.elig & items[None, :]
        sc.memo[key] = ratio(sc.a, sc.d, elig, flags(sc, elig), bounded=sc.measure.kind in RATES, stream=sc.stream)
    return sc.memo[key]


def delta(
    first: Scores,
    second: Scores,
    first_est: Estimate,
    second_est: Estimate,
    items: np.ndarray | None = None,
    rows: tuple[np.ndarray, np.ndarray] | None = None,
) -> Estimate:
    """Paired difference second − first on the items both have (MOVER over the two rates
    on those items, correlated through the shared items).

    `rows` picks, for each output row, the submission of `first` and of `second` (TTS
    pairs compare two submissions); by default row s compares submission s with itself
    (two conditions of one run). The estimates give the flags and are indexed likewise.
    """
    if rows is None:
        idx = np.arange(first.a.shape[0])
        rows = (idx, idx)
    i1, i2 = rows
    elig = first.elig[i1] & second.elig[i2] & ~first.short[i1] & ~second.short[i2]
    if items is not None:
        elig &= items[None, :]
    f1, f2 = first_est.flag, second_est.flag
    flag = np.where(is_none(f1), f2, f1).astype(object)
    bounded = first.measure.kind in RATES and second.measure.kind in RATES
    e1 = ratio(first.a[i1], first.d[i1], elig, flag, bounded=bounded, stream=first.stream)
    e2 = ratio(second.a[i2], second.d[i2], elig, flag, bounded=bounded, stream=second.stream)
    est = linear([(-1.0, _rows(e1, i1)), (1.0, _rows(e2, i2))], n=elig.sum(axis=1))
    est.min_n = np.minimum(first_est.min_n, second_est.min_n)
    return est
