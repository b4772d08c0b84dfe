"""The audit after release (issue 24, item 3) on the demo: KCSAT-ML was deployed under
embargo (the recorded, signed attestation of the package fixture), then released in full
with its identity published; `sealboard audit --release kcsat-ml` rebuilds that deploy's
commit with the published identity and re-derives every board cell it showed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import orjson
from click.testing import CliRunner

from builder.attest.record import folder_name
from builder.attest.statement import canonical, parse
from builder.audit.run import audit
from builder.cli import main
from builder.pipeline.build import build, load_build_key
from builder.release.audit_record import read_audit
from builder.release.pages import site_release_pages
from builder.trust.sshsig import NS_SITE, sign
from tests.shared_demo import demo_copy


def _copy(root: Path, tmp_path: Path) -> Path:
    return demo_copy(root, tmp_path / "repo")  # sealed files and git objects linked, the rest copied


def test_the_demo_audit_agrees_and_counts_private_submissions_apart(history, tmp_path):
    result = CliRunner().invoke(main, ["audit", "--release", "kcsat-ml", "--root", str(history.root), "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.output[result.output.index("{") :])
    assert report["verdict"] == "agree" and report["deploys"] == 1 and report["agree"] == 1
    deploy = report["deploy_results"][0]
    assert deploy["attestation"] == history.recorded.name and deploy["status"] == "embargoed"
    boards = {b["board"] for b in deploy["boards"]}
    assert "data/kcsat-ml/full.json" in boards and len(boards) == len(
        [b for b in history.report.benchmarks if b.config.id == "kcsat-ml"][0].boards
    )
    assert deploy["cells_agree"] > 1000 and deploy["cells_differ"] == 0
    # KCSAT-ML's demo has submissions kept private (sealed to the never-published private key):
    # their cells are counted as not re-derivable, never as agreeing.
    private = [b for b in history.report.benchmarks if b.config.id == "kcsat-ml"][0]
    kept = [b for b in private.bundles if not b.manifest.publish_results]
    assert deploy["private_rows"] == len(kept) > 0 and deploy["cells_unverified"] > 0
    # LiveMathematicianBench is only partly released: no published identity, so no audit yet.
    other = CliRunner().invoke(main, ["audit", "--release", "livemathematicianbench", "--root", str(history.root)])
    assert other.exit_code != 0 and "has no published identity" in other.output


def test_a_shown_number_that_the_data_does_not_give_is_found_cell_by_cell(history, tmp_path):
    """A deploy signed by the real build key that showed one number its data did not give:
    recorded whole, in the folder its statement names, beside the honest one."""
    root = _copy(history.root, tmp_path)
    source = root / "attestations" / history.recorded.name
    data = orjson.loads((source / "boards/kcsat-ml/full.json").read_bytes())
    row = data["rows"][0]
    metric = next(m for m, c in row["metrics"].items() if c.get("value") is not None)
    shown = row["metrics"][metric]["value"]
    row["metrics"][metric]["value"] = round(shown + 0.01, 6)
    new = orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"

    st = orjson.loads((source / "statement.json").read_bytes())
    for s in st["subject"]:
        if s["name"] == "data/kcsat-ml/full.json":
            s["digest"]["sha256"] = hashlib.sha256(new).hexdigest()
    statement = canonical(st)
    folder = root / "attestations" / folder_name(parse(statement, "test"))
    shutil.copytree(source, folder)
    (folder / "boards/kcsat-ml/full.json").write_bytes(new)
    (folder / "statement.json").write_bytes(statement)
    (folder / "statement.json.sig").write_text(sign(load_build_key(root / "keys/demo/build_key", None), statement, NS_SITE))
    result = audit(root, "kcsat-ml")
    assert result.verdict == "differs" and result.findings == []
    d = next(d for d in result.deploys if d.attestation == folder.name)
    assert d.verdict == "differs"
    cells = [c for b in d.boards if b.board == "data/kcsat-ml/full.json" for c in b.differ]
    assert cells == [
        {"submission": row["submission"], "metric": metric, "field": "value", "shown": row["metrics"][metric]["value"], "rebuilt": shown}
    ]
    cli = CliRunner().invoke(main, ["audit", "--release", "kcsat-ml", "--root", str(root)])
    assert cli.exit_code == 1 and f"data/kcsat-ml/full.json: {row['submission']} {metric} value: shown" in cli.output
    assert "1 of 2 differ" in cli.output


def test_a_doctored_record_is_not_audited_as_agreeing(history, tmp_path):
    root = _copy(history.root, tmp_path)
    board = root / "attestations" / history.recorded.name / "boards/kcsat-ml/full.json"
    board.write_bytes(board.read_bytes().replace(b'"rank": 1', b'"rank": 3', 1))  # without re-signing
    result = audit(root, "kcsat-ml")
    assert result.verdict == "incomplete" and not result.deploys
    assert [(f.reason, f.record) for f in result.findings] == [("attestation-file-changed", history.recorded.name)]
    assert "is not the attested data/kcsat-ml/full.json" in result.findings[0].message
    sig = root / "attestations" / history.recorded.name / "statement.json.sig"
    sig.write_text(sig.read_text().replace("A", "B", 3))
    assert audit(root, "kcsat-ml").findings[0].reason.startswith("attestation-bad-")


def test_the_released_site_shows_the_recorded_audit_and_it_is_not_read_as_a_deploy(history, tmp_path):
    root = _copy(history.root, tmp_path)
    result = CliRunner().invoke(main, ["audit", "--release", "kcsat-ml", "--root", str(root), "--record"])
    assert result.exit_code == 0, result.output
    recorded = read_audit(root, "kcsat-ml")
    assert recorded is not None and recorded["verdict"] == "agree" and recorded["deploys"] == 1
    assert recorded["sentence"].startswith("every number shown during the embargo, 1 deploy, re-derived from the released data: all agree")
    report = build(root, tmp_path / "unused", render=False)  # no secret: kcsat-ml is released (published identity)
    page = site_release_pages(report)["verify-release.md"]
    assert f"Audit after release: **{recorded['sentence']}**" in page
    assert page.count("Audit after release") == 1  # only the fully released benchmark
    # attestations/audits/ sits beside the deploy folders: the audit runs again after --record.
    # (One test with the one above since issue 39: each audit rebuilds the deploy, ~3 CPU-s.)
    again = CliRunner().invoke(main, ["audit", "--release", "kcsat-ml", "--root", str(root)])
    assert again.exit_code == 0 and "all agree" in again.output


def test_recording_again_is_a_no_op_when_nothing_new_is_shown(history):
    from builder.attest.record import record

    assert record(history.site, history.root) is None  # the same deploy: nothing new to record
