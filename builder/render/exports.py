"""Board rows in the ecosystem's result formats: Every Eval Ever 0.3 and Hugging Face ``.eval_results``.

Pure functions from the public board and submission dicts (``builder.render.data``) to
extra data files, so an export never carries a number the board JSON does not: a cell the
board withholds (embargo, too few items) has no value there and no result here.

- ``data/<folder>/eee/``: an Every Eval Ever datastore (``builder.formats.eee.datastore``):
  ``data/<benchmark>/<developer>/<model>/<uuid4>.json``, one aggregate record per
  submission (an evaluation run) holding every board cell the site publishes for it, one
  ``evaluation_results`` entry per board and metric with its value, 95% interval and the
  interval's method (schema ``builder/formats/eee/eval.schema.json``); and beside it
  ``<uuid4>_samples.jsonl`` (``builder.render.eee_samples``) for the released samples of a
  submission whose lab opted in to publish them. The UUID is derived from the site folder
  and the bundle's manifest digest, so re-exports are byte-identical; ``sealboard export
  eee DIR`` copies these trees into one datastore.
- ``data/<folder>/eval_results/<lab>/<submission>.yaml``: the entries a model card's
  ``.eval_results/`` folder takes (``builder.render.hf_results``), written only when the
  benchmark names its Hub dataset and the site its address.

Both point back to what makes the number checkable: the bundle's manifest digest (sha256
of the signed ``manifest.json``) and the site's attestation, ``attestation/statement.json``,
as absolute URLs when ``mkdocs.yml`` sets ``site_url`` (else as paths on the site).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

import orjson
import yaml

from builder.formats.eee.datastore import SCHEMA_VERSION, Placement, place
from builder.render.eee_samples import samples_file
from builder.render.hf_results import hf_entry, link, site_base
from builder.report.records import PublishedSamples

# libyaml's emitter when PyYAML was built with it: the same YAML, a fraction of the time
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
ATTESTATION = "attestation/statement.json"
EEE_DIR = "eee"  # data/<folder>/eee/: the benchmark's Every Eval Ever datastore (its own data/ inside)
HF_DIR = "eval_results"
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


def _source_data(benchmark: dict[str, Any], n: int | None, base: str | None) -> dict[str, Any]:
    """Private while any item is embargoed (only the commitments are public); the released items' file after."""
    name = f"{benchmark['title']} {benchmark['version']}"
    folder = benchmark["id"]
    details = _strings({"commitments": link(base, f"data/{folder}/commitments.json"), "items_counted": n, "status": benchmark["status"]})
    if benchmark["status"] == "released":
        return {
            "dataset_name": name,
            "source_type": "url",
            "url": [link(base, f"data/{folder}/items.jsonl")],
            "additional_details": details,
        }
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


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _result(
    board: dict[str, Any],
    metric: dict[str, Any],
    cell: dict[str, Any],
    row: dict[str, Any],
    benchmark: dict[str, Any],
    sub: dict[str, Any],
    base: str | None,
) -> dict[str, Any]:
    score: dict[str, Any] = {"score": cell["value"]}
    details = _strings(
        {
            "board": board["title"],
            "board_data": link(base, f"data/{benchmark['id']}/{board['board']}.json"),
            "items": cell.get("n"),
            "flag": cell.get("flag"),
        }
    )
    if board.get("rank_by") == metric["name"]:
        details.update(_strings({"rank": row.get("rank")}))
        if row.get("rank_range"):
            details["rank_range"] = "{}-{}".format(*row["rank_range"])
    score["details"] = details
    if _number(cell.get("ci_low")) and _number(cell.get("ci_high")):
        score["uncertainty"] = {
            "confidence_interval": {
                "lower": cell["ci_low"],
                "upper": cell["ci_high"],
                "confidence_level": CONFIDENCE,
                "method": interval_method(board["kind"], metric["unit"]),
            },
            **({"num_samples": cell["n"]} if isinstance(cell.get("n"), int) and not isinstance(cell.get("n"), bool) else {}),
        }
    args: dict[str, Any] = {}
    if _number(sub.get("temperature")):
        args["temperature"] = sub["temperature"]
    if (
        isinstance(sub.get("max_output_tokens"), int)
        and not isinstance(sub.get("max_output_tokens"), bool)
        and sub["max_output_tokens"] >= 1
    ):
        args["max_tokens"] = sub["max_output_tokens"]
    if isinstance(sub.get("thinking"), bool):
        args["reasoning"] = sub["thinking"]
    result: dict[str, Any] = {
        "evaluation_result_id": f"{board['board']}/{metric['name']}",
        "evaluation_name": f"{benchmark['id']}/{board['board']}/{metric['name']}",
        "source_data": _source_data(benchmark, cell.get("n"), base),
        **({"evaluation_timestamp": sub["created"]} if sub.get("created") else {}),
        "metric_config": _metric_config(board, metric),
        "score_details": score,
    }
    if args:
        result["generation_config"] = {"generation_args": args}
    return result


