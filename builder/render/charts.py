"""Chart specs for sealboard.js: each board charts its own dimension.

The spec is plain data in display units (percent, percentage points, tokens, USD), so the
script only draws: ``dots`` (value with its interval, one row per model), ``heatmap``
(model × breakdown group), ``lines`` (editions or years over time), ``pairs`` (the two
conditions of a contrast as joined dots), ``arrows`` (TTS off → on), ``scatter`` (two
measures against each other). Every spec names both axes with their units.

Labels (model names: lab text) are data: the script escapes their markup and never joins
one into a Plotly hovertemplate (a name ``%{x}`` would be evaluated there); it passes them
as customdata (tests/hostile/test_chart_labels.py draws every kind in Chromium).
"""

from __future__ import annotations

from typing import Any

import orjson

from builder.render.escaping import script_json
from builder.render.labels import MEASURE_TITLES, axis_title, field_title, group_title, metric_title, unit_label

_SCALED = {"fraction": 100, "difference": 100}
_TIME_FIELDS = {"edition", "year"}
_MAX_LINES = 12  # more lines than this is a tangle: the top of the board by rank


def display_value(value: float | None, unit: str) -> float | None:
    """A value in display units: percent and percentage points for rates and differences."""
    return None if value is None else round(value * _SCALED.get(unit, 1), 3)


_v = display_value


def _cell(row: dict[str, Any], name: str) -> dict[str, Any]:
    return row["metrics"].get(name) or {}


def _metric(board: dict[str, Any], name: str | None) -> dict[str, Any] | None:
    return next((m for m in board["metrics"] if m["name"] == name), None)


def _lead(board: dict[str, Any]) -> dict[str, Any] | None:
    """The metric a board is about: its ranking metric, else its first rate."""
    m = _metric(board, board.get("rank_by"))
    return m or next((m for m in board["metrics"] if m["unit"] in _SCALED), None)


def _dots(board: dict[str, Any], metric: dict[str, Any]) -> dict[str, Any] | None:
    unit, name = metric["unit"], metric["name"]
    points = [
        {
            "label": r["model"],
            "key": r["submission"],
            "value": _v(c["value"], unit),
            "lo": _v(c.get("ci_low"), unit),
            "hi": _v(c.get("ci_high"), unit),
        }
        for r in board["rows"]
        if (c := _cell(r, name)).get("value") is not None
    ]
    refs = [
        {"label": ref["label"], "value": _v(c["value"], unit)}
        for ref in board.get("reference_rows", [])
        if (c := _cell(ref, name)).get("value") is not None
    ]
    if not points:
        return None
    return {"type": "dots", "x_title": axis_title(metric), "y_title": "Model", "points": points, "references": refs}


def _breakdown(board: dict[str, Any]) -> dict[str, Any] | None:
    groups = [m for m in board["metrics"] if m.get("group")]
    if not groups or not board["rows"]:
        return None
    field, unit = groups[0]["group"]["field"], groups[0]["unit"]
    cols = [" ".join(group_title(field, m["group"]["value"])).strip() for m in groups]
    measure = groups[0].get("measure") or ""
    value_title = metric_title({"name": measure, "measure": measure, "title": MEASURE_TITLES.get(measure, measure)})
    value_title += f" ({unit_label(unit)})" if unit_label(unit) else ""
    if field in _TIME_FIELDS:
        rows = board["rows"][:_MAX_LINES]
        series = [
            {"label": r["model"], "key": r["submission"], "y": [_v(_cell(r, m["name"]).get("value"), unit) for m in groups]} for r in rows
        ]
        refs = [
            {"label": ref["label"], "y": [_v(_cell(ref, m["name"]).get("value"), unit) for m in groups]}
            for ref in board.get("reference_rows", [])
        ]
        note = f"Top {len(rows)} of {len(board['rows'])} by rank." if len(board["rows"]) > len(rows) else ""
        return {
            "type": "lines",
            "x": cols,
            "x_title": field_title(field),
            "y_title": value_title,
            "series": series,
            "references": refs,
            "note": note,
        }
    z = [[_v(_cell(r, m["name"]).get("value"), unit) for m in groups] for r in board["rows"]]
    z += [[_v(_cell(ref, m["name"]).get("value"), unit) for m in groups] for ref in board.get("reference_rows", [])]
    labels = [r["model"] for r in board["rows"]] + [ref["label"] for ref in board.get("reference_rows", [])]
    keys = [r["submission"] for r in board["rows"]] + [None for _ in board.get("reference_rows", [])]
    return {
        "type": "heatmap",
        "x": cols,
        "y": labels,
        "keys": keys,
        "z": z,
        "x_title": field_title(field),
        "y_title": "Model",
        "z_title": value_title,
    }


def _pairs(board: dict[str, Any], a: dict[str, Any], b: dict[str, Any], kind: str) -> dict[str, Any] | None:
    unit = a["unit"]
    rows = [
        {
            "label": r["model"],
            "key": r["submission"],
            "a": _v(_cell(r, a["name"]).get("value"), unit),
            "b": _v(_cell(r, b["name"]).get("value"), unit),
        }
        for r in board["rows"]
    ]
    rows = [r for r in rows if r["a"] is not None and r["b"] is not None]
    if not rows:
        return None
    return {
        "type": kind,
        "rows": rows,
        "a": metric_title(a),
        "b": metric_title(b),
        "x_title": axis_title({**a, "title": _common(a, b)}),
        "y_title": "Model",
    }


