"""Board rows as Every Eval Ever 0.3 aggregate records and Hugging Face ``.eval_results`` entries.

Every record is validated against the vendored EEE schema (builder/formats/eee/); every
number in an export is the board JSON's own number; withheld cells export nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
import yaml

from builder.pipeline.build import build
from builder.render import exports
from builder.render.exports import MOVER, WALD, WILSON, eee_record, export_files, hf_entry, interval_method
from tests.factory import NOW, make_instance, results_for

SCHEMA = json.loads((Path(exports.__file__).parents[1] / "formats" / "eee" / "eval.schema.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)


def _valid(record: dict[str, Any]) -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(record)]
    assert not errors, errors


def test_vendored_schema_is_eee_0_3_with_its_licence() -> None:
    folder = Path(exports.__file__).parents[1] / "formats" / "eee"
    assert SCHEMA["version"] == "0.3.0"
    assert json.loads((folder / "instance_level_eval.schema.json").read_text())["version"] == "0.3.0"
    assert "MIT License" in (folder / "LICENSE").read_text()
    assert "9bce4136e789ec006c62582f5f9d107d20f8b398" in (folder / "README.md").read_text()
    jsonschema.Draft7Validator.check_schema(SCHEMA)


SUB = {
    "submission": "acme/run-1",
    "lab": "acme",
    "model": "Model X",
    "model_id": "acme/model-x",
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
BENCH = {"id": "soohak", "title": "Soohak", "version": "1", "status": "embargoed"}


def _board(kind: str, metrics: list[tuple[str, str, bool | None]], cells: dict[str, dict[str, Any]], rank_by: str | None = None) -> dict[str, Any]:
    return {
        "benchmark": "soohak",
        "board": "b",
        "title": "Board",
        "kind": kind,
        "rank_by": rank_by,
        "metrics": [{"name": n, "title": n, "description": f"{n} described", "unit": u, "higher_is_better": h} for n, u, h in metrics],
        "rows": [{"submission": "acme/run-1", "model": "Model X", "lab": "acme", "rank": 2, "rank_range": [1, 3], "metrics": cells}],
    }


def test_record_carries_the_cell_its_interval_method_and_provenance() -> None:
    board = _board(
        "table",
        [("accuracy", "fraction", True), ("output_tokens", "tokens", None), ("withheld", "fraction", True)],
        {
            "accuracy": {"value": 0.25, "ci_low": 0.1, "ci_high": 0.45, "n": 40},
            "output_tokens": {"value": 812.5, "ci_low": 700.0, "ci_high": 925.0, "n": 40},
            "withheld": {"value": None, "ci_low": None, "ci_high": None, "n": None},
        },
        rank_by="accuracy",
    )
    record = eee_record(board, board["rows"][0], SUB, BENCH, "2026-11-30T12:00:00Z")
    _valid(record)
    assert record["retrieved_timestamp"] == "1796040000"  # 2026-11-30T12:00:00Z: (20787 days × 86400 + 12 h) s since 1970
    assert record["source_metadata"]["evaluator_relationship"] == "other"
    assert record["source_metadata"]["additional_details"]["manifest_sha256"] == "ab" * 32
    assert record["source_metadata"]["additional_details"]["attestation"] == "attestation/statement.json"
    assert record["model_info"]["additional_details"]["model_availability"] == "open_weights"
    assert record["eval_library"] == {"name": "soohak-eval (synthetic)", "version": "1.0.0"}
    results = {r["evaluation_result_id"]: r for r in record["evaluation_results"]}
    assert set(results) == {"b/accuracy", "b/output_tokens"}  # a withheld cell exports nothing
    acc = results["b/accuracy"]
    assert acc["score_details"]["score"] == 0.25
    assert acc["score_details"]["uncertainty"] == {
        "confidence_interval": {"lower": 0.1, "upper": 0.45, "confidence_level": 0.95, "method": WILSON},
        "num_samples": 40,
    }
    assert acc["score_details"]["details"] == {"items": "40", "rank": "2", "rank_range": "1-3"}
    assert acc["metric_config"]["lower_is_better"] is False and (acc["metric_config"]["min_score"], acc["metric_config"]["max_score"]) == (0, 1)
    assert acc["source_data"]["source_type"] == "other" and acc["source_data"]["additional_details"]["access"] == "private (embargoed)"
    assert acc["generation_config"] == {"generation_args": {"temperature": 0.6, "max_tokens": 32000, "reasoning": True}}
    tokens = results["b/output_tokens"]
    assert tokens["score_details"]["uncertainty"]["confidence_interval"]["method"] == WALD
    assert tokens["metric_config"]["max_score"] == "Infinity"
    assert tokens["metric_config"]["additional_details"] == {"direction": "descriptive: neither direction is better"}


def test_withheld_or_empty_submission_fields_still_make_a_valid_record() -> None:
    """A build that withholds a lab's free text (or a lab that left it empty) still exports valid records."""
    board = _board("table", [("accuracy", "fraction", True)], {"accuracy": {"value": 0.5, "ci_low": 0.3, "ci_high": 0.7, "n": 12}}, rank_by="accuracy")
    sparse = {k: v for k, v in SUB.items() if k not in ("model", "model_id", "harness", "created", "open_weights")}
    record = eee_record(board, board["rows"][0], sparse, BENCH, None)
    _valid(record)
    assert record["model_info"]["name"] == record["model_info"]["id"] == "acme/run-1"
    assert record["model_info"]["additional_details"]["model_availability"] == "unknown"
    assert record["eval_library"] == {"name": "unknown", "version": "unknown"} and record["retrieved_timestamp"] == "0"
    assert "date" not in hf_entry(board, board["rows"][0], sparse, BENCH)


