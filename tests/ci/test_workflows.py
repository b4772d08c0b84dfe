"""The workflows in .github/workflows are security boundaries; these tests pin their logic.

The PR check must not be replaceable by the PR it judges (design, invariant 5): it runs on
``pull_request_target`` (GitHub then takes the workflow and the code from the base branch),
checks out only the base, fetches the PR as git objects, holds no secret and a read-only
token. The authorised build's secret is visible to its build step only; only the deploy job
may write Pages or mint an OIDC token. Every action is pinned by a full commit SHA.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
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


def test_build_secret_only_in_the_build_step() -> None:
    wf = load("build.yml")
    assert wf["permissions"] == {}, "no workflow-wide permissions; each job asks for its own"
    assert not mentions_secrets({k: v for k, v in wf.items() if k != "jobs"})
    holders = [(job, step.get("name")) for job, step in steps(wf) if mentions_secrets(step)]
    assert holders == [("build", "Build (verify, unseal, score, render, leak scan)")]
    build_step = next(step for _, step in steps(wf) if mentions_secrets(step))
    assert build_step["run"].startswith("sealboard build ")
    assert set(build_step["env"]) == {"SEALBOARD_IDENTITY"}
    for job_id, job in wf["jobs"].items():
        assert not mentions_secrets({k: v for k, v in job.items() if k != "steps"}), job_id


def test_pages_and_id_token_only_on_deploy() -> None:
    wf = load("build.yml")
    for job_id, job in wf["jobs"].items():
        perms = job.get("permissions", {})
        if job_id == "deploy":
            assert perms == {"pages": "write", "id-token": "write"}
            assert all("uses" in s and s["uses"].startswith("actions/deploy-pages@") for s in job["steps"])
        else:
            assert perms == {"contents": "read"}, job_id
            assert "pages" not in perms and "id-token" not in perms


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
    installs = [m["args"] for _, s in steps(load(name)) for m in PIP_INSTALL.finditer(s.get("run", ""))]
    assert installs == [
        f"--require-hashes --no-deps -r {prefix}requirements/build.txt",
        f"--no-deps --no-build-isolation --no-index {'./trusted' if prefix else '.'}",
    ]


def test_lock_pins_every_dependency_by_hash() -> None:
    from packaging.requirements import Requirement

    lock = _lock()
    assert all(hashes for _, hashes in lock.values()), [n for n, (_, h) in lock.items() if not h]
    pyproject = tomllib.loads((WORKFLOWS.parents[1] / "pyproject.toml").read_text())
    needed = [*pyproject["project"]["dependencies"], *pyproject["build-system"]["requires"]]
    for text in needed:
        req = Requirement(text)
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        assert key in lock, f"{req.name} is a dependency but not in requirements/build.txt: run requirements/lock.sh"
        assert req.specifier.contains(lock[key][0]), f"{req.name}=={lock[key][0]} does not satisfy {req.specifier}"
