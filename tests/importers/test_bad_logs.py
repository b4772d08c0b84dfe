"""Importers on logs that are not what they claim: a clear error naming the file, never a
traceback, and nothing written. These need no harness installed."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builder.cli import main


def _inspect_log(samples: list[dict[str, Any]], **header: Any) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "t",
            "model": "openai/gpt-x",
            "packages": {"inspect_ai": "0.3.0"},
            "model_generate_config": {},
            "config": {"epochs": 1},
        },
        "plan": {"config": {"temperature": 1.0}},
        "samples": samples,
        **header,
    }


def _sample(sid: str = "m000", value: Any = "C", **extra: Any) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": 1,
        "output": {"choices": [{"stop_reason": "stop"}], "usage": {"output_tokens": 5}},
        "scores": {"match": {"value": value, "answer": "42"}},
        "metadata": {},
        **extra,
    }


def _run(tmp_path: Path, command: str, content: bytes | str, *args: str, name: str = "log.json") -> Any:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(
        main, ["import", command, str(path), "--out", str(out), "--describe-out", str(tmp_path / "run.yaml"), *args]
    )
    assert "Traceback" not in result.output
    return result, out


CASES = {
    "not-json": ("inspect-ai", b"\x00\x01 not json", (), "is not a JSON inspect log"),
    "json-not-a-log": ("inspect-ai", json.dumps([1, 2]), (), "is not an inspect log"),
    "no-language": ("inspect-ai", json.dumps(_inspect_log([_sample()])), (), "no --lang was given"),
    "score-not-binary": (
        "inspect-ai",
        json.dumps(_inspect_log([_sample(value=0.5)])),
        ("--lang", "en"),
        "score value 0.5 is not correct/incorrect",
    ),
    "two-scorers": (
        "inspect-ai",
        json.dumps(_inspect_log([dict(_sample(), scores={"a": {"value": "C"}, "b": {"value": "I"}})])),
        ("--lang", "en"),
        "has 2 scorers (a, b)",
    ),
    "samples-wrong-shape": ("inspect-ai", json.dumps(_inspect_log(["just text"])), ("--lang", "en"), "does not understand"),
    "lm-eval-not-jsonl": ("lm-eval", b"{not json}\n", ("--lang", "ko"), "is not a JSON object per line"),
    "lm-eval-not-samples": ("lm-eval", b'{"a": 1}\n', ("--lang", "ko"), "is not an lm-eval sample"),
    "lm-eval-no-id-field": (
        "lm-eval",
        json.dumps(
            {
                "doc_id": 0,
                "doc": {"q": "x"},
                "resps": [["1"]],
                "filtered_resps": ["1"],
                "filter": "none",
                "metrics": ["exact_match"],
                "exact_match": 1.0,
            }
        )
        + "\n",
        ("--lang", "ko"),
        "doc has no field 'id'",
    ),
    "bad-field-option": ("inspect-ai", json.dumps(_inspect_log([_sample()])), ("--lang", "en", "--field", "variant"), "is not NAME=KEY"),
}


@pytest.mark.parametrize("name", CASES)
def test_bad_log_is_a_clear_error(tmp_path: Path, name: str) -> None:
    command, content, args, phrase = CASES[name]
    result, out = _run(tmp_path, command, content, *args)
    assert result.exit_code in (1, 2), result.output
    assert phrase in result.output, result.output
    assert not out.exists()


def test_zip_without_header_is_not_an_eval_log(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "x.eval", "w") as z:
        z.writestr("other.json", "{}")
    result, _ = _run(tmp_path, "inspect-ai", (tmp_path / "x.eval").read_bytes(), "--lang", "en", name="y.eval")
    assert result.exit_code == 1 and "without header.json" in result.output


def test_map_leaves_no_id_unmapped(tmp_path: Path) -> None:
    (tmp_path / "map.csv").write_text("source,item\nm000,soohak-0001\n")
    log = json.dumps(_inspect_log([_sample("m000"), _sample("m001")]))
    result, out = _run(tmp_path, "inspect-ai", log, "--lang", "en", "--map", str(tmp_path / "map.csv"))
    assert result.exit_code == 1 and "1 id(s) in the logs are not in the map: m001" in result.output
    assert not out.exists()


def test_existing_output_is_not_overwritten_without_force(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("mine\n")
    result, out = _run(tmp_path, "inspect-ai", json.dumps(_inspect_log([_sample()])), "--lang", "en")
    assert result.exit_code == 1 and "already exists" in result.output and out.read_text() == "mine\n"


def test_unknown_sample_keys_and_metadata_are_reported(tmp_path: Path) -> None:
    log = json.dumps(_inspect_log([_sample(metadata={"lang": "en", "variant": "standard", "source": "x"}, brand_new_key=1)]))
    result, out = _run(tmp_path, "inspect-ai", log, "--field", "variant=variant")
    assert result.exit_code == 0, result.output
    assert "sample keys (unknown to this importer): brand_new_key (1)" in result.output
    assert "sample metadata fields: source (1)" in result.output
    row = json.loads(out.read_text())
    assert row == {
        "item": "m000",
        "lang": "en",
        "answer": "42",
        "correct": True,
        "refused": False,
        "output_tokens": 5,
        "variant": "standard",
        "sample": 0,
    }
