"""The demo is a git repository, and committing it changes no release state (issue 21).

Registry versions are dated by the commit that admitted them; before this fix a demo
committed now put its releases of a day ago before every registry version, so KCSAT-ML and
LiveMathematicianBench fell back to embargoed and KCSAT-ML's published identity was reported
as a broken embargo.
"""

from __future__ import annotations

import shutil
import subprocess
from datetime import datetime, timezone

import pytest

from builder.config import load_configs
from builder.demo.repository import MESSAGE, commit_demo
from builder.release.identity import published_identities
from builder.release.status import release_states
from builder.trust.registry import load_registry
from tests.shared_demo import demo_copy

NOW = datetime.now(timezone.utc).replace(microsecond=0)


def states(root):
    configs = load_configs(root)
    found = release_states(root, configs, load_registry(root, NOW), NOW)
    _, problems = published_identities(root, configs, found)
    summary = {b: (s.state, tuple((v.state, v.reason) for v in s.verdicts)) for b, s in found.items()}
    return summary, [str(p) for p in problems]


@pytest.fixture(scope="module")
def uncommitted(tmp_path_factory, demo_repo):
    """The session's demo (tests/conftest.py) as `write_demo(git=False)` leaves it: its files
    without a repository (a hard-linked copy; git replaces files, never writes into them)."""
    root = demo_copy(demo_repo, tmp_path_factory.mktemp("demo-git") / "demo")
    shutil.rmtree(root / ".git")
    return root


def test_release_states_are_the_same_once_committed(uncommitted):
    before, problems = states(uncommitted)
    assert problems == []
    assert {b: s for b, (s, _) in before.items()} == {
        "livemathematicianbench": "partly released",
        "kcsat-ml": "released",
        "soohak": "scheduled",
    }
    # The user's own `git init && git add -A && git commit`, at a later time.
    commit_demo(uncommitted, datetime.now(timezone.utc))
    after, problems = states(uncommitted)
    assert problems == []
    assert after == before


def test_sealboard_demo_writes_a_repository_without_its_private_keys(demo_repo):
    root = demo_repo  # write_demo's commits (the shared fixture amends the last with a site_url)
    log = subprocess.run(["git", "-C", str(root), "log", "--format=%s"], capture_output=True, text=True, check=True).stdout.splitlines()
    # Two earlier commits, each with its deploy recorded (builder.demo.deploys), then the rest.
    assert [line.split(" of ")[0] for line in reversed(log)] == [
        "Sealboard demo: the first 1 submission(s)",
        "Record the attestation",
        "Sealboard demo: the first 3 submission(s)",
        "Record the attestation",
        MESSAGE,
    ]
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    assert "keys/registry/v0002.yaml.sig" in tracked and "keys/demo/ada.pub" in tracked
    assert not [p for p in tracked if p.startswith("keys/demo/") and not p.endswith((".pub", "README.txt"))]
    assert subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True, check=True).stdout == ""
    summary, problems = states(root)
    assert problems == []
    assert summary["kcsat-ml"][0] == "released"
