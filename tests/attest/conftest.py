"""One demo with history for every attestation and audit test.

``write_demo(history=True)`` commits the demo with every benchmark embargoed, then its
releases (KCSAT-ML in full, with its identity published). The embargoed commit is deployed
authorised and signed with the demo's build key, in a worktree of its own, as the demo's
earlier deploys are (builder.demo.deploys.deploy_data: the data contract the attestation
records, not the pages); its attestation is recorded under attestations/ and committed, so
the audit after release has one deploy of KCSAT-ML under embargo to re-derive. The tests of
a whole signed site (test_verify_site.py, test_dsse.py) read the shared demo site instead,
which is built and signed the same way with every page: a run builds the demo's whole site
one time fewer.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from builder.attest.record import record
from builder.demo.deploys import deploy_data
from builder.demo.instance import BUILD_KEY, write_demo
from builder.demo.repository import commit_more
from builder.report.records import BuildReport
from tests.shared_demo import built_once


@dataclass(frozen=True)
class History:
    root: Path  # the demo repository (HEAD: releases + the recorded attestation)
    site: Path  # the signed deploy (data contract) of the embargoed commit
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
    report = deploy_data(
        embargoed,
        base / "site",
        identity_file=root / "keys/demo/identity.txt",
        build_key=root / "keys/demo" / BUILD_KEY,
        now=datetime.now(timezone.utc),
    )
    # What `sealboard demo --history` does (builder.demo.history.deploy_embargoed), kept here
    # step by step so the tests also hold the deploy and its build report; that command builds
    # every page, the audit and snapshot tests need only the data contract it records.
    written = record(base / "site", root)
    assert written is not None
    commit_more(root, report.now + timedelta(minutes=1), "Record the attestation of the embargoed deploy")
    assert made["releases"]
    return {"root": root, "site": base / "site", "report": report, "recorded": written}
