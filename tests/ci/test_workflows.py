"""The workflows in .github/workflows are security boundaries; these tests pin their logic.

The PR check must not be replaceable by the PR it judges (design, invariant 5): it runs on
``pull_request_target`` (GitHub then takes the workflow and the code from the base branch),
checks out only the base, fetches the PR as git objects, holds no secret and a read-only
token. The authorised build's secret is visible to its build step and to the publish step
of the publish-identity job only; only the deploy job may write Pages, only it and the attest
job (GitHub's artifact attestation of SHA256SUMS) may mint an OIDC token, only the
publish-identity and record-attestation jobs may write the repository (a branch and a pull request). That
job's shell runs for real here against a temporary repository, with a local bare repository
standing in for GitHub. Every action is pinned by a full commit SHA.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.slow  # runs the workflows' scripts with builds

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    # PyYAML reads the bare key `on` as the boolean True (YAML 1.1).
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job_id, step) for job_id, job in workflow["jobs"].items() for step in job["steps"]]


def mentions_secrets(value: Any) -> bool:
    return "secrets." in yaml.safe_dump(value) or "secrets[" in yaml.safe_dump(value)


@pytest.mark.parametrize("name", ["validate.yml", "build.yml"])
def test_every_action_is_pinned_by_full_commit_sha(name: str) -> None:
    uses = [step["uses"] for _, step in steps(load(name)) if "uses" in step]
    assert uses, name
    for ref in uses:
        assert PINNED.match(ref), f"{name}: {ref} is not pinned by a 40-hex commit"


def test_validate_runs_the_base_branch_workflow() -> None:
    wf = load("validate.yml")
    assert set(wf["on"]) == {"pull_request_target"}, "pull_request would run the PR's own copy of this workflow"
    assert wf["permissions"] == {"contents": "read"}
    assert all(job.get("permissions", {"contents": "read"}) == {"contents": "read"} for job in wf["jobs"].values())
    assert not mentions_secrets(wf), "the PR check holds no secret"
    assert "environment" not in yaml.safe_dump(wf["jobs"])


def test_validate_never_checks_out_or_runs_pr_code() -> None:
    wf = load("validate.yml")
    text = (WORKFLOWS / "validate.yml").read_text()
    for _, step in steps(wf):
        if step.get("uses", "").startswith("actions/checkout@"):
            ref = step.get("with", {}).get("ref", "")
            # Only the base: the PR head (head.sha / head.ref / refs/pull/N/merge) is never a work tree.
            assert ref in ("", "${{ github.event.pull_request.base.sha }}", "${{ github.base_ref }}"), ref
            assert step["with"].get("persist-credentials") is False
    assert "pull_request.head" not in text and "/merge" not in text and "head_ref" not in text
    runs = [step["run"] for _, step in steps(wf) if "run" in step]
    fetch = [r for r in runs if " fetch " in r]
    assert len(fetch) == 1 and "refs/pull/${PR_NUMBER}/head:refs/sealboard/pr" in fetch[0]
    # The PR ref is only ever read through `sealboard validate` (git plumbing), never checked out.
    for r in runs:
        if "refs/sealboard/pr" in r and r not in fetch:
            assert r.startswith("sealboard validate "), r
        assert "checkout" not in r and "worktree" not in r and "git switch" not in r
    installed = [line.split()[-1] for r in runs for line in r.splitlines() if "pip install" in line]
    assert installed == ["trusted/requirements/build.txt", "./trusted"], "only the base branch's code and lock are installed"
    # No expression from the event is spliced into a shell line (template injection).
    assert not any("${{" in r for r in runs)


def test_validate_passes_what_the_merge_base_needs() -> None:
    wf = load("validate.yml")
    checkout = next(s for _, s in steps(wf) if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0, "the merge base needs the base branch's history"
    run = next(s["run"] for _, s in steps(wf) if s.get("run", "").startswith("sealboard validate"))
    assert "--base HEAD" in run and "--head refs/sealboard/pr" in run


PUBLISH_STEP = "Publish the identity (the only step that sees it)"


def test_build_secret_only_in_the_build_and_publish_steps() -> None:
    wf = load("build.yml")
    assert wf["permissions"] == {}, "no workflow-wide permissions; each job asks for its own"
    assert not mentions_secrets({k: v for k, v in wf.items() if k != "jobs"})
    holders = [(job, step.get("name")) for job, step in steps(wf) if mentions_secrets(step)]
    assert holders == [("build", "Build (verify, unseal, score, render, leak scan)"), ("publish-identity", PUBLISH_STEP)]
    build_step = next(step for _, step in steps(wf) if mentions_secrets(step))
    assert build_step["run"].startswith("sealboard build ")
    assert set(build_step["env"]) == {"SEALBOARD_IDENTITY", "SEALBOARD_BUILD_KEY"}
    for job_id, job in wf["jobs"].items():
        assert not mentions_secrets({k: v for k, v in job.items() if k != "steps"}), job_id


def test_pages_and_id_token_only_on_deploy_repository_writes_only_on_publish_identity() -> None:
    wf = load("build.yml")
    for job_id, job in wf["jobs"].items():
        perms = job.get("permissions", {})
        if job_id == "deploy":
            assert perms == {"pages": "write", "id-token": "write"}
            assert all("uses" in s and s["uses"].startswith("actions/deploy-pages@") for s in job["steps"])
        elif job_id == "attest":
            assert perms == {"id-token": "write", "attestations": "write"}
        elif job_id in ("publish-identity", "record-attestation"):
            assert perms == {"contents": "write", "pull-requests": "write"}
        else:
            assert perms == {"contents": "read"}, job_id
            assert "pages" not in perms and "id-token" not in perms


def test_attest_job_attests_sha256sums_with_github_and_runs_nothing_else() -> None:
    """GitHub's artifact attestation of the build's SHA256SUMS: after the build, from the
    artifact the build uploaded, no checkout, no run step, no secret; its subject is exactly
    site/attestation/SHA256SUMS, so `gh attestation verify` checks that file."""
    for workflows in (WORKFLOWS, ROOT / "builder/scaffold/files/workflows"):
        wf = yaml.safe_load((workflows / "build.yml").read_text())
        job = wf["jobs"]["attest"]
        assert job["needs"] == "build" and not mentions_secrets(job) and "environment" not in job
        uses = [step.get("uses", "").split("@")[0] for step in job["steps"]]
        assert uses == ["actions/download-artifact", "actions/attest-build-provenance"], uses
        assert not any("run" in step for step in job["steps"])
        download, attest = job["steps"]
        assert download["with"] == {"name": "attestation", "path": "site"}
        assert attest["with"] == {"subject-path": "site/attestation/SHA256SUMS"}
        upload = next(s for s in wf["jobs"]["build"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
        assert upload["with"]["name"] == "attestation" and "site/attestation" in upload["with"]["path"].split()


def test_publish_identity_job_shape() -> None:
    """After the authorised build, on main; the identity in one step whose only command is
    publish-identity; the condition and the pull request steps never see it; no expression
    is spliced into a shell line."""
    job = load("build.yml")["jobs"]["publish-identity"]
    assert job["needs"] == "build" and job["if"] == "github.ref == 'refs/heads/main'"
    assert job["environment"] == "authorised-build"
    names = [s.get("name", s.get("uses", "")) for s in job["steps"]]
    publish = names.index(PUBLISH_STEP)
    due, check, pr = job["steps"][publish - 1], job["steps"][publish + 1], job["steps"][publish + 2]
    assert check["run"] == "sealboard release verify --root ." and "env" not in check
    assert due["id"] == "due" and "sealboard release identity-due" in due["run"] and "env" not in due
    step = job["steps"][publish]
    assert step["if"] == check["if"] == pr["if"] == "steps.due.outputs.benchmarks != ''"
    assert set(step["env"]) == {"SEALBOARD_IDENTITY", "BENCHMARKS"}
    commands = [line.strip() for line in step["run"].splitlines() if line.strip()]
    assert commands == ["for benchmark in $BENCHMARKS; do", 'sealboard release publish-identity --root . "$benchmark"', "done"]
    assert pr["env"] == {"GH_TOKEN": "${{ github.token }}"}
    for s in job["steps"]:
        assert "${{" not in s.get("run", ""), s.get("name")
        if s.get("uses", "").startswith("actions/checkout@"):
            assert s["with"]["persist-credentials"] is False and s["with"]["fetch-depth"] == 0


# --- The job's shell, run for real against a temporary repository ---------------------


def _step(name_start: str) -> dict[str, Any]:
    job = load("build.yml")["jobs"]["publish-identity"]
    return next(s for s in job["steps"] if s.get("name", "").startswith(name_start))


def _run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def workflow_env(tmp_path: Path) -> dict[str, str]:
    """PATH with `sealboard` (this tree) and a stand-in `gh` that answers from a local bare
    repository (the "GitHub" remote) and records the pull requests it is asked to open."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sealboard").write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "from builder.cli import main; main()" "$@"\n')
    (bin_dir / "gh").write_text(
        "#!/bin/sh\n"
        'if [ "$1" = api ]; then ref="${2#repos/*/*/git/ref/}"; exec git --git-dir="$FAKE_REMOTE" rev-parse -q --verify "refs/$ref" >/dev/null; fi\n'
        'if [ "$1 $2" = "pr create" ]; then echo "$@" >> "$FAKE_PRS"; exit 0; fi\n'
        "exit 2\n"
    )
    for tool in ("sealboard", "gh"):
        (bin_dir / tool).chmod(0o755)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    push_url = "https://x-access-token:tok@github.com/owner/board.git"
    return {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_REPOSITORY": "owner/board",
        "GH_TOKEN": "tok",
        "FAKE_REMOTE": str(remote),
        "FAKE_PRS": str(tmp_path / "prs.txt"),
        # The push goes to the local bare repository instead of github.com.
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{remote}.insteadOf",
        "GIT_CONFIG_VALUE_0": push_url,
    }


