"""Item access for labs: a granted lab's copy of the items, sealed to its SSH key, opened by
the real `age` CLI with that key; the embargo key never opens it; the build checks every copy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.bundles.access import access_path
from builder.bundles.dataset import commitment, parse_dataset_manifest
from builder.cli import main
from builder.errors import SealError
from builder.pipeline.build import build
from builder.trust.registry_admin import grant_items, sign_registry, withdraw_items
from builder.trust.seal import seal, unseal
from builder.trust.sshkeys import generate_ed25519, load_private_key
from tests.factory import NOW, VERSION, make_instance

pytestmark = pytest.mark.slow  # builds a site

COPY = access_path("soohak", VERSION, "acme")
AGE = shutil.which("age")


@pytest.fixture
def inst(tmp_path: Path):  # type: ignore[no-untyped-def]
    inst = make_instance(tmp_path / "inst")
    grant_items(inst.root, "acme", "soohak", NOW)
    for m in ("m1", "m2"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    return inst


def share(inst, lab: str = "acme"):  # type: ignore[no-untyped-def]
    identity = inst.root.parent / "inst-keys" / "identity.txt"
    return CliRunner().invoke(main, ["dataset", "share", "soohak", "--root", str(inst.root), "--lab", lab, "--identity", str(identity)])


def outcome(inst) -> tuple[list, set]:  # type: ignore[no-untyped-def]
    report = build(inst.root, identities=[inst.identity], now=NOW, render=False)
    return report.item_access, {(r.where, r.reason) for r in report.rejections}


@pytest.mark.skipif(AGE is None, reason="the age CLI is the peer here")
def test_lab_opens_its_copy_with_age_and_its_ssh_key(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = share(inst)
    assert result.exit_code == 0, result.output
    assert f"Wrote {COPY} (18 items, sealed to lab 'acme'" in result.output
    copy = inst.root / COPY
    opened = subprocess.run([AGE, "-d", "-i", str(inst.lab_key_paths["acme"]), str(copy)], capture_output=True, check=True).stdout
    items = [orjson.loads(line) for line in opened.splitlines()]
    manifest = parse_dataset_manifest((inst.root / f"bundles/soohak/_dataset/{VERSION}/manifest.json").read_bytes(), "m")
    assert [it["id"] for it in items] == [it["id"] for it in inst.items]
    # Questions only (issue 21, design invariant 11): no gold answer, and no salt with which a
    # guessed answer could be confirmed against the public commitment.
    assert [it["question"] for it in items] == [it["question"] for it in inst.items]
    assert all("answer" not in it and "salt" not in it for it in items)
    assert set(manifest.commitments) == {it["id"] for it in items}

    # The embargo identity (published after release) does not open it, in Python or with age.
    with pytest.raises(SealError) as info:
        unseal(copy.read_bytes(), [inst.identity])
    assert info.value.reason == "no-matching-recipient"
    refused = subprocess.run([AGE, "-d", "-i", str(inst.root.parent / "inst-keys" / "identity.txt"), str(copy)], capture_output=True)
    assert refused.returncode != 0
    # Nor does another lab's key.
    assert subprocess.run([AGE, "-d", "-i", str(inst.lab_key_paths["beta"]), str(copy)], capture_output=True).returncode != 0

    access, rejected = outcome(inst)
    assert rejected == set()
    assert [(a.lab, a.benchmark, a.granted, a.copy) for a in access] == [("acme", "soohak", "2026-11-29T12:00:00Z", COPY)]


def test_share_needs_a_signed_grant(inst) -> None:  # type: ignore[no-untyped-def]
    result = share(inst, "beta")
    assert result.exit_code == 1 and "has no item access to 'soohak'" in result.output
    assert "sealboard keys grant-items beta soohak" in result.output
    grant_items(inst.root, "beta", "soohak", NOW)
    sign_registry(inst.root, inst.maintainer_keys["m1"])  # pending: not in force
    assert share(inst, "beta").exit_code == 1
    sign_registry(inst.root, inst.maintainer_keys["m3"])
    assert share(inst, "beta").exit_code == 0


def _copy_for(inst, lab: str, recipients_plain: bytes, *, embargo: bool = False, stranger: bool = False) -> Path:  # type: ignore[no-untyped-def]
    import pyrage

    path = inst.root / access_path("soohak", VERSION, lab)
    path.parent.mkdir(parents=True, exist_ok=True)
    if embargo:
        path.write_bytes(seal(recipients_plain, [inst.identity.recipient]))
        return path
    key = load_private_key(generate_ed25519("x")[0]).public if stranger else inst.lab_keys[lab].public
    path.write_bytes(pyrage.encrypt(recipients_plain, [pyrage.ssh.Recipient.from_str(key.openssh)]))
    return path


HOSTILE = {
    # A maintainer seals "acme's copy" to the embargo key: the published identity would open it.
    "access/sealed-to-embargo-key": (dict(lab="acme", embargo=True), "access-wrong-recipient"),
    "access/sealed-to-a-stranger": (dict(lab="acme", stranger=True), "access-wrong-recipient"),
    # One maintainer hands beta the items without the threshold's grant.
    "access/copy-without-grant": (dict(lab="beta"), "access-not-granted"),
    "access/unknown-lab": (dict(lab="nobody", stranger=True), "access-not-granted"),
}


@pytest.mark.parametrize("case", list(HOSTILE), ids=list(HOSTILE))
def test_build_checks_every_copy(case: str, inst) -> None:  # type: ignore[no-untyped-def]
    kwargs, reason = HOSTILE[case]
    lab = kwargs.pop("lab")
    if lab == "nobody":
        inst.lab_keys["nobody"] = load_private_key(generate_ed25519("n")[0])
    _copy_for(inst, lab, b'{"id": "x"}\n', **kwargs)
    access, rejected = outcome(inst)
    assert rejected == {(access_path("soohak", VERSION, lab), reason)}
    assert [a.copy for a in access] == [None]  # acme's grant stands; no valid copy written


def test_withdrawn_grant_makes_the_copy_a_rejection(inst) -> None:  # type: ignore[no-untyped-def]
    assert share(inst).exit_code == 0
    withdraw_items(inst.root, "acme", "soohak")
    for m in ("m1", "m2"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    access, rejected = outcome(inst)
    assert access == [] and rejected == {(COPY, "access-not-granted")}


def test_access_page_lists_grants(inst) -> None:  # type: ignore[no-untyped-def]
    assert share(inst).exit_code == 0
    report = build(inst.root, identities=[inst.identity], now=NOW)
    page = (report.out / "access.html").read_text()
    assert "Acme Lab" in page and "2026-11-29T12:00:00Z" in page and COPY in page
    assert "<th>Gold answers</th>" in page and "<td>withheld</td>" in page
    data = orjson.loads((report.out / "data" / "access.json").read_bytes())
    assert data["item_access"][0]["lab"] == "acme" and data["item_access"][0]["sealed_copy"] == COPY


@pytest.mark.skipif(AGE is None, reason="the age CLI is the peer here")
def test_answers_only_where_the_threshold_granted_them(tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    inst = make_instance(tmp_path / "inst")
    result = CliRunner().invoke(main, ["keys", "grant-items", "acme", "soohak", "--with-answers", "--root", str(inst.root)])
    assert result.exit_code == 0, result.output
    for m in ("m1", "m2"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    assert share(inst).exit_code == 0
    opened = subprocess.run(
        [AGE, "-d", "-i", str(inst.lab_key_paths["acme"]), str(inst.root / COPY)], capture_output=True, check=True
    ).stdout
    items = [orjson.loads(line) for line in opened.splitlines()]
    manifest = parse_dataset_manifest((inst.root / f"bundles/soohak/_dataset/{VERSION}/manifest.json").read_bytes(), "m")
    assert [it["answer"] for it in items] == [it["answer"] for it in inst.items]
    assert all(commitment(it) == manifest.commitments[it["id"]] for it in items)  # the lab can check every item
    access, rejected = outcome(inst)
    assert [(a.lab, a.answers) for a in access] == [("acme", True)] and rejected == set()
