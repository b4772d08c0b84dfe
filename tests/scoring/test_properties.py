"""Invariants: shuffling result rows or renaming submissions never changes a score or rank."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.scoring import default_spec, score_benchmark

pytestmark = pytest.mark.slow  # property tests over whole boards (~50 s)

SOOHAK = default_spec("soohak")
KCSAT = default_spec("kcsat-ml")


def _soohak_frames(correct: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    n_subs, n_items = correct.shape[:2]
    splits = ["mini", "challenge", "refusal"]
    items = pd.DataFrame(
        {
            "item": [f"i{i}" for i in range(n_items)],
            "split": [splits[i % 3] for i in range(n_items)],
            "answer_type": ["ill_posed" if i % 3 == 2 else "integer" for i in range(n_items)],
            "gold": [str(i) for i in range(n_items)],
            "msc": ["11" if i % 2 else "05" for i in range(n_items)],
            "problem_type": ["olympiad" if i % 2 else "graduate" for i in range(n_items)],
        }
    )
    rows = []
    for s in range(n_subs):
        for i in range(n_items):
            for j in range(3):
                ok = bool(correct[s, i, j])
                for lang in ("en", "ko"):
                    rows.append(("s%d/run" % s, f"i{i}", lang, j, str(i) if ok else "x", ok, bool((s + i + j) % 5 == 0), float(10 * i + j)))
    results = pd.DataFrame(rows, columns=["submission", "item", "lang", "sample", "answer", "lab_correct", "refused", "output_tokens"])
    subs = pd.DataFrame(
        {
            "submission": [f"s{s}/run" for s in range(n_subs)],
            "lab": [f"s{s}" for s in range(n_subs)],
            "model": [f"M{s}" for s in range(n_subs)],
        }
    )
    return items, results, subs


def _by_submission(tables, rename=lambda s: s) -> dict:
    out = {}
    for t in tables:
        d = t.to_dict()
        rows = d.pop("rows")
        out[t.board] = (d, {rename(r["submission"]): {k: v for k, v in r.items() if k not in ("submission", "model", "lab")} for r in rows})
    return out


patterns = st.integers(min_value=2, max_value=5).flatmap(
    lambda n_subs: st.lists(st.booleans(), min_size=n_subs * 9 * 3, max_size=n_subs * 9 * 3).map(
        lambda bits: np.array(bits).reshape(n_subs, 9, 3)
    )
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(correct=patterns, seed=st.integers(0, 2**32 - 1), embargoed=st.booleans())
def test_shuffling_result_rows_changes_nothing(correct, seed, embargoed):
    items, results, subs = _soohak_frames(correct)
    base = score_benchmark(SOOHAK, items, results, subs, embargoed=embargoed)
    rng = np.random.default_rng(seed)
    shuffled = results.sample(frac=1.0, random_state=rng).reset_index(drop=True)
    other = score_benchmark(
        SOOHAK, items.sample(frac=1.0, random_state=rng), shuffled, subs.sample(frac=1.0, random_state=rng), embargoed=embargoed
    )
    assert [t.to_dict() for t in base] == [t.to_dict() for t in other]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(correct=patterns, names=st.lists(st.text("abcdefghij-/0123", min_size=1, max_size=8), min_size=5, max_size=5, unique=True))
def test_renaming_submissions_changes_no_score_or_rank(correct, names):
    items, results, subs = _soohak_frames(correct)
    mapping = {old: f"z{new}" for old, new in zip(subs["submission"], names)}
    back = {v: k for k, v in mapping.items()}
    renamed_results = results.assign(submission=results["submission"].map(mapping))
    renamed_subs = subs.assign(submission=subs["submission"].map(mapping))
    base = _by_submission(score_benchmark(SOOHAK, items, results, subs, embargoed=False))
    other = _by_submission(score_benchmark(SOOHAK, items, renamed_results, renamed_subs, embargoed=False), rename=back.get)
    assert base == other


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bits=st.lists(st.booleans(), min_size=4 * 12, max_size=4 * 12),
    rates=st.lists(st.integers(0, 100), min_size=12, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_kcsat_pairs_and_drg_invariant_to_order_and_names(bits, rates, seed):
    correct = np.array(bits).reshape(4, 12)
    items = pd.DataFrame(
        {
            "item": [f"k{i}" for i in range(12)],
            "split": "core",
            "answer_type": "integer",
            "gold": [str(i) for i in range(12)],
            "year": 2020,
            "points": 4,
            "cohort_error_rate": [r / 100 for r in rates],
        }
    )
    subs = pd.DataFrame(
        {
            "submission": ["a/off", "a/on-low", "a/on-high", "b/off"],
            "lab": ["a", "a", "a", "b"],
            "model": ["A", "A+", "A++", "B"],
            "family": ["fa", "fa", "fa", "fb"],
            "tts": [False, True, True, False],
        }
    )
    budgets = [512, 4096, 32768, 512]
    rows = [
        (subs["submission"][s], f"k{i}", "ko", 0, str(i) if correct[s, i] else "x", bool(correct[s, i]), False, budgets[s])
        for s in range(4)
        for i in range(12)
    ]
    results = pd.DataFrame(rows, columns=["submission", "item", "lang", "sample", "answer", "lab_correct", "refused", "budget"])
    base = _by_submission(score_benchmark(KCSAT, items, results, subs, embargoed=False))
    mapping = {"a/off": "q/1", "a/on-low": "c/9", "a/on-high": "m/2", "b/off": "a/0"}
    rng = np.random.default_rng(seed)
    other_results = results.assign(submission=results["submission"].map(mapping)).sample(frac=1.0, random_state=rng)
    other = _by_submission(
        score_benchmark(KCSAT, items, other_results, subs.assign(submission=subs["submission"].map(mapping)), embargoed=False),
        rename={v: k for k, v in mapping.items()}.get,
    )
    # the pair boards name the baseline: map it back before comparing
    for board in ("tts", "drg"):
        for r in other[board][1].values():
            r["baseline"] = {v: k for k, v in mapping.items()}[r["baseline"]]
    assert base == other


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(correct=patterns)
def test_every_interval_contains_its_estimate_within_the_unit_range(correct):
    items, results, subs = _soohak_frames(correct)
    for t in score_benchmark(SOOHAK, items, results, subs, embargoed=False):
        for m in t.metrics:
            for r in t.rows:
                c = r.metrics[m.name]
                if c.value is None or c.ci_low is None:
                    continue
                assert c.ci_low <= c.value <= c.ci_high
                if m.unit == "fraction":
                    assert 0.0 <= c.ci_low and c.ci_high <= 1.0
                if m.unit == "difference":
                    assert -1.0 <= c.ci_low and c.ci_high <= 1.0


LMB = default_spec("livemathematicianbench")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bits=st.lists(st.booleans(), min_size=3 * 10 * 4, max_size=3 * 10 * 4),
    cutoffs=st.lists(st.sampled_from([None, "2025-01", "2025-03-15", "2025-06", "2024"]), min_size=3, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_contamination_boards_invariant_to_order_and_names(bits, cutoffs, seed):
    correct = np.array(bits).reshape(3, 10, 4)
    items = pd.DataFrame(
        {
            "item": [f"p{i}" for i in range(10)],
            "split": "test",
            "answer_type": "choice",
            "gold": ["A"] * 10,
            "edition": [f"2025-0{1 + i % 6}" for i in range(10)],
            "category": ["c1" if i % 2 else "c2" for i in range(10)],
            "published": [f"2025-0{1 + i % 6}-1{i % 9}" for i in range(10)],
        }
    )
    conds = [("standard", False), ("standard", True), ("substitution", False), ("substitution", True)]
    rows = [
        (f"s{s}/r", f"p{i}", "en", 0, "A" if correct[s, i, c] else "B", bool(correct[s, i, c]), False, v, k)
        for s in range(3)
        for i in range(10)
        for c, (v, k) in enumerate(conds)
    ]
    results = pd.DataFrame(rows, columns=["submission", "item", "lang", "sample", "answer", "lab_correct", "refused", "variant", "sketch"])
    subs = pd.DataFrame(
        {"submission": [f"s{s}/r" for s in range(3)], "lab": ["s0", "s1", "s2"], "model": ["A", "B", "C"], "training_cutoff": cutoffs}
    )
    mapping = {"s0/r": "zz/9", "s1/r": "aa/1", "s2/r": "mm/5"}
    back = {v: k for k, v in mapping.items()}
    rng = np.random.default_rng(seed)
    for embargoed in (False, True):
        base = _by_submission(score_benchmark(LMB, items, results, subs, embargoed=embargoed))
        other_results = results.assign(submission=results["submission"].map(mapping)).sample(frac=1.0, random_state=rng)
        other_subs = subs.assign(submission=subs["submission"].map(mapping)).sample(frac=1.0, random_state=rng)
        other = _by_submission(
            score_benchmark(LMB, items.sample(frac=1.0, random_state=rng), other_results, other_subs, embargoed=embargoed), rename=back.get
        )
        assert base == other
