"""Trust: who may sign what, when — bundles, datasets and the registry chain itself.

Bundle and dataset cases add or re-sign one bundle and require exactly one rejection
while everything else still publishes. Registry cases poison the chain (the trust root of
every build), so the build must stop with the exact reason and file. Finally, every
bundle signature of the corpus is checked with stock ``ssh-keygen -Y verify`` against the
registry's ``allowed_signers`` export: it must accept exactly when the builder does,
except for the documented cases where the builder is stricter by design.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import orjson
import pytest

from builder.bundles.manifest import MANIFEST, RESULTS, SIGNATURE, dump_manifest
from builder.errors import BuilderError, TrustError
from builder.trust.registry import load_registry
from builder.trust.registry_admin import add_lab, add_lab_key, add_maintainer, propose_next, remove_maintainer, renew, revoke, sign_registry
from builder.trust.seal import seal
from builder.trust.sshkeys import PrivateKey
from builder.trust.sshsig import NS_BUNDLE, NS_DATASET, NS_REGISTRY, NS_RELEASE, dearmor, sign, verify
from hostile.support import (
    ACME,
    BETA,
    DATASET,
    NOW,
    VALID,
    VALID_ROWS,
    Instance,
    assert_rejected,
    clone,
    forge,
    new_key,
    rearm,
    rows_bytes,
    run,
    sig_fields,
    ssh_keygen_verify,
    where_of,
)

REG = "keys/registry"

# --- a registry with keys at every edge of trust -----------------------------------------------

EDGE_KEYS = {
    # name: (valid_after, valid_before) relative to NOW, or "revoked"
    "expired": (None, NOW - timedelta(days=1)),
    "expired-one-second-ago": (None, NOW - timedelta(seconds=1)),
    "valid-until-now": (None, NOW),
    "not-yet-valid": (NOW + timedelta(days=1), None),
    "valid-in-one-second": (NOW + timedelta(seconds=1), None),
    "valid-from-now": (NOW, None),
    "inside-window": (NOW - timedelta(days=1), NOW + timedelta(days=1)),
    "revoked": "revoked",
}


@dataclass
class Trusted:
    inst: Instance
    keys: dict[str, PrivateKey]  # EDGE_KEYS names (all registered to acme) + "stranger"


@pytest.fixture(scope="module")
def trusted(base: Instance, tmp_path_factory: pytest.TempPathFactory) -> Trusted:
    """The session instance plus registry v0003: acme gains a key for every edge case."""
    directory = tmp_path_factory.mktemp("trusted")
    inst = clone(base, directory / "inst")
    keys = {name: new_key(directory, name)[0] for name in [*EDGE_KEYS, "stranger"]}
    for name, window in EDGE_KEYS.items():
        after, before = (None, None) if window == "revoked" else window
        add_lab_key(inst.root, "acme", keys[name].public, valid_after=after, valid_before=before)
    revoke(inst.root, keys["revoked"].public.fingerprint, "laptop lost", NOW - timedelta(days=2))
    sign_registry(inst.root, inst.maintainer_keys["m1"])
    sign_registry(inst.root, inst.maintainer_keys["m2"])
    assert load_registry(inst.root, NOW).version == 3
    return Trusted(inst, keys)


@pytest.fixture
def tinst(trusted: Trusted, tmp_path: Path) -> Instance:
    return clone(trusted.inst, tmp_path / "inst")


def new_bundle(inst: Instance, lab: str, submission: str, source: str = ACME) -> Path:
    """A copy of a valid bundle renamed to lab/submission (manifest fixed, NOT yet signed)."""
    target = inst.root / "bundles" / "soohak" / lab / submission
    shutil.copytree(inst.bundles[source], target)
    obj_path = target / MANIFEST
    obj = orjson.loads(obj_path.read_bytes())
    obj["lab"], obj["submission"] = lab, submission
    # A run of its own, not a clone (builder.bundles.duplicates): fresh ciphertext, its own
    # model id, and its lab's own model name.
    sealed = seal(rows_bytes(VALID_ROWS), [inst.identity.recipient])
    (target / RESULTS).write_bytes(sealed)
    obj["files"] = [
        dict(f, sha256=hashlib.sha256(sealed).hexdigest(), bytes=len(sealed)) if f["path"] == RESULTS else f for f in obj["files"]
    ]
    obj["model"]["id"] = f"m-{lab}-{submission}"
    if lab != source.split("/")[0]:
        obj["model"]["name"] += f" ({lab})"
    obj_path.write_bytes(dump_manifest(obj))
    (target / SIGNATURE).unlink()
    return target


# --- bundle signature cases --------------------------------------------------------------------


@dataclass(frozen=True)
class Sig:
    id: str
    make: Callable[[Trusted, bytes], str]  # (trusted, manifest bytes) -> armored signature text
    reason: str | None  # None: the builder accepts it (a control case)
    lab: str = "acme"


def params(cases: list[Sig]) -> list:
    return [pytest.param(c, id=c.id) for c in cases]


def by(key: str, namespace: str = NS_BUNDLE, hash_alg: str = "sha512") -> Callable[[Trusted, bytes], str]:
    def make(t: Trusted, message: bytes) -> str:
        private = t.keys.get(key) or t.inst.lab_keys.get(key) or t.inst.maintainer_keys[key]
        return sign(private, message, namespace, hash_alg)

    return make


def forged(**changes) -> Callable[[Trusted, bytes], str]:
    trailing = changes.pop("trailing", b"")

    def make(t: Trusted, message: bytes) -> str:
        good = sign(t.inst.lab_keys["acme"], message, NS_BUNDLE)
        values = {k: (v(sig_fields(good)) if callable(v) else v) for k, v in changes.items()}
        return forge(good, trailing, **values)

    return make


def text_of(edit: Callable[[str], str]) -> Callable[[Trusted, bytes], str]:
    def make(t: Trusted, message: bytes) -> str:
        return edit(sign(t.inst.lab_keys["acme"], message, NS_BUNDLE))

    return make


def _noncanonical(armored: str) -> str:
    """The same blob in a second base64 spelling: an unused low bit of the last character set.

    An Ed25519 blob is a multiple of 3 bytes (no padding, no spare bits), so first fill
    the reserved field (ignored by both sides) to make room for padding.
    """
    blob = dearmor(armored)
    if len(blob) % 3 == 0:
        blob = dearmor(forge(armored, reserved=b"r"))
    lines = rearm(blob).split("\n")
    body = lines[-3]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = body.rstrip("=")
    assert alphabet.index(last[-1]) & 1 == 0
    lines[-3] = last[:-1] + alphabet[alphabet.index(last[-1]) | 1] + body[len(last) :]
    return "\n".join(lines)


def _other_bundles_signature(t: Trusted, message: bytes) -> str:
    return (t.inst.bundles[BETA] / SIGNATURE).read_text()


SIG_CASES = [
    Sig("control/acme-key", by("acme"), None),
    Sig("control/acme-key-sha256", by("acme", hash_alg="sha256"), None),
    Sig("control/key-inside-validity-window", by("inside-window"), None),
    Sig("namespace/sealboard-dataset", by("acme", NS_DATASET), "wrong-namespace"),
    Sig("namespace/sealboard-registry", by("acme", NS_REGISTRY), "wrong-namespace"),
    Sig("namespace/sealboard-release", by("acme", NS_RELEASE), "wrong-namespace"),
    Sig("namespace/git", by("acme", "git"), "wrong-namespace"),
    Sig("key/unregistered", by("stranger"), "unregistered-key"),
    Sig("key/other-labs-key", by("beta"), "key-of-other-lab"),
    Sig("key/maintainer-key", by("m1"), "unregistered-key"),
    Sig("key/expired", by("expired"), "key-expired"),
    Sig("key/expired-one-second-ago", by("expired-one-second-ago"), "key-expired"),
    Sig("key/not-yet-valid", by("not-yet-valid"), "key-not-yet-valid"),
    Sig("key/valid-in-one-second", by("valid-in-one-second"), "key-not-yet-valid"),
    Sig("key/revoked", by("revoked"), "key-revoked"),
    Sig("key/unknown-lab", by("stranger"), "unknown-lab", lab="gamma"),
    Sig("sig/replayed-from-other-bundle", _other_bundles_signature, "bad-signature"),
    Sig("hash/md5", forged(hash=b"md5"), "bad-hash-alg"),
    Sig("hash/sha1", forged(hash=b"sha1"), "bad-hash-alg"),
    Sig("hash/sha384", forged(hash=b"sha384"), "bad-hash-alg"),
    Sig("hash/relabelled-sha256", forged(hash=b"sha256"), "bad-signature"),
    Sig("blob/trailing-bytes", forged(trailing=b"\x00"), "trailing-bytes"),
    Sig("blob/trailing-bytes-in-signature-field", forged(signature=lambda f: f["signature"] + b"\x00"), "trailing-bytes"),
    Sig("blob/version-0", forged(version=0), "bad-version"),
    Sig("blob/version-2", forged(version=2), "bad-version"),
    Sig("blob/bad-magic", forged(magic=b"SSHSIH"), "bad-magic"),
    Sig("blob/namespace-field-rewritten", forged(namespace=b"sealboard-bundle "), "wrong-namespace"),
    Sig("blob/reserved-field-filled", forged(reserved=b"anything"), None),  # unsigned by spec: both ignore it
    Sig("blob/flipped-signature-byte", forged(signature=lambda f: f["signature"][:-1] + bytes([f["signature"][-1] ^ 1])), "bad-signature"),
    Sig("blob/truncated", text_of(lambda s: rearm(dearmor(s)[:-7])), "truncated"),
    Sig("armor/garbage-before", text_of(lambda s: "hello\n" + s), "bad-armor"),
    Sig("armor/garbage-after", text_of(lambda s: s + "PS: trust me\n"), "bad-armor"),
    Sig("armor/two-blocks", text_of(lambda s: s + s), "bad-armor"),
    Sig("armor/non-canonical-base64", text_of(_noncanonical), "bad-armor"),
    Sig("armor/indented-body-line", text_of(lambda s: s.replace("\n", "\n ", 2)), "bad-armor"),
    Sig("armor/crlf-line-ends", text_of(lambda s: s.replace("\n", "\r\n")), "bad-armor"),
    Sig("armor/blank-line-before-begin", text_of(lambda s: "\n" + s), "bad-armor"),
    Sig("armor/spaces-before-begin", text_of(lambda s: "   " + s), "bad-armor"),
    Sig("armor/blank-lines-after-end", text_of(lambda s: s + "\n\n"), None),
    Sig("armor/wrapped-at-76", text_of(lambda s: rearm(dearmor(s), 76)), None),
]


def _place(t: Trusted, inst: Instance, case: Sig) -> tuple[Path, bytes, bytes]:
    bundle = new_bundle(inst, case.lab, "run-x")
    message = (bundle / MANIFEST).read_bytes()
    sig = case.make(t, message).encode()
    (bundle / SIGNATURE).write_bytes(sig)
    return bundle, message, sig


@pytest.mark.parametrize("case", params(SIG_CASES))
def test_bundle_signature(case: Sig, trusted: Trusted, tinst: Instance) -> None:
    _place(trusted, tinst, case)
    report = run(tinst)
    where = where_of(f"{case.lab}/run-x", SIGNATURE)
    if case.reason is None:
        assert_rejected(report, publishes=(*VALID, f"{case.lab}/run-x"))
    else:
        assert_rejected(report, (where, case.reason), publishes=VALID)


# --- dataset bundles: only a maintainer may sign them ----------------------------------------


def _resign_dataset(inst: Instance, private: PrivateKey, namespace: str = NS_DATASET) -> None:
    path = inst.root / DATASET
    (path / SIGNATURE).write_text(sign(private, (path / MANIFEST).read_bytes(), namespace))


DATASET_CASES = {
    "dataset/signed-by-lab-key": (
        lambda t, i: _resign_dataset(i, i.lab_keys["acme"]),
        f"{DATASET}/manifest.json.sig",
        "signer-not-maintainer",
    ),
    "dataset/signed-by-unregistered-key": (
        lambda t, i: _resign_dataset(i, t.keys["stranger"]),
        f"{DATASET}/manifest.json.sig",
        "signer-not-maintainer",
    ),
    "dataset/bundle-namespace": (
        lambda t, i: _resign_dataset(i, i.maintainer_keys["m2"], NS_BUNDLE),
        f"{DATASET}/manifest.json.sig",
        "wrong-namespace",
    ),
    "dataset/release-namespace": (
        lambda t, i: _resign_dataset(i, i.maintainer_keys["m2"], NS_RELEASE),
        f"{DATASET}/manifest.json.sig",
        "wrong-namespace",
    ),
    "dataset/version-folder-renamed": (
        lambda t, i: (i.root / DATASET).rename((i.root / DATASET).with_name("test-2")),
        "bundles/soohak/_dataset/test-2/manifest.json",
        "misplaced",
    ),
}


@pytest.mark.parametrize("case", list(DATASET_CASES), ids=list(DATASET_CASES))
def test_dataset_signature(case: str, trusted: Trusted, tinst: Instance) -> None:
    mutate, where, reason = DATASET_CASES[case]
    mutate(trusted, tinst)
    report = run(tinst)
    assert_rejected(report, (where, reason), (DATASET, "missing-dataset"), publishes=())
    assert set(VALID) <= {b.manifest.key for s in report.benchmarks for b in s.bundles}


def test_dataset_signed_by_revoked_maintainer(inst: Instance) -> None:
    """m1 signed the dataset; registry v0003 revokes m1 (signed by m2 and m3)."""
    revoke(inst.root, inst.maintainer_keys["m1"].public.fingerprint, "key compromised", NOW - timedelta(hours=1))
    sign_registry(inst.root, inst.maintainer_keys["m2"])
    sign_registry(inst.root, inst.maintainer_keys["m3"])
    report = run(inst)
    assert_rejected(report, (f"{DATASET}/manifest.json.sig", "key-revoked"), (DATASET, "missing-dataset"), publishes=())


def test_dataset_resigned_by_another_maintainer_is_accepted(inst: Instance) -> None:
    """Control: any threshold of unrevoked maintainers may sign the dataset."""
    path = inst.root / DATASET
    data = (path / MANIFEST).read_bytes()
    (path / SIGNATURE).write_text("".join(sign(inst.maintainer_keys[m], data, NS_DATASET) for m in ("m3", "m2")))
    assert_rejected(run(inst))


def test_one_maintainer_alone_cannot_replace_the_answer_key(inst: Instance, tmp_path: Path) -> None:
    """m1 rewrites SOOHAK's gold answers with 'sealboard dataset create' and signs alone:
    the dataset needs the registry's threshold (2 of 3), like the registry itself."""
    import shutil

    from builder.bundles.dataset_create import read_items, sign_dataset
    from builder.cli import main

    items = tmp_path / "items.jsonl"
    items.write_bytes(b"".join(orjson.dumps(dict(it, answer={"en": "0", "ko": "0"})) + b"\n" for it in inst.items))
    shutil.rmtree(inst.root / DATASET)
    from click.testing import CliRunner
    from cryptography.hazmat.primitives import serialization

    key_file = tmp_path / "m1"
    key_file.write_bytes(
        inst.maintainer_keys["m1"]._crypto.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
        )
    )
    result = CliRunner().invoke(
        main, ["dataset", "create", "soohak", "--root", str(inst.root), "--items", str(items), "--key", str(key_file)]
    )
    assert result.exit_code == 0, result.output
    assert "1 of 2 maintainer signature(s)" in result.output
    report = run(inst)
    m1 = inst.maintainer_keys["m1"].public.fingerprint
    assert_rejected(report, (f"{DATASET}/manifest.json", "below-threshold"), (DATASET, "missing-dataset"), publishes=())
    message = next(r.message for r in report.rejections if r.reason == "below-threshold")
    assert f"1 valid signature(s) of the 2 required from maintainers of registry v0002 (signed by: {m1})" in message
    # A second maintainer's signature is consent: then the new key is in force.
    sign_dataset(inst.root / DATASET, inst.maintainer_keys["m3"], load_registry(inst.root, NOW))
    assert_rejected(run(inst), publishes=())
    assert len(read_items(items.read_bytes(), "items.jsonl")) == len(inst.items)


