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
    r = CliRunner().invoke(
        main, ["release", "flip", "soohak", "--root", str(inst.root), "--not-before", "2099-01-15T09:00:00Z", "--scope", "splits:nope"]
    )
    assert r.exit_code == 1 and "has no split 'nope'" in r.output


def test_sign_picks_the_one_statement_short_of_its_threshold(tmp_path):
    # Found by tests/lifecycle: after a partial release was signed, signing the full release
    # needed --statement though only one statement still lacked signatures.
    inst = make_instance(tmp_path / "inst")
    keys, root = tmp_path / "inst-keys", str(inst.root)
    run = CliRunner().invoke
    run(
        main,
        ["release", "flip", "soohak", "--root", root, "--not-before", "2099-01-01T00:00:00Z", "--scope", "splits:mini", "--name", "mini"],
    )
    for m in ("m1", "m2"):
        assert run(main, ["release", "sign", "soohak", "--root", root, "--key", str(keys / m)]).exit_code == 0
    run(main, ["release", "flip", "soohak", "--root", root, "--not-before", "2099-02-01T00:00:00Z", "--name", "all"])
    r = run(main, ["release", "sign", "soohak", "--root", root, "--key", str(keys / "m1")])
    assert r.exit_code == 0 and "all.yaml.sig" in r.output, r.output
    run(main, ["release", "flip", "soohak", "--root", root, "--not-before", "2099-03-01T00:00:00Z", "--name", "later"])
    r = run(main, ["release", "sign", "soohak", "--root", root, "--key", str(keys / "m2")])  # two lack signatures: say which
    assert r.exit_code == 1 and "more than one statement to sign" in r.output and "--statement NAME" in r.output


def test_status_of_a_new_version_counts_earlier_statements_once(tmp_path):
    # Found by tests/lifecycle: after dataset 1.1, the summary repeated "is for version v1, the
    # benchmark is at version 1.1" once per statement of the released version.
    inst = make_instance(tmp_path / "inst")
    root, run = str(inst.root), CliRunner().invoke
    for name, scope in (("mini", "splits:mini"), ("all", "all")):
        run(main, ["release", "flip", "soohak", "--root", root, "--not-before", "2099-01-01T00:00:00Z", "--scope", scope, "--name", name])
    config = inst.root / "leaderboards" / "soohak.yaml"
    config.write_text(config.read_text().replace('version: "test-1"', 'version: "test-2"'))
    r = run(main, ["release", "status", "soohak", "--root", root])
    assert "soohak test-2: embargoed: no release statement for version test-2 (2 for other versions)\n" in r.output, r.output
    assert r.output.count("is for version test-1") == 2  # each still listed below, once


def test_a_tally_beyond_the_threshold_reads_as_signatures_and_threshold(tmp_path):
    # Issue 21: "3 of 2 signatures" read like an error; three distinct maintainers signed a
    # 2-of-3 statement, each counted once (m1 signs twice).
    from builder.trust.registry import signature_count

    assert (signature_count(1, 2), signature_count(2, 2), signature_count(3, 2)) == (
        "1 of 2 signatures",
        "2 signatures, threshold 2",
        "3 signatures, threshold 2",
    )
    inst = make_instance(tmp_path / "inst")
    root, run = str(inst.root), CliRunner().invoke
    run(main, ["release", "flip", "soohak", "--root", root, "--not-before", "2099-01-15T09:00:00Z"])
    for m in ("m1", "m2", "m3", "m1"):
        assert run(main, ["release", "sign", "soohak", "--root", root, "--key", str(tmp_path / "inst-keys" / m)]).exit_code == 0
    r = run(main, ["release", "status", "soohak", "--root", root])
    assert "[3 signatures, threshold 2]" in r.output and " of 2" not in r.output, r.output
