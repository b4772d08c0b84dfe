"""A per-bundle time budget on regrading (issue 22, "Hostile logs and answers").

Regrading's equivalence path (math-verify, sympy underneath) can be made to work without
bound: ``(x+1)^{999}`` passes the screen in :mod:`builder.scoring.regrade` and runs into
math-verify's 5-second alarm, and a bundle of thousands of such answers would hold the
authorised build for hours. Worse, math-verify's alarm is a signal, which only works on the
main thread: where scoring runs elsewhere it has no limit at all.

So before scoring, each bundle's answers that would take the equivalence path (those the
exact path cannot read, of regraded, non-choice items) are graded here, in a forked child
process (one per benchmark, bundle after bundle), on that process's main thread
(math-verify's own alarm holds for each answer), under a wall-clock budget for each bundle
(``BUDGET_S``, or ``SEALBOARD_REGRADE_BUDGET_S``). A child over a bundle's budget is killed,
that bundle is rejected (``regrade-budget``) and a new child takes the bundles after it; the
rest publish. An answer several bundles share is graded once, with the first. The verdicts a child returns
travel with each benchmark's state (``regrade_verdicts``), so scoring reads them and never runs
math-verify itself: the verdicts are those :func:`builder.scoring.equivalence.equivalent`
gives, computed once. Answers are embargoed: nothing here prints one.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from builder.bundles.ingest import Rejection
from builder.pipeline.left_out import left_out
from builder.report.records import BenchmarkState, restrict
from builder.scoring import equivalence, regrade

BUDGET_S = 120.0  # wall seconds of equivalence grading per bundle
REASON = "regrade-budget"


def budget_s() -> float:
    return float(os.environ.get("SEALBOARD_REGRADE_BUDGET_S", BUDGET_S))


def equivalence_pairs(state: Any) -> dict[str, list[tuple[str, str, str, Fraction]]]:
    """Submission -> its distinct (answer type, gold, answer, item tolerance) the exact path cannot read.

    Vectorised: each distinct answer is read once per regraded type (the exact path), and
    only the rows whose answer it cannot read for their item's type are looked at one by one."""
    results, items = state.results, state.items
    if results is None or items is None or not len(results) or "answer" not in results:
        return {}
    regraded = sorted(set(state.config.scoring.regrade_types) - {"choice"})
    tolerances = items["tolerance"] if "tolerance" in items.columns else [None] * len(items)
    type_of = {
        str(i): (regraded.index(t), g)
        for i, t, g in zip(items["item"], items["answer_type"], items["gold"])
        if t in regraded and isinstance(g, str)
    }
    tolerance_of = {str(i): regrade.as_tolerance(x) for i, x in zip(items["item"], tolerances)}
    if not type_of:
        return {}
    # Per row through the item's category code (the column is categorical): no Python per row.
    item_cat = results["item"].astype("category")
    cats = [str(c) for c in item_cat.cat.categories]
    cat_type = np.array([type_of.get(c, (-1, None))[0] for c in cats] + [-1], dtype=np.int64)
    cat_gold_unread = np.array(
        [c in type_of and regrade.canonical(regraded[type_of[c][0]], type_of[c][1], gold=True) is None for c in cats] + [False]
    )
    item_code = np.asarray(item_cat.cat.codes, dtype=np.int64)  # -1 (null) picks the appended entry
    rows = np.flatnonzero(cat_type[item_code] >= 0)
    row_type, gold_unread = cat_type[item_code[rows]], cat_gold_unread[item_code[rows]]
    # Each distinct answer of those rows read once per type present (the exact path).
    codes, uniques = pd.factorize(results["answer"].iloc[rows], use_na_sentinel=True)
    present = np.unique(row_type).tolist()
    unreadable = np.zeros((len(regraded), len(uniques)), dtype=bool)
    for t in present:
        unreadable[t] = [not isinstance(u, str) or not u.strip() or regrade.canonical(regraded[t], u) is None for u in uniques]
    empty = np.array([not isinstance(u, str) or not u.strip() for u in uniques], dtype=bool)
    valid = codes >= 0
    need = np.zeros(len(rows), dtype=bool)
    need[valid] = (unreadable[row_type[valid], codes[valid]] | gold_unread[valid]) & ~empty[codes[valid]]
    need_rows = rows[need]
    out: dict[str, list[tuple[str, str, str, Fraction]]] = {}
    picked = results.iloc[need_rows][["submission", "item", "answer"]].astype({"submission": str, "item": str}).drop_duplicates()
    for submission, item, answer in zip(picked["submission"], picked["item"], picked["answer"]):
        t, gold = type_of[item]
        out.setdefault(submission, []).append((regraded[t], gold, answer, tolerance_of[item]))
    return out