# --- the registry chain ------------------------------------------------------------------------


def _sig_file(inst: Instance, version: int) -> Path:
    return inst.root / REG / f"v{version:04d}.yaml.sig"


def _append_sig(inst: Instance, version: int, private: PrivateKey, namespace: str = NS_REGISTRY) -> None:
    data = (inst.root / REG / f"v{version:04d}.yaml").read_bytes()
    path = _sig_file(inst, version)
    existing = path.read_text() if path.exists() else ""
    path.write_text(existing + sign(private, data, namespace))


def _sign(inst: Instance, *who: str) -> None:
    for m in who:
        sign_registry(inst.root, inst.maintainer_keys[m])


def _v3_add_gamma(inst: Instance, tmp: Path) -> None:
    add_lab(inst.root, "gamma", "Gamma Lab", [new_key(tmp, "gamma")[0].public])


def below_threshold(inst, tmp):
    _v3_add_gamma(inst, tmp)
    _sign(inst, "m1")  # M − 1 of the 2 needed


def unsigned_version(inst, tmp):
    _v3_add_gamma(inst, tmp)


def same_maintainer_twice(inst, tmp):
    _v3_add_gamma(inst, tmp)
    _append_sig(inst, 3, inst.maintainer_keys["m1"])
    _append_sig(inst, 3, inst.maintainer_keys["m1"])


