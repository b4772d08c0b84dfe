"""The compare page of a benchmark: 2–5 models side by side on every board.

Built only from what the data files already publish (each board's data: value, 95%
interval, rank range of its ranking metric; the submissions' release dates; after a release,
the item correlations of ``data/<benchmark>/paired.json``), so it can show nothing the
publication gate and the disclosure audit did not admit: a withheld cell stays withheld here. The data is embedded in the page (it works from disk, no fetch); the
differences between models are computed in the page by sealboard.js.

- **Paired** (a released benchmark, builder.scoring.paired): on a board whose ranking metric
  is a mean of per-item scores and whose items' results the release published, two models
  that both published per-item results on every item of the board get the paired MOVER
  interval (Newcombe's method 10 generalised to item-clustered limits): the published limits
  combined with ρ, the correlation of the two models' item scores, which the page embeds
  for each such pair (``pairing``: one table of round(1000·ρ) per distinct set, boards
  sharing their items and models share it). Labelled "paired, n = <items>".
- **Not paired** otherwise (under embargo, a submission whose per-item results stay
  private, a board over embargoed items, a metric that is not a mean of item scores): a
  difference of published values with Newcombe's square-and-add interval (ρ = 0), labelled
  as such.

Sizes, measured on the demo's kcsat-ml (103 models, 101 pairable; five pairable boards on two
item sets): the two ρ tables of 5,050 integers add 47 KB to the page (164 KB before, 212 KB
after; 18 KB to 35 KB gzipped); every pair's finished [Δ, lower, upper] instead would add
599 KB, for nothing the page cannot combine from the published limits it already holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builder.render.charts import chart_json, chart_spec
from builder.render.charts import display_value as _v
from builder.render.labels import metric_title, unit_label
from builder.scoring.paired import RHO_SCALE, PairedBoard


def lead_metric(board: dict[str, Any]) -> dict[str, Any] | None:
    """A board's ranking metric, else its first (what the compare and snapshot pages show)."""
    return next((m for m in board["metrics"] if m["name"] == board.get("rank_by")), None) or (
        board["metrics"][0] if board["metrics"] else None
    )


def _board(board: dict[str, Any]) -> dict[str, Any] | None:
    lead = lead_metric(board)
    if lead is None or not board["rows"]:
        return None
    cells: dict[str, list[Any]] = {}
    for r in board["rows"]:
        c = r["metrics"].get(lead["name"]) or {}
        if c.get("value") is None:
            continue  # withheld, suppressed or not evaluated: not compared
        rng = r.get("rank_range") or [r.get("rank"), r.get("rank")]
        cells[r["submission"]] = [
            _v(c["value"], lead["unit"]),
            _v(c.get("ci_low"), lead["unit"]),
            _v(c.get("ci_high"), lead["unit"]),
            r.get("rank"),
            rng[0],
            rng[1],
        ]
    if not cells:
        return None
    unit = unit_label(lead["unit"])
    return {
        "board": board["board"],
        "title": board["title"],
        "metric": metric_title(lead) + (f" ({unit})" if unit else ""),
        "higher": lead.get("higher_is_better") is not False,
        "unit": lead["unit"],  # the page prints a count's figures whole
        "cells": cells,
    }


def has_compare(boards: list[dict[str, Any]]) -> bool:
    """Whether a benchmark gets a compare page: some board publishes a value."""
    return any(_board(b) is not None for b in boards)


def _pairing(shown: list[dict[str, Any]], paired: Mapping[str, PairedBoard]) -> list[dict[str, Any]]:
    """Attach each pairable board's ``paired`` ({n, table}) and return the distinct ρ tables.
    Only models with a shown cell are kept in a table (a withheld cell pairs with nothing)."""
    tables: list[dict[str, Any]] = []
    index: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}
    for b in shown:
        p = paired.get(b["board"])
        if p is None:
            continue
        keys = tuple(s for s in p.submissions if s in b["cells"])
        if len(keys) < 2:
            continue
        rho = (
            p.rho
            if len(keys) == len(p.submissions)
            else tuple(int(round(RHO_SCALE * p.correlation(x, y))) for i, x in enumerate(keys) for y in keys[i + 1 :])
        )
        key = (keys, rho)
        if key not in index:
            index[key] = len(tables)
            tables.append({"keys": list(keys), "rho": list(rho)})
        b["paired"] = {"n": p.n, "table": index[key]}
    return tables


def compare_data(
    boards: list[dict[str, Any]], submissions: dict[str, Any], paired: Mapping[str, PairedBoard] | None = None
) -> dict[str, Any] | None:
    """What the compare page embeds, or None when no board has a published value.
    ``paired``: the release's pairable boards (builder.scoring.paired), board id -> figures."""
    shown = [b for b in (_board(board) for board in boards) if b is not None]
    if not shown:
        return None
    pairing = _pairing(shown, paired or {})
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
    return {
        "boards": shown,
        "models": models,
        "default": order[:2],
        "cost": cost,
        "headline": headline["board"],
        "pairing": pairing,
        "rho_scale": RHO_SCALE,
    }


def compare_json(data: dict[str, Any]) -> str:
    return chart_json(data)  # the same escaping as a chart's spec
