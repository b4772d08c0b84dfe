"""`sealboard import` on logs written by the real inspect_ai and lm-evaluation-harness.

The test instance's SOOHAK dataset has 18 items (mini, challenge, refusal × 6). The lab's
own tasks name them ``lab-<item>`` (mapped back with --map); its "model" answers the mini
items right and the others wrong, so every imported verdict is known in advance.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main
from tests.factory import make_instance
from tests.importers.harness_logs import require, run_inspect, run_lm_eval

pytestmark = pytest.mark.slow  # runs the real inspect_ai and lm-evaluation-harness


@pytest.fixture(scope="module")
def inst(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return make_instance(tmp_path_factory.mktemp("imp") / "inst")


@pytest.fixture(scope="module")
def id_map(inst: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("map") / "ids.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["source", "item"])
        for it in inst.items:
            writer.writerow([f"lab-{it['id']}", it["id"]])
    return path


def _gold(it: dict[str, Any]) -> str:
    return it["answer"]["en"]


def _reply(it: dict[str, Any]) -> str:
    if it["split"] == "mini":
        return f"ANSWER: {_gold(it)}"
    return "ANSWER: 7" if it["split"] == "refusal" else f"ANSWER: {int(_gold(it)) + 1}"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _invoke(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def inspect_logs(inst: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    require("inspect_ai")
    samples = [
        {
            "id": f"lab-{it['id']}",
            "input": it["question"]["en"],
            "target": _gold(it),
            "reply": _reply(it),
            "metadata": {"lang": "en", "difficulty": "hard"},
        }
        for it in inst.items
    ]
    tmp = tmp_path_factory.mktemp("inspect")
    return {fmt: run_inspect(tmp, samples, epochs=3, log_format=fmt) for fmt in ("eval", "json")}


def test_inspect_eval_log_imports_to_a_complete_bundle(inst: Any, id_map: Path, inspect_logs: dict[str, Path], tmp_path: Path) -> None:
    out, describe = tmp_path / "results.jsonl", tmp_path / "run.yaml"
    result = _invoke(
        "import", "inspect-ai", str(inspect_logs["eval"]), "--map", str(id_map),
        "--benchmark", "soohak", "--root", str(inst.root), "--out", str(out), "--describe-out", str(describe),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Coverage OK for soohak: 18 items × en × 3 sample(s) = 54 rows" in result.output
    assert "not imported — sample metadata fields: difficulty (54)" in result.output  # reported, not dropped
    rows = _rows(out)
    assert len(rows) == 54
    by_item = {it["id"]: it for it in inst.items}
    for row in rows:
        it = by_item[row["item"]]
        assert row["lang"] == "en" and row["sample"] in (0, 1, 2) and row["refused"] is False
        assert row["correct"] is (it["split"] == "mini")
        # The scorer's extracted answer: match(numeric=True) extracts numbers against numeric
        # targets; against the refusal items' text target it keeps the whole completion.
        assert row["answer"] == (_reply(it) if it["split"] == "refusal" else _reply(it).removeprefix("ANSWER: "))
        assert row["output_tokens"] == len(_reply(it)) * 10
        assert row["latency_s"] >= 0
    description = yaml.safe_load(describe.read_text())
    assert description["model"]["id"] == "mockllm/model"
    assert description["config"] == {
        "reasoning_effort": "high",
        "thinking": None,
        "temperature": 0.6,
        "max_output_tokens": 32768,
        "tts": False,
        "notes": description["config"]["notes"],
    }
    assert description["harness"]["name"] == "inspect_ai" and description["harness"]["version"][0].isdigit()
    # The skeleton and the results go straight into a bundle the builder accepts.
    result = _invoke(
        "bundle", "create", "--root", str(inst.root), "--benchmark", "soohak", "--lab", "acme", "--submission", "inspect-run",
        "--results", str(out), "--describe", str(describe),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    result = _invoke("bundle", "sign", str(inst.root / "bundles/soohak/acme/inspect-run"), "--key", str(inst.lab_key_paths["acme"]))
    assert result.exit_code == 0, result.output
    result = _invoke("bundle", "verify", "--root", str(inst.root), str(inst.root / "bundles/soohak/acme/inspect-run"))
    assert result.exit_code == 0 and "= 54 rows" in result.output, result.output


def test_inspect_json_and_eval_formats_give_the_same_rows(id_map: Path, inspect_logs: dict[str, Path], tmp_path: Path) -> None:
    def key(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return sorted((r["item"], r["sample"], r["answer"], r["correct"], r["output_tokens"]) for r in rows)

    outs = {}
    for fmt, log in inspect_logs.items():
        outs[fmt] = tmp_path / f"{fmt}.jsonl"
        result = _invoke(
            "import", "inspect-ai", str(log), "--map", str(id_map), "--out", str(outs[fmt]), "--describe-out", str(tmp_path / f"{fmt}.yaml")
        )
        assert result.exit_code == 0, result.output
    assert key(_rows(outs["eval"])) == key(_rows(outs["json"]))


def test_inspect_without_map_reports_unknown_items(inst: Any, inspect_logs: dict[str, Path], tmp_path: Path) -> None:
    result = _invoke(
        "import",
        "inspect-ai",
        str(inspect_logs["json"]),
        "--benchmark",
        "soohak",
        "--root",
        str(inst.root),
        "--out",
        str(tmp_path / "r.jsonl"),
        "--describe-out",
        str(tmp_path / "r.yaml"),
    )
    assert result.exit_code == 1
    assert "18 item id(s) are not in the soohak dataset test-1: lab-c000" in result.output


@pytest.fixture(scope="module")
def lm_eval_samples(inst: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    require("lm_eval")
    # lm-eval's dummy model always generates "lol": the lab's targets make mini items right.
    docs = [
        {"id": f"lab-{it['id']}", "question": it["question"]["en"], "target": "lol" if it["split"] == "mini" else _gold(it)}
        for it in inst.items
    ]
    return run_lm_eval(tmp_path_factory.mktemp("lmeval"), docs, repeats=(1, 3))


def test_lm_eval_repeats_graded_by_target(inst: Any, id_map: Path, lm_eval_samples: dict[int, Path], tmp_path: Path) -> None:
    out, describe = tmp_path / "results.jsonl", tmp_path / "run.yaml"
    result = _invoke(
        "import", "lm-eval", str(lm_eval_samples[3]), "--map", str(id_map), "--lang", "en", "--grade-by-target",
        "--benchmark", "soohak", "--root", str(inst.root), "--out", str(out), "--describe-out", str(describe),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Coverage OK for soohak: 18 items × en × 3 sample(s) = 54 rows" in result.output
    assert "not imported — doc fields (the item's own content): question (18), target (18)" in result.output
    rows = _rows(out)
    splits = {it["id"]: it["split"] for it in inst.items}
    assert len(rows) == 54 and all(r["answer"] == "lol" and r["correct"] is (splits[r["item"]] == "mini") for r in rows)
    description = yaml.safe_load(describe.read_text())
    assert description["harness"]["name"] == "lm-evaluation-harness" and description["harness"]["version"][0].isdigit()
    assert description["config"]["max_output_tokens"] == 256 and description["config"]["temperature"] == 0.0
    assert description["model"]["id"] == "dummy"


def test_lm_eval_repeats_without_per_sample_grades_are_refused(lm_eval_samples: dict[int, Path], tmp_path: Path) -> None:
    result = _invoke(
        "import",
        "lm-eval",
        str(lm_eval_samples[3]),
        "--lang",
        "en",
        "--out",
        str(tmp_path / "r.jsonl"),
        "--describe-out",
        str(tmp_path / "r.yaml"),
    )
    assert result.exit_code == 1
    assert "has 3 responses but one exact_match value" in result.output and "--grade-by-target" in result.output
    assert not (tmp_path / "r.jsonl").exists()


def test_lm_eval_one_file_per_sampling_run_uses_the_metric(
    inst: Any, id_map: Path, lm_eval_samples: dict[int, Path], tmp_path: Path
) -> None:
    out = tmp_path / "results.jsonl"
    runs = [str(lm_eval_samples[1])] * 3  # three runs of repeats 1 (here: the same run thrice)
    result = _invoke(
        "import",
        "lm-eval",
        *runs,
        "--map",
        str(id_map),
        "--lang",
        "en",
        "--benchmark",
        "soohak",
        "--root",
        str(inst.root),
        "--out",
        str(out),
        "--describe-out",
        str(tmp_path / "r.yaml"),
    )
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    splits = {it["id"]: it["split"] for it in inst.items}
    assert sorted({r["sample"] for r in rows}) == [0, 1, 2]
    assert all(r["correct"] is (splits[r["item"]] == "mini") for r in rows)  # lm-eval's own exact_match
