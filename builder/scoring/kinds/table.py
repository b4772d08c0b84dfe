"""kind: table — one column per metric (a measure over an item and result selection)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.scoring.boards import Context, RawBoard, _add_refs, _all_rows, _reference_estimates, _regrade_note, results_filter
from builder.scoring.config_base import COLUMN_RE, ParserBase
from builder.scoring.definitions import measure_def
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import Scores, estimate, scores, select
from builder.scoring.spec import BoardSpec, KindParams, MetricSpec, Pairing


@dataclass(frozen=True)
class Params(KindParams):
    metrics: tuple[MetricSpec, ...]


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    metrics = _metrics(p, b.get("metrics"), path)
    return Params(metrics), [m.name for m in metrics]


def _metrics(p: ParserBase, raw: Any, path: str) -> tuple[MetricSpec, ...]:
    if not isinstance(raw, list) or not raw:
        p.err(f"{path}.metrics", "must be a non-empty list")
        return ()
    out = []
    for i, m in enumerate(raw):
        mp = f"{path}.metrics[{i}]"
        if isinstance(m, str):
            measure = p._measure(m, mp)
            if measure is not None:
                out.append(MetricSpec(m, measure))
            continue
        if not isinstance(m, Mapping):
            p.err(mp, "must be a measure name or a mapping")
            continue
        p._unknown(m, {"name", "measure", "title", "description", "items", "results"}, mp)
        name = p._str(m, "name", f"{mp}.name", pattern=COLUMN_RE)
        measure = p._measure(m.get("measure", name), f"{mp}.measure")
        title, desc = m.get("title"), m.get("description")
        for key, val in (("title", title), ("description", desc)):
            if val is not None and not isinstance(val, str):
                p.err(f"{mp}.{key}", "must be a string")
        items = p._filter(m.get("items"), f"{mp}.items", "items")
        results = p._filter(m.get("results"), f"{mp}.results", "results")
        if measure is not None and name:
            out.append(MetricSpec(name, measure, title, desc, items, results))
    return tuple(out)


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not isinstance(params, Params):
        raise AssertionError()
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    for m in params.metrics:
        items = m.items.merged_over(board.items)
        sel = select(ctx.prep, items, results_filter(ctx, board.results, m.results), contaminated)
        sc = scores(ctx.prep, sel, m.measure)
        raw.est[m.name] = est = estimate(sc)
        raw.columns.append(measure_def(m.name, m.measure, m.title, m.description))
        ctx.registry[(board_id, m.name)] = est
        _add_refs(raw, m.name, _reference_estimates(ctx, sc, ctx.prep.item_mask(items), board, raw))
    if "unsolved" in board.summary and params.metrics:
        m = params.metrics[0]
        items = m.items.merged_over(board.items)
        mask = ctx.prep.item_mask(items)
        sel = select(ctx.prep, items, results_filter(ctx, board.results, m.results), False)
        solved = ctx.prep.dense(sel.conds, ["correct"])["correct"].sum(axis=0) > 0
        raw.summary["unsolved_items"] = int((mask & ~solved).sum())
        raw.summary["items"] = int(mask.sum())
        raw.notes.append(f"{raw.summary['unsolved_items']} of {raw.summary['items']} items are solved by no submission on this board.")
    _regrade_note(ctx, raw)
    return raw


def _metric_kinds(params: KindParams) -> dict[str, str]:
    if not isinstance(params, Params):
        raise AssertionError()
    return {m.name: m.measure.kind for m in params.metrics}


def _item_scores(ctx: Context, board: BoardSpec, column: str, contaminated: bool) -> tuple[Scores, np.ndarray] | None:
    """The per-item scores column `column` is the mean of (every table column is one)."""
    params = board.params
    if not isinstance(params, Params):
        raise AssertionError()
    m = next((m for m in params.metrics if m.name == column), None)
    if m is None:
        return None
    items = m.items.merged_over(board.items)
    sel = select(ctx.prep, items, results_filter(ctx, board.results, m.results), contaminated)
    return scores(ctx.prep, sel, m.measure), ctx.prep.item_mask(items)


KIND = Kind(
    "table", frozenset({"metrics"}), parse, build, summaries=frozenset({"unsolved"}), metric_kinds=_metric_kinds, item_scores=_item_scores
)
