"""The compare page of a benchmark: 2–5 models side by side on every board.

Built only from what the board pages already publish (each board's data: value, 95%
interval, rank range of its ranking metric; the submissions' release dates), so it can show
nothing the publication gate and the disclosure audit did not admit: a withheld cell stays
withheld here. The data is embedded in the page (it works from disk, no fetch); the
differences between models are computed in the page by sealboard.js from these published
figures — a difference of published values with Newcombe's square-and-add interval, labelled
as such (per-item results, which a paired interval would need, are embargoed).
"""

from __future__ import annotations

from typing import Any

from builder.render.charts import chart_json, chart_spec
from builder.render.charts import display_value as _v
from builder.render.labels import metric_title, unit_label


def _lead(board: dict[str, Any]) -> dict[str, Any] | None:
    return next((m for m in board["metrics"] if m["name"] == board.get("rank_by")), None) or (board["metrics"][0] if board["metrics"] else None)


def _board(board: dict[str, Any]) -> dict[str, Any] | None:
    lead = _lead(board)
    if lead is None or not board["rows"]:
        return None
    cells: dict[str, list[Any]] = {}
    for r in board["rows"]:
        c = r["metrics"].get(lead["name"]) or {}
        if c.get("value") is None:
            continue  # withheld, suppressed or not evaluated: not compared
        rng = r.get("rank_range") or [r.get("rank"), r.get("rank")]
        cells[r["submission"]] = [_v(c["value"], lead["unit"]), _v(c.get("ci_low"), lead["unit"]), _v(c.get("ci_high"), lead["unit"]), r.get("rank"), rng[0], rng[1]]
    if not cells:
        return None
    unit = unit_label(lead["unit"])
    return {
        "board": board["board"],
        "title": board["title"],
        "metric": metric_title(lead) + (f" ({unit})" if unit else ""),
        "higher": lead.get("higher_is_better") is not False,
        "cells": cells,
    }


def has_compare(boards: list[dict[str, Any]]) -> bool:
    """Whether a benchmark gets a compare page: some board publishes a value."""
    return any(_board(b) is not None for b in boards)


def compare_data(boards: list[dict[str, Any]], submissions: dict[str, Any]) -> dict[str, Any] | None:
    """What the compare page embeds, or None when no board has a published value."""
    shown = [b for b in (_board(board) for board in boards) if b is not None]
    if not shown:
        return None
    on_boards = {s for b in shown for s in b["cells"]}
    models = [
        {"key": r["submission"], "label": r["model"], "lab": r["lab"], "released": r.get("release_date")}
        for r in submissions["rows"]
        if r["submission"] in on_boards
    ]
    headline = shown[0]
    first = next(b for b in boards if b["board"] == headline["board"])
    if first.get("rank_by"):
        order = sorted(headline["cells"], key=lambda s: (headline["cells"][s][3] is None, headline["cells"][s][3] or 0))
    else:
        order = list(headline["cells"])
    cost = next((c for b in boards if (c := chart_spec(b)) and c["type"] == "scatter" and c.get("frontier") == "low_x"), None)
    return {"boards": shown, "models": models, "default": order[:2], "cost": cost, "headline": headline["board"]}


def compare_json(data: dict[str, Any]) -> str:
    return chart_json(data)  # the same escaping as a chart's spec
