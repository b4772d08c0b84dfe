"""Hostile round 4, class 4 (issue 44): the audit trusts only what the build key signed.

A recorded deploy is whole or it is a finding: a recording pull request that leaves out a
board copy is refused by ``validate``; after merge, a record whose board copy is gone,
whose statement was edited, swapped for another deploy's signed statement, emptied of its
boards, or deleted outright is reported by ``sealboard audit`` with its reason and exit 1,
and the snapshot pages list it as incomplete or gone, never as a whole record. Each case
works on a copy of the package's one demo with history (the ``history`` fixture); the
control is the honest history, which audits as agree with no finding.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.attest.record import folder_name
from builder.attest.snapshots import snapshots
from builder.attest.statement import canonical, parse
from builder.audit.run import check_history
from builder.cli import main
from builder.pipeline.build import build, load_build_key
from builder.release.pages import site_release_pages
from builder.trust.registry_format import format_time, parse_time
from builder.trust.sshsig import NS_SITE, sign
from builder.validate.pr import FAILED, REVIEW, validate

pytestmark = pytest.mark.slow  # every case works on the demo with history (one whole-site build)

BOARD = "boards/kcsat-ml/full.json"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


def _copy(root: Path, tmp_path: Path) -> Path:
    out = tmp_path / "repo"
    shutil.copytree(root, out, symlinks=True)  # .git included: the audit reads the history too
    return out


def _commit(root: Path, message: str) -> str:
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=maintainer", "-c", "user.email=m@example.invalid", "commit", "-q", "-m", message)
    return _git(root, "rev-parse", "HEAD")


def _later_deploy(
    root: Path, source: str, *, status: str | None = None, recorded: list[str] | None = None, leave_out: str | None = None
) -> str:
    """A later deploy of the same commit, signed with the demo's real build key, recorded in
    the folder its statement names: kcsat-ml's status set to ``status``, the signed chain set
    to ``recorded``, the copy ``leave_out`` not kept. Returns the folder name."""
    folder = root / "attestations" / source
    st = orjson.loads((folder / "statement.json").read_bytes())
    st["predicate"]["built"] = format_time(parse_time(st["predicate"]["built"], "t", "built") + timedelta(hours=6))
    for b in st["predicate"]["benchmarks"]:
        if status is not None and b["id"] == "kcsat-ml":
            b["status"] = status
    if recorded is not None:
        st["predicate"]["recorded"] = recorded
    statement = canonical(st)
    target = root / "attestations" / folder_name(parse(statement, "test"))
    shutil.copytree(folder, target)
    (target / "statement.json").write_bytes(statement)
    (target / "statement.json.sig").write_text(sign(load_build_key(root / "keys/demo/build_key", None), statement, NS_SITE))
    if leave_out is not None:
        (target / leave_out).unlink()
    return target.name


def _audit(root: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["audit", "--release", "kcsat-ml", "--root", str(root)])
    return result.exit_code, result.output


def _findings(root: Path) -> list[tuple[str, str]]:
    return [(f.record, f.reason) for f in check_history(root)[1]]


# --- the control -------------------------------------------------------------------------------


def test_the_honest_history_is_whole_and_audits_as_agree(history):
    whole, findings = check_history(history.root)
    assert findings == [] and [rec.name for rec, _ in whole] == [history.recorded.name]
    assert (history.recorded / "index.json").is_file()  # the deploy's data/index.json: which boards it showed
    signed = parse((history.site / "attestation/statement.json").read_bytes(), "test")
    assert signed.predicate["recorded"] == []  # the signed chain: the embargoed commit held no record yet
    code, out = _audit(history.root)
    assert code == 0 and "all agree" in out and "finding" not in out
    assert all(s.shown for s in snapshots(history.root))


# --- the recording pull request ----------------------------------------------------------------


def test_a_recording_pr_that_leaves_out_a_board_copy_is_refused(history, tmp_path):
    root = _copy(history.root, tmp_path)
    main_tip = _git(root, "rev-parse", "HEAD")
    _git(root, "checkout", "-q", "-b", "record-deploy")
    name = _later_deploy(root, history.recorded.name, status="released", recorded=[history.recorded.name], leave_out=BOARD)
    _commit(root, "Record the attestation of the released deploy")
    report = validate(root, main_tip, "HEAD", now=history.report.now)
    refused = [(p.path, p.reason) for p in report.problems if not p.review]
    assert report.status == FAILED and refused == [(f"attestations/{name}", "attestation-incomplete")]
    assert f"attestations/{name}/{BOARD}: is missing" in next(p.message for p in report.problems if not p.review)


def test_the_whole_recording_pr_is_only_for_maintainer_review(history, tmp_path):
    """The control: the same recording, every copy kept."""
    root = _copy(history.root, tmp_path)
    main_tip = _git(root, "rev-parse", "HEAD")
    _git(root, "checkout", "-q", "-b", "record-deploy")
    _later_deploy(root, history.recorded.name, status="released", recorded=[history.recorded.name])
    _commit(root, "Record the attestation of the released deploy")
    report = validate(root, main_tip, "HEAD", now=history.report.now)
    assert report.status == REVIEW and {p.reason for p in report.problems} == {"maintainer-review"}


# --- after merge: each manipulation is a finding, exit 1 ---------------------------------------


def test_a_deleted_board_copy_is_a_finding(history, tmp_path):
    root = _copy(history.root, tmp_path)
    name = history.recorded.name
    (root / "attestations" / name / BOARD).unlink()
    _commit(root, "drop a board copy")
    assert _findings(root) == [(name, "attestation-incomplete")]
    code, out = _audit(root)
    assert code == 1 and f"finding attestation-incomplete: attestations/{name}/{BOARD}: is missing" in out
    assert "all agree" not in out


def test_every_board_copy_deleted_is_a_finding(history, tmp_path):
    root = _copy(history.root, tmp_path)
    name = history.recorded.name
    shutil.rmtree(root / "attestations" / name / "boards")
    _commit(root, "drop the board copies")
    assert _findings(root) == [(name, "attestation-incomplete")]
    assert _audit(root)[0] == 1


def test_a_deleted_index_copy_is_a_finding(history, tmp_path):
    """Without the attested index, nothing says which boards the deploy showed."""
    root = _copy(history.root, tmp_path)
    name = history.recorded.name
    (root / "attestations" / name / "index.json").unlink()
    assert _findings(root) == [(name, "attestation-incomplete")]


def test_an_edited_statement_is_a_finding_whatever_it_claims(history, tmp_path):
    """Marked 'released', the deploy used to be skipped by the audit: no deploy, exit 0."""
    root = _copy(history.root, tmp_path)
    name = history.recorded.name
    path = root / "attestations" / name / "statement.json"
    st = orjson.loads(path.read_bytes())
    for b in st["predicate"]["benchmarks"]:
        b["status"] = "released"
    path.write_bytes(canonical(st))
    _commit(root, "mark the deploy released")
    assert _findings(root) == [(name, "attestation-bad-signature")]
    code, out = _audit(root)
    assert code == 1 and "not as the build key signed it" in out and "nothing to re-derive" not in out


def test_a_statement_swapped_for_another_deploys_is_a_finding(history, tmp_path):
    """Another deploy's statement, genuinely signed (kcsat-ml released), put in this record's folder."""
    root = _copy(history.root, tmp_path)
    name = history.recorded.name
    other = _later_deploy(root, name, status="released", recorded=[name])
    for file in ("statement.json", "statement.json.sig"):
        shutil.copy(root / "attestations" / other / file, root / "attestations" / name / file)
    shutil.rmtree(root / "attestations" / other)
    _commit(root, "swap the statement")
    assert _findings(root) == [(name, "attestation-misfiled")]
    code, out = _audit(root)
    assert code == 1 and f"holds the signed statement of deploy {other}" in out


def test_a_record_deleted_outright_is_found_in_the_first_parent_history(history, tmp_path):
    root = _copy(history.root, tmp_path)
    name = history.recorded.name
    shutil.rmtree(root / "attestations" / name)
    removed = _commit(root, "forget the embargoed deploy")
    assert _findings(root) == [(name, "attestation-record-deleted")]
    code, out = _audit(root)
    assert code == 1 and f"commit {removed[:12]} removed it" in out
    assert "no deploy was recorded" not in out  # what the audit said before: verdict none, exit 0


def test_a_record_missing_from_the_checkout_is_a_finding(history, tmp_path):
    root = _copy(history.root, tmp_path)
    shutil.rmtree(root / "attestations" / history.recorded.name)  # not committed: HEAD still holds it
    assert _findings(root) == [(history.recorded.name, "attestation-record-deleted")]
    assert "the checkout lacks it" in check_history(root)[1][0].message


def test_a_record_deleted_with_its_history_is_named_by_the_signed_chain(history, tmp_path):
    """History rewritten (a fresh repository): the later deploy's signed statement still names it."""
    root = _copy(history.root, tmp_path)
    first = history.recorded.name
    later = _later_deploy(root, first, status="released", recorded=[first])
    shutil.rmtree(root / "attestations" / first)
    shutil.rmtree(root / ".git")
    _git(root, "init", "-q", "-b", "main")
    _commit(root, "a history without the embargoed deploy")
    assert _findings(root) == [(first, "attestation-record-deleted")]
    assert f"the signed statement of {later} says it was recorded" in check_history(root)[1][0].message
    snaps = {s.name: s for s in snapshots(root)}
    assert snaps[first].problem is not None and snaps[first].problem.startswith("attestation-record-deleted:")
    assert snaps[later].shown


