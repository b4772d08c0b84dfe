"""Rebuild one past commit's boards of one benchmark with the released identity, in a
temporary git worktree, without the site generator (the audit compares data, not HTML).

The rebuild judges at the deploy's stamped time (its commit's time), when the benchmark was
still embargoed, so the Ladder, the small-cell rule and the disclosure audit decide as they
did then. It holds only the published embargo identity: a submission a lab kept private
(sealed to the never-published private results key) cannot be reopened and is left off
with ``sealed-private`` (ARCHITECTURE, "Which key opens what").
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from builder.bundles.sealing import NOT_REPRODUCIBLE
from builder.errors import BuilderError
from builder.pipeline.build import build
from builder.render.data import board_files
from builder.trust.seal import Identity


@dataclass(frozen=True)
class Rebuilt:
    boards: dict[str, bytes]  # "data/<bench>/<board>.json" -> bytes, as the build writes them
    private: frozenset[str]  # submissions left off as sealed-private (not re-derivable)
    status: str | None


def _git(root: Path, *args: str) -> None:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise BuilderError(
            f"git {args[0]} {args[1] if len(args) > 1 else ''} failed: {proc.stderr.strip()[:300]}",
            where=str(root),
            reason="audit-git",
            hint="run the audit in a full clone of the board's repository (fetch-depth 0)",
        )


def _submission(where: str) -> str | None:
    parts = where.split("/")
    return f"{parts[2]}/{parts[3]}" if len(parts) >= 4 and parts[0] == "bundles" else None


def rebuild(root: Path, commit: str, benchmark: str, identity: Identity, at: datetime) -> Rebuilt:
    scratch = Path(tempfile.mkdtemp(prefix="sealboard-audit-"))
    tree = scratch / "tree"
    try:
        _git(root, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        report = build(tree, scratch / "site", identities=[identity], now=at, render=False)
        state = next((s for s in report.benchmarks if s.config.id == benchmark), None)
        if state is None:
            return Rebuilt({}, frozenset(), None)
        _boards, files = board_files(state, report.synthetic, report.registry.version if report.registry else None)
        boards = {f"data/{rel}": data for rel, data in files.items() if rel.count("/") == 1 and rel.endswith(".json")}
        private = frozenset(s for r in report.rejections if r.reason == NOT_REPRODUCIBLE and (s := _submission(r.where)))
        return Rebuilt(boards, private, state.status)
    finally:
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True, timeout=120)
        shutil.rmtree(scratch, ignore_errors=True)