def _grade(jobs: list[tuple[str, list[tuple[str, str, str, Fraction]]]], conn: Any) -> None:  # in the child, on its main thread
    try:
        for submission, pairs in jobs:
            conn.send_bytes(pickle.dumps((submission, [equivalence.equivalent(*pair) for pair in pairs])))
    finally:
        conn.close()


def grade_bundles(
    jobs: list[tuple[str, list[tuple[str, str, str, Fraction]]]], budget: float
) -> tuple[dict[tuple[str, str, str, Fraction], regrade.Verdict], list[str]]:
    """Every job's (submission, pairs) graded in turn, each within ``budget`` seconds: the
    verdicts, and the submissions that went over. One child grades the bundles one after
    another (a fork per benchmark, not per bundle); a child over a bundle's budget is
    killed, and a new one takes the bundles after it."""
    equivalence.warm()  # the grammar is loaded once here, inherited by every child, never charged
    context = multiprocessing.get_context("fork")
    verdicts: dict[tuple[str, str, str, Fraction], regrade.Verdict] = {}
    over: list[str] = []
    while jobs:
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_grade, args=(jobs, send), daemon=True)
        child.start()
        send.close()
        try:
            done = 0
            for submission, pairs in jobs:
                try:
                    if not receive.poll(budget):
                        raise EOFError
                    got, found = pickle.loads(receive.recv_bytes())
                except EOFError:  # over the budget, or the child died on this bundle
                    over.append(submission)
                    done += 1
                    break
                if got != submission:
                    raise AssertionError()
                verdicts.update(zip(pairs, found))
                done += 1
            jobs = jobs[done:]
        finally:
            if child.is_alive():
                child.kill()
            child.join()
            receive.close()
    return verdicts, over


def grade_within(pairs: list[tuple[str, str, str, Fraction]], budget: float) -> list[regrade.Verdict] | None:
    """The verdicts of ``pairs``, or None when grading them takes longer than ``budget``."""
    verdicts, over = grade_bundles([("-", pairs)], budget)
    return None if over else [verdicts[p] for p in pairs]


def pregrade(states: list[BenchmarkState]) -> tuple[list[BenchmarkState], list[Rejection]]:
    """Each bundle's equivalence answers graded under the budget: the states, each carrying
    the verdicts its scoring reads (``regrade_verdicts``), bundles over the budget left out;
    and the rejections of those bundles."""
    budget = budget_s()
    known: dict[regrade.Pair, regrade.Verdict] = {}  # graded so far, in any benchmark: answers repeat
    out: list[BenchmarkState] = []
    rejections: list[Rejection] = []
    for state in states:
        wanted = sorted(equivalence_pairs(state).items())
        graded, over, sizes = _grade_state(wanted, known, budget)
        known.update(graded)
        rejections += [_over_budget(state, submission, sizes[submission], budget) for submission in over]
        mine = {p: known[p] for _, pairs in wanted for p in pairs if p in known}
        kept = restrict(state, {b.manifest.key for b in state.bundles} - set(over)) if over else state
        out.append(replace(kept, regrade_verdicts=mine))
    return out, rejections


def _grade_state(
    wanted: list[tuple[str, list[regrade.Pair]]], known: regrade.Verdicts, budget: float
) -> tuple[dict[regrade.Pair, regrade.Verdict], list[str], dict[str, int]]:
    """One benchmark's submissions' pairs not in `known`, graded bundle by bundle: (the new
    verdicts, the submissions over the budget, each submission's count of distinct pairs)."""
    graded: dict[regrade.Pair, regrade.Verdict] = {}
    over: list[str] = []
    sizes: dict[str, int] = {}
    while True:
        # A pair an earlier bundle queued is graded there (answers repeat across runs);
        # if that bundle goes over its budget, the next round grades it with the next.
        jobs, queued = [], set()
        for submission, pairs in wanted:
            if submission in over:
                continue
            todo = [p for p in dict.fromkeys(pairs) if p not in known and p not in graded and p not in queued]
            queued.update(todo)
            if todo:
                jobs.append((submission, todo))
                sizes.setdefault(submission, len(set(pairs)))
        if not jobs:
            return graded, over, sizes
        verdicts, late = grade_bundles(jobs, budget)
        graded.update(verdicts)
        over += late


def _over_budget(state: BenchmarkState, submission: str, size: int, budget: float) -> Rejection:
    return left_out(
        state, submission, reason="regrade-budget",
        what=f"regrading its {size} answer(s) that need the equivalence path (math-verify) took longer "
        f"than the {budget:g} s budget a bundle has; the bundle was left out so that the site could be published",
        hint="answers should be final answers (a number, a letter, a short expression), not unexpanded powers or "
        "long computations; resubmit with the extracted final answers",
    )  # fmt: skip