def removed_maintainer_signs(inst, tmp):
    remove_maintainer(inst.root, "m3")
    _sign(inst, "m1", "m2")  # v0003: m3 removed, validly
    _v3_add_gamma(inst, tmp)  # v0004
    _append_sig(inst, 4, inst.maintainer_keys["m1"])
    _append_sig(inst, 4, inst.maintainer_keys["m3"])  # no longer a maintainer


def revoked_maintainer_signs(inst, tmp):
    revoke(inst.root, inst.maintainer_keys["m3"].public.fingerprint, "lost", NOW - timedelta(days=1))
    _sign(inst, "m1", "m2")
    _v3_add_gamma(inst, tmp)
    _append_sig(inst, 4, inst.maintainer_keys["m2"])
    _append_sig(inst, 4, inst.maintainer_keys["m3"])


def lab_key_signs_registry(inst, tmp):
    _v3_add_gamma(inst, tmp)
    _sign(inst, "m1", "m2")
    _append_sig(inst, 3, inst.lab_keys["acme"])


def takeover_without_new_set_consent(inst, tmp):
    # m1 and m2 replace every maintainer with keys that never signed the change.
    newcomers = {n: new_key(tmp, n)[0] for n in ("x1", "x2", "x3")}

    def change(data):
        data["maintainers"] = [{"id": n, "name": n.upper(), "key": k.public.openssh} for n, k in newcomers.items()]

    propose_next(inst.root, change)
    _sign(inst, "m1", "m2")


