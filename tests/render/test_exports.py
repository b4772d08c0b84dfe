"""Board rows as Every Eval Ever 0.3 records and Hugging Face ``.eval_results`` entries.

Every record is checked by the official validator (``every_eval_ever validate``, in its own
Python 3.12 venv: tests/peers.py) with 0 errors and 0 warnings, and against the vendored
schema; every number in an export is the board JSON's own number; withheld cells export
nothing; the Hugging Face entries are read back with huggingface_hub's own reader.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jsonschema
import orjson
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from huggingface_hub import eval_result_entries_to_yaml, parse_eval_result_entries

from builder.cli import main
from builder.formats.eee.datastore import place, record_uuid
from builder.pipeline.build import build
from builder.release.statement import Scope
from builder.render import exports
from builder.render.exports import MOVER, WALD, WILSON, eee_record, export_files, interval_method
from builder.report.records import PublishedSamples
from tests.factory import results_for
from tests.peers import eee_findings, eee_validate
from tests.release.support import AFTER, released_instance
from tests.release.test_transcripts import _transcripts

pytestmark = pytest.mark.slow  # builds a site and runs the EEE validator

FORMATS = Path(exports.__file__).parents[1] / "formats" / "eee"
SCHEMA = json.loads((FORMATS / "eval.schema.json").read_text())
INSTANCE_SCHEMA = json.loads((FORMATS / "instance_level_eval.schema.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
SITE_URL = "https://boards.example.org/math/"
HF_DATASET = "example-org/soohak-test"


def _valid(record: dict[str, Any]) -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(record)]
    assert not errors, errors


def test_vendored_schema_is_eee_0_3_with_its_licence() -> None:
    assert SCHEMA["version"] == "0.3.0"
    assert INSTANCE_SCHEMA["version"] == "0.3.0"
    assert "MIT License" in (FORMATS / "LICENSE").read_text()
    assert "9bce4136e789ec006c62582f5f9d107d20f8b398" in (FORMATS / "README.md").read_text()
    jsonschema.Draft7Validator.check_schema(SCHEMA)


SUB = {
    "submission": "acme/run-1",
    "lab": "acme",
    "model": "Model X",
    "model_id": "model-x",
    "family": "X",
    "open_weights": True,
    "params_b": 7,
    "reasoning_effort": None,
    "thinking": True,
    "temperature": 0.6,
    "max_output_tokens": 32000,
    "harness": "soohak-eval (synthetic) 1.0.0",
    "created": "2026-11-30T12:00:00Z",
    "signature": {"status": "verified", "key": "SHA256:abc", "registry_version": 3},
    "manifest_sha256": "ab" * 32,
}
BENCH = {"id": "soohak", "benchmark": "soohak", "title": "Soohak", "version": "1", "status": "embargoed"}


def _board(
    board: str, kind: str, metrics: list[tuple[str, str, bool | None]], cells: dict[str, dict[str, Any]], rank_by: str | None = None
) -> dict[str, Any]:
    return {
        "benchmark": "soohak",
        "board": board,
        "title": f"Board {board}",
        "kind": kind,
        "rank_by": rank_by,
        "metrics": [{"name": n, "title": n, "description": f"{n} described", "unit": u, "higher_is_better": h} for n, u, h in metrics],
        "rows": [{"submission": "acme/run-1", "model": "Model X", "lab": "acme", "rank": 2, "rank_range": [1, 3], "metrics": cells}],
    }


def _record(
    boards: list[dict[str, Any]],
    sub: dict[str, Any] = SUB,
    bench: dict[str, Any] = BENCH,
    retrieved: str | None = "2026-11-30T12:00:00Z",
    **kwargs: Any,
) -> dict[str, Any] | None:
    where = place(bench["benchmark"], sub.get("model_id") or sub["submission"], sub["lab"], (bench["id"], sub["manifest_sha256"]))
    return eee_record([(b, b["rows"][0]) for b in boards], sub, bench, retrieved, where, **kwargs)


def test_one_record_per_run_carries_every_cell_of_every_board_with_its_interval() -> None:
    table = _board(
        "b",
        "table",
        [("accuracy", "fraction", True), ("output_tokens", "tokens", None), ("withheld", "fraction", True)],
        {
            "accuracy": {"value": 0.25, "ci_low": 0.1, "ci_high": 0.45, "n": 40},
            "output_tokens": {"value": 812.5, "ci_low": 700.0, "ci_high": 925.0, "n": 40},
            "withheld": {"value": None, "ci_low": None, "ci_high": None, "n": None},
        },
        rank_by="accuracy",
    )
    contrast = _board("c", "contrast", [("gap", "difference", True)], {"gap": {"value": -0.125, "ci_low": -0.3, "ci_high": 0.05, "n": 40}})
    record = _record([table, contrast])
    _valid(record)
    assert record["retrieved_timestamp"] == "1796040000"  # 2026-11-30T12:00:00Z: (20787 days × 86400 + 12 h) s since 1970
    assert record["evaluation_id"] == "sealboard/soohak/acme/run-1"
    assert record["source_metadata"]["evaluator_relationship"] == "other"
    assert record["source_metadata"]["additional_details"]["manifest_sha256"] == "ab" * 32
    assert record["source_metadata"]["additional_details"]["attestation"] == "attestation/statement.json"  # no site_url: a path on the site
    assert record["model_info"]["additional_details"]["model_availability"] == "open_weights"
    assert record["eval_library"] == {"name": "soohak-eval (synthetic)", "version": "1.0.0"}
    results = {r["evaluation_result_id"]: r for r in record["evaluation_results"]}
    assert list(results) == ["b/accuracy", "b/output_tokens", "c/gap"]  # a withheld cell exports nothing
    acc = results["b/accuracy"]
    assert acc["score_details"]["score"] == 0.25
    assert acc["score_details"]["uncertainty"] == {
        "confidence_interval": {"lower": 0.1, "upper": 0.45, "confidence_level": 0.95, "method": WILSON},
        "num_samples": 40,
    }
    assert acc["score_details"]["details"] == {
        "board": "Board b",
        "board_data": "data/soohak/b.json",
        "items": "40",
        "rank": "2",
        "rank_range": "1-3",
    }
    assert acc["metric_config"]["lower_is_better"] is False and (acc["metric_config"]["min_score"], acc["metric_config"]["max_score"]) == (
        0,
        1,
    )
    assert acc["source_data"]["source_type"] == "other" and acc["source_data"]["additional_details"]["access"] == "private (embargoed)"
    assert acc["generation_config"] == {"generation_args": {"temperature": 0.6, "max_tokens": 32000, "reasoning": True}}
    tokens = results["b/output_tokens"]
    assert tokens["score_details"]["uncertainty"]["confidence_interval"]["method"] == WALD
    assert tokens["metric_config"]["max_score"] == "Infinity"
    assert tokens["metric_config"]["additional_details"] == {"direction": "descriptive: neither direction is better"}
    gap = results["c/gap"]
    assert gap["score_details"]["uncertainty"]["confidence_interval"]["method"] == MOVER
    assert (gap["metric_config"]["min_score"], gap["metric_config"]["max_score"]) == (-1, 1)
    assert "rank" not in gap["score_details"]["details"]  # c ranks by nothing


@pytest.mark.parametrize(
    ("model_id", "lab", "folder", "developer", "model_info_id"),
    [
        ("model-x", "acme", "data/soohak/acme/model-x", "acme", "model-x"),  # flat: the submitting lab (registry id)
        ("openai/gpt-5", "acme", "data/soohak/openai/gpt-5", "openai", "openai/gpt-5"),  # the id's prefix
        ("org/fam/m:v2", "acme", "data/soohak/org/fam_m_v2", "org", "org/fam/m:v2"),  # the datastore's own flattening
        ("unknown", "acme", "data/soohak/acme/model-unknown", "acme", "model-unknown"),  # a placeholder places nothing
        ("a//b", "acme", "data/soohak/acme/a_b", "acme", "a_b"),
        ("CON", "acme", "data/soohak/acme/model-CON", "acme", "model-CON"),  # a Windows device name
        ("m<1>", "data", "data/soohak/lab-data/m_1", "lab-data", "m_1"),  # a lab id the datastore reserves
    ],
)
def test_every_record_is_filed_where_its_model_info_says(model_id: str, lab: str, folder: str, developer: str, model_info_id: str) -> None:
    where = place("soohak", model_id, lab, ("soohak", "ab" * 32))
    assert (str(where.folder), where.developer, where.model_id) == (folder, developer, model_info_id)
    board = _board("b", "table", [("accuracy", "fraction", True)], {"accuracy": {"value": 0.5, "n": 12}})
    record = _record([board], dict(SUB, model_id=model_id, lab=lab))
    _valid(record)
    assert record["model_info"]["developer"] == developer
    assert record["model_info"]["additional_details"].get("model_id_signed") == (None if model_info_id == model_id else model_id)


def test_record_names_are_uuid4_derived_from_the_site_folder_and_the_manifest_digest() -> None:
    name = uuid.UUID(record_uuid("soohak", "ab" * 32))
    assert name.version == 4 and name.variant == uuid.RFC_4122
    assert record_uuid("soohak", "ab" * 32) == str(name)  # the same run, the same name
    assert len({record_uuid("soohak", "ab" * 32), record_uuid("soohak", "cd" * 32), record_uuid("soohak@1", "ab" * 32)}) == 3


def test_withheld_or_empty_submission_fields_still_make_a_valid_record() -> None:
    """A build that withholds a lab's free text (or a lab that left it empty) still exports valid records."""
    board = _board(
        "b",
        "table",
        [("accuracy", "fraction", True)],
        {"accuracy": {"value": 0.5, "ci_low": 0.3, "ci_high": 0.7, "n": 12}},
        rank_by="accuracy",
    )
    sparse = {k: v for k, v in SUB.items() if k not in ("model", "model_id", "harness", "created", "open_weights")}
    record = _record([board], sparse, retrieved=None)
    _valid(record)
    assert record["model_info"]["name"] == "acme/run-1"
    assert (
        record["model_info"]["id"] == "acme/run-1" and record["model_info"]["developer"] == "acme"
    )  # the key stands in: filed under its prefix
    assert record["model_info"]["additional_details"]["model_availability"] == "unknown"
    assert record["eval_library"] == {"name": "unknown", "version": "unknown"} and record["retrieved_timestamp"] == "0"


