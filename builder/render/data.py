"""The public data contract: ``site/data/index.json`` and one JSON + CSV per board.

Pages are rendered from exactly these dicts, so no number appears on a page that is not
in a data file.
"""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path
from typing import Any

import orjson

from builder.bundles.facts import submission_facts
from builder.bundles.manifest import format_timestamp
from builder.render.exports import export_files
from builder.report.records import BenchmarkState, BuildReport, PublishedSamples
from builder.scoring import gate
from builder.scoring.ladder import min_items

INDEX_FORMAT = "sealboard-index/1"
SUBMISSIONS_FORMAT = "sealboard-submissions/1"


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n"


# OWASP "CSV Injection": a spreadsheet runs a cell that starts with one of these as a
# formula (or DDE command). Text cells that do are prefixed with a single quote, which
# spreadsheets show as text; numbers are numeric cells and stay exact (-0.25 is a number).
# JSON keeps every value exactly as the lab wrote it.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠")


def csv_cell(value: Any) -> Any:
    """A CSV cell: None empty, numbers as they are, text neutralised if it could be a formula."""
    if value is None:
        return ""
    if isinstance(value, str) and value.lstrip(" ").startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def to_csv(columns: list[str], rows: list[dict[str, Any]]) -> bytes:
    """The rows' ``columns`` (a missing one is an empty cell), each through ``csv_cell``."""
    return columns_to_csv(columns, [[row.get(k) for row in rows] for k in columns])


