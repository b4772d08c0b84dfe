"""kind: breakdown — one measure, overall and per group of an item field or item bin."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.scoring.boards import Context, RawBoard, _add_refs, _all_rows, _reference_estimates, _regrade_note, results_filter
from builder.scoring.config_base import ParserBase, token
from builder.scoring.definitions import measure_def
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import Scores, estimate, scores, select
from builder.scoring.nulls import is_none
from builder.scoring.spec import BoardSpec, KindParams, Measure, Pairing


@dataclass(frozen=True)
class Params(KindParams):
    measure: Measure | None
    by: str | None
    values: tuple[Any, ...] = ()  # the groups' preferred order
    min_group_items: int = 1


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    measure = p._measure(b.get("measure"), f"{path}.measure")
    by = b.get("by")
    if by not in p._item_filter_fields() or by in ("answer_type",):
        p.err(f"{path}.by", "must name an item field or item bin")
    values = b.get("values", [])
    if not isinstance(values, list) or not all(isinstance(v, (str, int)) for v in values):
        p.err(f"{path}.values", "must be a list of group values")
        values = []
    min_items = p._int(b, "min_group_items", f"{path}.min_group_items", 1, 1, 100000)
    return Params(measure, by, tuple(token(v) for v in values), min_items), [measure.name] if measure else []


def _natural(values: list[str]) -> list[str]:
    def key(v: str) -> tuple[int, float, str]:
        try:
            return (0, float(v), v)
        except ValueError:
            return (1, 0.0, v)

    return sorted(values, key=key)


def _remainder_home(ctx: Context, mask: np.ndarray, groups: np.ndarray, shown: list[str], n_hidden: int) -> str | None:
    """Under embargo, the shown group that takes a remainder of fewer than k items.

    Items in no shown group (untyped, or in groups too small to show) are the overall
    column minus the shown ones: with fewer than k (min_cell_items) of them, the disclosure
    audit would have to withhold a whole shown column on every row to protect them (issue
    23: SOOHAK's 92-item "beyond" column for 2 untyped items). Merged into the smallest
    shown group, the column the audit would withhold, labelled, they are protected at no
    cost, and no other column's value changes."""
    if not ctx.embargoed or not shown or not 0 < n_hidden < ctx.prep.spec.min_cell_items:
        return None
    sizes = {v: int((mask & (groups == v)).sum()) for v in shown}
    return min(shown, key=lambda v: sizes[v])  # ties: the first in the board's order


def _group_title(ctx: Context, by: str, value: str) -> str:
    for b in ctx.prep.spec.item_bins:
        if b.name == by:
            for x in b.bins:
                if x.value == value:
                    return x.title
    return f"{by} {value}"


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not (isinstance(params, Params) and params.measure is not None and params.by is not None):
        raise AssertionError()
    measure, by = params.measure, params.by
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    mask = ctx.prep.item_mask(board.items)
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    sc = scores(ctx.prep, sel, measure)
    groups = ctx.prep.item_tokens[by]
    present = sorted({g for g in groups[mask] if g is not None})
    preferred = list(params.values) or [x.value for b in ctx.prep.spec.item_bins if b.name == by for x in b.bins]
    ordered = [v for v in preferred if v in present] + _natural([v for v in present if v not in preferred])
    hidden = mask & is_none(groups)
    shown_values, dropped = [], []
    for value in ordered:
        gmask = mask & (groups == value)
        if int(gmask.sum()) < params.min_group_items:
            dropped.append(f"{value} ({int(gmask.sum())})")
            hidden |= gmask
        else:
            shown_values.append(value)
    overall = measure.name
    raw.est[overall] = estimate(sc)
    raw.columns.append(measure_def(overall, measure, f"All ({measure.name})"))
    _add_refs(raw, overall, _reference_estimates(ctx, sc, mask, board, raw))
    n_hidden = int(hidden.sum())
    merge_into = _remainder_home(ctx, mask, groups, shown_values, n_hidden)
    merged_title = ""
    for value in shown_values:
        gmask = mask & (groups == value)
        name = f"{by}={value}"
        title = _group_title(ctx, by, value)
        if value == merge_into:
            gmask = gmask | hidden
            title = f"{title} (+{n_hidden} other items)"
            merged_title = title
        raw.est[name] = estimate(sc, gmask)
        raw.columns.append(measure_def(name, measure, title, group=(by, value)))
        _add_refs(raw, name, _reference_estimates(ctx, sc, gmask, board, raw))
    if dropped:
        raw.notes.append(f"Groups with fewer than {params.min_group_items} items are not shown: {', '.join(dropped)}.")
    if merge_into is not None:
        raw.notes.append(
            f"Under the embargo the {n_hidden} item(s) in no group shown count in the column {merged_title}, "
            "so that no published figure rests on them alone."
        )
    elif hidden.any():
        raw.notes.append(f"{n_hidden} item(s) count in the overall column but in no column shown.")
    _regrade_note(ctx, raw)
    return raw


def _item_scores(ctx: Context, board: BoardSpec, column: str, contaminated: bool) -> tuple[Scores, np.ndarray] | None:
    """The overall column's per-item scores (a group column is a mean over fewer items:
    not offered, as no board ranks by one)."""
    params = board.params
    if not (isinstance(params, Params) and params.measure is not None):
        raise AssertionError()
    if column != params.measure.name:
        return None
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    return scores(ctx.prep, sel, params.measure), ctx.prep.item_mask(board.items)


KIND = Kind("breakdown", frozenset({"by", "measure", "values", "min_group_items"}), parse, build, item_scores=_item_scores)