def test_interval_method_follows_uncertainty_py() -> None:
    assert interval_method("table", "fraction") == WILSON
    assert interval_method("contrast", "difference") == MOVER
    assert interval_method("composite", "fraction") == MOVER  # a mean of rates on the same items
    assert interval_method("calibration", "slope") == WALD
    assert "Korn" in WILSON and "Kish" in WILSON and "Zou" in MOVER


def test_released_benchmark_points_at_its_items_and_an_all_withheld_row_has_no_record() -> None:
    board = _board(
        "b",
        "table",
        [("accuracy", "fraction", True)],
        {"accuracy": {"value": 0.5, "ci_low": 0.3, "ci_high": 0.7, "n": 12}},
        rank_by="accuracy",
    )
    released = dict(BENCH, status="released")
    assert _record([board], bench=released)["evaluation_results"][0]["source_data"]["url"] == ["data/soohak/items.jsonl"]
    absolute = _record([board], bench=released, base=SITE_URL)
    _valid(absolute)
    assert absolute["evaluation_results"][0]["source_data"]["url"] == [SITE_URL + "data/soohak/items.jsonl"]
    assert absolute["source_metadata"]["source_organization_url"] == SITE_URL
    sealed = _board(
        "b",
        "table",
        [("accuracy", "fraction", True)],
        {"accuracy": {"value": None, "ci_low": None, "ci_high": None, "n": None}},
        rank_by="accuracy",
    )
    assert _record([sealed]) is None
    assert export_files(BENCH, [sealed], [SUB], site_url=SITE_URL, hf_dataset=HF_DATASET) == {}