def threshold_raised_without_new_set(inst, tmp):
    add_maintainer(inst.root, "m4", "M4", new_key(tmp, "m4")[0].public, threshold=3)
    _sign(inst, "m1", "m2")  # enough for v0002's threshold 2, not for the new threshold 3


def wrong_namespace_signatures(inst, tmp):
    _v3_add_gamma(inst, tmp)
    _append_sig(inst, 3, inst.maintainer_keys["m1"], NS_BUNDLE)
    _append_sig(inst, 3, inst.maintainer_keys["m2"], NS_BUNDLE)


def tampered_version_byte(inst, tmp):
    path = inst.root / REG / "v0002.yaml"
    path.write_bytes(path.read_bytes().replace(b"Acme Lab", b"Acme Lob", 1))


def rollback_copy_of_v1(inst, tmp):
    for suffix in ("", ".sig"):
        shutil.copy(inst.root / REG / f"v0001.yaml{suffix}", inst.root / REG / f"v0003.yaml{suffix}")


def rollback_version_field(inst, tmp):
    path = propose_next(inst.root, lambda data: None)
    path.write_bytes(path.read_bytes().replace(b"version: 3\n", b"version: 2\n", 1))
    _append_sig(inst, 3, inst.maintainer_keys["m1"])
    _append_sig(inst, 3, inst.maintainer_keys["m2"])


