"""kind: contrast — one measure under two values of a result field (or language), and
their paired difference."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from builder.scoring.boards import Context, RawBoard, _add_refs, _all_rows, _reference_estimates, _regrade_note, results_filter
from builder.scoring.config_base import COLUMN_RE, ParserBase, token
from builder.scoring.definitions import measure_def
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import delta, estimate, scores, select
from builder.scoring.spec import BoardSpec, FieldType, Filter, KindParams, Measure, Pairing
from builder.scoring.tables import MetricDef


@dataclass(frozen=True)
class Params(KindParams):
    measure: Measure | None
    over: str | None
    conditions: tuple[tuple[Any, str, str], ...]  # (value, column name, title)
    delta: str | None


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    measure = p._measure(b.get("measure"), f"{path}.measure")
    over = b.get("over")
    known = p._result_filter_fields()
    if over not in known:
        p.err(f"{path}.over", f"must be lang or a result field ({', '.join(sorted(known))})")
    conds = _conditions(p, b.get("values"), f"{path}.values", known.get(over) if isinstance(over, str) else None)
    default_delta = f"{conds[1][1]}_minus_{conds[0][1]}" if len(conds) == 2 else "delta"
    name = p._str(b, "delta", f"{path}.delta", default_delta, pattern=COLUMN_RE)
    return Params(measure, over, conds, name), [c[1] for c in conds] + [name]


def _conditions(p: ParserBase, raw: Any, path: str, ftype: FieldType | None) -> tuple[tuple[Any, str, str], ...]:
    if not isinstance(raw, list) or len(raw) != 2:
        p.err(path, "must list exactly two values to contrast")
        return ()
    out = []
    for i, v in enumerate(raw):
        name = title = None
        if isinstance(v, Mapping):
            p._unknown(v, {"value", "name", "title"}, f"{path}[{i}]")
            name, title, v = v.get("name"), v.get("title"), v.get("value")
        t = token(v) if isinstance(v, (str, int, bool)) else None
        if t is None:
            p.err(f"{path}[{i}]", "must be a string, number or boolean")
            continue
        if ftype is not None and ftype.kind == "enum" and t not in ftype.values:
            p.err(f"{path}[{i}]", f"{t!r} is not one of {', '.join(ftype.values)}")
        name = name if name is not None else t
        if not isinstance(name, str) or not COLUMN_RE.match(name):
            p.err(f"{path}[{i}].name", "must be a lower-case column name")
            name = t
        out.append((t, name, str(title) if title is not None else name))
    return tuple(out)


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not (isinstance(params, Params) and params.measure is not None and params.over is not None):
        raise AssertionError()
    measure = params.measure
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    mask = ctx.prep.item_mask(board.items)
    base = results_filter(ctx, board.results).without(params.over)
    sc, est = [], []
    for value, name, title in params.conditions:
        f = Filter(((params.over, (value,)),)).merged_over(base)
        s = scores(ctx.prep, select(ctx.prep, board.items, f, contaminated), measure)
        e = estimate(s)
        sc.append(s)
        est.append(e)
        raw.est[name] = e
        raw.columns.append(measure_def(name, measure, title))
        _add_refs(raw, name, _reference_estimates(ctx, s, mask, board, raw))
    if len(sc) == 2:
        name = params.delta or "delta"
        raw.est[name] = delta(sc[0], sc[1], est[0], est[1])
        first, second = params.conditions[0][2], params.conditions[1][2]
        raw.columns.append(
            MetricDef(
                name=name,
                title=f"{second} − {first}",
                description=f"Paired difference on the same items: {measure.name} ({second}) − {measure.name} ({first}); its interval resamples items once for both.",
                unit="difference",
                higher_is_better=None,
                measure=measure.name,
            )
        )
    _regrade_note(ctx, raw)
    return raw


KIND = Kind("contrast", frozenset({"over", "values", "measure", "delta"}), parse, build)
