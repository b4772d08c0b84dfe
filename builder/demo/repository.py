"""The demo as a git repository: `sealboard demo` commits what it wrote (with two earlier
deploys recorded on the way: builder.demo.deploys).

A leaderboard lives in git (PRs, the build's admission times, the registry's history), so
the demo is one from the start. The commit is made with a fixed demo author and committer,
at the demo's own clock, so it works on a machine with no git identity configured.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

from builder.errors import BuilderError

AUTHOR = ("Sealboard demo", "demo@sealboard.invalid")


def _git(root: Path, *args: str, env: dict[str, str]) -> None:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, env=env, timeout=300)
    except OSError as exc:
        raise BuilderError(
            "git is needed to make the demo a repository, and it could not be run",
            where=str(root),
            hint="install git (https://git-scm.com) and run 'sealboard demo' again",
            reason="git-missing",
        ) from exc
    if proc.returncode != 0:
        raise BuilderError(
            f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}",
            where=str(root),
            hint="check that git works in this folder, then run 'sealboard demo' again",
            reason="git-failed",
        )


def _env(when: datetime) -> dict[str, str]:
    stamp = f"{int(when.timestamp())} +0000"
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": AUTHOR[0],
        "GIT_AUTHOR_EMAIL": AUTHOR[1],
        "GIT_COMMITTER_NAME": AUTHOR[0],
        "GIT_COMMITTER_EMAIL": AUTHOR[1],
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }


MESSAGE = "Sealboard demo: keys registry, three benchmarks, signed bundles and releases"


def commit_demo(root: Path, when: datetime, message: str = MESSAGE) -> None:
    """git init (branch main) and one commit of everything .gitignore lets in."""
    env = _env(when)
    _git(root, "init", "-q", "-b", "main", env=env)
    commit_more(root, when, message)


def commit_more(root: Path, when: datetime, message: str) -> None:
    """One more commit of everything .gitignore lets in (the demo with history: its releases)."""
    env = _env(when)
    _git(root, "add", "-A", env=env)
    _git(root, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message, env=env)
