"""`sealboard release flip|sign|status` end to end through the command line."""

from __future__ import annotations

import orjson
from click.testing import CliRunner

from builder.cli import main
from tests.factory import make_instance


def test_flip_sign_status(tmp_path):
    inst = make_instance(tmp_path / "inst")
    keys = tmp_path / "inst-keys"
    run = CliRunner().invoke
    r = run(main, ["release", "flip", "soohak", "--root", str(inst.root), "--not-before", "2099-01-15T09:00:00Z", "--name", "r1"])
    assert r.exit_code == 0, r.output
    r = run(main, ["release", "status", "--root", str(inst.root)])
    assert "soohak test-1: embargoed: 0 of 2 signatures" in r.output
    r = run(main, ["release", "sign", "soohak", "--root", str(inst.root), "--key", str(keys / "m2")])
    assert r.exit_code == 0, r.output
    r = run(main, ["release", "sign", "soohak", "--root", str(inst.root), "--key", str(keys / "m2")])  # again: no-op
    r = run(main, ["release", "status", "soohak", "--root", str(inst.root), "--as-of", "2099-01-12T05:00:00Z"])
    assert "unsigned [1 of 2 signatures]" in r.output
    run(main, ["release", "sign", "soohak", "--root", str(inst.root), "--key", str(keys / "m3")])
    r = run(main, ["release", "status", "soohak", "--root", str(inst.root), "--as-of", "2099-01-12T05:00:00Z"])
    assert "soohak test-1: scheduled: not before 2099-01-15 09:00 UTC, in 3 d 4 h" in r.output, r.output
    r = run(main, ["release", "status", "--json", "--root", str(inst.root), "--as-of", "2099-01-15T09:00:00Z"])
    assert orjson.loads(r.output)["soohak"]["state"] == "released"


def test_sign_refuses_a_lab_key(tmp_path):
    inst = make_instance(tmp_path / "inst")
    run = CliRunner().invoke
    run(main, ["release", "flip", "soohak", "--root", str(inst.root), "--not-before", "2099-01-15T09:00:00Z"])
    r = run(main, ["release", "sign", "soohak", "--root", str(inst.root), "--key", str(tmp_path / "inst-keys" / "acme")])
    assert r.exit_code == 1 and "is not a maintainer of registry v0002" in r.output


def test_flip_refuses_unknown_split(tmp_path):
    inst = make_instance(tmp_path / "inst")
    r = CliRunner().invoke(main, ["release", "flip", "soohak", "--root", str(inst.root), "--not-before", "2099-01-15T09:00:00Z", "--scope", "splits:nope"])
    assert r.exit_code == 1 and "has no split 'nope'" in r.output
