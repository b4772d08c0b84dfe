"""Bundles made, signed and checked the way a lab does it, with the real OpenSSH peer."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.bundles.create import check_bundle
from builder.cli import main
from builder.errors import BuilderError
from builder.trust.registry import load_registry
from builder.trust.seal import unseal
from tests.factory import NOW, make_instance, results_for


@pytest.fixture
def inst(tmp_path: Path):
    return make_instance(tmp_path / "inst")


def _ssh_keygen_verify(allowed: Path, principal: str, namespace: str, sig: Path, message: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "ssh-keygen",
            "-Y",
            "verify",
            "-f",
            str(allowed),
            "-I",
            principal,
            "-n",
            namespace,
            "-s",
            str(sig),
            f"-Overify-time={NOW:%Y%m%d%H%M%S}",
        ],
        stdin=message.open("rb"),
        capture_output=True,
    )


def test_signed_by_ssh_keygen_verifies_in_builder(inst, tmp_path):
    bundle = inst.add_submission("acme", "run-1", results_for(inst.items))
    (bundle / "manifest.json.sig").unlink()
    subprocess.run(
        ["ssh-keygen", "-Y", "sign", "-n", "sealboard-bundle", "-f", str(inst.lab_key_paths["acme"]), str(bundle / "manifest.json")],
        check=True,
        capture_output=True,
    )
    assert (bundle / "manifest.json.sig").read_text().startswith("-----BEGIN SSH SIGNATURE-----")
    verified = check_bundle(inst.root, bundle, load_registry(inst.root, NOW), NOW)
    assert verified.signer == inst.lab_keys["acme"].public.fingerprint


def test_sealboard_bundle_sign_verifies_with_ssh_keygen(inst, tmp_path):
    bundle = inst.add_submission("acme", "run-1", results_for(inst.items))
    (bundle / "manifest.json.sig").unlink()
    result = CliRunner().invoke(main, ["bundle", "sign", str(bundle), "--key", str(inst.lab_key_paths["acme"])])
    assert result.exit_code == 0, result.output
    allowed = tmp_path / "allowed_signers"
    result = CliRunner().invoke(main, ["keys", "allowed-signers", "--root", str(inst.root)])
    assert result.exit_code == 0, result.output
    allowed.write_text(result.output)
    ok = _ssh_keygen_verify(allowed, "acme", "sealboard-bundle", bundle / "manifest.json.sig", bundle / "manifest.json")
    assert ok.returncode == 0, ok.stderr
    # The same signature claimed for another lab, or another namespace, is refused by both.
    assert _ssh_keygen_verify(allowed, "beta", "sealboard-bundle", bundle / "manifest.json.sig", bundle / "manifest.json").returncode != 0
    assert _ssh_keygen_verify(allowed, "acme", "sealboard-dataset", bundle / "manifest.json.sig", bundle / "manifest.json").returncode != 0


def test_bundle_create_cli_seals_for_age_cli(inst, tmp_path):
    rows = results_for(inst.items, {"m000": [True, False, True]})
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    describe = tmp_path / "run.yaml"
    describe.write_text(
        "model: {id: m-2, name: Model Two, family: Two, open_weights: true, params_b: 7, active_params_b: 7, training_cutoff: '2025-01-01', release_date: null}\n"
        "config: {reasoning_effort: medium, temperature: 0.6, max_output_tokens: 16384, tts: false}\n"
        "harness: {name: h, version: '1'}\n"
        "judge: judge-1\n"
    )
    runner = CliRunner()
    args = [
        "bundle",
        "create",
        "--root",
        str(inst.root),
        "--benchmark",
        "soohak",
        "--lab",
        "acme",
        "--submission",
        "run-2",
        "--results",
        str(results),
        "--describe",
        str(describe),
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    bundle = inst.root / "bundles/soohak/acme/run-2"
    identity = tmp_path / "identity.txt"
    identity.write_text(inst.identity.reveal_secret() + "\n")
    plain = subprocess.run(["age", "-d", "-i", str(identity), str(bundle / "results.jsonl.age")], capture_output=True, check=True).stdout
    assert plain == results.read_bytes()
    result = runner.invoke(main, ["bundle", "sign", str(bundle), "--key", str(inst.lab_key_paths["acme"])])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["bundle", "verify", "--root", str(inst.root), str(bundle)])
    assert result.exit_code == 0 and "OK:" in result.output, result.output


def test_results_sealed_by_age_cli_unseal_in_builder(inst, tmp_path):
    plain = tmp_path / "results.jsonl"
    plain.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in results_for(inst.items)))
    sealed = tmp_path / "results.jsonl.age"
    subprocess.run(["age", "-r", inst.identity.recipient, "-o", str(sealed), str(plain)], check=True)
    assert unseal(sealed.read_bytes(), [inst.identity], "results.jsonl.age") == plain.read_bytes()


def test_bundle_create_refuses_invalid_results_naming_line(inst, tmp_path):
    rows = results_for(inst.items)
    rows[4]["sample"] = -1
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    describe = tmp_path / "run.yaml"
    describe.write_text("model: {}\nconfig: {}\nharness: {}\n")
    result = CliRunner().invoke(
        main,
        [
            "bundle",
            "create",
            "--root",
            str(inst.root),
            "--benchmark",
            "soohak",
            "--lab",
            "acme",
            "--submission",
            "bad",
            "--results",
            str(results),
            "--describe",
            str(describe),
        ],
    )
    assert result.exit_code == 1
    assert "results.jsonl:5: sample must be an integer" in result.output
    assert not (inst.root / "bundles/soohak/acme/bad").exists()


def test_check_bundle_refuses_bundle_outside_layout(inst, tmp_path):
    bundle = inst.add_submission("acme", "run-1", results_for(inst.items))
    with pytest.raises(BuilderError) as err:
        check_bundle(inst.root, bundle.parent, load_registry(inst.root, NOW), NOW)
    assert err.value.reason == "misplaced"