def _due(root: Path, env: dict[str, str]) -> str:
    out = Path(env["GITHUB_OUTPUT"])
    out.write_text("")
    result = _run(_step("Which full releases")["run"], root, env)
    assert result.returncode == 0, result.stderr
    return out.read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_publish_identity_job_runs_once_after_the_full_release(tmp_path: Path, workflow_env: dict[str, str]) -> None:
    from builder.release.admin import flip, sign_statement
    from builder.release.statement import Publish, Scope
    from builder.trust.seal import load_identity
    from tests.factory import NOW, make_instance
    from tests.pipeline.test_admission import commit

    inst = make_instance(tmp_path / "inst")
    now = datetime.now(timezone.utc).replace(microsecond=0)
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    # Scheduled for tomorrow: nothing is due, the publish and pull request steps are skipped.
    flip(inst.root, "soohak", now + timedelta(days=1), Scope(), Publish(), NOW, name="later")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "later")
    commit(inst.root, "instance", NOW)
    assert _due(inst.root, workflow_env) == "benchmarks=\n"

    # In force since an hour ago: due.
    flip(inst.root, "soohak", now - timedelta(hours=1), Scope(), Publish(), NOW, name="now")
    for m in ("m1", "m3"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "now")
    commit(inst.root, "release now", NOW + timedelta(hours=1))
    assert _due(inst.root, workflow_env) == "benchmarks=soohak\n"

    env = dict(workflow_env, BENCHMARKS="soohak", SEALBOARD_IDENTITY=(tmp_path / "inst-keys" / "identity.txt").read_text())
    result = _run(_step("Publish the identity")["run"], inst.root, env)
    assert result.returncode == 0, result.stderr
    published = inst.root / "keys" / "released" / "soohak-test-1.txt"
    assert load_identity(published.read_bytes(), "published").recipients == (inst.identity.recipient,)
    assert _due(inst.root, workflow_env) == "benchmarks=\n", "a published identity is not due again"
    result = _run(_step("Check what the published identity opens")["run"], inst.root, workflow_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "soohak: the published identity opens dataset test-1; all 18 item(s) match their commitments" in result.stdout

    pr_step = _step("Open a pull request")["run"]
    result = _run(pr_step, inst.root, workflow_env)
    assert result.returncode == 0, result.stderr
    remote = workflow_env["FAKE_REMOTE"]
    files = subprocess.run(
        ["git", "--git-dir", remote, "show", "--name-only", "--format=%s", "sealboard/publish-identity/soohak-test-1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert files[-1] == "keys/released/soohak-test-1.txt" and "Publish the embargo identity of soohak-test-1" in " ".join(files)
    prs = Path(workflow_env["FAKE_PRS"]).read_text().splitlines()
    assert len(prs) == 1 and "--head sealboard/publish-identity/soohak-test-1" in prs[0] and "--base main" in prs[0]

    # The next scheduled run (a fresh checkout of main, the pull request not merged yet):
    # publishes again, but the branch exists, so no second pull request.
    subprocess.run(["git", "-C", str(inst.root), "switch", "-q", "main"], check=True)
    assert _due(inst.root, workflow_env) == "benchmarks=soohak\n"
    assert _run(_step("Publish the identity")["run"], inst.root, env).returncode == 0
    result = _run(pr_step, inst.root, workflow_env)
    assert result.returncode == 0, result.stderr
    assert "waits for maintainers" in result.stdout
    assert len(Path(workflow_env["FAKE_PRS"]).read_text().splitlines()) == 1


LOCK = WORKFLOWS.parents[1] / "requirements" / "build.txt"
PIP_INSTALL = re.compile(r"python -m pip install (?P<args>.*)")


def _lock() -> dict[str, tuple[str, list[str]]]:
    """requirements/build.txt as name -> (pinned version, hashes)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for entry in re.sub(r"\\\n\s*", " ", LOCK.read_text()).splitlines():
        entry = entry.split("#", 1)[0].strip()
        if not entry:
            continue
        spec, *options = entry.split()
        name, _, version = spec.partition("==")
        assert version, f"{spec}: every requirement is pinned with =="
        out[re.sub(r"[-_.]+", "-", name).lower()] = (version, [o for o in options if o.startswith("--hash=sha256:")])
    return out


@pytest.mark.parametrize(("name", "prefix"), [("build.yml", ""), ("validate.yml", "trusted/")])
def test_install_is_hash_locked(name: str, prefix: str) -> None:
    """Nothing reaches the build (or the PR check) that the lock does not pin by hash."""
    jobs = load(name)["jobs"]
    for job_id, job in jobs.items():
        installs = [m["args"] for s in job["steps"] for m in PIP_INSTALL.finditer(s.get("run", ""))]
        if job_id in ("deploy", "attest"):
            assert installs == [], f"the {job_id} job installs nothing"
            continue
        assert installs == [
            f"--require-hashes --no-deps -r {prefix}requirements/build.txt",
            f"--no-deps --no-build-isolation --no-index {'./trusted' if prefix else '.'}",
        ], job_id


def test_lock_pins_every_dependency_by_hash() -> None:
    from packaging.requirements import Requirement

    lock = _lock()
    assert all(hashes for _, hashes in lock.values()), [n for n, (_, h) in lock.items() if not h]
    pyproject = tomllib.loads((WORKFLOWS.parents[1] / "pyproject.toml").read_text())
    # Labs install this same lock to import harness logs: the importers extra is in it too.
    needed = [
        *pyproject["project"]["dependencies"],
        *pyproject["project"]["optional-dependencies"]["importers"],
        *pyproject["build-system"]["requires"],
    ]
    for text in needed:
        req = Requirement(text)
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        assert key in lock, f"{req.name} is a dependency but not in requirements/build.txt: run requirements/lock.sh"
        assert req.specifier.contains(lock[key][0]), f"{req.name}=={lock[key][0]} does not satisfy {req.specifier}"


# --- The record-attestation job -----------------------------------------------------------

RECORD_STEP = "Record the attestation (no secret)"


def test_record_attestation_job_shape() -> None:
    """After the build, on main, no environment and no secret; the build job uploads only the
    attestation and the data files; no expression is spliced into a shell line."""
    wf = load("build.yml")
    job = wf["jobs"]["record-attestation"]
    assert job["needs"] == "build" and job["if"] == "github.ref == 'refs/heads/main'" and "environment" not in job
    assert not mentions_secrets(job)
    upload = next(s for s in wf["jobs"]["build"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"] == {"name": "attestation", "path": "site/attestation\nsite/data\n"}
    download = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"] == {"name": "attestation", "path": "site"}
    names = [s.get("name", "") for s in job["steps"]]
    record, pr = job["steps"][names.index(RECORD_STEP)], job["steps"][names.index(RECORD_STEP) + 1]
    assert record["id"] == "record" and "sealboard record-attestation site --root ." in record["run"]
    assert pr["if"] == "steps.record.outputs.folder != ''" and set(pr["env"]) == {"GH_TOKEN", "FOLDER"}
    for s in job["steps"]:
        assert "${{" not in s.get("run", ""), s.get("name")
        if s.get("uses", "").startswith("actions/checkout@"):
            assert s["with"]["persist-credentials"] is False and s["with"]["fetch-depth"] == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_record_attestation_job_opens_one_pull_request_per_new_deploy(tmp_path: Path, workflow_env: dict[str, str]) -> None:
    """The job's shell for real: a signed deploy is recorded and proposed once; the same
    deploy again (the next scheduled run) records nothing."""
    from builder.attest.statement import canonical, sha256sums, statement, subjects_of
    from builder.trust.sshkeys import generate_ed25519, load_private_key
    from builder.trust.sshsig import NS_SITE, sign
    from tests.pipeline.test_admission import commit

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README.md").write_text("board\n")
    commit(repo, "start", datetime(2026, 3, 1, tzinfo=timezone.utc))
    site = repo / "site"  # where download-artifact puts it (git-ignored on a real board)
    (repo / ".gitignore").write_text("site/\n")
    (site / "data/b").mkdir(parents=True)
    (site / "data/b/full.json").write_text('{"rows": []}\n')
    (site / "data/index.json").write_text('{"benchmarks": [{"id": "b", "boards": [{"json": "data/b/full.json"}]}]}\n')
    subjects = subjects_of(site)
    data = canonical(
        statement(subjects, {"built": "2026-03-01T00:00:00Z", "benchmarks": [{"id": "b", "status": "embargoed"}], "rehearsal": None})
    )
    key = load_private_key(generate_ed25519("build")[0])
    (site / "attestation").mkdir()
    (site / "attestation/statement.json").write_bytes(data)
    (site / "attestation/statement.json.sig").write_text(sign(key, data, NS_SITE))
    (site / "attestation/SHA256SUMS").write_bytes(sha256sums(subjects))

    job = load("build.yml")["jobs"]["record-attestation"]
    names = [s.get("name", "") for s in job["steps"]]
    record, pr = job["steps"][names.index(RECORD_STEP)]["run"], job["steps"][names.index(RECORD_STEP) + 1]["run"]
    out = Path(workflow_env["GITHUB_OUTPUT"])
    out.write_text("")
    result = _run(record, repo, workflow_env)
    assert result.returncode == 0, result.stderr
    folder = out.read_text().strip().removeprefix("folder=")
    assert folder.startswith("attestations/20260301T000000Z-") and (repo / folder / "boards/b/full.json").is_file()
    result = _run(pr, repo, dict(workflow_env, FOLDER=folder))
    assert result.returncode == 0, result.stderr
    branch = f"sealboard/attestation/{Path(folder).name}"
    files = subprocess.run(
        ["git", "--git-dir", workflow_env["FAKE_REMOTE"], "show", "--name-only", "--format=", branch],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(files) == sorted(
        [f"{folder}/statement.json", f"{folder}/statement.json.sig", f"{folder}/boards/b/full.json", f"{folder}/index.json"]
    )  # a record keeps the deploy's index too
    assert len(Path(workflow_env["FAKE_PRS"]).read_text().splitlines()) == 1
    # Next run, the pull request merged: the same deploy shows nothing new, so nothing is recorded.
    subprocess.run(["git", "-C", str(repo), "switch", "-q", "main"], check=True)
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "--ff-only", branch], check=True)
    out.write_text("")
    assert _run(record, repo, workflow_env).returncode == 0
    assert out.read_text() == "folder=\n"