def columns_to_csv(columns: list[str], values: list[list[Any]]) -> bytes:
    """A table given column by column (a results matrix: 70k rows), each cell through
    ``csv_cell``; it runs only over the columns that hold text (csv writes None empty)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    cells = [_cells(col) if any(isinstance(v, str) for v in col) else col for col in values]
    writer.writerows(zip(*cells))
    return buf.getvalue().encode()


def _cells(col: list[Any]) -> list[Any]:
    """``csv_cell`` of each value, each distinct text checked once: matrix.csv's text columns
    repeat a few hundred values 70k times (columns_to_csv over the demo's 37 tables: 0.35 -> 0.30 CPU-s)."""
    checked: dict[str, Any] = {}
    out = []
    for v in col:
        if type(v) is str:
            cell = checked.get(v)
            if cell is None:
                cell = checked[v] = csv_cell(v)
        else:
            cell = csv_cell(v)
        out.append(cell)
    return out


def git_commit(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def submissions_data(state: BenchmarkState, registry_version: int | None = None) -> dict[str, Any]:
    """Public facts about every verified submission (shown even on a sealed site), with
    the provenance a reader needs to check it: manifest digest, every listed file's size
    and digest, the full signer fingerprint and the registry version it verified against.

    Each row passes the publication gate (builder.scoring.gate.submission): under embargo
    a build that did not screen lab text against the sealed items publishes no lab free
    text (notes; harness, judge and reasoning effort beyond a short name's shape)."""
    embargoed = state.status != "released"
    rows = [
        gate.submission(submission_facts(b, registry_version), embargoed=embargoed, screened=state.lab_text_screened)
        for b in sorted(state.bundles, key=lambda b: b.manifest.key)
    ]
    return {"format": SUBMISSIONS_FORMAT, "benchmark": state.config.id, "rows": rows}


SUBMISSION_CSV_COLUMNS = [
    "submission", "lab", "model", "model_id", "family", "open_weights", "params_b", "active_params_b",
    "training_cutoff", "release_date", "reasoning_effort", "thinking", "temperature", "max_output_tokens",
    "tts", "harness", "judge", "created", "signature_key",
]  # fmt: skip


def board_files(
    state: BenchmarkState,
    synthetic: bool = False,
    registry_version: int | None = None,
    *,
    site_url: str | None = None,
    published: PublishedSamples | None = None,
) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    """Board dicts (for pages) and the data files (path under data/ -> bytes). A demo
    instance's files say so themselves (``synthetic: true``; a ``synthetic`` CSV column),
    since a downloaded file travels without the site's banner. ``site_url`` (mkdocs.yml)
    makes the exports' links absolute; ``published``: the samples a release in force
    publishes, exported as Every Eval Ever samples files (builder.render.exports)."""
    bench = state.config.id
    files: dict[str, bytes] = {}
    boards: list[dict[str, Any]] = []
    for table in state.boards:
        data = table.to_dict()
        columns, csv_rows = table.csv_columns(), table.to_csv_rows()
        if synthetic:
            data = {"synthetic": True, **data}
            columns = ["synthetic", *columns]
            csv_rows = [{"synthetic": "true", **r} for r in csv_rows]
        boards.append(data)
        files[f"{bench}/{table.board}.json"] = dumps(data)
        files[f"{bench}/{table.board}.csv"] = to_csv(columns, csv_rows)
    subs = submissions_data(state, registry_version)
    files[f"{bench}/submissions.json"] = dumps(subs)
    files[f"{bench}/submissions.csv"] = to_csv(SUBMISSION_CSV_COLUMNS, [dict(r, signature_key=r["signature"]["key"]) for r in subs["rows"]])
    # Every Eval Ever records and Hugging Face .eval_results entries of the same rows
    about = {
        "id": bench,
        "benchmark": state.config.benchmark,
        "title": state.config.title,
        "version": state.config.version,
        "status": state.status,
    }
    files.update(
        export_files(
            about,
            boards,
            subs["rows"],
            site_url=site_url,
            hf_dataset=state.config.hf_dataset,
            published=published,
            items=state.released_items if published is not None else (),
        )
    )
    files[f"{bench}/commitments.json"] = dumps(
        {
            "benchmark": bench,
            "version": state.config.version,
            "dataset": state.dataset_where,
            "scheme": "sha256(salt || canonical_json(item without salt))",
            "commitments": state.dataset_commitments,
        }
    )
    return boards, files


def index_data(report: BuildReport, boards: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    benchmarks = []
    for state in report.benchmarks:
        bench = state.config.id
        benchmarks.append(
            {
                "id": bench,
                "title": state.config.title,
                "version": state.config.version,
                # An earlier dataset version, shown while its release is in force, names its
                # benchmark and the version that replaced it (builder.pipeline.earlier_versions).
                "benchmark": state.config.benchmark,
                "superseded_by": state.config.superseded_by,
                "status": state.status,
                "submissions": len(state.bundles),
                "submissions_data": f"data/{bench}/submissions.json",
                "commitments": f"data/{bench}/commitments.json",
                "items": len(state.dataset_commitments),
                # Under embargo a rate resting on fewer items is withheld (builder.scoring.ladder):
                # the board page says so, with the number, instead of a column of "suppressed".
                "min_cell_items": min_items(state.config.embargo_grid) if state.config.embargo_grid else None,
                "release": state.release.to_dict(published=True) if state.release is not None else None,
                "released_items": len(state.released_items),
                "boards": [
                    {
                        "board": b["board"],
                        "title": b["title"],
                        "json": f"data/{bench}/{b['board']}.json",
                        "csv": f"data/{bench}/{b['board']}.csv",
                    }
                    for b in boards.get(bench, [])
                ],
            }
        )
    return {
        "format": INDEX_FORMAT,
        # The source time (builder.pipeline.source_time), not the clock the build judged at:
        # two builds of one commit publish the same bytes.
        "built": format_timestamp(report.stamped or report.now),
        "time_source": report.time_source or "clock",
        "commit": git_commit(report.root),
        "authorised": report.authorised,
        "as_of": format_timestamp(report.as_of) if report.as_of else None,
        # A rehearsal's output is refused by the deploy path (sealboard release verify --site).
        "rehearsal": report.as_of is not None,
        "synthetic": report.synthetic,
        "registry_version": report.registry.version if report.registry else None,
        # A proposal still collecting signatures: shown, never in force.
        "registry_pending": report.registry.pending.doc.version if report.registry and report.registry.pending else None,
        "benchmarks": benchmarks,
        "rejected": len(report.rejections),
    }


def access_data(report: BuildReport) -> dict[str, Any]:
    """Who may read which benchmark's embargoed items, since when (registry grants)."""
    return {
        "registry_version": report.registry.version if report.registry else None,
        "item_access": [
            {
                "lab": a.lab,
                "lab_name": a.lab_name,
                "benchmark": a.benchmark,
                "granted": a.granted,
                "sealed_copy": a.copy,
                "gold_answers": a.answers,
            }
            for a in report.item_access
        ],
    }


def rejected_data(report: BuildReport) -> dict[str, Any]:
    return {
        "rejected": [
            {"where": r.where, "benchmark": r.benchmark, "lab": r.lab, "reason": r.reason, "message": r.message, "hint": r.hint}
            for r in report.rejections
        ]
    }
