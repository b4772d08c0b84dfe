"""A lab key that expires or is retired keeps the bundles admitted while it was valid; a
compromised key loses them all; a backdated `created` buys nothing.

Real git history: commits are made with fixed committer times (as GitHub writes them when
it merges a pull request), and the build reads them back.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from builder.bundles.admissions import Admissions, blob_id
from builder.pipeline.build import build
from builder.trust.registry_admin import add_lab_key, retire, revoke, sign_registry
from builder.trust.sshkeys import generate_ed25519, load_private_key
from tests.factory import NOW, make_instance, results_for

EXPIRES = NOW + timedelta(days=10)


def commit(root: Path, message: str, when: datetime) -> None:
    stamp = f"{int(when.timestamp())} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "GitHub",
        "GIT_COMMITTER_EMAIL": "noreply@example.invalid",
    }
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", message], check=True, env=env)


def sign_by(inst, *names: str) -> None:  # type: ignore[no-untyped-def]
    for name in names:
        sign_registry(inst.root, inst.maintainer_keys[name])


@pytest.fixture
def inst(tmp_path: Path):  # type: ignore[no-untyped-def]
    """acme's second key is valid until EXPIRES; acme/run-2 is signed with it and merged
    (committed) a day after NOW, while it was valid."""
    inst = make_instance(tmp_path / "inst")
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    (inst.root / ".gitignore").write_text("site/\n.sealboard/\n")
    private = load_private_key(generate_ed25519("acme2@test")[0])
    inst.lab_keys["acme2"] = private
    add_lab_key(inst.root, "acme", private.public, valid_before=EXPIRES)
    sign_by(inst, "m1", "m2")
    inst.add_submission("acme", "run-1", results_for(inst.items))
    inst.add_submission("acme", "run-2", results_for(inst.items), sign_with="acme2")
    commit(inst.root, "merge acme/run-2", NOW + timedelta(days=1))
    return inst


def published(inst, now: datetime) -> tuple[set[str], dict[str, str]]:  # type: ignore[no-untyped-def]
    report = build(inst.root, identities=[inst.identity], now=now, render=False)
    return {b.manifest.key for s in report.benchmarks for b in s.bundles}, {r.where: r.reason for r in report.rejections}


def test_expired_key_keeps_bundles_admitted_while_valid(inst) -> None:  # type: ignore[no-untyped-def]
    later = NOW + timedelta(days=30)
    assert published(inst, later) == ({"acme/run-1", "acme/run-2"}, {})


def test_backdated_bundle_after_expiry_is_refused(inst) -> None:  # type: ignore[no-untyped-def]
    """The lab signs a new bundle with its expired key and backdates `created` to NOW: the
    commit that admits it is after EXPIRES, and that is the time that counts."""
    inst.add_submission("acme", "run-3", results_for(inst.items), sign_with="acme2")  # created = NOW
    commit(inst.root, "merge acme/run-3", EXPIRES + timedelta(days=2))
    ok, rejected = published(inst, NOW + timedelta(days=30))
    assert ok == {"acme/run-1", "acme/run-2"}
    assert rejected == {"bundles/soohak/acme/run-3/manifest.json.sig": "key-expired"}


def test_uncommitted_or_edited_bytes_are_judged_at_build_time(inst) -> None:  # type: ignore[no-untyped-def]
    inst.add_submission("acme", "run-3", results_for(inst.items), sign_with="acme2")  # never committed
    sig = inst.bundles["acme/run-2"] / "manifest.json.sig"
    sig.write_text(sig.read_text() + "\n")  # same signature, different bytes than admitted
    ok, rejected = published(inst, NOW + timedelta(days=30))
    assert ok == {"acme/run-1"}
    assert set(rejected.values()) == {"key-expired"} and len(rejected) == 2


def test_retired_key_keeps_past_bundles(inst) -> None:  # type: ignore[no-untyped-def]
    retire(inst.root, inst.lab_keys["acme"].public, NOW + timedelta(days=3))
    sign_by(inst, "m1", "m3")
    commit(inst.root, "retire acme's first key", NOW + timedelta(days=3))
    inst.add_submission("acme", "run-4", results_for(inst.items))  # signed with the retired key
    commit(inst.root, "merge acme/run-4", NOW + timedelta(days=4))
    ok, rejected = published(inst, NOW + timedelta(days=5))
    assert ok == {"acme/run-1", "acme/run-2"}
    assert rejected == {"bundles/soohak/acme/run-4/manifest.json.sig": "key-expired"}


def test_compromised_key_loses_every_bundle(inst) -> None:  # type: ignore[no-untyped-def]
    revoke(inst.root, inst.lab_keys["acme2"].public, "laptop stolen", NOW + timedelta(days=2))
    sign_by(inst, "m2", "m3")
    commit(inst.root, "revoke acme2", NOW + timedelta(days=2))
    ok, rejected = published(inst, NOW + timedelta(days=5))  # before EXPIRES, too
    assert ok == {"acme/run-1"}
    assert rejected == {"bundles/soohak/acme/run-2/manifest.json.sig": "key-revoked"}


def test_no_git_means_build_time(inst) -> None:  # type: ignore[no-untyped-def]
    import shutil

    shutil.rmtree(inst.root / ".git")
    ok, rejected = published(inst, NOW + timedelta(days=30))
    assert ok == {"acme/run-1"} and set(rejected.values()) == {"key-expired"}


def test_admission_time_is_the_commit_that_brought_the_bytes(inst) -> None:  # type: ignore[no-untyped-def]
    from builder.bundles.ingest import discover

    raws = {r.where: r for r in discover(inst.root, {"soohak"}) if hasattr(r, "files")}
    admissions = Admissions(inst.root)
    assert admissions.time(raws["bundles/soohak/acme/run-2"]) == NOW + timedelta(days=1)
    # Re-signing later (new bytes) moves the admission time to that commit.
    path = inst.bundles["acme/run-2"] / "manifest.json.sig"
    from builder.bundles.create import sign_bundle

    sign_bundle(inst.bundles["acme/run-2"], load_private_key(generate_ed25519("x")[0]))
    commit(inst.root, "re-sign", NOW + timedelta(days=12))
    raws = {r.where: r for r in discover(inst.root, {"soohak"}) if hasattr(r, "files")}
    assert Admissions(inst.root).time(raws["bundles/soohak/acme/run-2"]) == NOW + timedelta(days=12)
    git_oid = subprocess.run(
        ["git", "-C", str(inst.root), "hash-object", str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert blob_id(path.read_bytes()) == git_oid


# --- design invariant 9: a merged bundle is immutable ---------------------------------------------


def test_bundle_rewritten_after_admission_is_rejected(inst) -> None:  # type: ignore[no-untyped-def]
    """acme rewrites its merged run-1 in place (new results, re-signed by its own valid key)
    and the rewrite is merged: the build refuses it (bundle-immutable) instead of replacing
    the public score without a tombstone or any budget spent."""
    import shutil

    rows = results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items})
    shutil.rmtree(inst.bundles["acme/run-1"])
    inst.add_submission("acme", "run-1", rows)
    commit(inst.root, "acme rewrites run-1", NOW + timedelta(days=2))
    ok, rejected = published(inst, NOW + timedelta(days=3))
    assert ok == {"acme/run-2"}
    assert rejected == {"bundles/soohak/acme/run-1": "bundle-immutable"}


def test_bundle_edited_on_disk_after_admission_is_rejected(inst) -> None:  # type: ignore[no-untyped-def]
    """Not committed: a local build of a checkout whose merged bundle was re-signed."""
    from builder.bundles.create import sign_bundle

    sign_bundle(inst.bundles["acme/run-1"], inst.lab_keys["acme2"])  # a valid acme key, new signature bytes
    ok, rejected = published(inst, NOW + timedelta(days=3))
    assert ok == {"acme/run-2"}
    assert rejected == {"bundles/soohak/acme/run-1": "bundle-immutable"}


def test_control_restored_bundle_and_new_bundles_publish(inst) -> None:  # type: ignore[no-untyped-def]
    """The first admitted bytes, restored by a later commit, are the bundle again; a new,
    never-committed bundle has no admitted version to differ from."""
    import shutil

    first = {p.name: p.read_bytes() for p in inst.bundles["acme/run-1"].iterdir()}
    shutil.rmtree(inst.bundles["acme/run-1"])
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    commit(inst.root, "rewrite", NOW + timedelta(days=2))
    shutil.rmtree(inst.bundles["acme/run-1"])
    inst.bundles["acme/run-1"].mkdir()
    for name, data in first.items():
        (inst.bundles["acme/run-1"] / name).write_bytes(data)
    commit(inst.root, "restore", NOW + timedelta(days=3))
    inst.add_submission("acme", "run-3", results_for(inst.items, {it["id"]: [True, False, False] for it in inst.items}))
    ok, rejected = published(inst, NOW + timedelta(days=4))
    assert ok == {"acme/run-1", "acme/run-2", "acme/run-3"}
    assert rejected == {}
