"""Hostile round 4, class 5 (issue 44): admission times and version changes come from the
history maintainers control, never from a date a lab's commit carries.

Small real git repositories of the factory instance. A pull request merged by fast-forward
puts the lab's own commit on the branch, committer date and all (GIT_COMMITTER_DATE is the
lab's to set); a merge commit is the merger's. Each hostile case has its control:

- a backdated fast-forwarded commit signed by an expired key is judged no earlier than its
  parent (``key-expired``); the same lab merged while the key was valid still publishes;
- a late run of a replaced version is not ranked on it, however its commit is dated, and
  however many config changes went back to the version and forward again: "replaced" is the
  first commit that replaced it, on the first-parent chain, and the earlier version is
  scored by the config in force then, not by the last config naming it.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from builder.bundles.admissions import Admissions
from builder.bundles.ingest import DATASET_DIR, RawBundle, discover
from builder.config import load_configs
from builder.gitrepo.first_parent import FirstParent
from builder.pipeline.build import build
from builder.pipeline.earlier_versions import admitted_before, config_at
from builder.trust.registry_admin import add_lab_key, sign_registry
from builder.trust.sshkeys import generate_ed25519, load_private_key
from tests.factory import NOW, VERSION, Instance, make_instance, results_for

EXPIRES = NOW + timedelta(days=10)  # acme's second key is valid until then
CONFIG = "leaderboards/soohak.yaml"


def _git(root: Path, *args: str, when: datetime | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    if when is not None:
        env |= {"GIT_AUTHOR_DATE": f"{int(when.timestamp())} +0000", "GIT_COMMITTER_DATE": f"{int(when.timestamp())} +0000"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def commit(root: Path, message: str, when: datetime) -> str:
    """A commit dated ``when`` (committer date included): the one who writes it chooses."""
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message, when=when)
    return _git(root, "rev-parse", "HEAD")


def maintainers_change(inst: Instance, when: datetime, text: str = "more") -> str:
    """A maintainer's change on main (a page edited), dated ``when``."""
    page = inst.root / "site_src" / "index.md"
    page.write_text(page.read_text() + f"\n{text}\n")
    return commit(inst.root, f"maintainers: {text}", when)


def submit(inst: Instance, run: str, sign_with: str) -> None:
    """An acme run of test-1 (the instance's dataset), whatever version the config names now."""
    path = inst.root / CONFIG
    text = path.read_text()
    _set_version(inst, VERSION)
    inst.add_submission("acme", run, results_for(inst.items), sign_with=sign_with)
    path.write_text(text)


def lab_branch(inst: Instance, name: str, run: str, when: datetime, *, sign_with: str = "acme2") -> str:
    """acme's pull request: a branch off main with one bundle, committed with the date acme chose."""
    _git(inst.root, "checkout", "-q", "-b", name)
    submit(inst, run, sign_with)
    sha = commit(inst.root, f"acme {run}", when)
    _git(inst.root, "checkout", "-q", "main")
    return sha


def fast_forward(inst: Instance, branch: str) -> None:
    _git(inst.root, "merge", "-q", "--ff-only", branch)


def merge_commit(inst: Instance, branch: str, when: datetime) -> None:
    _git(inst.root, "merge", "-q", "--no-ff", "-m", f"Merge {branch}", branch, when=when)


def raws(inst: Instance) -> dict[str, RawBundle]:
    """The instance's lab bundles, by ``lab/submission`` (the dataset bundle left out)."""
    found = [r for r in discover(inst.root, {"soohak"}) if isinstance(r, RawBundle) and r.owner != DATASET_DIR]
    return {"/".join(r.where.split("/")[2:4]): r for r in found}


def published(inst: Instance, now: datetime) -> tuple[set[str], dict[str, str]]:
    report = build(inst.root, identities=[inst.identity], now=now, render=False)
    return {b.manifest.key for s in report.benchmarks for b in s.bundles}, {r.where: r.reason for r in report.rejections}


