"""Every refusal of a release statement, each with its exact reason; and what takes effect."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from builder.config import load_configs
from builder.release.statement import Scope
from builder.release.status import EMBARGOED, PARTLY, RELEASED, SCHEDULED_STATE, release_states
from builder.trust.registry import load_registry
from builder.trust.registry_admin import add_lab, remove_maintainer, revoke, sign_registry
from builder.trust.sshsig import NS_DATASET, NS_RELEASE, sign
from tests.factory import NOW
from tests.release.support import AFTER, BEFORE, T, released_instance, statement_path


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return released_instance(tmp_path_factory.mktemp("rel") / "inst", signers=())


@pytest.fixture
def inst(base, tmp_path):
    import copy

    root = tmp_path / "inst"
    shutil.copytree(base.root, root)
    clone = copy.copy(base)
    clone.root = root
    return clone


def state_of(inst, clock):
    root = inst.root
    return release_states(root, load_configs(root), load_registry(root, NOW), clock)["soohak"]


def sig_path(inst) -> Path:
    return statement_path(inst).with_name("r1.yaml.sig")


def add_block(inst, key, namespace=NS_RELEASE, data=None):
    data = data if data is not None else statement_path(inst).read_bytes()
    with sig_path(inst).open("ab") as f:
        f.write(sign(key, data, namespace).encode())


def only_verdict(state):
    assert len(state.verdicts) == 1
    return state.verdicts[0]


def test_unsigned_statement_is_embargoed_with_count(inst):
    v = only_verdict(state_of(inst, AFTER))
    assert (v.state, v.reason) == ("unsigned", "below-threshold")
    assert "0 of 2 signatures" in v.message


def test_under_threshold(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    state = state_of(inst, AFTER)
    v = only_verdict(state)
    assert state.state == EMBARGOED
    assert v.reason == "below-threshold" and "1 of 2 signatures (m1)" in v.message


def test_duplicate_signer_counts_once(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m1"])
    v = only_verdict(state_of(inst, AFTER))
    assert v.reason == "duplicate-signer"
    assert "1 of 2 signatures" in v.message and "m1 signed more than once" in v.message


def test_revoked_signer_counts_zero(inst):
    # m2's key is revoked in a later registry version (v3, signed by m1 and m3).
    revoke(inst.root, inst.maintainer_keys["m2"].public.fingerprint, "laptop lost", NOW)
    sign_registry(inst.root, inst.maintainer_keys["m1"])
    sign_registry(inst.root, inst.maintainer_keys["m3"])
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"])
    v = only_verdict(state_of(inst, AFTER))  # the statement names v2, allowed once in force
    assert v.reason == "revoked-signer"
    assert "1 of 2 signatures" in v.message


def test_wrong_namespace(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"], namespace=NS_DATASET)
    v = only_verdict(state_of(inst, AFTER))
    assert v.reason == "wrong-namespace"
    assert "1 of 2 signatures" in v.message


def test_stranger_counts_zero(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.lab_keys["acme"])
    assert only_verdict(state_of(inst, AFTER)).reason == "signer-not-maintainer"


def test_digest_mismatch(inst):
    manifest = inst.root / "bundles" / "soohak" / "_dataset" / "test-1" / "manifest.json"
    manifest.write_bytes(manifest.read_bytes() + b"\n")
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"])
    v = only_verdict(state_of(inst, AFTER))
    assert (v.state, v.reason) == ("invalid", "digest-mismatch")
    assert "digest does not match dataset test-1" in v.message


def test_clock_before_not_before_is_scheduled_with_countdown(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m3"])
    state = state_of(inst, BEFORE)
    v = only_verdict(state)
    assert state.state == SCHEDULED_STATE and v.reason == "not-yet"
    assert "not before 2027-01-15 09:00 UTC, in 3 d 4 h" in v.message
    # What the site shows has no countdown: it would differ between two builds of one commit.
    assert v.published_message.endswith("not before 2027-01-15 09:00 UTC")
    assert state.summary(published=True) == "scheduled: not before 2027-01-15 09:00 UTC"
    published = state.to_dict(published=True)
    assert published["summary"] == "scheduled: not before 2027-01-15 09:00 UTC"
    assert published["statements"][0]["message"] == v.published_message
    assert state.summary().endswith(", in 3 d 4 h")  # `release status` keeps it
    assert state_of(inst, T).state == RELEASED  # at not_before exactly: in force


def test_signature_over_other_bytes_is_bad(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"], data=statement_path(inst).read_bytes() + b"# edited\n")
    assert only_verdict(state_of(inst, AFTER)).reason == "bad-signature"


def test_edited_statement_voids_signatures(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"])
    path = statement_path(inst)
    path.write_text(path.read_text().replace("2027-01-15T09:00:00Z", "2026-01-15T09:00:00Z"))
    v = only_verdict(state_of(inst, AFTER))
    assert v.reason == "bad-signature" and "0 of 2 signatures" in v.message


def test_maintainer_removed_before_time_counts_zero(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"])
    remove_maintainer(inst.root, "m2")
    for m in ("m1", "m3"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    fp = inst.maintainer_keys["m2"].public.fingerprint
    for clock in (BEFORE, AFTER):  # no git history here: the latest version (v0003) stands in
        v = only_verdict(state_of(inst, clock))
        assert (v.state, v.reason) == ("unsigned", "removed-signer")
        assert (
            f"1 of 2 signatures (m1); signature by {fp}, a maintainer removed from the registry in v0003, counts zero under registry v0003"
            in v.message
        )


def test_registry_change_keeping_the_signers_leaves_signatures_standing(inst):
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"])
    add_lab(inst.root, "gamma", "Gamma Lab", [_new_key()])
    for m in ("m1", "m3"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    assert load_registry(inst.root, NOW).version == 3
    assert only_verdict(state_of(inst, BEFORE)).state == "scheduled"
    assert state_of(inst, AFTER).state == RELEASED


def _new_key():
    from builder.trust.sshkeys import generate_ed25519, load_private_key

    return load_private_key(generate_ed25519("gamma@test")[0]).public


def test_bad_statement_is_a_verdict_not_a_crash(inst):
    (inst.root / "leaderboards" / "soohak.release" / "broken.yaml").write_text(
        "format: sealboard-release/1\nbenchmark: soohak\nbenchmark: x\n"
    )
    add_block(inst, inst.maintainer_keys["m1"])
    add_block(inst, inst.maintainer_keys["m2"])
    state = state_of(inst, AFTER)
    reasons = {Path(v.path).name: v.reason for v in state.verdicts}
    assert reasons == {"broken.yaml": "duplicate-key", "r1.yaml": None}
    assert state.state == RELEASED


def test_unknown_field_refused(inst):
    path = statement_path(inst)
    path.write_text(path.read_text() + "extra: 1\n")
    assert only_verdict(state_of(inst, AFTER)).reason == "unknown-field"


def test_partial_scope(tmp_path):
    inst = released_instance(tmp_path / "inst", scope=Scope(splits=("mini",)))
    state = state_of(inst, AFTER)
    assert state.state == PARTLY and state.summary() == "partly released: split(s) mini"


def _ssh_keygen_sign(key_path: Path, data_path: Path) -> bytes:
    out = subprocess.run(
        ["ssh-keygen", "-q", "-Y", "sign", "-n", "sealboard-release", "-f", str(key_path)],
        stdin=data_path.open("rb"),
        capture_output=True,
        check=True,
    )
    return out.stdout


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")
def test_statement_signed_with_plain_ssh_keygen_is_accepted(base, inst):
    keys = base.root.parent / f"{base.root.name}-keys"  # the factory's throwaway key files
    blocks = b"".join(_ssh_keygen_sign(keys / m, statement_path(inst)) for m in ("m1", "m3"))
    sig_path(inst).write_bytes(blocks)
    state = state_of(inst, AFTER)
    assert state.state == RELEASED, state.reasons
    assert only_verdict(state).signers == ("m1", "m3")