def _hf(files: dict[str, bytes]) -> dict[str, list[Any]]:
    """Every .eval_results file, read by huggingface_hub's own reader (and written back the same)."""
    out = {}
    for path, data in files.items():
        if "/eval_results/" in path:
            raw = yaml.safe_load(data)
            entries = parse_eval_result_entries(raw)
            assert eval_result_entries_to_yaml(entries) == raw, path  # nothing the Hub's format does not know
            out[path] = entries
    return out


def test_hf_entries_only_with_a_hub_dataset_and_the_sites_address() -> None:
    ranked = _board(
        "b",
        "table",
        [("accuracy", "fraction", True), ("pass@3", "fraction", True)],
        {"accuracy": {"value": 0.5, "n": 12}, "pass@3": {"value": 0.75, "n": 12}},
        rank_by="accuracy",
    )
    unranked = _board("u", "breakdown", [("x", "fraction", True)], {"x": {"value": 0.1, "n": 12}})
    where = place("soohak", "model-x", "acme", ("soohak", "ab" * 32))
    record = f"soohak/eee/{where.aggregate}"
    assert set(export_files(BENCH, [ranked, unranked], [SUB])) == {record}
    assert set(export_files(BENCH, [ranked], [SUB], hf_dataset=HF_DATASET)) == {record}  # no site_url: no entry the Hub would show
    assert set(export_files(BENCH, [ranked], [SUB], site_url="site/", hf_dataset=HF_DATASET)) == {record}  # not an address
    files = export_files(BENCH, [ranked, unranked], [SUB], site_url=SITE_URL.rstrip("/"), hf_dataset=HF_DATASET)
    assert set(files) == {record, "soohak/eval_results/acme/run-1.yaml"}
    [entry] = _hf(files)["soohak/eval_results/acme/run-1.yaml"]  # the ranked board only
    assert (entry.dataset_id, entry.task_id, entry.value, entry.date) == (HF_DATASET, "b", 0.5, "2026-11-30T12:00:00Z")
    assert entry.source_url == SITE_URL + "soohak/b.html" and entry.source_name == "Soohak leaderboard (Sealboard)"
    assert entry.notes == (
        f"accuracy (fraction) on board b; manifest sha256 {'ab' * 32}; attestation {SITE_URL}attestation/statement.json; "
        f"Every Eval Ever record {SITE_URL}data/{record}"
    )


