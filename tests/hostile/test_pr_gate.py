"""The PR check is the gate it claims to be (issue 9, "The pull-request check…"; issue 11,
merge base). Each case is a pull request on a real git repository, as a lab or an attacker
would push it; validation must report exactly the expected (path, reason) pairs and the
right outcome: passed, maintainer review required, or failed.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import markdown
import pytest

from builder.attest.statement import SITE_TYPE_URN, STATEMENT_TYPE, canonical
from builder.bundles.withdrawn import FORMAT as TOMBSTONE_FORMAT
from builder.demo.instance import DEMO_EMBARGO
from builder.pipeline.build import load_build_key
from builder.trust.sshsig import NS_SITE, sign
from builder.validate.pr import FAILED, PASSED, REVIEW, validate
from hostile import test_validate_pr as _pr
from hostile.support import NOW, VALID_ROWS
from hostile.test_validate_pr import B, Repo, commit, git, new_acme_bundle

# The PR fixtures (a real git repository of the session instance), shared with test_validate_pr.
base_repo, repo = _pr.base_repo, _pr.repo


def maintainers_commit(repo: Repo, change: Callable[[Path], None]) -> None:
    """Land a change on main (the PR's target) before the PR forks from it."""
    change(repo.root)
    commit(repo, "maintainers")
    repo.base = git(repo.root, "rev-parse", "HEAD")


def tombstone(root: Path, key: str, reason: str = "lab request") -> None:
    (root / B / f"{key}.withdrawn").write_text(
        f"format: {TOMBSTONE_FORMAT}\nwithdrawn: 2026-11-20T00:00:00Z\ncreated: 2026-11-01T00:00:00Z\nreason: {reason}\n"
    )


def set_embargo(root: Path, text: str = "embargo:\n  budget: {bundles: 3, window_days: 30}\n") -> None:
    """Give the benchmark a real embargo section (test instances carry the demo's lifted one)."""
    path = root / "leaderboards/soohak.yaml"
    assert DEMO_EMBARGO in path.read_text()
    path.write_text(path.read_text().replace(DEMO_EMBARGO, text))


def edit(root: Path, rel: str, text: str, append: bool = True) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((path.read_text() if append and path.exists() else "") + text)


# --- cases: (mutate, expected problems, status) ------------------------------------------------


def docs_only(repo: Repo) -> None:
    edit(repo.root, "site_src/index.md", "\nA harmless sentence.\n")


def mkdocs_hooks(repo: Repo) -> None:
    edit(
        repo.root,
        "hooks/leak.py",
        "import os\ndef on_post_build(config):\n    open(config['site_dir'] + '/x.txt', 'w').write(os.environ.get('SEALBOARD_IDENTITY', ''))\n",
    )
    edit(repo.root, "mkdocs.yml", "hooks:\n  - hooks/leak.py\n")


def snippets_environ(repo: Repo) -> None:
    edit(repo.root, "mkdocs.yml", "  - pymdownx.snippets:\n      base_path: [/]\n      restrict_base_path: false\n")
    edit(repo.root, "site_src/leak.md", '--8<-- "/proc/self/environ"\n', append=False)


def env_tag(repo: Repo) -> None:
    path = repo.root / "mkdocs.yml"
    path.write_text(re.sub(r"(?m)^site_name:.*$", "site_name: !ENV SEALBOARD_IDENTITY", path.read_text()))


def python_tag(repo: Repo) -> None:
    edit(repo.root, "mkdocs.yml", "extra:\n  x: !!python/object/apply:os.system ['true']\n")


def bundles_gitattributes(repo: Repo) -> None:
    # (*.sig: the files hold no CR, so committing does not renormalise them; checkout would.)
    edit(repo.root, "bundles/.gitattributes", "*.sig text eol=crlf\n", append=False)


def shadows_board(repo: Repo) -> None:
    edit(repo.root, "site_src/data/soohak/overall.json", '{"rows": []}\n', append=False)


def site_symlink(repo: Repo) -> None:
    os.symlink("/proc/self/environ", repo.root / "site_src" / "env.md")


def replaces_the_workflow(repo: Repo) -> None:
    new_acme_bundle(repo)
    edit(
        repo.root,
        ".github/workflows/validate.yml",
        "on: pull_request\njobs:\n  validate:\n    runs-on: ubuntu-latest\n    steps:\n      - run: exit 0\n",
        append=False,
    )


def empty_change(repo: Repo) -> None:
    pass


def readds_withdrawn(repo: Repo) -> None:
    import shutil

    saved = repo.root.parent / "saved-run-1"
    shutil.copytree(repo.root / B / "acme/run-1", saved)

    def withdraw(root: Path) -> None:
        shutil.rmtree(root / B / "acme/run-1")
        tombstone(root, "acme/run-1")

    maintainers_commit(repo, withdraw)
    shutil.copytree(saved, repo.root / B / "acme/run-1")  # byte for byte


def withdrawn_still_present(repo: Repo) -> None:
    # The tombstone alone withdraws; a PR "re-signing" the same folder is refused too.
    maintainers_commit(repo, lambda root: tombstone(root, "acme/run-1"))
    path = repo.root / B / "acme/run-1/manifest.json"
    path.write_bytes(path.read_bytes() + b"\n")


def deletes_tombstone(repo: Repo) -> None:
    maintainers_commit(repo, lambda root: tombstone(root, "acme/run-1"))
    (repo.root / B / "acme/run-1.withdrawn").unlink()


def over_budget(repo: Repo) -> None:
    # acme/run-1 is on main; the budget is 3 per 30 days: run-5 is the fourth.
    maintainers_commit(repo, set_embargo)
    for name in ("run-3", "run-4", "run-5"):
        repo.inst.add_submission("acme", name, VALID_ROWS)


def withdrawn_still_counts(repo: Repo) -> None:
    # Withdrawing a bundle does not refund it: run-1 (withdrawn, created 2026-11-01) still counts.
    maintainers_commit(repo, lambda root: (set_embargo(root), tombstone(root, "acme/run-1")))
    for name in ("run-3", "run-4"):
        repo.inst.add_submission("acme", name, VALID_ROWS)
    # main still holds acme/run-1's folder (the tombstone withdraws it): 1 spent + run-3 + run-4 = 3.
    repo.inst.add_submission("acme", "run-5", VALID_ROWS)


RECORD = "attestations/20261201T000000Z-aaaaaaaaaaaa"  # a deploy folder of the snapshots (builder.attest.record)


def _record(root: Path, key: Path | None = None) -> None:
    """A recorded deploy's statement (well-formed), signed with ``key`` or not at all."""
    st = {
        "_type": STATEMENT_TYPE,
        "predicateType": SITE_TYPE_URN,
        "subject": [{"name": "index.html", "digest": {"sha256": "0" * 64}}],
        "predicate": {
            "site_url": None,
            "built": "2026-12-01T00:00:00Z",
            "registry": {"version": 1},
            "benchmarks": [{"id": "soohak", "status": "embargoed"}],
        },
    }
    data = canonical(st)
    edit(root, f"{RECORD}/statement.json", data.decode(), append=False)
    if key is not None:
        edit(root, f"{RECORD}/statement.json.sig", sign(load_build_key(key, None), data, NS_SITE), append=False)


def unsigned_record(repo: Repo) -> None:
    _record(repo.root)


def record_by_a_stranger(repo: Repo) -> None:
    key = repo.root.parent / "stranger-build-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    _record(repo.root, key)


def rewrites_a_record(repo: Repo) -> None:
    maintainers_commit(repo, lambda root: _record(root))
    edit(repo.root, f"{RECORD}/statement.json", " ")


CASES: dict[str, tuple[Callable[[Repo], None], list[tuple[str, str]], str]] = {
    # attestations/: what the Snapshots page shows. A record is refused as the page would list it.
    "gate/unsigned-deploy-record": (
        unsigned_record,
        [(f"{RECORD}/statement.json", "maintainer-review"), (RECORD, "attestation-unsigned")],
        FAILED,
    ),
    "gate/deploy-record-signed-by-a-stranger": (
        record_by_a_stranger,
        [
            (f"{RECORD}/statement.json", "maintainer-review"),
            (f"{RECORD}/statement.json.sig", "maintainer-review"),
            (RECORD, "attestation-key-not-registered"),
        ],
        FAILED,
    ),
    "gate/rewrites-a-recorded-deploy": (
        rewrites_a_record,
        [(f"{RECORD}/statement.json", "maintainer-review"), (f"{RECORD}/statement.json", "attestation-immutable")],
        FAILED,
    ),
    "gate/docs-only-change-is-not-passed": (docs_only, [("site_src/index.md", "maintainer-review")], REVIEW),
    "gate/empty-pr-is-not-passed": (empty_change, [("(none)", "no-change")], REVIEW),
    "gate/mkdocs-hooks": (
        mkdocs_hooks,
        [("mkdocs.yml", "mkdocs-hooks"), ("mkdocs.yml", "maintainer-review"), ("hooks/leak.py", "maintainer-review")],
        FAILED,
    ),
    "gate/snippets-proc-self-environ": (
        snippets_environ,
        [("mkdocs.yml", "mkdocs-snippets"), ("mkdocs.yml", "maintainer-review"), ("site_src/leak.md", "maintainer-review")],
        FAILED,
    ),
    "gate/mkdocs-env-tag": (env_tag, [("mkdocs.yml", "mkdocs-yaml-tag"), ("mkdocs.yml", "maintainer-review")], FAILED),
    "gate/mkdocs-python-tag": (python_tag, [("mkdocs.yml", "mkdocs-yaml-tag"), ("mkdocs.yml", "maintainer-review")], FAILED),
    "gate/bundles-gitattributes-crlf": (
        bundles_gitattributes,
        [("bundles/.gitattributes", "gitattributes"), ("bundles/.gitattributes", "maintainer-review")],
        FAILED,
    ),
    "gate/site-src-data-shadows-a-board": (
        shadows_board,
        [("site_src/data/soohak/overall.json", "shadows-generated"), ("site_src/data/soohak/overall.json", "maintainer-review")],
        FAILED,
    ),
    "gate/site-src-symlink": (site_symlink, [("site_src/env.md", "symlink"), ("site_src/env.md", "maintainer-review")], FAILED),
    "gate/pr-replaces-the-workflow": (replaces_the_workflow, [(".github/workflows/validate.yml", "maintainer-review")], REVIEW),
    "gate/readds-withdrawn-bundle-byte-for-byte": (readds_withdrawn, [(f"{B}/acme/run-1", "withdrawn")], FAILED),
    "gate/resigns-withdrawn-bundle-in-place": (withdrawn_still_present, [(f"{B}/acme/run-1", "withdrawn")], FAILED),
    "gate/deletes-a-tombstone": (deletes_tombstone, [(f"{B}/acme/run-1.withdrawn", "withdrawal")], REVIEW),
    "gate/over-budget": (over_budget, [(f"{B}/acme/run-5", "over-budget")], FAILED),
    "gate/withdrawn-bundle-still-counts": (withdrawn_still_counts, [(f"{B}/acme/run-5", "over-budget")], FAILED),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_gate(case: str, repo: Repo) -> None:
    mutate, expected, status = CASES[case]
    mutate(repo)
    commit(repo, case)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert sorted((p.path, p.reason) for p in report.problems) == sorted(expected), report.markdown()
    assert report.status == status, report.markdown()
    assert report.markdown().startswith(f"## Sealboard validation {status} ")


def test_budget_message_names_the_budget(repo: Repo) -> None:
    over_budget(repo)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    (problem,) = report.problems
    assert "3 submission(s) per lab per 30 days" in problem.message
    assert report.verified == [f"{B}/acme/run-3", f"{B}/acme/run-4"]


def test_budget_from_the_config(repo: Repo) -> None:
    def one_per_week(root: Path) -> None:
        set_embargo(root, "embargo:\n  budget: {bundles: 1, window_days: 7}\n")

    maintainers_commit(repo, one_per_week)
    new_acme_bundle(repo)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-3", "over-budget")], report.markdown()
    assert "1 submission(s) per lab per 7 days" in report.problems[0].message


def test_stale_created_is_refused(repo: Repo) -> None:
    """`created` is what the budget counts, so the gate bounds how far a lab can backdate it."""
    new_acme_bundle(repo)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW + timedelta(days=8))
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-3/manifest.json", "stale-created")], report.markdown()
    future = validate(repo.root, repo.base, "HEAD", now=NOW - timedelta(hours=2))
    assert [(p.path, p.reason) for p in future.problems] == [(f"{B}/acme/run-3/manifest.json", "future-created")], future.markdown()


def test_pr_behind_main_is_judged_by_its_own_change(repo: Repo) -> None:
    """Issue 11: a lab PR opened before another lab's PR landed on
    main passes; `validate --base main` diffs from the merge base, not from main's tip."""
    fork = git(repo.root, "rev-parse", "HEAD")
    git(repo.root, "checkout", "-q", "-b", "pr")
    new_acme_bundle(repo)
    commit(repo, "acme's PR")
    git(repo.root, "checkout", "-q", "main")
    repo.inst.add_submission("beta", "run-9", __import__("hostile.support", fromlist=["BETA_ROWS"]).BETA_ROWS)
    commit(repo, "beta's PR, merged first")
    git(repo.root, "checkout", "-q", "pr")
    report = validate(repo.root, "main", "pr", now=NOW)
    assert report.status == PASSED, report.markdown()
    assert report.verified == [f"{B}/acme/run-3"]
    assert report.base == fork
    # The old behaviour, diffing main's tip against the PR, would see beta/run-9 "removed".
    assert git(repo.root, "diff", "--name-status", "main", "pr", "--", f"{B}/beta").startswith("D")


HOSTILE_NAME = "x]](https://evil.invalid) ![img](https://evil.invalid/i.png) <img src=x onerror=alert(1)> @octocat ``y``"


def test_report_text_is_neutralised(repo: Repo) -> None:
    """Lab text (here a folder name) renders with no live link, image, HTML or @-mention."""
    bundle = repo.root / B / "acme" / HOSTILE_NAME
    bundle.mkdir(parents=True)
    (bundle / "manifest.json").write_text("{}")
    edit(repo.root, "site_src/@octocat [a](https://evil.invalid).md", "x", append=False)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    md = report.markdown()
    assert report.status == FAILED
    html = markdown.markdown(md)
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "<a " not in html and "<img" not in html, html
    assert "@" not in outside_code and "evil" not in outside_code, outside_code
    assert re.findall(r"</?(\w+)", html) and set(re.findall(r"</?(\w+)", html)) <= {"h2", "p", "ul", "li", "code", "strong"}, html


@pytest.mark.parametrize(("mutate", "code"), [(docs_only, 3), (site_symlink, 1)], ids=["review-exits-3", "failure-exits-1"])
def test_cli_exit_codes(repo: Repo, mutate: Callable[[Repo], None], code: int, tmp_path: Path) -> None:
    """`sealboard validate` tells the outcomes apart by exit code (the check fails on both)."""
    from click.testing import CliRunner

    from builder.cli.validate import validate_command

    mutate(repo)
    commit(repo)
    summary = tmp_path / "summary.md"
    result = CliRunner().invoke(
        validate_command, ["--root", str(repo.root), "--base", repo.base, "--head", "HEAD", "--report", str(summary)]
    )
    assert result.exit_code == code, result.output
    assert summary.read_text().startswith("## Sealboard validation ")
