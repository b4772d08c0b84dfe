"""Board kinds over one selection of items and results: table, breakdown, contrast,
composite and grading. Each returns a RawBoard (estimates for every row); the engine
turns it into a BoardTable (suppression, ranks, cells).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from builder.scoring import definitions as D
from builder.scoring.definitions import measure_def
from builder.scoring.disclosure import Term
from builder.scoring.frames import Prepared
from builder.scoring.measures import Scores, delta, estimate, scores, select
from builder.scoring.spec import BoardSpec, Filter, Reference
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import Estimate, count, linear, ratio


@dataclass
class Context:
    prep: Prepared
    embargoed: bool
    registry: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # (board id, column) -> estimate


@dataclass
class RawBoard:
    spec: BoardSpec
    board_id: str
    columns: list[MetricDef]
    est: dict[str, Estimate]
    rows: np.ndarray  # (R,) submission index of each row
    extras: list[dict[str, Any]]
    references: list[tuple[Reference, dict[str, Estimate]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    contaminated: bool = False
    extra_needs: dict[str, str] = field(default_factory=dict)  # row extra -> column it is derived from


def results_filter(ctx: Context, *filters: Filter) -> Filter:
    """lang = primary language and the benchmark's result_defaults, overridden by `filters` in turn."""
    out = ctx.prep.spec.result_defaults.merged_over(Filter((("lang", (ctx.prep.spec.primary_language,)),)))
    for f in filters:
        out = f.merged_over(out)
    return out


def fixed(value: float, n: int = 0) -> Estimate:
    """A one-row value with no interval (a constant reference such as 1-in-5 guessing)."""
    nan = np.array([np.nan])
    return Estimate(np.array([float(value)]), nan, nan.copy(), None, np.zeros(0, dtype=np.int64), np.array([n]), np.array([n]), np.array([None], dtype=object))


def _reference_estimates(ctx: Context, sc: Scores | None, item_mask: np.ndarray, board: BoardSpec, raw: RawBoard | None = None) -> list[tuple[Reference, Estimate]]:
    """Reference values for a column computed with measure sc.measure over `item_mask`.

    A reference drawn from an item field is shown only where it rests on the same items as
    the models: if some of the column's items lack the field, the column gets no reference
    (and the board a note), rather than a value over a different item set.
    """
    out: list[tuple[Reference, Estimate]] = []
    if not board.references or sc is None:
        return out
    for ref in ctx.prep.spec.references:
        if sc.measure.name not in ref.measures:
            continue
        if ref.constant is not None:
            if ref.items is None:
                out.append((ref, fixed(ref.constant)))
            elif np.array_equal(ctx.prep.item_mask(ref.items), item_mask):
                out.append((ref, fixed(ref.constant, int(item_mask.sum()))))
            continue
        bp = ctx.prep.item_bp[ref.complement_of or ""]
        covered = item_mask & (bp >= 0)
        if covered.sum() < item_mask.sum():
            if raw is not None:
                note = (
                    f"{ref.label} is shown only on columns whose items all carry {ref.complement_of}; "
                    "elsewhere it would rest on other items than the models' rows."
                )
                if note not in raw.notes:
                    raw.notes.append(note)
            continue
        elig = covered[None, :]
        a = (10000 - bp).astype(np.float64)[None, :]
        d = np.full_like(a, 10000.0)
        out.append((ref, ratio(a, d, elig, np.array([None], dtype=object))))
    return out


def _add_refs(raw: RawBoard, col: str, refs: list[tuple[Reference, Estimate]]) -> None:
    for ref, value in refs:
        for existing, cols in raw.references:
            if existing.id == ref.id:
                cols[col] = value
                break
        else:
            raw.references.append((ref, {col: value}))


def _all_rows(ctx: Context) -> tuple[np.ndarray, list[dict[str, Any]]]:
    s = ctx.prep.n_subs
    return np.arange(s), [{} for _ in range(s)]