def _item(iid: str) -> dict[str, Any]:
    return {"id": iid, "question": {"en": f"Question {iid}?", "ko": f"문제 {iid}?"}, "answer": {"en": "12", "ko": "12"}}


def test_samples_file_is_the_published_rows_with_items_and_transcripts() -> None:
    board = _board("b", "table", [("accuracy", "fraction", True)], {"accuracy": {"value": 0.5, "n": 2}}, rank_by="accuracy")
    rows = pd.DataFrame(
        [
            {
                "submission": "acme/run-1",
                "item": "i1",
                "lang": "en",
                "sample": 0,
                "answer": "12",
                "correct": True,
                "graded_by": "regrade",
                "lab_correct": True,
                "regrade_correct": True,
                "refused": False,
                "output_tokens": 812.0,
                "latency_s": 0.55,
                "variant": "standard",
                "sketch": True,
            },
            {
                "submission": "acme/run-1",
                "item": "i2",
                "lang": "ko",
                "sample": 1,
                "answer": None,
                "correct": False,
                "graded_by": "lab",
                "lab_correct": False,
                "regrade_correct": None,
                "refused": True,
                "output_tokens": None,
                "latency_s": None,
                "variant": "standard",
                "sketch": False,
            },
            {
                "submission": "beta/run-1",
                "item": "i1",
                "lang": "en",
                "sample": 0,
                "answer": "3",
                "correct": False,
                "graded_by": "regrade",
                "lab_correct": False,
                "regrade_correct": False,
                "refused": False,
                "output_tokens": 5.0,
                "latency_s": 1.0,
                "variant": "standard",
                "sketch": True,
            },
        ]
    )
    transcripts = {
        "acme/run-1": (
            {"item": "i1", "lang": "en", "sample": 0, "sketch": True, "text": "so 12"},
            {"item": "i1", "lang": "en", "sample": 0, "sketch": False, "text": "another cell's"},
        )
    }
    released = dict(BENCH, status="released")
    files = export_files(released, [board], [SUB], published=PublishedSamples(rows, transcripts), items=(_item("i1"), _item("i2")))
    where = place("soohak", "model-x", "acme", ("soohak", "ab" * 32))
    record = orjson.loads(files[f"soohak/eee/{where.aggregate}"])
    body = files[f"soohak/eee/{where.samples}"]
    assert record["detailed_evaluation_results"] == {
        "format": "jsonl",
        "file_path": where.samples,
        "hash_algorithm": "sha256",
        "checksum": hashlib.sha256(body).hexdigest(),
        "total_rows": 2,
    }
    lines = [orjson.loads(line) for line in body.splitlines()]
    for line in lines:
        jsonschema.validate(line, INSTANCE_SCHEMA)
        assert (line["evaluation_id"], line["model_id"], line["evaluation_name"]) == (
            record["evaluation_id"],
            record["model_info"]["id"],
            "soohak",
        )
    first, second = lines
    assert first["input"] == {"raw": "Question i1?", "reference": ["12"]} and first["output"] == {
        "raw": ["so 12"]
    }  # its own cell's transcript
    assert first["answer_attribution"][0]["extracted_value"] == "12" and first["evaluation"] == {"score": 1.0, "is_correct": True}
    assert first["performance"] == {"latency_ms": 550.0}
    assert first["metadata"] == {
        "lang": "en",
        "sample": "0",
        "graded_by": "regrade",
        "lab_correct": "true",
        "regrade_correct": "true",
        "refused": "false",
        "output_tokens": "812",
        "variant": "standard",
        "sketch": "true",
    }
    assert second["input"]["raw"] == "문제 i2?" and second["output"] == {"raw": []} and second["answer_attribution"] == []
    assert second["evaluation"] == {"score": 0.0, "is_correct": False} and "performance" not in second
    assert "regrade_correct" not in second["metadata"] and second["metadata"]["refused"] == "true"