def skip_version_field(inst, tmp):
    path = propose_next(inst.root, lambda data: None)
    path.write_bytes(path.read_bytes().replace(b"version: 3\n", b"version: 4\n", 1))
    _append_sig(inst, 3, inst.maintainer_keys["m1"])
    _append_sig(inst, 3, inst.maintainer_keys["m2"])


def skip_removed_middle_version(inst, tmp):
    _v3_add_gamma(inst, tmp)
    _sign(inst, "m1", "m2")
    (inst.root / REG / "v0002.yaml").unlink()
    (inst.root / REG / "v0002.yaml.sig").unlink()


def skip_renamed_file(inst, tmp):
    for suffix in ("", ".sig"):
        (inst.root / REG / f"v0002.yaml{suffix}").rename(inst.root / REG / f"v0003.yaml{suffix}")


def expired_registry(inst, tmp):
    renew(inst.root, NOW - timedelta(seconds=1))
    _sign(inst, "m1", "m2")


def genesis_below_threshold(inst, tmp):
    path = _sig_file(inst, 1)
    path.write_text(path.read_text().split("-----END SSH SIGNATURE-----")[0] + "-----END SSH SIGNATURE-----\n")


def stray_file(inst, tmp):
    shutil.copy(inst.root / REG / "v0002.yaml", inst.root / REG / "v3.yaml")


