"""`validate` judges the tree the merge will produce, and a merged bundle is immutable
(issue 22, "The PR gate"; design invariant 9).

Real git throughout: branches, `git merge -s ours`, real merges. Each hostile case asserts
the exact reason; each has an honest control that passes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from builder.bundles.manifest import SIGNATURE
from builder.cli.validate import validate_command
from builder.validate.pr import FAILED, PASSED, validate
from hostile import test_validate_pr as _pr
from hostile.support import BETA_ROWS, NOW, edit_manifest, set_field
from hostile.test_validate_pr import GIT_ENV, B, Repo, commit, git, new_acme_bundle

base_repo, repo = _pr.base_repo, _pr.repo


def _criss_cross(repo: Repo) -> str:
    """The attack: acme's earlier PR (L1) was merged into main (M1) after beta's bundle had
    landed (B). acme's branch then records `git merge -s ours B`, which makes B an ancestor
    while keeping acme's tree (no beta/run-9), and adds a new bundle on top. main's tip and
    the branch now share two best merge bases, L1 and B: diffed from L1 the branch shows
    only its new bundle, but git's merge (ort, with a virtual base holding beta/run-9) sees
    the branch delete beta/run-9, and deletes it. Returns the attacker's head."""
    git(repo.root, "checkout", "-q", "-b", "acme-pr")
    new_acme_bundle(repo, "run-3")
    git(repo.root, "add", "-A")
    # Dated a day ahead (the lab controls its commits' dates), so that `git merge-base`,
    # which lists the newest base first, picks L1.
    ahead = {**os.environ, **GIT_ENV, "GIT_COMMITTER_DATE": "2030-01-02T00:00:00Z", "GIT_AUTHOR_DATE": "2030-01-02T00:00:00Z"}
    subprocess.run(["git", "-C", str(repo.root), "commit", "-q", "-m", "L1: acme run-3"], check=True, env=ahead)
    git(repo.root, "checkout", "-q", "main")
    repo.inst.add_submission("beta", "run-9", BETA_ROWS)
    commit(repo, "B: beta run-9")
    beta = git(repo.root, "rev-parse", "HEAD")
    git(repo.root, "merge", "-q", "--no-ff", "--no-edit", "acme-pr")  # M1: acme's first PR lands
    git(repo.root, "checkout", "-q", "acme-pr")
    git(repo.root, "merge", "-q", "-s", "ours", "--no-edit", beta)
    new_acme_bundle(repo, "run-4")
    commit(repo, "L3: acme run-4")
    return git(repo.root, "rev-parse", "HEAD")


def test_criss_cross_merge_that_deletes_another_labs_bundle_is_refused(repo: Repo) -> None:
    head = _criss_cross(repo)
    assert len(git(repo.root, "merge-base", "--all", "main", head).split()) == 2
    # What the old check saw: from the one base git picks, only acme's new bundle.
    one = git(repo.root, "merge-base", "main", head)
    assert git(repo.root, "diff", "--name-only", one, head).split() == [
        f"{B}/acme/run-4/{n}" for n in ("manifest.json", "manifest.json.sig", "results.jsonl.age")
    ]
    report = validate(repo.root, "main", head, now=NOW)
    got = sorted((p.path, p.reason) for p in report.problems)
    # Both defences name the attack: several merge bases, and the merged tree itself
    # (compared with main) showing beta's merged bundle removed, in another lab's folder.
    expected = [(head, "several-merge-bases"), (f"{B}/beta/run-9", "removed-bundle"), ("bundles/*/beta/", "outside-lab")]
    assert got == sorted(expected), report.markdown()
    assert report.status == FAILED
    # The route was real: git's own merge of this head deletes beta's bundle.
    git(repo.root, "checkout", "-q", "main")
    git(repo.root, "merge", "-q", "--no-edit", head)
    assert not (repo.root / B / "beta/run-9").exists()


def test_control_an_honest_pr_behind_main_passes(repo: Repo) -> None:
    """Forked before beta's bundle landed, merged main in the ordinary way: one merge base,
    the merged tree adds only acme's new bundle."""
    git(repo.root, "checkout", "-q", "-b", "acme-pr")
    new_acme_bundle(repo, "run-3")
    commit(repo, "acme run-3")
    git(repo.root, "checkout", "-q", "main")
    repo.inst.add_submission("beta", "run-9", BETA_ROWS)
    commit(repo, "beta run-9")
    git(repo.root, "checkout", "-q", "acme-pr")
    report = validate(repo.root, "main", "acme-pr", now=NOW)
    assert report.status == PASSED, report.markdown()
    assert report.verified == [f"{B}/acme/run-3"]
    git(repo.root, "merge", "-q", "--no-edit", "main")  # an ordinary merge of main: still one base
    again = validate(repo.root, "main", "acme-pr", now=NOW)
    assert again.status == PASSED, again.markdown()