def table(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    for m in board.metrics:
        items = m.items.merged_over(board.items)
        sel = select(ctx.prep, items, results_filter(ctx, board.results, m.results), contaminated)
        sc = scores(ctx.prep, sel, m.measure)
        raw.est[m.name] = est = estimate(sc)
        raw.columns.append(measure_def(m.name, m.measure, m.title, m.description))
        ctx.registry[(board_id, m.name)] = est
        _add_refs(raw, m.name, _reference_estimates(ctx, sc, ctx.prep.item_mask(items), board, raw))
    if "unsolved" in board.summary and board.metrics:
        m = board.metrics[0]
        items = m.items.merged_over(board.items)
        mask = ctx.prep.item_mask(items)
        sel = select(ctx.prep, items, results_filter(ctx, board.results, m.results), False)
        solved = ctx.prep.dense(sel.conds, ["correct"])["correct"].sum(axis=0) > 0
        raw.summary["unsolved_items"] = int((mask & ~solved).sum())
        raw.summary["items"] = int(mask.sum())
        raw.notes.append(f"{raw.summary['unsolved_items']} of {raw.summary['items']} items are solved by no submission on this board.")
    _regrade_note(ctx, raw)
    return raw


def _regrade_note(ctx: Context, raw: RawBoard) -> None:
    types = ", ".join(ctx.prep.spec.regrade_types) or "none"
    raw.notes.append(
        f"Correctness of {types} answers is regraded by Sealboard from the extracted answer (exact, else math-verify equivalence); other answer types keep the lab's judge verdict."
    )


def _natural(values: list[str]) -> list[str]:
    def key(v: str) -> tuple[int, float, str]:
        try:
            return (0, float(v), v)
        except ValueError:
            return (1, 0.0, v)

    return sorted(values, key=key)


def breakdown(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    assert board.measure is not None and board.by is not None
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    mask = ctx.prep.item_mask(board.items)
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    sc = scores(ctx.prep, sel, board.measure)
    groups = ctx.prep.item_tokens[board.by]
    present = sorted({g for g in groups[mask] if g is not None})
    preferred = list(board.values) or [x.value for b in ctx.prep.spec.item_bins if b.name == board.by for x in b.bins]
    ordered = [v for v in preferred if v in present] + _natural([v for v in present if v not in preferred])
    hidden = mask & np.equal(groups, None)
    shown_values, dropped = [], []
    for value in ordered:
        gmask = mask & (groups == value)
        if int(gmask.sum()) < board.min_group_items:
            dropped.append(f"{value} ({int(gmask.sum())})")
            hidden |= gmask
        else:
            shown_values.append(value)
    overall = board.measure.name
    raw.est[overall] = estimate(sc)
    raw.columns.append(measure_def(overall, board.measure, f"All ({board.measure.name})"))
    _add_refs(raw, overall, _reference_estimates(ctx, sc, mask, board, raw))
    shown = []
    for value in shown_values:
        gmask = mask & (groups == value)
        name = f"{board.by}={value}"
        raw.est[name] = estimate(sc, gmask)
        raw.columns.append(measure_def(name, board.measure, _group_title(ctx, board.by, value), group=(board.by, value)))
        _add_refs(raw, name, _reference_estimates(ctx, sc, gmask, board, raw))
        shown.append(name)
    if dropped:
        raw.notes.append(f"Groups with fewer than {board.min_group_items} items are not shown: {', '.join(dropped)}.")
    if hidden.any():
        raw.notes.append(f"{int(hidden.sum())} item(s) count in the overall column but in no column shown.")
    _regrade_note(ctx, raw)
    return raw


def _group_title(ctx: Context, by: str, value: str) -> str:
    for b in ctx.prep.spec.item_bins:
        if b.name == by:
            for x in b.bins:
                if x.value == value:
                    return x.title
    return f"{by} {value}"


def contrast(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    assert board.measure is not None and board.over is not None
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    mask = ctx.prep.item_mask(board.items)
    base = results_filter(ctx, board.results).without(board.over)
    sc, est = [], []
    for value, name, title in board.conditions:
        f = Filter(((board.over, (value,)),)).merged_over(base)
        s = scores(ctx.prep, select(ctx.prep, board.items, f, contaminated), board.measure)
        e = estimate(s)
        sc.append(s)
        est.append(e)
        raw.est[name] = e
        raw.columns.append(measure_def(name, board.measure, title))
        _add_refs(raw, name, _reference_estimates(ctx, s, mask, board, raw))
    if len(sc) == 2:
        name = board.delta or "delta"
        raw.est[name] = delta(sc[0], sc[1], est[0], est[1])
        first, second = board.conditions[0][2], board.conditions[1][2]
        raw.columns.append(
            MetricDef(
                name=name,
                title=f"{second} − {first}",
                description=f"Paired difference on the same items: {board.measure.name} ({second}) − {board.measure.name} ({first}); its interval resamples items once for both.",
                unit="difference",
                higher_is_better=None,
                measure=board.measure.name,
            )
        )
    _regrade_note(ctx, raw)
    return raw


def composite(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    twins = {b.id for b in ctx.prep.spec.boards if b.contamination}
    for c in board.composites:
        terms: list[tuple[float | Fraction, Estimate]] = []
        for ref_board, metric in c.mean_of:
            key = (ref_board + (suffix if ref_board in twins else ""), metric)
            terms.append((Fraction(1, len(c.mean_of)), ctx.registry[key]))  # exactly 1/n: see linear
        raw.est[c.name] = linear(terms)
        raw.columns.append(
            MetricDef(
                name=c.name,
                title=c.title or c.name,
                description=c.description or D.COMPOSITES.get(c.name, "Mean of " + ", ".join(f"{b}/{m}" for b, m in c.mean_of) + "."),
                unit="fraction",
                higher_is_better=True,
            )
        )
    if board.rank_shift is not None:
        a, b = board.rank_shift
        raw.notes.append(f"rank_shift = rank by {a} − rank by {b}: positive when the model rises once {b} is used (SOOHAK Figure 4).")
    return raw


GRADING_QUANTITIES = ("n", "regraded", "disagree", "unparsed", "equivalence")


def grading(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    # Grading covers every result row (all languages and conditions) unless the board narrows it.
    sel = select(ctx.prep, board.items, board.results, contaminated)
    q = ctx.prep.dense(sel.conds, GRADING_QUANTITIES)
    elig = sel.elig & (q["n"] > 0)
    n_items = elig.sum(axis=1)
    flag = np.array([None] * len(rows), dtype=object)
    flag[n_items == 0] = "not-evaluated"
    has = ~np.equal(sel.row_flag, None)
    flag[has] = sel.row_flag[has]

    def total(name: str) -> np.ndarray:
        return np.where(elig, q[name], 0).sum(axis=1)

    raw.est["regraded_samples"] = count(total("regraded"), n_items, flag)
    raw.est["equivalence_graded"] = count(total("equivalence"), n_items, flag)
    raw.est["judge_graded_samples"] = count(total("n") - total("regraded"), n_items, flag)
    raw.est["disagreements"] = count(total("disagree"), n_items, flag)
    rated = elig & (q["regraded"] > 0)
    rate_flag = flag.copy()
    rate_flag[np.equal(rate_flag, None) & (rated.sum(axis=1) == 0)] = "undefined"
    # Disagreements and equivalence grading depend on the gold answers: audited like rates
    # (the count and the rate share their unknowns, the per-item disagreement counts).
    stream = ("disagree", 0, sel.conds.tobytes())
    raw.est["disagreement_rate"] = ratio(q["disagree"], q["regraded"], rated, rate_flag, stream=stream)
    raw.est["disagreements"].basis = (Term(1.0, stream, rows, elig, None),)
    raw.est["equivalence_graded"].basis = (Term(1.0, ("equivalence", 0, sel.conds.tobytes()), rows, elig, None),)
    raw.est["unparsed_answers"] = count(total("unparsed"), n_items, flag)
    for name in ("regraded_samples", "equivalence_graded", "judge_graded_samples", "disagreements", "disagreement_rate", "unparsed_answers"):
        unit = "fraction" if name == "disagreement_rate" else "count"
        better = False if name in ("disagreements", "disagreement_rate", "unparsed_answers") else None
        raw.columns.append(MetricDef(name, name.replace("_", " ").capitalize(), D.GRADING[name], unit, better))
    note = (
        "Verdicts by source: regraded samples (types " + (", ".join(ctx.prep.spec.regrade_types) or "none") + ") are Sealboard's — "
        "exact comparison of plain numbers and letters, else math-verify equivalence (counted in Equivalence graded); "
        "judge-graded samples keep the lab's judge verdict."
    )
    if (ctx.prep.item_tokens["answer_type"] == "ill_posed").any():
        note += " " + D.REFUSAL_GRADING
    raw.notes.append(note)
    return raw

