"""Board rows in the ecosystem's result formats: Every Eval Ever 0.3 and Hugging Face ``.eval_results``.

Pure functions from the public board and submission dicts (``builder.render.data``) to
extra data files, so an export never carries a number the board JSON does not: a cell the
board withholds (embargo, too few items) has no value there and no result here.

- ``data/<benchmark>/eee/<board>/<lab>/<submission>.json``: one Every Eval Ever aggregate
  record per board row (schema ``builder/formats/eee/eval.schema.json``, version 0.3.0),
  one ``evaluation_results`` entry per metric with a value, its 95% interval and the
  interval's method.
- ``data/<benchmark>/eval_results/<lab>/<submission>.yaml``: the entries a model card's
  ``.eval_results/`` folder takes (Hugging Face Hub "Evaluation Results"), one per ranked
  board, the board's ranking metric as ``value``.

Both point back to what makes the number checkable: the bundle's manifest digest (sha256
of the signed ``manifest.json``) and the site's attestation, ``attestation/statement.json``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
import yaml

# libyaml's emitter when PyYAML was built with it: the same YAML, a fraction of the time
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
EEE_SCHEMA_VERSION = "0.3.0"
ATTESTATION = "attestation/statement.json"
CONFIDENCE = 0.95

# The interval each metric's cell carries (builder/scoring/uncertainty.py), named exactly.
WILSON = (
    "Wilson score interval with a Kish design effect: item-clustered linearised (sandwich) variance gives the "
    "effective number of trials, reduced by Korn and Graubard's degrees-of-freedom adjustment (t quantile, n-1 df)"
)
MOVER = (
    "MOVER (Zou and Donner, method of variance estimates recovery) paired interval: each term's own item-clustered "
    "limits (Wilson with Kish design effect and Korn-Graubard adjustment for rates) combined with the terms' "
    "item-level correlation"
)
WALD = "Wald interval: Student t quantile (n-1 df) times the item-clustered linearised (sandwich) standard error"

# score range by unit: (min, max); EEE spells an unbounded end as "±Infinity"
_RANGE: dict[str, tuple[Any, Any]] = {
    "fraction": (0, 1),
    "difference": (-1, 1),
    "count": (0, "Infinity"),
    "tokens": (0, "Infinity"),
    "usd": (0, "Infinity"),
}


def interval_method(board_kind: str, unit: str) -> str:
    """Which of uncertainty.py's intervals a metric of this board kind and unit carries."""
    if unit == "difference" or board_kind == "composite":  # sums Σ c_j θ_j on the same items: paired
        return MOVER
    if unit == "fraction":
        return WILSON
    return WALD  # tokens, cost, calibration slope and intercept: unbounded


def _epoch(timestamp: str | None) -> str:
    if not timestamp:
        return "0"
    return str(int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()))


def _strings(mapping: dict[str, Any]) -> dict[str, str]:
    """EEE's additional_details hold strings only; absent values are left out."""
    return {k: v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v) for k, v in mapping.items() if v is not None}


def _source_data(benchmark: dict[str, Any], n: int | None) -> dict[str, Any]:
    """Private while any item is embargoed (only the commitments are public); the released items' file after."""
    name = f"{benchmark['id']} {benchmark['version']}"
    details = _strings({"commitments": f"data/{benchmark['id']}/commitments.json", "items_counted": n, "status": benchmark["status"]})
    if benchmark["status"] == "released":
        return {"dataset_name": name, "source_type": "url", "url": [f"data/{benchmark['id']}/items.jsonl"], "additional_details": details}
    return {"dataset_name": name, "source_type": "other", "additional_details": {"access": "private (embargoed)", **details}}


