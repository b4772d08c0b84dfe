"""``sealboard demo --history``: the demo with a past, so the audit after release has
something to re-derive.

The demo is committed twice (builder.demo.instance, ``history=True``): every benchmark
embargoed, then the releases. Here the embargoed commit is deployed as the scheduled build
would have deployed it (authorised, signed with the demo's build key, in a worktree of its
own), its attestation recorded under ``attestations/`` and committed; then the audit of
KCSAT-ML (released in full, identity published) runs and its result is committed too, so
the demo's "Verify this release" page shows it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from builder.attest.record import record
from builder.audit.run import Audit, audit
from builder.demo.instance import BUILD_KEY
from builder.demo.repository import commit_more
from builder.errors import BuilderError
from builder.pipeline.build import build, load_build_key, load_identities
from builder.release.audit_record import write_audit

AUDITED = "kcsat-ml"  # the demo's benchmark released in full


def deploy_embargoed(root: Path, progress: Callable[[str], None] = lambda _m: None) -> Path:
    """Build HEAD~1 (the embargoed commit) signed, record its attestation, commit; return the folder."""
    scratch = Path(tempfile.mkdtemp(prefix="sealboard-demo-history-"))
    tree = scratch / "tree"
    try:
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", "-q", str(tree), "HEAD~1"], check=True,
                       capture_output=True, timeout=300)
        progress("Deploying the demo's embargoed commit (authorised, signed with the demo build key)")
        report = build(tree, scratch / "site", identities=load_identities(root / "keys/demo/identity.txt", None),
                       build_key=load_build_key(root / "keys/demo" / BUILD_KEY, None), progress=progress)
        written = record(scratch / "site", root)
        if written is None:
            raise BuilderError("the embargoed deploy was not recorded", where=str(root), reason="attestation-missing")
        commit_more(root, max(report.now, datetime.now(timezone.utc)), "Record the attestation of the embargoed deploy")
        return written
    finally:
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True, timeout=120)
        shutil.rmtree(scratch, ignore_errors=True)


def audit_released(root: Path, progress: Callable[[str], None] = lambda _m: None) -> Audit:
    """Audit the demo's fully released benchmark, record the result and commit it."""
    result = audit(root, AUDITED, progress=progress)
    write_audit(root, AUDITED, result.summary())
    commit_more(root, datetime.now(timezone.utc), f"Record the audit after release of {AUDITED}")
    return result
