"""The trust registry: chain verification, key lookups, and agreement with ssh-keygen."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from builder.errors import BuilderError, ParseError, TrustError
from builder.trust.registry import load_registry, verify_transition
from builder.trust.registry_admin import (
    add_lab,
    add_lab_key,
    add_maintainer,
    init_registry,
    propose_next,
    remove_maintainer,
    renew,
    revoke,
    sign_registry,
    status,
)
from builder.trust.sshkeys import PrivateKey, PublicKey, generate_ed25519, load_private_key
from builder.trust.sshsig import NS_BUNDLE, NS_REGISTRY, NS_RELEASE, sign, verify

UTC = timezone.utc
NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
EXPIRES = datetime(2027, 1, 1, tzinfo=UTC)
REG = Path("keys/registry")


@dataclass(frozen=True)
class Person:
    id: str
    private: PrivateKey

    @property
    def key(self) -> PublicKey:
        return self.private.public


def person(name: str) -> Person:
    return Person(name, load_private_key(generate_ed25519(name)[0]))


@pytest.fixture(scope="module")
def m() -> dict[str, Person]:
    """Maintainers (and would-be maintainers) with throwaway keys."""
    return {name: person(name) for name in ("alice", "bob", "carol", "dave", "erin")}


@pytest.fixture(scope="module")
def lab_keys() -> dict[str, Person]:
    return {name: person(name) for name in ("acme1", "acme2", "zeta1")}


def genesis(root: Path, m: dict[str, Person], signers: str = "alice bob", threshold: int = 2) -> Path:
    people = [{"id": p.id, "name": p.id.title(), "key": p.key} for p in (m["alice"], m["bob"], m["carol"])]
    init_registry(root, people, threshold, EXPIRES)
    for name in signers.split():
        sign_registry(root, m[name].private)
    return root


def signed(root: Path, m: dict[str, Person], signers: str, version: int | None = None) -> None:
    for name in signers.split():
        sign_registry(root, m[name].private, version)


def reason(root: Path, now: datetime = NOW) -> TrustError:
    with pytest.raises(TrustError) as info:
        load_registry(root, now)
    return info.value


def pending(root: Path, in_force: int, now: datetime = NOW) -> str:
    """An under-signed newest version is a pending proposal: the previous one stays in
    force and the build goes on. Returns the line describing what the proposal lacks."""
    from builder.trust.registry import describe_pending

    registry = load_registry(root, now)
    assert registry.version == in_force and registry.pending is not None
    with pytest.raises(TrustError) as info:  # the proposal itself is still below threshold
        verify_transition(
            (root / REG / f"v{in_force:04d}.yaml").read_bytes(),
            None,
            (root / REG / f"v{in_force + 1:04d}.yaml").read_bytes(),
            (root / REG / f"v{in_force + 1:04d}.yaml.sig").read_bytes()
            if (root / REG / f"v{in_force + 1:04d}.yaml.sig").exists()
            else None,
        )
    assert info.value.reason == "below-threshold"
    return describe_pending(registry.pending) + " | " + info.value.message


# --- the chain ------------------------------------------------------------------------------


def test_genesis_signed_by_threshold(tmp_path: Path, m: dict[str, Person]) -> None:
    registry = load_registry(genesis(tmp_path, m), NOW)
    assert (registry.version, registry.threshold, registry.expires) == (1, 2, EXPIRES)
    assert [x.id for x in registry.maintainers] == ["alice", "bob", "carol"]
    assert registry.path == "keys/registry/v0001.yaml"
    assert registry.maintainer(m["carol"].key, "x").id == "carol"


def test_genesis_below_threshold_names_counts_and_signers(tmp_path: Path, m: dict[str, Person]) -> None:
    error = reason(genesis(tmp_path, m, signers="alice"))
    assert error.reason == "below-threshold"
    assert "1 valid signature(s) of the 2 required" in error.message
    assert m["alice"].key.fingerprint in error.message
    assert error.where == "keys/registry/v0001.yaml"


def test_unsigned_genesis_refused(tmp_path: Path, m: dict[str, Person]) -> None:
    assert reason(genesis(tmp_path, m, signers="")).reason == "below-threshold"


def test_normal_transition(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    assert add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key]) == root / REG / "v0002.yaml"
    signed(root, m, "bob carol")
    registry = load_registry(root, NOW)
    assert registry.version == 2
    assert registry.lab_key("acme", lab_keys["acme1"].key, NOW, "b").lab == "acme"


def test_one_signature_short_is_refused(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "carol")
    line = pending(root, 1)
    assert "v0002 is pending: 1 of 2 signatures (carol)" in line and "v0001" in line
    assert load_registry(root, NOW).lab("acme") is None  # not in force


def test_under_signed_version_before_a_signed_one_is_an_error(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    """Only the newest file may be pending: a hole in the chain is not a proposal."""
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "alice bob")
    renew(root, EXPIRES + timedelta(days=30))
    signed(root, m, "alice bob")
    (root / REG / "v0002.yaml.sig").write_text(sign(m["alice"].private, (root / REG / "v0002.yaml").read_bytes(), NS_REGISTRY))
    error = reason(root)
    assert error.reason == "below-threshold" and error.where == "keys/registry/v0002.yaml"


def test_deleting_the_newest_signatures_rolls_back_visibly(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    """Files alone cannot tell a deleted .sig from a fresh proposal; the version in force
    and the pending line say what happened (the PR check flags it as history-rewritten)."""
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "alice bob")
    (root / REG / "v0002.yaml.sig").unlink()
    assert "v0002 is pending: 0 of 2" in pending(root, 1)


def test_duplicate_signature_by_same_key_counts_once(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    data = (root / REG / "v0002.yaml").read_bytes()
    twice = sign(m["alice"].private, data, NS_REGISTRY) + sign(m["alice"].private, data, NS_REGISTRY, "sha256")
    (root / REG / "v0002.yaml.sig").write_text(twice)
    assert "1 of 2 signatures (alice)" in pending(root, 1)
    # sign_registry is idempotent for a key that already signed.
    before = (root / REG / "v0002.yaml.sig").read_bytes()
    signed(root, m, "alice")
    assert (root / REG / "v0002.yaml.sig").read_bytes() == before


def test_signature_by_removed_maintainer_refused(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    remove_maintainer(root, "carol")
    signed(root, m, "alice bob")
    assert load_registry(root, NOW).version == 2
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    with pytest.raises(TrustError) as info:
        signed(root, m, "carol")
    assert info.value.reason == "signer-not-maintainer"
    # Appended by hand, carol's signature makes the version invalid, not merely uncounted.
    data = (root / REG / "v0003.yaml").read_bytes()
    (root / REG / "v0003.yaml.sig").write_text(sign(m["alice"].private, data, NS_REGISTRY) + sign(m["carol"].private, data, NS_REGISTRY))
    error = reason(root)
    assert error.reason == "signer-not-maintainer" and m["carol"].key.fingerprint in error.message


def test_maintainer_change_needs_old_and_new_sets(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)

    def hand_over(data: dict) -> None:
        data["maintainers"] = [{"id": p.id, "name": p.id.title(), "key": p.key.openssh} for p in (m["dave"], m["erin"])]

    propose_next(root, hand_over)
    signed(root, m, "alice bob")
    line = pending(root, 1)
    assert "0 of 2 from the new set" in line and "new maintainers" in line
    signed(root, m, "dave")
    assert "1 of 2 from the new set" in pending(root, 1)
    signed(root, m, "erin")
    assert [x.id for x in load_registry(root, NOW).maintainers] == ["dave", "erin"]


def test_new_maintainers_alone_cannot_take_over(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_maintainer(root, "dave", "Dave", m["dave"].key, threshold=1)
    signed(root, m, "dave")
    assert "0 valid signature(s) of the 2 required" in pending(root, 1)
    signed(root, m, "alice bob")
    registry = load_registry(root, NOW)
    assert registry.threshold == 1 and registry.maintainer(m["dave"].key, "x").id == "dave"


def test_threshold_change_needs_new_threshold(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    propose_next(root, lambda data: data.update(threshold=3))
    signed(root, m, "alice bob")
    assert "2 of 3 from the new set" in pending(root, 1)
    signed(root, m, "carol")
    assert load_registry(root, NOW).threshold == 3


def test_version_skip(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "alice bob")
    for suffix in ("", ".sig"):
        (root / REG / f"v0002.yaml{suffix}").rename(root / REG / f"v0003.yaml{suffix}")
    assert reason(root).reason == "version-skip"


def test_version_field_ahead_of_file_name(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    path = root / REG / "v0002.yaml"
    path.write_bytes((root / REG / "v0001.yaml").read_bytes().replace(b"version: 1", b"version: 3"))
    assert reason(root).reason == "version-skip"


def test_version_rollback(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "alice bob")
    revoke(root, lab_keys["acme1"].key.fingerprint, "laptop lost", NOW)
    signed(root, m, "alice bob")
    # Replay the fully signed v2 (which still trusts the revoked key) as v3.
    for suffix in ("", ".sig"):
        shutil.copy(root / REG / f"v0002.yaml{suffix}", root / REG / f"v0003.yaml{suffix}")
    assert reason(root).reason == "version-rollback"


def test_registry_expired_and_renewed(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    error = reason(root, EXPIRES)
    assert error.reason == "registry-expired" and "renew" in (error.hint or "")
    assert load_registry(root, EXPIRES - timedelta(seconds=1)).version == 1
    renew(root, EXPIRES + timedelta(days=365))
    signed(root, m, "alice carol")
    assert load_registry(root, EXPIRES).version == 2


def test_bad_signature_block_is_an_error(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    sig = root / REG / "v0001.yaml.sig"
    sig.write_text(sig.read_text() + sign(m["carol"].private, b"other bytes", NS_REGISTRY))
    error = reason(root)
    assert error.reason == "bad-signature" and error.where == "keys/registry/v0001.yaml.sig"
    sig.write_text(sign(m["carol"].private, (root / REG / "v0001.yaml").read_bytes(), NS_RELEASE))
    assert reason(root).reason == "wrong-namespace"
    sig.write_text("junk")
    assert reason(root).reason == "bad-armor"


def test_edited_file_voids_signatures(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    path = root / REG / "v0001.yaml"
    path.write_bytes(path.read_bytes() + b"\n")
    assert reason(root).reason == "bad-signature"


def test_unexpected_file_in_registry(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    (root / REG / "v1.yaml").write_text("")
    assert reason(root).reason == "bad-file"


def test_no_registry(tmp_path: Path) -> None:
    assert reason(tmp_path).reason == "no-registry"


# --- strict parsing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "expected", "needle"),
    [
        (lambda t: t + "extra: 1\n", "unknown-field", "extra"),
        (lambda t: t.replace("- id: alice", "- id: alice\n  role: admin"), "unknown-field", "role"),
        (lambda t: t.replace("id: bob", "id: Bob!"), "bad-identifier", "maintainers[1].id"),
        (lambda t: t.replace("id: bob", "id: alice"), "duplicate", "alice"),
        (lambda t: t.replace("2027-01-01T00:00:00Z", "2027-01-01T00:00:00+00:00"), "bad-time", "expires"),
        (lambda t: t.replace("2027-01-01T00:00:00Z", "2027-01-01"), "bad-time", "expires"),
        (lambda t: t.replace("name: Carol", "name: Ｃarol"), "bad-display-name", "maintainers[2].name"),
        (lambda t: t.replace("name: Carol", "name: Car\u200bol"), "bad-display-name", "maintainers[2].name"),
        (lambda t: t.replace("threshold: 2", "threshold: 4"), "bad-threshold", "threshold"),
        (lambda t: t.replace("threshold: 2", "threshold: true"), "wrong-type", "threshold"),
        (lambda t: t.replace("format: sealboard-registry/1", "format: sealboard-registry/2"), "bad-format", "format"),
        (lambda t: t + "threshold: 1\n", "duplicate-key", "threshold"),
        (lambda t: t.replace("ssh-ed25519", "ssh-dss", 1), "unsupported-key", "maintainers[0].key"),
    ],
    ids=[
        "unknown-top",
        "unknown-nested",
        "identifier",
        "dup-id",
        "offset",
        "date-only",
        "nfkc",
        "zero-width",
        "threshold-too-high",
        "bool",
        "format",
        "dup-yaml-key",
        "key-type",
    ],
)
def test_strict_parsing(tmp_path: Path, m: dict[str, Person], edit, expected: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    root = genesis(tmp_path, m, signers="")
    path = root / REG / "v0001.yaml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(BuilderError) as info:
        load_registry(root, NOW)
    assert info.value.reason == expected
    assert info.value.where == "keys/registry/v0001.yaml"
    assert needle in str(info.value)


def test_key_may_not_appear_twice(tmp_path: Path, m: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    with pytest.raises(ParseError) as info:
        add_lab(root, "acme", "Acme AI", [m["alice"].key])
    assert info.value.reason == "duplicate" and m["alice"].key.fingerprint in info.value.message
    assert not (root / REG / "v0002.yaml").exists()


# --- lab keys ----------------------------------------------------------------------------------


@pytest.fixture
def labs(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> Path:
    root = genesis(tmp_path, m)
    add_lab(
        root,
        "acme",
        "Acme AI",
        [lab_keys["acme1"].key],
        valid_after=datetime(2026, 1, 1, tzinfo=UTC),
        valid_before=datetime(2026, 12, 31, tzinfo=UTC),
    )
    add_lab(root, "zeta", "Zeta Labs", [lab_keys["zeta1"].key])  # amends the unsigned v2
    signed(root, m, "alice bob")
    return root


def lab_reason(registry, lab: str, key: PublicKey, at: datetime = NOW) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(TrustError) as info:
        registry.lab_key(lab, key, at, "bundles/x/manifest.json.sig")
    assert info.value.where == "bundles/x/manifest.json.sig"
    return info.value.reason


def test_lab_key_lookups(labs: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    registry = load_registry(labs, NOW)
    assert registry.version == 2
    assert registry.lab_key("zeta", lab_keys["zeta1"].key, NOW).lab == "zeta"
    assert lab_reason(registry, "acme", lab_keys["zeta1"].key) == "key-of-other-lab"
    assert lab_reason(registry, "acme", lab_keys["acme2"].key) == "unregistered-key"
    assert lab_reason(registry, "acme", m["alice"].key) == "unregistered-key"  # maintainer keys sign no bundles
    assert lab_reason(registry, "nope", lab_keys["acme1"].key) == "unknown-lab"
    with pytest.raises(TrustError) as info:
        registry.maintainer(lab_keys["acme1"].key, NOW, "x")
    assert info.value.reason == "signer-not-maintainer"


def test_key_validity_window_is_inclusive_like_ssh_keygen(labs: Path, lab_keys: dict[str, Person]) -> None:
    registry = load_registry(labs, NOW)
    key = lab_keys["acme1"].key
    start, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 12, 31, tzinfo=UTC)
    assert lab_reason(registry, "acme", key, start - timedelta(seconds=1)) == "key-not-yet-valid"
    assert registry.lab_key("acme", key, start)
    assert registry.lab_key("acme", key, end + timedelta(microseconds=999_999))  # second resolution
    assert lab_reason(registry, "acme", key, end + timedelta(seconds=1)) == "key-expired"


def test_revocation_of_lab_and_maintainer_keys(labs: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    add_lab_key(labs, "acme", lab_keys["acme2"].key)
    revoke(labs, lab_keys["acme1"].key.fingerprint, "laptop lost", NOW)
    revoke(labs, m["carol"].key.openssh, "left the project", NOW)
    signed(labs, m, "alice carol")  # carol may still sign the version that revokes her...
    assert "1 of 2 from the new set" in pending(labs, 2)  # ...but the set changed: 2 of {alice, bob} too
    signed(labs, m, "bob")
    registry = load_registry(labs, NOW)
    assert lab_reason(registry, "acme", lab_keys["acme1"].key) == "key-revoked"
    assert registry.lab_key("acme", lab_keys["acme2"].key, NOW)
    with pytest.raises(TrustError) as info:
        registry.maintainer(m["carol"].key, "x")
    assert info.value.reason == "key-revoked"
    # ... but not the next one.
    renew(labs, EXPIRES + timedelta(days=30))
    with pytest.raises(TrustError) as info:
        signed(labs, m, "carol")
    assert info.value.reason == "signer-not-maintainer"


# --- maintainer tooling ------------------------------------------------------------------------


def test_proposal_amends_until_signed(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m, signers="")
    assert add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key]).name == "v0001.yaml"
    signed(root, m, "alice")
    with pytest.raises(TrustError) as info:
        add_lab(root, "zeta", "Zeta", [lab_keys["zeta1"].key])
    assert info.value.reason == "proposal-signed"
    signed(root, m, "bob")
    assert add_lab(root, "zeta", "Zeta", [lab_keys["zeta1"].key]).name == "v0002.yaml"


def test_status(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "bob")
    report = status(root, NOW)
    assert report.latest == 2 and report.trusted and report.trusted.version == 1
    assert report.pending and len(report.pending.old_signers) == 1 and report.pending.old_needed == 2
    assert any("1 of 2" in line and "bob" in line for line in report.lines())
    assert not report.expired and report.error is None
    assert status(root, EXPIRES).expired
    assert "error" in status(tmp_path / "empty", NOW).lines()[0]


def test_verify_transition(tmp_path: Path, m: dict[str, Person], lab_keys: dict[str, Person]) -> None:
    root = genesis(tmp_path, m)
    add_lab(root, "acme", "Acme AI", [lab_keys["acme1"].key])
    signed(root, m, "carol")
    files = {p.name: p.read_bytes() for p in (root / REG).iterdir()}
    old = (files["v0001.yaml"], files["v0001.yaml.sig"])
    with pytest.raises(TrustError) as info:
        verify_transition(*old, files["v0002.yaml"], files["v0002.yaml.sig"])
    assert info.value.reason == "below-threshold"
    signed(root, m, "alice")
    new_sigs = (root / REG / "v0002.yaml.sig").read_bytes()
    assert verify_transition(*old, files["v0002.yaml"], new_sigs).version == 2
    with pytest.raises(TrustError) as info:
        verify_transition(files["v0002.yaml"], None, files["v0002.yaml"], new_sigs)
    assert info.value.reason == "version-rollback"


# --- agreement with ssh-keygen ------------------------------------------------------------------


def keygen(directory: Path, name: str, *args: str) -> Person:
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", *args, "-N", "", "-C", name, "-f", str(path)], check=True)
    return Person(name, load_private_key(path))


def test_allowed_signers_agrees_with_ssh_keygen(tmp_path: Path, m: dict[str, Person]) -> None:
    keys = tmp_path / "sshkeys"
    keys.mkdir()
    acme_old = keygen(keys, "acme-old", "-t", "ed25519")
    acme_new = keygen(keys, "acme-new", "-t", "ecdsa", "-b", "256")
    acme_lost = keygen(keys, "acme-lost", "-t", "rsa", "-b", "2048")
    zeta = keygen(keys, "zeta", "-t", "ed25519")
    root = tmp_path / "inst"
    genesis(root, m)
    switch = datetime(2026, 3, 1, tzinfo=UTC)
    add_lab(root, "acme", "Acme AI", [acme_old.key], valid_before=switch)
    add_lab_key(root, "acme", acme_new.key, valid_after=switch)
    add_lab_key(root, "acme", acme_lost.key)
    add_lab(root, "zeta", "Zeta", [zeta.key])
    revoke(root, acme_lost.key.fingerprint, "lost", NOW)
    signed(root, m, "alice bob")
    registry = load_registry(root, NOW)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(registry.allowed_signers())
    message = tmp_path / "manifest.json"
    message.write_bytes(b'{"lab": "acme"}\n')

    def builder_accepts(signer: Person, principal: str, namespace: str, at: datetime, armored: str) -> bool:
        try:
            key = verify(armored, message.read_bytes(), namespace)
            if namespace == NS_BUNDLE:
                registry.lab_key(principal, key, at)
            elif registry.maintainer(key, at).id != principal:
                return False
            return True
        except TrustError:
            return False

    def keygen_accepts(principal: str, namespace: str, at: datetime, armored: str) -> bool:
        sig = tmp_path / "manifest.json.sig"
        sig.write_text(armored)
        result = subprocess.run(
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
                f"-Overify-time={at.strftime('%Y%m%d%H%M%S')}Z",
            ],
            stdin=message.open("rb"),
            capture_output=True,
        )
        return result.returncode == 0

    times = [switch - timedelta(seconds=1), switch, switch + timedelta(seconds=1), NOW]
    cases = (
        [
            (signer, principal, NS_BUNDLE, at)
            for signer in (acme_old, acme_new, acme_lost, zeta, m["alice"])
            for principal in ("acme", "zeta")
            for at in times
        ]
        + [(m["alice"], "alice", ns, NOW) for ns in (NS_RELEASE, NS_REGISTRY, NS_BUNDLE)]
        + [(m["carol"], "alice", NS_RELEASE, NOW), (acme_new, "acme", NS_RELEASE, NOW)]
    )
    outcomes = []
    for signer, principal, namespace, at in cases:
        armored = sign(signer.private, message.read_bytes(), namespace)
        ours = builder_accepts(signer, principal, namespace, at, armored)
        theirs = keygen_accepts(principal, namespace, at, armored)
        assert ours == theirs, (signer.id, principal, namespace, at)
        outcomes.append(ours)
    assert True in outcomes and False in outcomes
    accepted = {(s.id, p, at) for (s, p, ns, at), ok in zip(cases, outcomes) if ok and ns == NS_BUNDLE}
    assert ("acme-old", "acme", switch) in accepted and ("acme-new", "acme", switch) in accepted
    assert ("acme-old", "acme", switch + timedelta(seconds=1)) not in accepted
    assert not any(s == "acme-lost" for s, _, _ in accepted)

    # The revoked-keys export works with ssh-keygen -r even where allowed_signers still listed it.
    revoked_file = tmp_path / "revoked"
    revoked_file.write_text(registry.revoked_keys())
    assert registry.revoked_keys() == acme_lost.key.openssh + "\n"
    unfiltered = tmp_path / "all_signers"
    unfiltered.write_text(f'acme namespaces="{NS_BUNDLE}" {acme_lost.key.openssh}\n')
    sig = tmp_path / "lost.sig"
    sig.write_text(sign(acme_lost.private, message.read_bytes(), NS_BUNDLE))
    base = ["ssh-keygen", "-Y", "verify", "-f", str(unfiltered), "-I", "acme", "-n", NS_BUNDLE, "-s", str(sig)]
    assert subprocess.run(base, stdin=message.open("rb"), capture_output=True).returncode == 0
    assert subprocess.run(base + ["-r", str(revoked_file)], stdin=message.open("rb"), capture_output=True).returncode != 0


def test_allowed_signers_namespace_filter(labs: Path) -> None:
    registry = load_registry(labs, NOW)
    bundle_only = registry.allowed_signers(namespaces=[NS_BUNDLE])
    assert "acme " in bundle_only and "alice" not in bundle_only
    assert 'valid-after="20260101000000Z",valid-before="20261231000000Z"' in bundle_only
    release_only = registry.allowed_signers(namespaces=[NS_RELEASE])
    assert "acme" not in release_only and f'alice namespaces="{NS_RELEASE}"' in release_only


def test_maintainer_recipients(tmp_path: Path, m: dict[str, Person]) -> None:
    recipient = "age1" + "q" * 58
    root = tmp_path
    init_registry(
        root,
        [
            {"id": "alice", "name": "Alice", "key": m["alice"].key, "age_recipient": recipient},
            {"id": "bob", "name": "Bob", "key": m["bob"].key},
        ],
        1,
        EXPIRES,
    )
    signed(root, m, "alice")
    assert load_registry(root, NOW).maintainer_recipients == (recipient,)
    with pytest.raises(ParseError) as info:
        add_maintainer(root, "carol", "Carol", m["carol"].key, age_recipient="age1nope")
    assert info.value.reason == "bad-recipient"


def test_item_access_grants_parse_strictly_and_round_trip(labs: Path, m: dict[str, Person]) -> None:
    from builder.trust.registry_admin import grant_items, withdraw_items
    from builder.trust.registry_format import parse_version

    grant_items(labs, "acme", "soohak", NOW)
    path = labs / REG / "v0003.yaml"
    doc = parse_version(path.read_bytes(), "v3")
    assert [(g.benchmark, g.granted) for g in doc.labs[0].item_access] == [("soohak", NOW)]
    with pytest.raises(TrustError) as info:
        grant_items(labs, "acme", "soohak", NOW)
    assert info.value.reason == "duplicate"
    text = path.read_text()
    for bad, reason_ in (
        (text.replace("granted:", "since:"), "missing-field"),
        (text.replace("benchmark: soohak", "benchmark: Soohak!"), "bad-identifier"),
        (
            text.replace(
                "granted: '2026-06-01T12:00:00Z'",
                "granted: '2026-06-01T12:00:00Z'\n  - {benchmark: soohak, granted: '2026-07-01T00:00:00Z'}",
                1,
            ),
            "duplicate",
        ),
    ):
        with pytest.raises(BuilderError) as error:
            parse_version(bad.encode(), "v3")
        assert error.value.reason == reason_, error.value
    withdraw_items(labs, "acme", "soohak")
    assert parse_version(path.read_bytes(), "v3").labs[0].item_access == ()