def _metric_config(board: dict[str, Any], metric: dict[str, Any]) -> dict[str, Any]:
    low, high = _RANGE.get(metric["unit"], ("-Infinity", "Infinity"))
    direction = metric["higher_is_better"]
    config: dict[str, Any] = {
        "evaluation_description": metric["description"],
        "metric_id": f"{board['benchmark']}.{board['board']}.{metric['name']}",
        "metric_name": metric["title"],
        "metric_kind": metric.get("measure") or metric["unit"],
        "metric_unit": "proportion" if metric["unit"] == "fraction" else metric["unit"],
        "lower_is_better": direction is False,
        "score_type": "continuous",
        "min_score": low,
        "max_score": high,
    }
    if direction is None:
        config["additional_details"] = {"direction": "descriptive: neither direction is better"}
    return config


def _result(board: dict[str, Any], metric: dict[str, Any], cell: dict[str, Any], row: dict[str, Any], benchmark: dict[str, Any], sub: dict[str, Any]) -> dict[str, Any]:
    score: dict[str, Any] = {"score": cell["value"]}
    details = _strings({"items": cell.get("n"), "flag": cell.get("flag")})
    if board.get("rank_by") == metric["name"]:
        details.update(_strings({"rank": row.get("rank")}))
        if row.get("rank_range"):
            details["rank_range"] = "{}-{}".format(*row["rank_range"])
    if details:
        score["details"] = details
    if cell.get("ci_low") is not None and cell.get("ci_high") is not None:
        score["uncertainty"] = {
            "confidence_interval": {
                "lower": cell["ci_low"],
                "upper": cell["ci_high"],
                "confidence_level": CONFIDENCE,
                "method": interval_method(board["kind"], metric["unit"]),
            },
            **({"num_samples": cell["n"]} if isinstance(cell.get("n"), int) else {}),
        }
    args: dict[str, Any] = {}
    if isinstance(sub.get("temperature"), (int, float)) and not isinstance(sub.get("temperature"), bool):
        args["temperature"] = sub["temperature"]
    if isinstance(sub.get("max_output_tokens"), int) and sub["max_output_tokens"] >= 1:
        args["max_tokens"] = sub["max_output_tokens"]
    if isinstance(sub.get("thinking"), bool):
        args["reasoning"] = sub["thinking"]
    result: dict[str, Any] = {
        "evaluation_result_id": f"{board['board']}/{metric['name']}",
        "evaluation_name": f"{board['benchmark']}/{board['board']}/{metric['name']}",
        "source_data": _source_data(benchmark, cell.get("n")),
        **({"evaluation_timestamp": sub["created"]} if sub.get("created") else {}),
        "metric_config": _metric_config(board, metric),
        "score_details": score,
    }
    if args:
        result["generation_config"] = {"generation_args": args}
    return result


def _provenance(sub: dict[str, Any]) -> dict[str, str]:
    return _strings({"submission": sub["submission"], "manifest_sha256": sub["manifest_sha256"], "attestation": ATTESTATION})


def eee_record(board: dict[str, Any], row: dict[str, Any], sub: dict[str, Any], benchmark: dict[str, Any], retrieved: str | None) -> dict[str, Any] | None:
    """One board row as an EEE 0.3 aggregate record; None when the board shows it no value."""
    results = [
        _result(board, metric, cell, row, benchmark, sub)
        for metric in board["metrics"]
        if (cell := row["metrics"].get(metric["name"])) is not None and isinstance(cell.get("value"), (int, float))
    ]
    if not results:
        return None
    # a field the submissions data withholds (or a lab left empty) falls back, never breaks the record
    harness = sub.get("harness") or "unknown"
    harness_name, _, harness_version = harness.rpartition(" ")
    return {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": f"sealboard/{board['benchmark']}/{board['board']}/{sub['submission']}",
        **({"evaluation_timestamp": sub["created"]} if sub.get("created") else {}),
        "retrieved_timestamp": _epoch(retrieved),
        "source_metadata": {
            "source_name": f"{benchmark['title']}: {board['title']}",
            "source_type": "evaluation_run",
            "source_organization_name": f"{benchmark['title']} leaderboard (Sealboard)",
            # The submitting lab ran the model and signed the results; Sealboard does not know
            # whether that lab also develops the model, so neither first nor third party is claimed.
            "evaluator_relationship": "other",
            "additional_details": _strings(
                {
                    "evaluator": sub["lab"],
                    "evaluator_role": "the submitting lab ran the evaluation and signed the bundle; Sealboard verified the signature and scored the results",
                    "signer_key": sub["signature"]["key"],
                    "registry_version": sub["signature"].get("registry_version"),
                    "benchmark_status": benchmark["status"],
                    "board": f"data/{board['benchmark']}/{board['board']}.json",
                    "synthetic": True if board.get("synthetic") else None,
                    **_provenance(sub),
                }
            ),
        },
        "model_info": {
            "name": sub.get("model") or sub["submission"],
            "id": sub.get("model_id") or sub["submission"],
            "additional_details": {
                "deployment_type": "unknown",
                "model_availability": _availability(sub.get("open_weights")),
                **_strings({"family": sub.get("family"), "params_b": sub.get("params_b"), "reasoning_effort": sub.get("reasoning_effort")}),
            },
        },
        "eval_library": {"name": harness_name or harness, "version": harness_version if harness_name else "unknown"},
        "evaluation_results": results,
    }