def _common(a: dict[str, Any], b: dict[str, Any]) -> str:
    """What both conditions measure: the measure's title ("Avg@3" for English vs Korean),
    else the words their titles share ("accuracy (TTS off)"/"(TTS on)" -> "accuracy")."""
    if a.get("measure") and a.get("measure") == b.get("measure"):
        return MEASURE_TITLES.get(a["measure"], a["measure"])
    ta, tb = metric_title(a).split(), metric_title(b).split()
    shared = [w for w, v in zip(ta, tb, strict=False) if w == v]
    return " ".join(shared).strip(" (,") or "Score"


def frontier(points: list[dict[str, Any]], low_x: bool) -> list[dict[str, Any]]:
    """The Pareto frontier of higher y against lower x (a cost) or higher x: each point no
    other point beats on both, from the best x on. Ties on x keep only the better y."""
    ordered = sorted(points, key=lambda p: (p["x"] if low_x else -p["x"], -p["y"]))
    out: list[dict[str, Any]] = []
    for p in ordered:
        if not out or p["y"] > out[-1]["y"]:
            out.append(p)
    return out


def _scatter(board: dict[str, Any], x: dict[str, Any], y: dict[str, Any], ys: dict[str, float] | None = None,
             log_x: bool = False, better_x: str | None = None) -> dict[str, Any] | None:  # fmt: skip
    points = _scatter_points(board["rows"], x, y, ys)
    # Reference rows (cohorts, baselines) only where both axes come from this board.
    refs = [] if ys is not None else _scatter_points(board.get("reference_rows", []), x, y, None)
    if not points:
        return None
    out = {"type": "scatter", "points": points, "references": refs, "x_title": axis_title(x), "y_title": axis_title(y), "log_x": log_x}
    if better_x is None:
        out["points"] = _named_first(points, _ends_or_top(board, points))
    else:
        # Frontier points first: the script names them before any other (and never over one).
        front = {id(p) for p in frontier(points, better_x == "low_x")}
        out["points"] = [{**p, "frontier": True} for p in points if id(p) in front] + [p for p in points if id(p) not in front]
        out["frontier"] = better_x
    return out


def _scatter_points(rows: list[dict[str, Any]], x: dict[str, Any], y: dict[str, Any], ys: dict[str, float] | None) -> list[dict[str, Any]]:
    """A point for each row with both values: a submission's (label, key) or a reference row's label."""
    points = []
    for r in rows:
        xv = _cell(r, x["name"]).get("value")
        yv = ys.get(r["submission"]) if ys is not None else _cell(r, y["name"]).get("value")
        if xv is not None and yv is not None:
            point = {"label": r["model"], "key": r["submission"]} if "submission" in r else {"label": r["label"]}
            points.append({**point, "x": _v(xv, x["unit"]), "y": _v(yv, y["unit"])})
    return points


def _ends_or_top(board: dict[str, Any], points: list[dict[str, Any]]) -> set[str]:
    """No frontier to name (slope against intercept): the board's top five by rank are named,
    or on an unranked board the points at the ends of either axis."""
    top = {r["submission"] for r in sorted((r for r in board["rows"] if r.get("rank") is not None), key=lambda r: r["rank"])[:5]}
    return top or {f(points, key=lambda p: p[axis])["key"] for f in (min, max) for axis in ("x", "y")}


def _named_first(points: list[dict[str, Any]], named: set[str]) -> list[dict[str, Any]]:
    return [{**p, "tag": True} for p in points if p["key"] in named] + [p for p in points if p["key"] not in named]


def _composite(board: dict[str, Any], spec: Any, boards: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Capability against the term the ranking composite adds to it (SOOHAK: Refusal)."""
    if spec is None or not spec.rank_shift:
        return None
    terms = {c.name: c.mean_of for c in spec.params.composites}
    src, dst = spec.rank_shift
    extra = [t for t in terms.get(dst, ()) if t not in terms.get(src, ())]
    if len(extra) != 1 or extra[0][0] not in boards:
        return None
    other = boards[extra[0][0]]
    ymetric = _metric(other, extra[0][1])
    xmetric = _metric(board, src)
    if ymetric is None or xmetric is None:
        return None
    ys = {r["submission"]: _cell(r, ymetric["name"]).get("value") for r in other["rows"]}
    ytitle = {**ymetric, "title": f"{other['title']} ({metric_title(ymetric)})"}
    return _scatter(board, xmetric, ytitle, {k: v for k, v in ys.items() if v is not None}, better_x="high_x")


def chart_spec(board: dict[str, Any], spec: Any = None, boards: dict[str, dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The chart of one board, or None when it has nothing to chart."""
    kind = board.get("kind")
    by_name = {m["name"]: m for m in board["metrics"]}
    chart: dict[str, Any] | None = None
    if kind == "breakdown":
        chart = _breakdown(board)
    elif kind == "contrast":
        plain = [m for m in board["metrics"] if m["unit"] == "fraction"]
        chart = _pairs(board, plain[0], plain[1], "pairs") if len(plain) >= 2 else None
    elif kind == "pairs" and "accuracy_off" in by_name and "accuracy_on" in by_name:
        chart = _pairs(board, by_name["accuracy_off"], by_name["accuracy_on"], "arrows")
    elif kind == "composite":
        chart = _composite(board, spec, boards or {})
    elif kind == "calibration" and "slope" in by_name and "intercept" in by_name:
        chart = _scatter(board, by_name["slope"], by_name["intercept"])
    elif kind == "table":
        lead = _lead(board)
        cost = by_name.get("cost_per_correct") or by_name.get("output_tokens")
        if lead is not None and cost is not None:
            chart = _scatter(board, cost, lead, log_x=True, better_x="low_x")
    if chart is None:
        lead = _lead(board)
        chart = _dots(board, lead) if lead is not None else None
    return chart


def chart_json(chart: dict[str, Any]) -> str:
    """The spec inline in a <script type="application/json"> (escaping.script_json)."""
    return script_json(orjson.dumps(chart))