def test_a_shallow_clone_cannot_audit_deletions(history, tmp_path):
    clone = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{history.root}", str(clone))
    code, out = _audit(clone)
    assert code != 0 and "shallow clone" in out


# --- the snapshot pages ------------------------------------------------------------------------


def test_snapshot_pages_list_incomplete_and_deleted_records_as_such(history, tmp_path):
    root = _copy(history.root, tmp_path)
    first = history.recorded.name
    later = _later_deploy(root, first, status="released", recorded=[first], leave_out=BOARD)
    shutil.rmtree(root / "attestations" / first)
    snaps = {s.name: s for s in snapshots(root)}
    assert snaps[later].problem is not None and snaps[later].problem.startswith("attestation-incomplete:")
    assert not snaps[later].benchmarks
    pages = site_release_pages(build(root, tmp_path / "unused", render=False))
    index = pages["snapshots.md"]
    assert f"<code>attestations/{later}/</code> is incomplete (attestation-incomplete:" in index
    assert f"<code>attestations/{first}/</code> is gone (attestation-record-deleted:" in index
    assert not any(p.startswith(f"snapshots/{later}/") for p in pages)
    assert later not in pages["changelog.md"]


def test_a_board_copy_that_hashes_right_is_still_checked_against_the_signed_index(history, tmp_path):
    """The board list comes from the attested index, not from what the folder holds: a copy
    removed together with its line in a forged index fails on the index's digest."""
    root = _copy(history.root, tmp_path)
    folder = root / "attestations" / history.recorded.name
    index = orjson.loads((folder / "index.json").read_bytes())
    bench = next(b for b in index["benchmarks"] if b["id"] == "kcsat-ml")
    bench["boards"] = [b for b in bench["boards"] if b["json"] != "data/kcsat-ml/full.json"]
    forged = orjson.dumps(index)
    (folder / "index.json").write_bytes(forged)
    (folder / BOARD).unlink()
    assert hashlib.sha256(forged).hexdigest() not in (folder / "statement.json").read_text()
    assert _findings(root) == [(history.recorded.name, "attestation-file-changed")]