def hf_entry(board: dict[str, Any], row: dict[str, Any], sub: dict[str, Any], benchmark: dict[str, Any]) -> dict[str, Any] | None:
    """The board's ranking metric for this row as one Hugging Face ``.eval_results`` entry.

    The value is the board's own number (a fraction for rates, as in the board JSON);
    ``dataset.id`` is the benchmark id: a maintainer who registers the benchmark as a Hub
    dataset replaces it with that dataset's id."""
    metric = board.get("rank_by")
    cell = row["metrics"].get(metric) if metric else None
    if cell is None or not isinstance(cell.get("value"), (int, float)):
        return None
    unit = next(m["unit"] for m in board["metrics"] if m["name"] == metric)
    return {
        "dataset": {"id": benchmark["id"], "task_id": board["board"]},
        "value": cell["value"],
        **({"date": sub["created"]} if sub.get("created") else {}),
        "source": {"url": f"data/{board['benchmark']}/eee/{board['board']}/{sub['submission']}.json", "name": f"{benchmark['title']} leaderboard (Sealboard)"},
        "notes": f"{metric} ({unit}) on board {board['board']}; manifest sha256 {sub['manifest_sha256']}; attestation {ATTESTATION}",
    }


def export_files(benchmark: dict[str, Any], boards: list[dict[str, Any]], submissions: list[dict[str, Any]]) -> dict[str, bytes]:
    """Every export file of one benchmark (path under data/ -> bytes).

    ``benchmark``: id, title, version, status. ``retrieved_timestamp`` is the newest
    submission's creation time: the records are a function of the signed inputs alone, so
    two builds of the same inputs write the same bytes."""
    by_sub = {s["submission"]: s for s in submissions}
    retrieved = max((s["created"] for s in submissions if s.get("created")), default=None)
    files: dict[str, bytes] = {}
    hf: dict[str, list[dict[str, Any]]] = {}
    for board in boards:
        for row in board["rows"]:
            sub = by_sub.get(row["submission"])
            if sub is None:
                continue
            record = eee_record(board, row, sub, benchmark, retrieved)
            if record is not None:
                files[f"{benchmark['id']}/eee/{board['board']}/{row['submission']}.json"] = orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n"
            entry = hf_entry(board, row, sub, benchmark)
            if entry is not None:
                hf.setdefault(row["submission"], []).append(entry)
    for submission, entries in sorted(hf.items()):
        files[f"{benchmark['id']}/eval_results/{submission}.yaml"] = yaml.dump(entries, Dumper=_DUMPER, sort_keys=False, allow_unicode=True).encode()
    return files


def _availability(open_weights: object) -> str:
    """EEE's model_availability from the manifest's open_weights (true, false or unknown)."""
    if open_weights is True:
        return "open_weights"
    return "closed_weights" if open_weights is False else "unknown"
