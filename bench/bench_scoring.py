"""Benchmark the scoring stage on a synthetic instance of realistic size.

    python bench/bench_scoring.py                  # 300 submissions, ~2M rows per benchmark
    python bench/bench_scoring.py --subs 50 --repeat 1

Synthesises the three frames (items, results, submissions) for SOOHAK,
LiveMathematicianBench and KCSAT-ML with the packaged scoring declarations, then prints
the median of --repeat runs of score_benchmark per benchmark (all boards), plus a
breakdown of the median run into preparation (checks, regrading, reduction) and boards.
Frames are built once and not counted: decrypting and parsing them is the unseal
stage's cost, which `bench_build.py` measures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.scoring import default_spec, score_benchmark  # noqa: E402
from builder.scoring.frames import prepare  # noqa: E402


def _submissions(rng: np.random.Generator, n: int, families: int) -> pd.DataFrame:
    fam = rng.integers(0, families, n)
    return pd.DataFrame(
        {
            "submission": [f"lab{i % 40:02d}/run-{i:04d}" for i in range(n)],
            "lab": [f"lab{i % 40:02d}" for i in range(n)],
            "model_id": [f"model-{i}" for i in range(n)],
            "model": [f"Model {i}" for i in range(n)],
            "family": [f"family-{f}" for f in fam],
            "open_weights": rng.random(n) < 0.4,
            "training_cutoff": [f"2025-{m:02d}" for m in rng.integers(1, 13, n)],
            "tts": rng.random(n) < 0.5,
        }
    )


def _results(
    rng: np.random.Generator,
    items: pd.DataFrame,
    subs: pd.DataFrame,
    conditions: list[dict[str, object]],
    samples: int,
    wrong: np.ndarray,
) -> pd.DataFrame:
    """One row per (submission, item, condition, sample); answer right with an IRT-ish probability."""
    n_items, n_subs, n_cond = len(items), len(subs), len(conditions)
    ability = rng.normal(0, 1.2, n_subs)
    difficulty = rng.normal(0, 1.2, n_items)
    shape = (n_subs, n_cond, n_items, samples)
    size = int(np.prod(shape))
    s_idx = np.repeat(np.arange(n_subs), n_cond * n_items * samples)
    c_idx = np.tile(np.repeat(np.arange(n_cond), n_items * samples), n_subs)
    i_idx = np.tile(np.repeat(np.arange(n_items), samples), n_subs * n_cond)
    k_idx = np.tile(np.arange(samples), n_subs * n_cond * n_items)
    p = 1 / (1 + np.exp(-(ability[s_idx] - difficulty[i_idx])))
    correct = rng.random(size) < p
    gold = items["gold"].to_numpy(dtype=object)
    answer = np.where(correct, gold[i_idx], wrong[i_idx])
    lab_correct = correct ^ (rng.random(size) < 0.005)
    frame = pd.DataFrame(
        {
            "submission": subs["submission"].to_numpy(dtype=object)[s_idx],
            "item": items["item"].to_numpy(dtype=object)[i_idx],
            "sample": k_idx.astype(np.int16),
            "answer": answer,
            "lab_correct": lab_correct,
            "refused": rng.random(size) < 0.02,
            "output_tokens": rng.integers(50, 20000, size).astype(np.float64),
            "latency_s": rng.random(size) * 60,
            "cost_usd": np.round(rng.random(size) * 0.05, 6),
        }
    )
    for key in conditions[0]:
        values = np.array([c[key] for c in conditions], dtype=object)
        frame[key] = values[c_idx]
    return frame


def soohak(rng: np.random.Generator, n_subs: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    splits = ["mini"] * 702 + ["challenge"] * 340 + ["refusal"] * 99
    n = len(splits)
    types = np.where(
        np.array(splits) == "refusal", "ill_posed", rng.choice(["integer", "integer", "integer", "fraction", "decimal", "expression"], n)
    )
    gold = []
    wrong = []
    for t in types:
        v = int(rng.integers(1, 10**6))
        gold.append(
            {"integer": str(v), "fraction": f"{v}/{v + 1}", "decimal": f"{v}.25", "expression": f"x^{v}", "ill_posed": "ill-posed"}[t]
        )
        wrong.append(str(v + 1))
    items = pd.DataFrame(
        {
            "item": [f"soohak-{i:05d}" for i in range(n)],
            "split": splits,
            "answer_type": types,
            "gold": gold,
            "msc": [f"{m:02d}" for m in rng.choice([5, 11, 15, 16, 26, 40, 51, 52, 60, 3, 14, 20, 35, 47, 53, 55, 57, 68, 81, 94], n)],
            "problem_type": rng.choice(["olympiad", "undergrad", "graduate", "beyond"], n),
        }
    )
    subs = _submissions(rng, n_subs, 60)
    results = _results(rng, items, subs, [{"lang": "en"}, {"lang": "ko"}], 3, np.array(wrong, dtype=object))
    return items, results, subs


def lmb(rng: np.random.Generator, n_subs: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    n = 1700
    months = rng.integers(0, 14, n)
    items = pd.DataFrame(
        {
            "item": [f"lmb-{i:05d}" for i in range(n)],
            "split": "test",
            "answer_type": "choice",
            "gold": rng.choice(list("ABCDE"), n),
            "edition": [f"{2025 + (m // 12)}-{m % 12 + 1:02d}" for m in months],
            "category": rng.choice([f"cat-{c:02d}" for c in range(13)], n),
            "published": [f"{2025 + (m // 12)}-{m % 12 + 1:02d}-{d:02d}" for m, d in zip(months, rng.integers(1, 29, n))],
        }
    )
    wrong = np.array([{"A": "B", "B": "C", "C": "D", "D": "E", "E": "A"}[g] for g in items["gold"]], dtype=object)
    subs = _submissions(rng, n_subs, 60)
    conds = [{"lang": "en", "variant": v, "sketch": s} for v in ("standard", "substitution") for s in (False, True)]
    results = _results(rng, items, subs, conds, 1, wrong)
    return items, results, subs


def kcsat(rng: np.random.Generator, n_subs: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    n = 664
    core = np.arange(n) < 339
    types = rng.choice(["integer", "integer", "fraction", "decimal", "choice"], n)
    gold, wrong = [], []
    for t in types:
        v = int(rng.integers(1, 1000))
        gold.append({"integer": str(v), "fraction": f"{v}/7", "decimal": f"{v}.5", "choice": "ABCDE"[v % 5]}[t])
        wrong.append({"choice": "ABCDE"[(v + 1) % 5]}.get(t, str(v + 2)))
    items = pd.DataFrame(
        {
            "item": [f"kcsat-{i:04d}" for i in range(n)],
            "split": np.where(core, "core", "extended"),
            "answer_type": types,
            "gold": gold,
            "year": rng.integers(2014, 2026, n),
            "points": np.where(core, rng.choice([3, 4], n), rng.choice([2, 3, 4], n)),
            "cohort_error_rate": np.where(core, np.round(rng.random(n), 3), np.nan),
        }
    )
    subs = _submissions(rng, n_subs, 40)
    results = _results(rng, items, subs, [{"lang": "ko"}], 5, np.array(wrong, dtype=object))
    results["budget"] = np.where(subs.set_index("submission").loc[results["submission"], "tts"].to_numpy(), 32768, 1024)
    return items, results, subs


SYNTH = {"soohak": soohak, "livemathematicianbench": lmb, "kcsat-ml": kcsat}


def parse_seconds(results: pd.DataFrame, extras: dict[str, object], sample_subs: int = 10) -> float | None:
    """Seconds builder.bundles.results.parse_results would take for all rows (extrapolated from a
    few submissions' JSONL): the cost scoring is compared with. Decryption comes on top."""
    try:
        import orjson

        from builder.bundles.results import parse_results
    except ImportError:  # the results parser is another module; the figure is optional
        return None
    cols = [
        c
        for c in ["item", "lang", "sample", "answer", "lab_correct", "refused", "output_tokens", "latency_s", "cost_usd", *extras]
        if c in results
    ]
    spent, rows = 0.0, 0
    for _, g in list(results.groupby("submission", sort=True))[:sample_subs]:
        recs = g[cols].rename(columns={"lab_correct": "correct"}).to_dict("records")
        for r in recs:
            r["sample"] = int(r["sample"])
            r["output_tokens"] = int(r["output_tokens"])
            for k, v in r.items():
                if isinstance(v, np.generic):
                    r[k] = v.item()
        data = b"\n".join(orjson.dumps(r) for r in recs) + b"\n"
        t0 = time.perf_counter()
        parse_results(data, "bench", extras)
        spent += time.perf_counter() - t0
        rows += len(recs)
    return spent / rows * len(results) if rows else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subs", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--embargoed", action="store_true")
    ap.add_argument("--no-parse", dest="parse", action="store_false", help="skip the parse_results comparison")
    args = ap.parse_args()
    print(f"scoring benchmark: {args.subs} submissions, median of {args.repeat}, numpy {np.__version__}, pandas {pd.__version__}")
    grand = 0.0
    for name, synth in SYNTH.items():
        rng = np.random.default_rng(7)
        items, results, subs = synth(rng, args.subs)
        spec = default_spec(name)
        times, prep_times = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            prepare(spec, items, results, subs)
            prep_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            tables = score_benchmark(spec, items, results, subs, embargoed=args.embargoed)
            times.append(time.perf_counter() - t0)
        med, prep = statistics.median(times), statistics.median(prep_times)
        grand += med
        cells = sum(len(t.rows) * len(t.metrics) for t in tables)
        parse = parse_seconds(results, spec.results_extras()) if args.parse else None
        versus = f"  | parse_results ≈ {parse:5.1f} s ({med / parse:.0%})" if parse else ""
        print(
            f"  {name:24s} {len(results):>9,} rows  {len(items):>5} items  {len(tables):>2} boards  {cells:>7,} cells"
            f"  score {med:5.2f} s  (prepare {prep:4.2f} s, boards {med - prep:4.2f} s){versus}"
        )
    print(f"  {'total':24s} {grand:6.2f} s")


if __name__ == "__main__":
    main()