def evaluation_results(
    rows: list[tuple[dict[str, Any], dict[str, Any]]], sub: dict[str, Any], benchmark: dict[str, Any], base: str | None
) -> list[dict[str, Any]]:
    """Every cell with a value of this submission's rows (board, row), board by board, metric by metric."""
    return [
        _result(board, metric, cell, row, benchmark, sub, base)
        for board, row in rows
        for metric in board["metrics"]
        if (cell := row["metrics"].get(metric["name"])) is not None and _number(cell.get("value"))
    ]


def evaluation_id(benchmark: dict[str, Any], sub: dict[str, Any]) -> str:
    """The run's id: unique on the site (a submission key is unique within its benchmark folder)."""
    return f"sealboard/{benchmark['id']}/{sub['submission']}"


def eee_record(
    rows: list[tuple[dict[str, Any], dict[str, Any]]],
    sub: dict[str, Any],
    benchmark: dict[str, Any],
    retrieved: str | None,
    where: Placement,
    *,
    base: str | None = None,
    samples: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """One submission (an evaluation run) as an EEE 0.3 aggregate record: every cell with a
    value of its board rows; None when the boards show it none. ``samples`` is the
    ``detailed_evaluation_results`` of its samples file, when one is published."""
    results = evaluation_results(rows, sub, benchmark, base)
    if not results:
        return None
    # a field the submissions data withholds (or a lab left empty) falls back, never breaks the record
    harness = sub.get("harness") or "unknown"
    harness_name, _, harness_version = harness.rpartition(" ")
    signed_id = sub.get("model_id") or sub["submission"]
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id(benchmark, sub),
        **({"evaluation_timestamp": sub["created"]} if sub.get("created") else {}),
        "retrieved_timestamp": _epoch(retrieved),
        "source_metadata": {
            "source_name": f"{benchmark['title']} leaderboard",
            "source_type": "evaluation_run",
            "source_organization_name": f"{benchmark['title']} leaderboard (Sealboard)",
            **({"source_organization_url": base} if base else {}),
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
                    "submissions": link(base, f"data/{benchmark['id']}/submissions.json"),
                    "synthetic": True if any(board.get("synthetic") for board, _ in rows) else None,
                    "submission": sub["submission"],
                    "manifest_sha256": sub["manifest_sha256"],
                    "attestation": link(base, ATTESTATION),
                }
            ),
        },
        "model_info": {
            "name": sub.get("model") or sub["submission"],
            "id": where.model_id,
            "developer": where.developer,
            "additional_details": {
                "deployment_type": "unknown",
                "model_availability": _availability(sub.get("open_weights")),
                **_strings(
                    {
                        "developer_source": where.developer_source,
                        "model_id_signed": signed_id if signed_id != where.model_id else None,
                        "family": sub.get("family"),
                        "params_b": sub.get("params_b"),
                        "reasoning_effort": sub.get("reasoning_effort"),
                    }
                ),
            },
        },
        "eval_library": {"name": harness_name or harness, "version": harness_version if harness_name else "unknown"},
        "evaluation_results": results,
    }
    if samples is not None:
        record["detailed_evaluation_results"] = samples
    return record


