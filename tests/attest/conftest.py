"""One demo with history for every attestation and audit test (one full site build).

``write_demo(history=True)`` commits the demo with every benchmark embargoed, then its
releases (KCSAT-ML in full, with its identity published). The embargoed commit is built
authorised and signed with the demo's build key, in a worktree of its own, exactly as the
scheduled build would have deployed it; its attestation is recorded under attestations/ and
committed, so the audit after release has one deploy of KCSAT-ML under embargo to re-derive.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from builder.attest.record import record
from builder.demo.instance import BUILD_KEY, write_demo
from builder.demo.repository import commit_more
from builder.pipeline.build import build, load_build_key, load_identities
from builder.report.records import BuildReport
from tests.shared_demo import built_once, count_demo_build


@dataclass(frozen=True)
class History:
    root: Path  # the demo repository (HEAD: releases + the recorded attestation)
    site: Path  # the signed deploy of the embargoed commit
    report: BuildReport
    recorded: Path


@pytest.fixture(scope="package")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    # Built once per run by the first xdist worker to need it (tests/shared_demo.py); the
    # fields travel as a dict, so unpickling needs no class from this conftest.
    return History(**built_once(tmp_path_factory, "attest", _write_history))


def _write_history(base: Path) -> dict[str, Any]:
    root = base / "demo"
    made = write_demo(root, history=True)
    embargoed = base / "embargoed"
    subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", "-q", str(embargoed), "HEAD~1"], check=True)
    report = build(
        embargoed,
        base / "site",
        identities=load_identities(root / "keys/demo/identity.txt", None),
        build_key=load_build_key(root / "keys/demo" / BUILD_KEY, None),
    )
    count_demo_build("history-embargoed")
    # What `sealboard demo --history` does (builder.demo.history.deploy_embargoed), kept here
    # step by step so the tests also hold the deployed site and its build report.
    written = record(base / "site", root)
    assert written is not None
    commit_more(root, report.now + timedelta(minutes=1), "Record the attestation of the embargoed deploy")
    assert made["releases"]
    return {"root": root, "site": base / "site", "report": report, "recorded": written}