def test_interval_method_follows_uncertainty_py() -> None:
    assert interval_method("table", "fraction") == WILSON
    assert interval_method("contrast", "difference") == MOVER
    assert interval_method("composite", "fraction") == MOVER  # a mean of rates on the same items
    assert interval_method("calibration", "slope") == WALD
    assert "Korn" in WILSON and "Kish" in WILSON and "Zou" in MOVER


def test_released_benchmark_points_at_its_items_and_an_all_withheld_row_has_no_record() -> None:
    board = _board("table", [("accuracy", "fraction", True)], {"accuracy": {"value": 0.5, "ci_low": 0.3, "ci_high": 0.7, "n": 12}}, rank_by="accuracy")
    released = dict(BENCH, status="released")
    record = eee_record(board, board["rows"][0], SUB, released, None)
    _valid(record)
    assert record["evaluation_results"][0]["source_data"]["url"] == ["data/soohak/items.jsonl"]
    sealed = _board("table", [("accuracy", "fraction", True)], {"accuracy": {"value": None, "ci_low": None, "ci_high": None, "n": None}}, rank_by="accuracy")
    assert eee_record(sealed, sealed["rows"][0], SUB, BENCH, None) is None
    assert hf_entry(sealed, sealed["rows"][0], SUB, BENCH) is None
    assert export_files(BENCH, [sealed], [SUB]) == {}


def test_hf_entry_is_the_ranking_metric_with_its_provenance() -> None:
    board = _board("table", [("accuracy", "fraction", True), ("pass@3", "fraction", True)], {"accuracy": {"value": 0.5, "n": 12}, "pass@3": {"value": 0.75, "n": 12}}, rank_by="accuracy")
    files = export_files(BENCH, [board], [SUB])
    assert set(files) == {"soohak/eee/b/acme/run-1.json", "soohak/eval_results/acme/run-1.yaml"}
    entries = yaml.safe_load(files["soohak/eval_results/acme/run-1.yaml"])
    assert entries == [
        {
            "dataset": {"id": "soohak", "task_id": "b"},
            "value": 0.5,
            "date": "2026-11-30T12:00:00Z",
            "source": {"url": "data/soohak/eee/b/acme/run-1.json", "name": "Soohak leaderboard (Sealboard)"},
            "notes": f"accuracy (fraction) on board b; manifest sha256 {'ab' * 32}; attestation attestation/statement.json",
        }
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("exports") / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, False, False] for it in inst.items}))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    out = root.parent / "site"
    build(root, out, identities=[inst.identity], now=NOW)
    return root, out


def test_built_site_exports_every_row_exactly_as_the_board(built) -> None:
    root, site = built
    data = site / "data" / "soohak"
    subs = {r["submission"]: r for r in orjson.loads((data / "submissions.json").read_bytes())["rows"]}
    checked = withheld = 0
    for board_path in sorted(data.glob("*.json")):
        board = orjson.loads(board_path.read_bytes())
        if board.get("format") != "sealboard-board/1":
            continue
        for row in board["rows"]:
            path = data / "eee" / board["board"] / f"{row['submission']}.json"
            shown = [c for c in row["metrics"].values() if isinstance(c["value"], (int, float))]
            assert path.is_file() == bool(shown)  # a row the board withholds entirely has no record
            if not shown:
                withheld += 1
                continue
            record = orjson.loads(path.read_bytes())
            _valid(record)
            manifest = root / "bundles" / "soohak" / row["submission"] / "manifest.json"
            assert record["source_metadata"]["additional_details"]["manifest_sha256"] == hashlib.sha256(manifest.read_bytes()).hexdigest()
            assert record["retrieved_timestamp"].isdigit()
            for result in record["evaluation_results"]:
                cell = row["metrics"][result["evaluation_result_id"].split("/", 1)[1]]
                assert result["score_details"]["score"] == cell["value"]  # the board's number, unchanged
                assert result["source_data"]["source_type"] == "other"  # embargoed: private
                interval = result["score_details"].get("uncertainty", {}).get("confidence_interval")
                if interval:
                    assert (interval["lower"], interval["upper"]) == (cell["ci_low"], cell["ci_high"])
                checked += 1
            assert subs[row["submission"]]["manifest_sha256"] in (data / "eval_results" / f"{row['submission']}.yaml").read_text()
    assert checked > 0 and withheld > 0  # the small Human-set board is withheld under embargo
    mini = orjson.loads((data / "eee" / "mini" / "acme" / "run-1.json").read_bytes())
    by_id = {r["evaluation_result_id"]: r["score_details"]["score"] for r in mini["evaluation_results"]}
    # acme answers each item right in 1 of 3 samples: avg@3 = 1/3, pass@3 = 1
    assert by_id["mini/avg@3"] == pytest.approx(1 / 3) and by_id["mini/pass@3"] == 1.0
    hf = yaml.safe_load((data / "eval_results" / "beta" / "run-1.yaml").read_text())
    assert next(e for e in hf if e["dataset"]["task_id"] == "mini")["value"] == 1.0  # beta: every sample right