def _placement(benchmark: dict[str, Any], sub: dict[str, Any]) -> Placement:
    return place(
        benchmark["benchmark"],
        sub.get("model_id") or sub["submission"],
        sub["lab"],
        (benchmark["id"], sub["manifest_sha256"] or sub["submission"]),
    )


def _sample_rows(published: PublishedSamples | None) -> dict[str, list[dict[str, Any]]]:
    """Submission -> its published sample rows as Python values (None for absent), in matrix.csv's order."""
    if published is None or not len(published.rows):
        return {}
    # Column by column (``tolist`` boxes in C), then zipped into rows: the same values, types
    # and key order as ``to_dict("records")``, at half its cost (0.57 -> 0.27 CPU-s on the
    # demo's 67,064 KCSAT-ML samples).
    columns = [str(c) for c in published.rows.columns]
    values = [col.astype(object).where(col.notna(), None).tolist() for _, col in published.rows.items()]
    out: dict[str, list[dict[str, Any]]] = {}
    for row in (dict(zip(columns, vals)) for vals in zip(*values)):
        out.setdefault(row["submission"], []).append(row)
    return out


def export_files(
    benchmark: dict[str, Any],
    boards: list[dict[str, Any]],
    submissions: list[dict[str, Any]],
    *,
    site_url: str | None = None,
    hf_dataset: str | None = None,
    published: PublishedSamples | None = None,
    items: tuple[dict[str, Any], ...] = (),
) -> dict[str, bytes]:
    """Every export file of one benchmark folder (path under data/ -> bytes).

    ``benchmark``: id (the site folder), benchmark (its own id, the EEE collection), title,
    version, status. ``published``: the samples a release in force publishes, with
    ``items`` (the released items) for their questions and gold answers.
    ``retrieved_timestamp`` is the newest submission's creation time: the records are a
    function of the signed inputs alone, so two builds of the same inputs write the same bytes."""
    folder = benchmark["id"]
    base = site_base(site_url)
    by_sub = {s["submission"]: s for s in submissions}
    retrieved = max((s["created"] for s in submissions if s.get("created")), default=None)
    rows_of: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for board in boards:
        for row in board["rows"]:
            if row["submission"] in by_sub:
                rows_of.setdefault(row["submission"], []).append((board, row))
    by_item = {it["id"]: it for it in items}
    sample_rows = _sample_rows(published)
    files: dict[str, bytes] = {}
    for submission, rows in rows_of.items():
        sub = by_sub[submission]
        where = _placement(benchmark, sub)
        body, samples = b"", None
        if published is not None and submission in sample_rows:
            body = samples_file(
                sample_rows[submission],
                by_item,
                published.transcripts.get(submission, ()),
                evaluation_id=evaluation_id(benchmark, sub),
                model_id=where.model_id,
                benchmark=folder,
            )
        if body:
            samples = {
                "format": "jsonl",
                "file_path": where.samples,
                "hash_algorithm": "sha256",
                "checksum": hashlib.sha256(body).hexdigest(),
                "total_rows": body.count(b"\n"),
            }
        record = eee_record(rows, sub, benchmark, retrieved, where, base=base, samples=samples)
        if record is None:  # no cell to publish: no record, and so no samples file (it needs its aggregate beside it)
            continue
        rel = f"{folder}/{EEE_DIR}/{where.aggregate}"
        files[rel] = orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n"
        if body:
            files[f"{folder}/{EEE_DIR}/{where.samples}"] = body
        if base is not None and hf_dataset is not None:
            entries = [
                e
                for board, row in rows
                if (e := hf_entry(board, row, sub, benchmark, dataset=hf_dataset, base=base, record=f"data/{rel}", attestation=ATTESTATION))
            ]
            if entries:
                files[f"{folder}/{HF_DIR}/{submission}.yaml"] = yaml.dump(
                    entries, Dumper=_DUMPER, sort_keys=False, allow_unicode=True
                ).encode()
    return dict(sorted(files.items()))


def _availability(open_weights: object) -> str:
    """EEE's model_availability from the manifest's open_weights (true, false or unknown)."""
    if open_weights is True:
        return "open_weights"
    return "closed_weights" if open_weights is False else "unknown"
