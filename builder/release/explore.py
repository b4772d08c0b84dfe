"""Items and models, both ways, after a release: the item × model grid of a benchmark and
each model's per-item results, from the same per-item summaries the item pages render.

Only items whose governing statement publishes results reach here (``matrix_frame`` keeps
no other row), and only submissions that opted in. The grid is one page per benchmark: a
canvas drawn by ``assets/items.js`` from the grid's JSON, embedded in the page (so it works
from disk) and published as ``data/<benchmark>/grid.json``; one cell per (item, model),
coloured by the share of its samples the boards count correct, a click opening the item
page at that model's row (``anchor``).
"""

from __future__ import annotations

from typing import Any

import orjson

from builder.release.outputs import ItemSummary
from builder.render.escaping import script_json


def anchor(submission: str) -> str:
    """The id of a submission's row on an item page: lab and submission ids are
    ``[a-z0-9-]`` (builder.strict.check_identifier), so the dot keeps them apart."""
    return "m-" + submission.replace("/", ".")


def grid_data(bench: str, summaries: list[ItemSummary], pages: dict[str, str]) -> dict[str, Any]:
    """Items (rows, by id), models (columns, by overall share correct, then name) and, per
    model, each item's correct and sample counts (null: no result for that item)."""
    models: dict[str, dict[str, Any]] = {}
    for s in summaries:
        for r in s.per_submission:
            m = models.setdefault(r["submission"], {"submission": r["submission"], "model": r["model"], "lab": r["lab"], "c": 0, "n": 0})
            m["c"] += r["correct"]
            m["n"] += r["samples"]
    order = sorted(models.values(), key=lambda m: (-m["c"] / max(m["n"], 1), m["model"], m["submission"]))
    index = {m["submission"]: i for i, m in enumerate(order)}
    correct: list[list[int | None]] = [[None] * len(summaries) for _ in order]
    samples: list[list[int | None]] = [[None] * len(summaries) for _ in order]
    for j, s in enumerate(summaries):
        for r in s.per_submission:
            correct[index[r["submission"]]][j] = r["correct"]
            samples[index[r["submission"]]][j] = r["samples"]
    return {
        "benchmark": bench,
        "items": [{"id": s.item["id"], "page": pages[s.item["id"]]} for s in summaries],
        "models": [
            {
                "submission": m["submission"],
                "model": m["model"],
                "lab": m["lab"],
                "anchor": anchor(m["submission"]),
                "correct": correct[i],
                "samples": samples[i],
            }
            for i, m in enumerate(order)
        ],
    }


def grid_json(grid: dict[str, Any]) -> bytes:
    return orjson.dumps(grid) + b"\n"


def embedded_json(data: bytes) -> str:
    """JSON inside a <script type="application/json"> (escaping.script_json: the text is data, never markup)."""
    return script_json(data)


def model_results(summaries: list[ItemSummary], pages: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Submission -> its rows: item id, item page, correct and sample counts, by item id."""
    out: dict[str, list[dict[str, Any]]] = {}
    for s in summaries:
        for r in s.per_submission:
            out.setdefault(r["submission"], []).append(
                {
                    "id": s.item["id"],
                    "page": pages[s.item["id"]],
                    "correct": r["correct"],
                    "samples": r["samples"],
                    "all_correct": bool(r["samples"]) and r["correct"] == r["samples"],
                }
            )
    return out


__all__ = ["anchor", "embedded_json", "grid_data", "grid_json", "model_results"]