# ---- a small released instance, built once: what the site publishes, checked by the official validator


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The mini split released with results and transcripts; acme/open opted in to both,
    beta/closed kept its results private; mkdocs.yml gives the site's address and the
    config the Hub dataset."""
    inst = released_instance(tmp_path_factory.mktemp("exports") / "inst", scope=Scope(splits=("mini",)))
    inst.add_submission(
        "acme",
        "open",
        results_for(inst.items, {it["id"]: [True, False, True] for it in inst.items}),
        publish_transcripts=True,
        transcripts=_transcripts(inst.items, "OPENMARK"),
    )
    inst.add_submission("beta", "closed", results_for(inst.items), publish_results=False)
    with (inst.root / "mkdocs.yml").open("a") as f:
        f.write(f"site_url: {SITE_URL}\n")
    with (inst.root / "leaderboards" / "soohak.yaml").open("a") as f:
        f.write(f"hf_dataset: {HF_DATASET}\n")
    out = inst.root.parent / "site"
    report = build(inst.root, out, identities=[inst.identity], now=AFTER)
    assert report.rejections == [] and report.benchmarks[0].status == "partly released"
    return inst, out


def _datastore(site: Path) -> list[Path]:
    return sorted(p for p in (site / "data").glob("*/eee/data/**/*") if p.is_file())


def test_official_validator_passes_every_site_record_with_no_warning(built) -> None:
    _, site = built
    files = _datastore(site)
    assert {p.suffix for p in files} == {".json", ".jsonl"}
    assert eee_findings(eee_validate(files)) == []


def test_validator_is_a_real_check(built, tmp_path) -> None:
    """The control: the same validator reports a record filed under another developer, and a samples file whose aggregate lost its pointer."""
    _, site = built
    record = next(p for p in _datastore(site) if p.suffix == ".json" and p.with_name(p.stem + "_samples.jsonl").exists())
    moved = tmp_path / "data" / "soohak" / "someone-else" / record.parent.name / record.name
    moved.parent.mkdir(parents=True)
    obj = orjson.loads(record.read_bytes())
    del obj["detailed_evaluation_results"]
    moved.write_bytes(orjson.dumps(obj))
    moved.with_name(record.stem + "_samples.jsonl").write_bytes(record.with_name(record.stem + "_samples.jsonl").read_bytes())
    findings = eee_findings(eee_validate([moved, moved.with_name(record.stem + "_samples.jsonl")]))
    assert any("addresses" in f and "someone-else" in f for f in findings), findings
    assert any("detailed_evaluation_results" in f for f in findings), findings


def test_site_records_hold_exactly_the_boards_numbers(built) -> None:
    inst, site = built
    data = site / "data" / "soohak"
    subs = {r["submission"]: r for r in orjson.loads((data / "submissions.json").read_bytes())["rows"]}
    records = {}
    for path in _datastore(site):
        if path.suffix == ".json":
            record = orjson.loads(path.read_bytes())
            _valid(record)
            records[record["source_metadata"]["additional_details"]["submission"]] = (path, record)
    assert set(records) == set(subs)
    checked = 0
    for key, (path, record) in records.items():
        manifest = inst.root / "bundles" / "soohak" / key / "manifest.json"
        digest = hashlib.sha256(manifest.read_bytes()).hexdigest()
        assert path.stem == record_uuid("soohak", digest)  # named from the signed manifest itself
        assert record["source_metadata"]["additional_details"]["manifest_sha256"] == digest
        assert record["source_metadata"]["additional_details"]["attestation"] == SITE_URL + "attestation/statement.json"
        assert path.parent.relative_to(data / "eee").as_posix() == f"data/soohak/{key.split('/')[0]}/{record['model_info']['id']}"
        results = {r["evaluation_result_id"]: r for r in record["evaluation_results"]}
        shown = 0
        for board_path in sorted(data.glob("*.json")):
            board = orjson.loads(board_path.read_bytes())
            if board.get("format") != "sealboard-board/1":
                continue
            row = next((r for r in board["rows"] if r["submission"] == key), None)
            for name, cell in (row or {"metrics": {}})["metrics"].items():
                result = results.get(f"{board['board']}/{name}")
                if not isinstance(cell["value"], (int, float)):
                    assert result is None  # withheld: no result
                    continue
                shown += 1
                assert result["score_details"]["score"] == cell["value"]  # the board's number, unchanged
                interval = result["score_details"].get("uncertainty", {}).get("confidence_interval")
                if interval:
                    assert (interval["lower"], interval["upper"]) == (cell["ci_low"], cell["ci_high"])
        assert shown == len(results) > 0
        checked += shown
    assert checked > 0
    by_id = {r["evaluation_result_id"]: r["score_details"]["score"] for r in records["acme/open"][1]["evaluation_results"]}
    # acme/open answers each item right in 2 of 3 samples: avg@3 = 2/3, pass@3 = 1 on the mini board
    assert by_id["mini/avg@3"] == pytest.approx(2 / 3) and by_id["mini/pass@3"] == 1.0


def test_samples_files_hold_exactly_the_published_matrix_rows(built) -> None:
    inst, site = built
    matrix = pd.read_csv(site / "data" / "soohak" / "matrix.csv", dtype=str, keep_default_na=False)
    published = {key: rows for key, rows in matrix.groupby("submission")}
    samples = {p: [orjson.loads(line) for line in p.read_bytes().splitlines()] for p in _datastore(site) if p.suffix == ".jsonl"}
    assert len(samples) == len(published) == 3  # acme/run-1, beta/run-1, acme/open; never beta/closed (kept private)
    mini = {it["id"] for it in inst.items if it["split"] == "mini"}
    for path, lines in samples.items():
        record = orjson.loads(path.with_name(path.name.removesuffix("_samples.jsonl") + ".json").read_bytes())
        key = record["source_metadata"]["additional_details"]["submission"]
        rows = published[key]
        assert [
            (ln["sample_id"], ln["metadata"]["lang"], int(ln["metadata"]["sample"]), ln["evaluation"]["is_correct"]) for ln in lines
        ] == [(r.item, r.lang, int(r.sample), r.correct == "True") for r in rows.itertuples()]
        assert {ln["sample_id"] for ln in lines} <= mini  # released items only
        assert all(
            json.loads(r.answer) == (ln["answer_attribution"][0]["extracted_value"] if ln["answer_attribution"] else None)
            for r, ln in zip(rows.itertuples(), lines)
        )
        transcripts = [t for ln in lines for t in ln["output"]["raw"]]
        assert bool(transcripts) == (key == "acme/open") and all(t.startswith("OPENMARK-") for t in transcripts)


def test_hub_reader_parses_every_entry_with_absolute_urls(built) -> None:
    _, site = built
    files = {p.relative_to(site / "data").as_posix(): p.read_bytes() for p in (site / "data").glob("*/eval_results/*/*.yaml")}
    entries = [e for found in _hf(files).values() for e in found]
    assert len(files) == 4 and len(entries) >= 4
    for e in entries:
        assert e.dataset_id == HF_DATASET
        urls = [e.source_url, *(w for w in e.notes.split() if "://" in w)]
        assert len(urls) == 3
        for url in urls:
            parts = urlsplit(url.rstrip(";"))
            assert parts.scheme == "https" and parts.netloc == "boards.example.org" and url.startswith(SITE_URL)
        assert (site / urlsplit(e.source_url).path.removeprefix("/math/")).is_file()  # the board page is on the site


def test_data_page_says_where_the_exports_are(built) -> None:
    _, site = built
    page = (site / "data.html").read_text()
    assert "every_eval_ever validate" in page and "sealboard export eee" in page
    assert HF_DATASET in page


def test_data_page_links_every_published_file(built) -> None:
    """issue 41: the Data page lists files to download, not path templates. Every file the
    build wrote under data/ (boards' JSON and CSV, index, released items and matrix, the EEE
    datastore and the Hub entries) is linked once, and every data link opens a file."""
    _, site = built
    page = (site / "data.html").read_text()
    hrefs = [unquote(h) for h in re.findall(r'href="(data/[^"#?]+)"', page)]
    published = sorted(p.relative_to(site).as_posix() for p in (site / "data").rglob("*") if p.is_file())
    kinds = {"soohak/mini.json", "soohak/mini.csv", "index.json", "rejected.json", "soohak/items.jsonl", "soohak/matrix.csv",
             "soohak/submissions.csv"}  # fmt: skip
    assert {f"data/{k}" for k in kinds} <= set(published)
    assert any("/eee/" in p for p in published) and any("/eval_results/" in p for p in published)
    assert sorted(hrefs) == published
    assert all((site / h).is_file() for h in hrefs)


def test_export_writes_one_datastore_and_again_the_same_bytes(built, tmp_path) -> None:
    _, site = built
    out = tmp_path / "eee"
    first = CliRunner().invoke(main, ["export", "eee", str(out), "--site", str(site)])
    assert first.exit_code == 0, first.output
    exported = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    on_site = {p.relative_to(site / "data" / "soohak" / "eee").as_posix(): p.read_bytes() for p in _datastore(site)}
    assert exported == on_site and "written" in first.output
    again = CliRunner().invoke(main, ["export", "eee", str(out), "--site", str(site)])
    assert again.exit_code == 0 and f"0 written, {len(on_site)} already there" in again.output
    assert {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == exported
    assert eee_findings(eee_validate([out / rel for rel in exported])) == []
    victim = out / next(iter(exported))
    victim.write_bytes(victim.read_bytes() + b" ")
    conflict = CliRunner().invoke(main, ["export", "eee", str(out), "--site", str(site)])
    assert conflict.exit_code == 1 and "already exists with other bytes" in conflict.output


def test_build_summary_says_when_a_hub_dataset_gets_no_entries(tmp_path, capsys) -> None:
    """A config names its Hub dataset but mkdocs.yml gives no address: the build says why no entry is written."""
    from datetime import datetime, timezone

    from builder.cli.build import summarise
    from builder.config import parse_config
    from builder.report.records import BenchmarkState, BuildReport
    from tests.test_config import _text

    config = parse_config(_text(f"hf_dataset: {HF_DATASET}\n"), "leaderboards/soohak.yaml", "soohak")
    state = BenchmarkState(config=config, status="embargoed", bundles=(), dataset_where=None, dataset_commitments={})
    report = BuildReport(
        root=tmp_path,
        out=tmp_path / "site",
        now=datetime(2026, 12, 1, tzinfo=timezone.utc),
        authorised=True,
        as_of=None,
        registry=None,
        benchmarks=[state],
    )
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    summarise(report)
    assert "hugging face: no .eval_results written for soohak: mkdocs.yml sets no site_url" in capsys.readouterr().err
    (tmp_path / "mkdocs.yml").write_text(f"site_name: x\nsite_url: {SITE_URL}\n")  # the control
    summarise(report)
    assert "hugging face" not in capsys.readouterr().err


@pytest.mark.parametrize("case", ["not-a-uuid", "symlink", "too-deep"])
def test_export_refuses_a_file_the_build_never_writes_there(built, tmp_path, case) -> None:
    """Only what the build writes is exported: a foreign name or a link under a site's
    datastore stops the export (``export-bad-path``) before anything is written."""
    import shutil

    from builder.errors import BuilderError
    from builder.render.eee_export import export_eee

    _, site = built
    copy = tmp_path / "site"
    shutil.copytree(site / "data", copy / "data", symlinks=True)
    out = tmp_path / "out"
    assert export_eee(copy, tmp_path / "control").records == 4  # the control: the copy exports (beta/closed is scored, its samples private)
    folder = next(p for p in (copy / "data" / "soohak" / "eee" / "data" / "soohak").glob("*/*") if p.is_dir())
    if case == "not-a-uuid":
        (folder / "notes.json").write_text("{}")
    elif case == "symlink":
        target = next(folder.glob("*.json"))
        (folder / f"{record_uuid('elsewhere')}.json").symlink_to(target)
    else:
        (folder / "deeper").mkdir()
        (folder / "deeper" / f"{record_uuid('deeper')}.json").write_text("{}")
    with pytest.raises(BuilderError) as exc:
        export_eee(copy, out)
    assert exc.value.reason == "export-bad-path"
    assert not out.exists()
