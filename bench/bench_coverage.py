"""Simulated coverage of Sealboard's 95% intervals and rank ranges.

    python bench/bench_coverage.py                 # 2000 simulated benchmarks per scenario
    python bench/bench_coverage.py --runs 500 --sigma 1.0

Each run draws a fresh benchmark: n items whose difficulty u_i ~ N(0, sigma²) on the logit
scale is shared by every sample and every model (item-level correlation: the samples of
an item move together), and k samples per item per model (k = 3, and k = 1 as on
KCSAT-ML's and LiveMathematicianBench's boards), correct with probability
sigmoid(alpha_m + u_i). alpha is solved so the population rate (the estimand: the mean
over the item distribution) is exactly p; p = 0 means no sample is ever correct.

Printed per scenario (items, p, samples per item k):
- rate: coverage of p by the interval of one model's avg@k (Sealboard's method, then the
  percentile Poisson bootstrap it replaced, B=1000), their share of zero-width intervals
  and mean width;
- diff: coverage of the paired difference of two models (rates p and p', p' one logit
  step 0.4 above p, or equal to p when p is 0) by Sealboard's interval;
- ranks: four models at p, p, p+ and p− (logit offsets 0, 0, +0.4, −0.4), ranked 1-2-2-4
  by their true rates; coverage is the share of (run, model) whose true rank lies in its
  rank range (the worst model's share is printed too), and "split" is how often the two
  equally good models were shown at different ranks, both without a range.
The code under test is builder.scoring.uncertainty itself (ratio, linear, rank).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.scoring.uncertainty import linear, rank, ratio  # noqa: E402

# (items, p, samples per item): every regime the boards meet, with 3 samples and with one,
# and one sample per item near the edges, where a normal approximation misleads most.
BASE = [(340, 0.3), (24, 0.5), (99, 0.05), (78, 0.02), (78, 0.97), (339, 0.0)]
EDGES = [(items, p) for p in (0.002, 0.02, 0.98) for items in (24, 78, 340)]
SCENARIOS = [(n, p, 3) for n, p in BASE] + [(n, p, 1) for n, p in BASE] + [(n, p, 1) for n, p in EDGES if (n, p) not in BASE]
STEP = 0.4  # logit offset between neighbouring models in the rank scenario
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)  # E over N(0, 1)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def population_rate(alpha: float, sigma: float) -> float:
    return float((_WEIGHTS / (1 + np.exp(-(alpha + sigma * _NODES)))).sum())


def solve_alpha(p: float, sigma: float) -> float:
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if population_rate(mid, sigma) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def draw(rng: np.random.Generator, runs: int, items: int, alphas: list[float | None], sigma: float, samples: int) -> list[np.ndarray]:
    """Correct-sample counts (runs, items) per model; None = a model that is never right."""
    u = rng.normal(0.0, sigma, (runs, items))
    out = []
    for a in alphas:
        if a is None:
            out.append(np.zeros((runs, items)))
        else:
            out.append(rng.binomial(samples, 1 / (1 + np.exp(-(a + u)))).astype(np.float64))
    return out


def rate_interval(c: np.ndarray, samples: int):
    runs, items = c.shape
    return ratio(c, np.full_like(c, samples), np.ones_like(c, dtype=bool), np.array([None] * runs, dtype=object))


def bootstrap_percentile(rng: np.random.Generator, c: np.ndarray, samples: int, replicates: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """The method Sealboard used before: Poisson(1) item weights, 2.5th/97.5th percentiles."""
    runs, items = c.shape
    lo, hi = np.empty(runs), np.empty(runs)
    value = c.sum(axis=1) / (samples * items)
    for r in range(runs):
        w = rng.poisson(1.0, (replicates, items)).astype(np.float64)
        den = w.sum(axis=1) * samples
        reps = np.where(den > 0, (w @ c[r]) / np.where(den > 0, den, 1), np.nan)
        q = np.nanquantile(reps, [0.025, 0.975])
        lo[r], hi[r] = min(q[0], value[r]), max(q[1], value[r])
    return lo, hi


def scenario(rng: np.random.Generator, items: int, p: float, samples: int, runs: int, sigma: float, boot_runs: int) -> dict:
    a0 = None if p == 0 else solve_alpha(p, sigma)
    row: dict = {"items": items, "p": p}

    (c,) = draw(rng, runs, items, [a0], sigma, samples)
    est = rate_interval(c, samples)
    row["cover"] = float(((est.lo <= p) & (p <= est.hi)).mean())
    row["zero"] = float((est.hi - est.lo == 0).mean())
    row["width"] = float((est.hi - est.lo).mean())
    blo, bhi = bootstrap_percentile(rng, c[:boot_runs], samples)
    row["boot_cover"] = float(((blo <= p) & (p <= bhi)).mean())
    row["boot_zero"] = float((bhi - blo == 0).mean())

    # paired difference of two models one logit step apart, on the same items
    a1 = None if a0 is None else a0 + STEP
    p1 = 0.0 if a1 is None else population_rate(a1, sigma)
    c0, c1 = draw(rng, runs, items, [a0, a1], sigma, samples)
    e0, e1 = rate_interval(c0, samples), rate_interval(c1, samples)
    diff = linear([(-1.0, e0), (1.0, e1)])
    row["diff_cover"] = float(((diff.lo <= p1 - p) & (p1 - p <= diff.hi)).mean())

    # rank ranges: models at p, p, p+, p−
    offs = [0.0, 0.0, STEP, -STEP]
    alphas = [None if a0 is None else a0 + o for o in offs]
    truth = np.array([0.0 if a is None else population_rate(a, sigma) for a in alphas])
    true_rank = np.array([1 + (truth > t + 1e-12).sum() for t in truth])
    counts = draw(rng, runs, items, alphas, sigma, samples)
    hits = np.zeros(len(offs))
    sole = 0
    flags = np.array([None] * len(offs), dtype=object)
    usable = np.ones(len(offs), dtype=bool)
    for r in range(runs):
        m = np.stack([cc[r] for cc in counts])
        est = ratio(m, np.full_like(m, samples), np.ones_like(m, dtype=bool), flags)
        rk, lo, hi = rank(est, True, usable)
        hits += (lo <= true_rank) & (true_rank <= hi)
        sole += int(lo[0] == hi[0] and lo[1] == hi[1] and rk[0] != rk[1])
    row["rank_cover"] = float(hits.sum() / (runs * len(offs)))
    row["rank_worst"] = float(hits.min() / runs)
    row["sole"] = sole / runs
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2000, help="simulated benchmarks per scenario")
    ap.add_argument("--boot-runs", type=int, default=400, help="runs also scored with the old percentile bootstrap")
    ap.add_argument("--sigma", type=float, default=1.5, help="sd of item difficulty (logit): item-level correlation")
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(
        f"coverage of 95% intervals, {args.runs} simulated benchmarks per scenario ({args.boot_runs} for the bootstrap), "
        f"item sd {args.sigma} (logit)"
    )
    head = f"{'items':>5} {'p':>5} {'k':>2} | {'rate':>6} {'zero-w':>6} {'width':>6} | {'boot':>6} {'zero-w':>6} | {'diff':>6} | {'ranks':>6} {'worst':>6} {'split':>6}"
    print(head)
    print("-" * len(head))
    worst = 1.0
    for items, p, samples in SCENARIOS:
        r = scenario(rng, items, p, samples, args.runs, args.sigma, args.boot_runs)
        worst = min(worst, r["cover"], r["diff_cover"], r["rank_worst"])
        print(
            f"{items:>5} {p:>5.3f} {samples:>2} | {r['cover']:>6.3f} {r['zero']:>6.3f} {r['width']:>6.3f} | {r['boot_cover']:>6.3f} {r['boot_zero']:>6.3f} | "
            f"{r['diff_cover']:>6.3f} | {r['rank_cover']:>6.3f} {r['rank_worst']:>6.3f} {r['sole']:>6.3f}"
        )
    print(f"lowest coverage (rate, diff, worst model's rank): {worst:.3f}   ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
