"""The authorised build scans the checkout, not only its output (issue 21): decrypted items
anywhere git would carry them block publishing, naming the path."""

from __future__ import annotations

import subprocess

import orjson
import pytest

from builder.errors import LeakError
from builder.pipeline.build import build
from builder.scaffold.ignore import gitignore_text
from tests.factory import NOW, make_instance, results_for
from tests.pipeline.test_admission import commit

pytestmark = pytest.mark.slow  # builds sites


@pytest.fixture
def inst(tmp_path):
    inst = make_instance(tmp_path / "inst")
    inst.add_submission("acme", "run-1", results_for(inst.items))
    (inst.root / ".gitignore").write_text(gitignore_text())
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    commit(inst.root, "instance", NOW)
    return inst


def decrypted(inst) -> bytes:
    # What `age -d … > items.jsonl` writes: the items, canaries included.
    return b"".join(orjson.dumps(item) + b"\n" for item in inst.items)


def refused(inst, out):
    with pytest.raises(LeakError) as err:
        build(inst.root, out, identities=[inst.identity], now=NOW)
    assert err.value.reason == "plaintext-in-checkout"
    assert not out.exists()
    assert not (inst.root / ".sealboard" / "staged").exists()
    return err.value


def test_untracked_plaintext_outside_gitignore_blocks_publishing(inst, tmp_path):
    (inst.root / "notes").mkdir()
    (inst.root / "notes" / "copy.jsonl").write_bytes(decrypted(inst))
    err = refused(inst, tmp_path / "site")
    assert err.where == "notes/copy.jsonl"
    assert "of soohak item m000 found in the repository checkout" in str(err) and "git rm --cached notes/copy.jsonl" in err.hint
    assert inst.items[0]["canary"] not in str(err) + err.hint  # the path and the item, never the text


def test_a_pr_committing_one_question_is_caught(inst, tmp_path):
    # A lab's PR adds a note quoting one question (no canary): committed, so tracked.
    words = inst.items[3]["question"]["en"].split()
    (inst.root / "bundles" / "soohak" / "acme" / "NOTES.md").write_text("We found " + " ".join(words[2:12]) + " hard.\n")
    commit(inst.root, "lab notes", NOW)
    err = refused(inst, tmp_path / "site")
    assert err.where == "bundles/soohak/acme/NOTES.md" and "question text of soohak item" in str(err)


def test_ignored_plaintext_is_where_it_may_sit_until_forced_into_git(inst, tmp_path):
    (inst.root / "items.jsonl").write_bytes(decrypted(inst))  # the labs page's `age -d` target
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert report.timings["leak_scan_checkout_files"] > 5
    assert report.timings["leak_scan_bundles_files"] >= 3  # acme/run-1's folder, read before render instead
    subprocess.run(["git", "-C", str(inst.root), "add", "-f", "items.jsonl"], check=True)
    err = refused(inst, tmp_path / "site2")
    assert err.where == "items.jsonl"
    assert (tmp_path / "site" / "index.html").is_file()  # the earlier site stays as it was


def test_outside_git_the_whole_tree_is_scanned(tmp_path):
    inst = make_instance(tmp_path / "plain")
    inst.add_submission("acme", "run-1", results_for(inst.items))
    (inst.root / "items.jsonl").write_bytes(decrypted(inst))
    assert refused(inst, tmp_path / "site").where == "items.jsonl"


def test_public_build_has_nothing_to_scan_for(inst, tmp_path):
    (inst.root / "items.jsonl.bak").write_bytes(decrypted(inst))
    report = build(inst.root, tmp_path / "site", identities=[], now=NOW)
    assert report.timings.get("leak_scan_checkout_files", 0) == 0