def symlinked_version(inst, tmp):
    path = inst.root / REG / "v0002.yaml"
    real = tmp / "v0002.yaml"
    shutil.move(path, real)
    path.symlink_to(real)


def threshold_above_maintainers(inst, tmp):
    path = propose_next(inst.root, lambda data: None)
    path.write_bytes(path.read_bytes().replace(b"threshold: 2\n", b"threshold: 4\n", 1))


REGISTRY_CASES = {
    "registry/removed-maintainer-signs": (removed_maintainer_signs, "v0004.yaml.sig", "signer-not-maintainer"),
    "registry/revoked-maintainer-signs": (revoked_maintainer_signs, "v0004.yaml.sig", "signer-not-maintainer"),
    "registry/lab-key-signs": (lab_key_signs_registry, "v0003.yaml.sig", "signer-not-maintainer"),
    "registry/signed-under-bundle-namespace": (wrong_namespace_signatures, "v0003.yaml.sig", "wrong-namespace"),
    "registry/tampered-byte": (tampered_version_byte, "v0002.yaml.sig", "bad-signature"),
    "registry/rollback-copy-of-v0001": (rollback_copy_of_v1, "v0003.yaml", "version-rollback"),
    "registry/rollback-version-field": (rollback_version_field, "v0003.yaml", "version-rollback"),
    "registry/skip-version-field": (skip_version_field, "v0003.yaml", "version-skip"),
    "registry/skip-removed-middle-version": (skip_removed_middle_version, "v0003.yaml", "version-skip"),
    "registry/skip-renamed-file": (skip_renamed_file, "v0003.yaml", "version-skip"),
    "registry/expired": (expired_registry, "v0003.yaml", "registry-expired"),
    "registry/genesis-below-threshold": (genesis_below_threshold, "v0001.yaml", "below-threshold"),
    "registry/stray-file": (stray_file, "v3.yaml", "bad-file"),
    "registry/symlinked-version": (symlinked_version, "v0002.yaml", "bad-file"),
    "registry/threshold-above-maintainers": (threshold_above_maintainers, "v0003.yaml", "bad-threshold"),
}


# Proposals short of signatures: never in force, never fatal (v0002 stays in force and the
# build publishes); the missing signatures are the pending line's content.
PENDING_CASES = {
    "registry/below-threshold-m-minus-1": below_threshold,
    "registry/unsigned-new-version": unsigned_version,
    "registry/same-maintainer-signs-twice": same_maintainer_twice,
    "registry/takeover-without-new-set-consent": takeover_without_new_set_consent,
    "registry/threshold-raised-new-set-short": threshold_raised_without_new_set,
}


@pytest.mark.parametrize("case", list(PENDING_CASES), ids=list(PENDING_CASES))
def test_under_signed_proposal_is_pending_not_in_force(case: str, inst: Instance, tmp_path: Path) -> None:
    PENDING_CASES[case](inst, tmp_path)
    registry = load_registry(inst.root, NOW)
    assert registry.version == 2 and registry.pending is not None and registry.pending.doc.version == 3
    assert not registry.pending.complete
    report = run(inst)
    assert report.registry is not None and report.registry.version == 2
    assert not report.rejections


@pytest.mark.parametrize("case", list(REGISTRY_CASES), ids=list(REGISTRY_CASES))
def test_registry_chain(case: str, inst: Instance, tmp_path: Path) -> None:
    mutate, where, reason = REGISTRY_CASES[case]
    mutate(inst, tmp_path)
    with pytest.raises(TrustError) as direct:
        load_registry(inst.root, NOW)
    assert (direct.value.reason, direct.value.where) == (reason, f"{REG}/{where}"), str(direct.value)
    with pytest.raises(BuilderError) as built:  # the build stops: no bundle can be trusted
        run(inst)
    assert (built.value.reason, built.value.where) == (reason, f"{REG}/{where}")


def test_registry_rollback_by_deleting_latest_is_invisible_to_files(inst: Instance) -> None:
    """Known limit: deleting the newest version leaves a valid shorter chain.

    The files alone cannot show it; PR validation does (history-rewritten, see
    test_validate_pr.py). Here the build trusts v0001, which has no labs, so every bundle
    is refused as unknown-lab rather than silently accepted under old keys.
    """
    for suffix in ("", ".sig"):
        (inst.root / REG / f"v0002.yaml{suffix}").unlink()
    report = run(inst)
    assert outcome_reasons(report) == {"unknown-lab"}


