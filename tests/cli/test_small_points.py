"""Issue 21's small CLI points: one time syntax everywhere, an unregistered lab refused
before sealing, run.yaml errors blamed on run.yaml and its line."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from tests.factory import make_instance, results_for


@pytest.fixture(scope="module")
def inst(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return make_instance(tmp_path_factory.mktemp("small") / "inst")


def run(*args: object):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_time_option_takes_a_date_or_a_full_time(inst) -> None:  # type: ignore[no-untyped-def]
    day = run("release", "status", "--json", "--root", inst.root, "--as-of", "2099-01-12")
    full = run("release", "status", "--json", "--root", inst.root, "--as-of", "2099-01-12T00:00:00Z")
    assert day.exit_code == 0 and full.exit_code == 0, day.output
    assert orjson.loads(day.output) == orjson.loads(full.output)
    for command in (
        ("release", "status", "--root", inst.root, "--as-of"),
        ("build", "--root", inst.root, "--as-of"),
        ("release", "flip", "soohak", "--root", inst.root, "--not-before"),
        ("keys", "renew", "--root", inst.root, "--expires"),
    ):
        bad = run(*command, "12/01/2099")
        assert bad.exit_code == 2 and "is not a UTC time like 2027-06-30 or 2027-06-30T00:00:00Z" in bad.output, command
    flipped = run("release", "flip", "soohak", "--root", inst.root, "--not-before", "2099-03-01")
    assert flipped.exit_code == 0, flipped.output
    statement = next((inst.root / "leaderboards" / "soohak.release").glob("*.yaml")).read_text()
    assert "not_before: '2099-03-01T00:00:00Z'" in statement or "not_before: 2099-03-01T00:00:00Z" in statement


def _files(inst, tmp_path: Path, model: str) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in results_for(inst.items)))
    describe = tmp_path / "run.yaml"
    describe.write_text(
        "# my run\n"
        f"model: {{{model}}}\n"
        "config: {reasoning_effort: high, temperature: 1.0, max_output_tokens: 1000, tts: false}\n"
        "harness: {name: h, version: '1'}\n"
    )
    return results, describe


GOOD_MODEL = (
    "id: m, name: M, family: F, open_weights: false, params_b: null, active_params_b: null, training_cutoff: null, release_date: null"
)


def test_unregistered_lab_is_refused_naming_the_registry(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    results, describe = _files(inst, tmp_path, GOOD_MODEL)
    result = run(
        "bundle",
        "create",
        "--root",
        inst.root,
        "--benchmark",
        "soohak",
        "--lab",
        "acne",
        "--submission",
        "r",
        "--results",
        results,
        "--describe",
        describe,
    )
    assert result.exit_code == 1
    assert "lab 'acne' is not registered in the key registry v0002 (registered labs: acme, beta)" in result.output
    assert "keys/registry/v0002.yaml" in result.output and "sealboard keys add-lab acne" in result.output
    assert not (inst.root / "bundles/soohak/acne").exists()


def test_run_yaml_errors_name_run_yaml_and_the_line(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    results, describe = _files(inst, tmp_path, GOOD_MODEL.replace("training_cutoff: null", "training_cutoff: '2025-13-01'"))
    result = run(
        "bundle",
        "create",
        "--root",
        inst.root,
        "--benchmark",
        "soohak",
        "--lab",
        "acme",
        "--submission",
        "r",
        "--results",
        results,
        "--describe",
        describe,
    )
    assert result.exit_code == 1
    assert f"{describe}:2: model.training_cutoff" in result.output, result.output
    assert "manifest.json" not in result.output


def test_keys_status_has_json(inst) -> None:  # type: ignore[no-untyped-def]
    result = run("keys", "status", "--json", "--root", inst.root)
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.output)
    assert data["in_force"]["version"] == 2 and data["in_force"]["maintainers"] == ["m1", "m2", "m3"]
    assert data["in_force"]["labs"] == ["acme", "beta"] and data["in_force"]["threshold"] == 2
    assert (data["pending"], data["expired"], data["error"]) == (None, False, None)
    text = run("keys", "status", "--root", inst.root).output
    assert f"in force: v0002, valid until {data['in_force']['expires']}" in text
