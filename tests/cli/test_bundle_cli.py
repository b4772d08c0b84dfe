"""The bundle commands' rough edges: every input gives one clear line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from tests.factory import make_instance, results_for


@pytest.fixture(scope="module")
def inst(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return make_instance(tmp_path_factory.mktemp("cli") / "inst")


def _files(inst, tmp_path: Path, rows=None) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    results = tmp_path / "my-run.jsonl"
    results.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in (rows if rows is not None else results_for(inst.items))))
    describe = tmp_path / "run.yaml"
    describe.write_text(
        "model: {id: m, name: M, family: F, open_weights: false, params_b: null, active_params_b: null, training_cutoff: null, release_date: null}\n"
        "config: {reasoning_effort: high, temperature: 1.0, max_output_tokens: 1000, tts: false}\n"
        "harness: {name: h, version: '1'}\n"
    )
    return results, describe


def _create(root: Path, results: Path, describe: Path, benchmark: str = "soohak", submission: str = "run-x"):  # type: ignore[no-untyped-def]
    args = [
        "bundle",
        "create",
        "--root",
        str(root),
        "--benchmark",
        benchmark,
        "--lab",
        "acme",
        "--submission",
        submission,
        "--results",
        str(results),
        "--describe",
        str(describe),
    ]
    result = CliRunner().invoke(main, args)
    assert "Traceback" not in result.output and not isinstance(result.exception, (TypeError, ValueError, KeyError, OSError))
    return result


def test_upper_case_benchmark_is_normalised(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = _create(inst.root, *_files(inst, tmp_path), benchmark="SOOHAK", submission="upper")
    assert result.exit_code == 0, result.output
    assert (inst.root / "bundles/soohak/acme/upper/manifest.json").is_file()


def test_unknown_benchmark_lists_the_known_ones(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = _create(inst.root, *_files(inst, tmp_path), benchmark="../soohak")
    assert result.exit_code == 1
    assert "no benchmark '../soohak' in this repository — hint: benchmarks here: soohak" in result.output


def test_outside_the_repository_says_so(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command in (
        [
            "bundle",
            "create",
            "--root",
            str(elsewhere),
            "--benchmark",
            "soohak",
            "--lab",
            "acme",
            "--submission",
            "x",
            "--results",
            str(_files(inst, tmp_path)[0]),
            "--describe",
            str(_files(inst, tmp_path)[1]),
        ],
        ["bundle", "verify", "--root", str(elsewhere), str(tmp_path)],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1
        assert "is not a leaderboard repository" in result.output and "--root" in result.output
        assert "keys init" not in result.output


def test_parse_errors_name_the_file_passed(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rows = results_for(inst.items)
    rows[2]["lang"] = "fr"
    result = _create(inst.root, *_files(inst, tmp_path, rows), submission="fr")
    assert result.exit_code == 1
    assert f"{tmp_path / 'my-run.jsonl'}:3: language(s) 'fr' are not declared by soohak" in result.output
    assert "results.jsonl:" not in result.output


def test_hint_appears_once(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = _create(inst.root, *_files(inst, tmp_path, results_for(inst.items[:3])), submission="partial")
    assert result.exit_code == 1
    assert result.output.count("— hint:") == 1
    assert "en: 15 of 18 items have no samples (mini 3 of 6, challenge 6 of 6, refusal 6 of 6)" in result.output