def test_merge_conflict_is_refused(repo: Repo) -> None:
    path = repo.root / "site_src/index.md"
    git(repo.root, "checkout", "-q", "-b", "acme-pr")
    path.write_text("acme's text\n")
    new_acme_bundle(repo, "run-3")
    commit(repo, "acme")
    git(repo.root, "checkout", "-q", "main")
    path.write_text("maintainers' text\n")
    commit(repo, "maintainers")
    report = validate(repo.root, "main", "acme-pr", now=NOW)
    assert [p.reason for p in report.problems] == ["merge-conflict"], report.markdown()


# --- immutability in validate -------------------------------------------------------------------


def _resign(repo: Repo, where: str, **fields: object) -> None:
    bundle = repo.root / B / where
    for key, value in fields.items():
        edit_manifest(bundle, set_field(key, value), repo.inst.lab_keys[where.split("/")[0]])


def test_own_merged_bundle_rewritten_and_resigned_is_refused(repo: Repo) -> None:
    """acme re-signs its merged run-1 with a new `created` and a new model name: a valid
    signature by its own key, no budget spent, the old score replaced without a tombstone."""
    _resign(repo, "acme/run-1", created="2026-12-01T00:00:00Z")
    commit(repo, "acme rewrites run-1")
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-1", "bundle-immutable")], report.markdown()
    assert report.verified == []


def test_own_merged_bundle_new_signature_only_is_refused(repo: Repo) -> None:
    sig = repo.root / B / "acme/run-1" / SIGNATURE
    sig.write_bytes(sig.read_bytes().replace(b"\n", b"\r\n", 1))
    commit(repo, "acme touches the signature")
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-1", "bundle-immutable")], report.markdown()


def test_own_merged_bundle_removed_is_refused(repo: Repo) -> None:
    import shutil

    shutil.rmtree(repo.root / B / "acme/run-1")
    commit(repo, "acme removes run-1 (a budget refund)")
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-1", "removed-bundle")], report.markdown()
    assert report.status == FAILED


def test_control_a_new_bundle_beside_merged_ones_passes(repo: Repo) -> None:
    new_acme_bundle(repo, "run-3")
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert report.status == PASSED, report.markdown()


# --- the CLI: --json, and outside an instance ----------------------------------------------------


def test_validate_json_output(repo: Repo) -> None:
    _resign(repo, "acme/run-1", created="2026-12-01T00:00:00Z")
    commit(repo)
    result = CliRunner().invoke(validate_command, ["--root", str(repo.root), "--base", repo.base, "--head", "HEAD", "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["status"] == FAILED
    assert [(p["path"], p["reason"]) for p in data["problems"]] == [(f"{B}/acme/run-1", "bundle-immutable")]
    assert data["head"] == git(repo.root, "rev-parse", "HEAD")


def test_validate_in_a_folder_nested_in_another_repository_refuses(tmp_path: Path, repo: Repo) -> None:
    """issue 21: `demo/` inside some other git repository; validate used to judge the parent."""
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    (outer / "README").write_text("another project\n")
    import shutil

    demo = outer / "demo"
    shutil.copytree(repo.root, demo, ignore=shutil.ignore_patterns(".git"))
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "outer")
    result = CliRunner().invoke(validate_command, ["--root", str(demo), "--base", "HEAD", "--head", "HEAD"])
    assert result.exit_code != 0
    assert "not-an-instance-repository" in result.output or "is not the root of a git repository" in result.output, result.output
    assert str(demo) in result.output


# --- item access: the build's review of labs' copies, before merge ---------------------------------


def _granted(repo: Repo) -> str:
    """Maintainers grant acme SOOHAK's items on main; returns the copy's path for acme."""
    from builder.bundles.access import access_path
    from builder.trust.registry_admin import grant_items, sign_registry
    from hostile.support import VERSION

    grant_items(repo.root, "acme", "soohak", NOW)
    for m in ("m1", "m2"):
        sign_registry(repo.root, repo.inst.maintainer_keys[m])
    commit(repo, "maintainers grant acme the items")
    repo.base = git(repo.root, "rev-parse", "HEAD")
    return access_path("soohak", VERSION, "acme")


def test_item_copy_sealed_to_the_embargo_key_fails(repo: Repo) -> None:
    from builder.trust.seal import seal

    copy = _granted(repo)
    (repo.root / copy).parent.mkdir(parents=True, exist_ok=True)
    (repo.root / copy).write_bytes(seal(b'{"id": "x"}\n', [repo.inst.identity.recipient]))
    commit(repo, "a copy the published identity would open")
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert sorted((p.path, p.reason) for p in report.problems) == [(copy, "access-wrong-recipient"), (copy, "maintainer-review")], (
        report.markdown()
    )
    assert report.status == FAILED


def test_control_item_copy_sealed_to_the_lab_needs_only_review(repo: Repo) -> None:
    import pyrage

    from builder.validate.pr import REVIEW

    copy = _granted(repo)
    (repo.root / copy).parent.mkdir(parents=True, exist_ok=True)
    key = repo.inst.lab_keys["acme"].public
    (repo.root / copy).write_bytes(pyrage.encrypt(b'{"id": "x"}\n', [pyrage.ssh.Recipient.from_str(key.openssh)]))
    commit(repo, "acme's copy")
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(copy, "maintainer-review")], report.markdown()
    assert report.status == REVIEW
