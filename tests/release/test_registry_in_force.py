"""The threshold is counted against the registry version in force when the statement's
signatures were completed (the commit that admitted it with a complete tally), each
version dated by the commit that admitted it (real git history, fixed committer times).

The statement is signed by m1 and m2 under registry v0002 and merged at MERGED. Removing
m2 afterwards, before or after not_before, never un-releases it (before this rule a
removal before not_before made it count zero: that test now asserts the release stands).
"""

from __future__ import annotations

import subprocess
from datetime import timedelta

import pytest

from builder.config import load_configs
from builder.release.admin import flip, sign_statement
from builder.release.registry_history import registry_history
from builder.release.statement import Publish, Scope
from builder.release.status import RELEASED, release_states
from builder.trust.registry import load_registry
from builder.trust.registry_admin import remove_maintainer, sign_registry
from tests.factory import NOW
from tests.pipeline.test_admission import commit
from tests.release.support import AFTER, T, released_instance, write_statement

MERGED = NOW + timedelta(hours=1)  # the instance (registry v0001, v0002, statement) lands


@pytest.fixture
def inst(tmp_path):
    inst = released_instance(tmp_path / "inst", signers=("m1", "m2"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    commit(inst.root, "instance", MERGED)
    return inst


def remove_m2(inst) -> None:
    remove_maintainer(inst.root, "m2")
    for m in ("m1", "m3"):
        sign_registry(inst.root, inst.maintainer_keys[m])


def verdict(inst, clock):
    root = inst.root
    state = release_states(root, load_configs(root), load_registry(root, NOW), clock)["soohak"]
    assert len(state.verdicts) == 1
    return state, state.verdicts[0]


def test_removed_after_admission_but_before_not_before_still_counts(inst):
    remove_m2(inst)
    commit(inst.root, "registry v0003: m2 leaves", T - timedelta(days=1))
    state, v = verdict(inst, AFTER)
    assert state.state == RELEASED, v.message
    assert v.signers == ("m1", "m2")


def test_removed_after_not_before_still_counts(inst):
    remove_m2(inst)
    commit(inst.root, "registry v0003: m2 leaves", T + timedelta(minutes=30))
    state, v = verdict(inst, AFTER)
    assert state.state == RELEASED, v.message
    assert v.signers == ("m1", "m2")


def test_uncommitted_registry_change_falls_back_to_the_latest_version(inst):
    # v0003 exists on disk only: its admission time is unknown, so the latest version stands
    # in (never the older one a removed maintainer still belongs to).
    remove_m2(inst)
    _, v = verdict(inst, AFTER)
    assert v.reason == "removed-signer"


def test_statement_signed_under_the_version_in_force_at_its_admission_counts(inst):
    remove_maintainer(inst.root, "m2")  # v0003 (m1, m3), merged after not_before
    for m in ("m1", "m3"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    commit(inst.root, "registry v0003", T + timedelta(minutes=10))
    flip(inst.root, "soohak", T, Scope(), Publish(), NOW, name="r2")  # names v0003, not_before T
    for m in ("m1", "m3"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r2")
    (inst.root / "leaderboards" / "soohak.release" / "r1.yaml").unlink()
    (inst.root / "leaderboards" / "soohak.release" / "r1.yaml.sig").unlink()
    commit(inst.root, "statement r2", T + timedelta(minutes=20))
    state, v = verdict(inst, AFTER)
    # v0003 was in force when r2's signatures were completed (T + 20 min), not at its not_before
    assert state.state == RELEASED, v.message
    assert v.signers == ("m1", "m3")


def test_statement_naming_a_version_not_in_force_at_its_admission_is_invalid(inst):
    remove_maintainer(inst.root, "m2")  # v0003 proposed, one signature short: not in force
    sign_registry(inst.root, inst.maintainer_keys["m1"])
    commit(inst.root, "v0003 proposed", T - timedelta(days=2))
    write_statement(inst, "r2", registry_version=3, signers=("m1", "m3"))
    for name in ("r1.yaml", "r1.yaml.sig"):
        (inst.root / "leaderboards" / "soohak.release" / name).unlink()
    commit(inst.root, "statement r2 naming v0003", T - timedelta(days=1))
    sign_registry(inst.root, inst.maintainer_keys["m3"])
    commit(inst.root, "v0003 signed by the threshold", T - timedelta(hours=12))
    _, v = verdict(inst, AFTER)  # r2 was complete under v0002, before v0003 was in force
    assert (v.state, v.reason) == ("invalid", "registry-version-not-in-force")
    assert "names registry v0003, but v0002 was in force when its signatures were completed" in v.message


def test_history_dates_each_version_by_its_admitting_commit(inst):
    remove_m2(inst)
    commit(inst.root, "registry v0003", T - timedelta(days=1))
    history = registry_history(inst.root, 3)
    assert history.admitted == {1: MERGED, 2: MERGED, 3: T - timedelta(days=1)}
    # Before them all: the registry as the first admitting commit held it (v0001 and v0002
    # landed together, so v0002; the repository never held v0001 alone).
    assert history.at(MERGED - timedelta(seconds=1)).version == 2
    assert history.at(MERGED).version == 2
    assert history.at(T - timedelta(days=1, seconds=1)).version == 2
    assert history.at(T).version == 3
    # A signature added later does not move a version's date (else re-signing v0002 after
    # not_before would put it, and the maintainer v0003 removed, back in force at T).
    sign_registry(inst.root, inst.maintainer_keys["m2"], version=2)
    commit(inst.root, "one more signature on v0002", T + timedelta(days=2))
    assert registry_history(inst.root, 3).admitted[2] == MERGED


def test_a_version_counts_from_the_commit_that_completed_its_signatures(inst):
    remove_maintainer(inst.root, "m2")
    sign_registry(inst.root, inst.maintainer_keys["m1"])
    commit(inst.root, "v0003 proposed: 1 of 2 signatures", T - timedelta(days=2))
    sign_registry(inst.root, inst.maintainer_keys["m3"])
    commit(inst.root, "v0003 signed by the threshold", T + timedelta(minutes=5))
    assert registry_history(inst.root, 3).admitted[3] == T + timedelta(minutes=5)
    state, v = verdict(inst, AFTER)  # v0002 was in force at T: m2 still counts
    assert state.state == RELEASED and v.signers == ("m1", "m2")