def outcome_reasons(report) -> set[str]:
    return {r.reason for r in report.rejections}


# --- agreement with stock ssh-keygen -------------------------------------------------------------

# Where the builder is stricter than ssh-keygen by design (sshsig.py: "stricter than
# ssh-keygen where leniency buys nothing"): (builder accepts, ssh-keygen accepts).
# ssh-keygen 9.2 accepts signature version 0 (it only refuses versions above 1), ignores
# anything after the END line (so a second block or a note passes), tolerates leading
# white space on body lines. The builder refuses all of these: one byte string, one
# meaning. (Both refuse base64 with spare bits set.)
KNOWN_DIFFERENCES: dict[str, tuple[bool, bool]] = {
    "blob/version-0": (False, True),
    "armor/garbage-after": (False, True),
    "armor/two-blocks": (False, True),
    "armor/indented-body-line": (False, True),
}


@pytest.fixture(scope="module")
def allowed_signers(trusted: Trusted, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen not installed")
    path = tmp_path_factory.mktemp("allowed") / "allowed_signers"
    registry = load_registry(trusted.inst.root, NOW)
    path.write_text(registry.allowed_signers())
    return path


def builder_accepts(trusted: Trusted, lab: str, message: bytes, sig: bytes, namespace: str = NS_BUNDLE) -> bool:
    registry = load_registry(trusted.inst.root, NOW)
    try:
        key = verify(sig, message, namespace, "manifest.json.sig")
        if namespace == NS_BUNDLE:
            registry.lab_key(lab, key, NOW, "manifest.json.sig")
        else:
            registry.maintainer(key, NOW, "manifest.json.sig")
    except BuilderError:
        return False
    return True


AGREEMENT_CASES = [*SIG_CASES, *(Sig(f"edge/{name}", by(name), None) for name in ("valid-until-now", "valid-from-now"))]


@pytest.mark.parametrize("case", params(AGREEMENT_CASES))
def test_ssh_keygen_agrees(case: Sig, trusted: Trusted, allowed_signers: Path, tmp_path: Path) -> None:
    inst = clone(trusted.inst, tmp_path / "inst")
    _, message, sig = _place(trusted, inst, case)
    ours = builder_accepts(trusted, case.lab, message, sig)
    theirs = ssh_keygen_verify(allowed_signers, case.lab, NS_BUNDLE, sig, message, tmp_path)
    expected = KNOWN_DIFFERENCES.get(case.id, (ours, ours))
    assert (ours, theirs) == expected, f"builder accepts: {ours}, ssh-keygen accepts: {theirs}"
    assert ours == (case.reason is None)


@pytest.mark.parametrize("signer", ["m1", "m2", "m3", "acme", "stranger"])
@pytest.mark.parametrize("namespace", [NS_DATASET, NS_BUNDLE])
def test_ssh_keygen_agrees_on_dataset_signatures(
    signer: str, namespace: str, trusted: Trusted, allowed_signers: Path, tmp_path: Path
) -> None:
    """Any maintainer principal, namespace sealboard-dataset: exactly the maintainers' keys."""
    message = (trusted.inst.root / DATASET / MANIFEST).read_bytes()
    sig = by(signer, namespace)(trusted, message).encode()
    ours = builder_accepts(trusted, "", message, sig, NS_DATASET)
    theirs = any(ssh_keygen_verify(allowed_signers, m, NS_DATASET, sig, message, tmp_path) for m in ("m1", "m2", "m3"))
    assert ours == theirs == (signer.startswith("m") and namespace == NS_DATASET)


def test_checks_do_not_rely_on_assert() -> None:
    """Under `python -O` asserts vanish: the test asserts must stay live (pytest rewrites
    them), and the builder's signature checks must not be asserts."""
    import sys

    with pytest.raises(AssertionError):
        assert sys.flags.optimize < 0  # always false: proves this assert ran
    import builder.bundles.verify
    import builder.trust.registry
    import builder.trust.sshkeys
    import builder.trust.sshsig
    import builder.trust.sshwire

    for module in (builder.trust.sshsig, builder.trust.sshwire, builder.trust.sshkeys, builder.trust.registry, builder.bundles.verify):
        source = Path(module.__file__).read_text()
        assert "\n    assert " not in source and "\n        assert " not in source, module.__name__
