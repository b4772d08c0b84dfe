"""kind: composite — each column the mean of metrics of earlier table boards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from builder.scoring import definitions as D
from builder.scoring.boards import Context, RawBoard, _all_rows
from builder.scoring.config_base import COLUMN_RE, ParserBase
from builder.scoring.kinds._base import Kind
from builder.scoring.spec import BoardSpec, CompositeSpec, KindParams, Pairing
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import Estimate, linear


@dataclass(frozen=True)
class Params(KindParams):
    composites: tuple[CompositeSpec, ...]
    rank_shift: tuple[str, str] | None = None  # (from, to): each row's rank difference (SOOHAK Figure 4)


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    composites = _composites(p, b.get("metrics"), path, earlier)
    cols = [c.name for c in composites]
    shift = b.get("rank_shift")
    rank_shift = None
    if shift is not None:
        if not isinstance(shift, Mapping) or set(shift) != {"from", "to"} or not {shift["from"], shift["to"]} <= set(cols):
            p.err(f"{path}.rank_shift", "must be {from: <metric>, to: <metric>} naming two of this board's metrics")
        else:
            rank_shift = (shift["from"], shift["to"])
    return Params(composites, rank_shift), cols


def _composites(p: ParserBase, raw: Any, path: str, earlier: dict[str, dict[str, str]]) -> tuple[CompositeSpec, ...]:
    if not isinstance(raw, list) or not raw:
        p.err(f"{path}.metrics", "must be a non-empty list")
        return ()
    out = []
    for i, m in enumerate(raw):
        mp = f"{path}.metrics[{i}]"
        if not isinstance(m, Mapping):
            p.err(mp, "must be a mapping with name and mean_of")
            continue
        p._unknown(m, {"name", "title", "description", "mean_of"}, mp)
        name = p._str(m, "name", f"{mp}.name", pattern=COLUMN_RE)
        terms = m.get("mean_of")
        refs = []
        if not isinstance(terms, list) or not terms:
            p.err(f"{mp}.mean_of", "must list board/metric terms")
            terms = []
        for t in terms:
            board, _, metric = t.partition("/") if isinstance(t, str) else ("", "", "")
            if board not in earlier or metric not in earlier[board]:
                p.err(f"{mp}.mean_of", f"{t!r} must name a metric of an earlier table board as board/metric")
                continue
            refs.append((board, metric))
        out.append(CompositeSpec(name, tuple(refs), m.get("title"), m.get("description")))
    return tuple(out)


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not isinstance(params, Params):
        raise AssertionError()
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    twins = {b.id for b in ctx.prep.spec.boards if b.contamination}
    for c in params.composites:
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
    if params.rank_shift is not None:
        a, b = params.rank_shift
        raw.notes.append(f"rank_shift = rank by {a} − rank by {b}: positive when the model rises once {b} is used (SOOHAK Figure 4).")
    return raw


KIND = Kind("composite", frozenset({"metrics", "rank_shift"}), parse, build)