@pytest.fixture
def inst(tmp_path: Path) -> Instance:
    """acme's second key (acme2) is valid until EXPIRES; run-1 (acme's first key) is merged a day after NOW."""
    inst = make_instance(tmp_path / "inst")
    _git(inst.root, "init", "-q", "-b", "main")
    (inst.root / ".gitignore").write_text("site/\n.sealboard/\n")
    inst.lab_keys["acme2"] = load_private_key(generate_ed25519("acme2@test")[0])
    add_lab_key(inst.root, "acme", inst.lab_keys["acme2"].public, valid_before=EXPIRES)
    for m in ("m1", "m2"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    inst.add_submission("acme", "run-1", results_for(inst.items))
    commit(inst.root, "the leaderboard, acme/run-1", NOW + timedelta(days=1))
    return inst


# --- admission time: a fast-forwarded lab commit is dated no earlier than its parent ----------


def test_a_backdated_fast_forwarded_commit_is_judged_at_its_parents_date(inst):
    maintainers_change(inst, EXPIRES + timedelta(days=3))  # main moved on after acme2 expired
    lab_branch(inst, "acme-late", "run-3", NOW + timedelta(days=2))  # acme backdates its commit to while acme2 was valid
    fast_forward(inst, "acme-late")
    assert Admissions(inst.root).time(raws(inst)["acme/run-3"]) == EXPIRES + timedelta(days=3)
    ok, rejected = published(inst, EXPIRES + timedelta(days=5))
    assert ok == {"acme/run-1"} and rejected == {"bundles/soohak/acme/run-3/manifest.json.sig": "key-expired"}


def test_a_fast_forwarded_commit_made_while_the_key_was_valid_publishes(inst):
    """The control: the same fast-forward, made while acme2 was valid; the lab's date stands."""
    maintainers_change(inst, NOW + timedelta(days=2))
    lab_branch(inst, "acme-run-3", "run-3", NOW + timedelta(days=3))
    fast_forward(inst, "acme-run-3")
    assert Admissions(inst.root).time(raws(inst)["acme/run-3"]) == NOW + timedelta(days=3)
    ok, rejected = published(inst, EXPIRES + timedelta(days=5))
    assert ok == {"acme/run-1", "acme/run-3"} and rejected == {}


def test_a_merge_commit_dates_the_backdated_branch(inst):
    """A merge commit is the merger's: the lab's backdated commit under it changes nothing."""
    lab_branch(inst, "acme-late", "run-3", NOW + timedelta(days=2))
    maintainers_change(inst, NOW + timedelta(days=4))
    merge_commit(inst, "acme-late", EXPIRES + timedelta(days=3))
    ok, rejected = published(inst, EXPIRES + timedelta(days=5))
    assert ok == {"acme/run-1"} and rejected == {"bundles/soohak/acme/run-3/manifest.json.sig": "key-expired"}
    # The control: merged while acme2 was valid.
    _git(inst.root, "reset", "-q", "--hard", "HEAD~1")
    merge_commit(inst, "acme-late", NOW + timedelta(days=5))
    assert published(inst, EXPIRES + timedelta(days=5)) == ({"acme/run-1", "acme/run-3"}, {})


def test_dates_on_the_chain_never_go_back_and_a_forward_date_stops_at_the_next_merge(inst):
    start = _git(inst.root, "rev-parse", "HEAD")
    back = maintainers_change(inst, NOW - timedelta(days=30), "backdated")  # before its parent
    ahead = maintainers_change(inst, NOW + timedelta(days=900), "forward-dated")
    lab_branch(inst, "side", "run-3", NOW + timedelta(days=3), sign_with="acme")
    merge_commit(inst, "side", NOW + timedelta(days=4))
    merged = _git(inst.root, "rev-parse", "HEAD")
    after = maintainers_change(inst, NOW + timedelta(days=5), "after the merge")
    fp = FirstParent(inst.root)
    assert [fp.position(c) for c in (start, back, ahead, merged, after)] == [0, 1, 2, 3, 4]
    assert fp.time(back) == NOW + timedelta(days=1)  # not before its parent
    assert fp.time(ahead) == NOW + timedelta(days=4)  # not after the next merge commit
    assert fp.time(merged) == NOW + timedelta(days=4) and fp.time(after) == NOW + timedelta(days=5)
    side = _git(inst.root, "rev-parse", "side")
    assert fp.position(side) is None  # a commit off the chain has no place on it


# --- earlier versions: replaced once, at the first commit; scored by the config then ---------


def _set_version(inst: Instance, version: str, title: str | None = None) -> None:
    path = inst.root / CONFIG
    text = path.read_text()
    current = next(line for line in text.splitlines() if line.startswith("version:"))
    text = text.replace(current, f'version: "{version}"')
    if title is not None:
        text = text.replace("\ntitle: SOOHAK\n", f"\ntitle: {title}\n")
    path.write_text(text)


def test_back_and_forward_config_changes_do_not_move_the_replacement(inst):
    day = timedelta(days=1)
    inst.add_submission("acme", "run-2", results_for(inst.items), sign_with="acme")
    commit(inst.root, "acme/run-2, admitted before 1.1", NOW + 2 * day)
    _set_version(inst, "1.1")
    first = commit(inst.root, "soohak 1.1 replaces test-1", NOW + 3 * day)
    # acme's late test-1 run, fast-forwarded after the replacement, backdated to before it.
    lab_branch(inst, "acme-late", "run-3", NOW + 2 * day + timedelta(hours=1), sign_with="acme")
    fast_forward(inst, "acme-late")
    _set_version(inst, VERSION, title="SOOHAK rescored")  # a config PR back to test-1, scoring it otherwise
    commit(inst.root, "back to test-1", NOW + 5 * day)
    inst.add_submission("acme", "run-4", results_for(inst.items), sign_with="acme")
    commit(inst.root, "acme/run-4, while test-1 was current again", NOW + 5 * day + timedelta(hours=2))
    _set_version(inst, "1.1")
    commit(inst.root, "forward to 1.1 again", NOW + 6 * day)

    current = next(c for c in load_configs(inst.root) if c.id == "soohak")
    history = FirstParent(inst.root)
    replaced = config_at(inst.root, current, VERSION, history)
    assert replaced is not None and replaced.commit == first and replaced.time == NOW + 3 * day
    assert replaced.config.version == VERSION and replaced.config.title == "SOOHAK"  # in force when replaced, not "SOOHAK rescored"
    kept = admitted_before(list(raws(inst).values()), Admissions(inst.root), replaced)
    assert sorted(r.where.rsplit("/", 1)[-1] for r in kept) == ["run-1", "run-2"]


def test_a_version_replaced_once_keeps_every_run_admitted_before(inst):
    """The control: one replacement; the runs merged before it rank on the earlier version,
    one merged after it does not, dated honestly."""
    inst.add_submission("acme", "run-2", results_for(inst.items), sign_with="acme")
    commit(inst.root, "acme/run-2", NOW + timedelta(days=2))
    _set_version(inst, "1.1")
    first = commit(inst.root, "soohak 1.1", NOW + timedelta(days=3))
    submit(inst, "run-3", "acme")
    commit(inst.root, "acme's late test-1 run", NOW + timedelta(days=4))
    current = next(c for c in load_configs(inst.root) if c.id == "soohak")
    replaced = config_at(inst.root, current, VERSION, FirstParent(inst.root))
    assert replaced is not None and replaced.commit == first and replaced.config.title == "SOOHAK"
    kept = admitted_before(list(raws(inst).values()), Admissions(inst.root), replaced)
    assert sorted(r.where.rsplit("/", 1)[-1] for r in kept) == ["run-1", "run-2"]


def test_a_version_never_replaced_has_no_replacement(inst):
    current = next(c for c in load_configs(inst.root) if c.id == "soohak")
    assert config_at(inst.root, current, VERSION, FirstParent(inst.root)) is None


# --- the whole build: the earlier version's board ---------------------------------------------


def test_the_earlier_versions_board_ranks_only_runs_merged_before_the_first_replacement(tmp_path):
    """test-1 released in full (statement r1, in force from T), then replaced by 1.1; a config
    PR back to test-1 (rescored) and one forward again; a late test-1 run fast-forwarded after
    the replacement with a date before it, and one merged while test-1 was current again.
    The authorised build shows soohak@test-1 with the two runs merged before 1.1 replaced it,
    titled as the config in force then said."""
    from builder.bundles.dataset import new_salt
    from builder.bundles.dataset_create import sign_dataset, write_dataset
    from builder.config import load_config
    from builder.trust.registry import load_registry
    from tests.release.support import AFTER, BEFORE, T, released_instance

    inst = released_instance(tmp_path / "inst")
    _git(inst.root, "init", "-q", "-b", "main")
    (inst.root / ".gitignore").write_text("site/\n.sealboard/\n")
    commit(inst.root, "soohak test-1, its runs, release r1", BEFORE)
    day = timedelta(days=1)
    _set_version(inst, "1.1")
    ds = write_dataset(inst.root, load_config(inst.root / CONFIG, inst.root), [dict(it, salt=new_salt()) for it in inst.items], BEFORE)
    for m in ("m1", "m2"):
        sign_dataset(ds, inst.maintainer_keys[m], load_registry(inst.root, BEFORE))
    commit(inst.root, "soohak 1.1 replaces test-1", T + day)
    lab_branch(inst, "acme-late", "run-3", T - day, sign_with="acme")  # after the replacement, dated before it
    fast_forward(inst, "acme-late")
    _set_version(inst, VERSION, title="SOOHAK rescored")
    commit(inst.root, "back to test-1", T + 3 * day)
    submit(inst, "run-4", "acme")
    commit(inst.root, "acme/run-4 while test-1 was current again", T + 3 * day + timedelta(hours=2))
    _set_version(inst, "1.1")
    commit(inst.root, "forward to 1.1 again", T + 4 * day)

    report = build(inst.root, identities=[inst.identity], now=AFTER + 10 * day, render=False)
    states = {s.config.id: s for s in report.benchmarks}
    earlier = states["soohak@test-1"]
    assert earlier.status == "released" and earlier.config.superseded_by == "1.1"
    assert earlier.config.title == "SOOHAK test-1"  # the config in force when replaced, not "SOOHAK rescored"
    assert sorted(b.manifest.key for b in earlier.bundles) == ["acme/run-1", "beta/run-1"]
    late = {r.where.split("/")[3]: r.reason for r in report.rejections if r.where.startswith("bundles/soohak/acme/run-")}
    assert late == {"run-3": "wrong-version", "run-4": "wrong-version"}  # ranked nowhere
    assert not states["soohak"].bundles
