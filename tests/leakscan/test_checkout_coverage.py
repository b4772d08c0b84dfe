"""The checkout scan covers what git would carry (issue 44, class 6): the index and the
history reachable from HEAD, not only the working tree, with the disguises the lab-text scan
folds; each blob is read once."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest

from builder.errors import LeakError
from builder.leakscan.scan import build_needles
from builder.pipeline.checkout import git_blobs, scan_checkout

QUESTION = "Compute the number of lattice paths from the origin to the point seven eleven avoiding every diagonal step twice"
CANARY = "CANARY-q17-5d0c2e"
NEEDLES = build_needles([("soohak item q17", CANARY, [QUESTION])])
WINDOW = " ".join(QUESTION.split()[2:10])
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, env=ENV, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# A leaderboard\n\nNothing embargoed here.\n")
    (root / ".gitignore").write_text(".sealboard/\nsite/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def refused(root: Path) -> LeakError:
    with pytest.raises(LeakError) as err:
        scan_checkout(root, NEEDLES)
    assert err.value.reason == "plaintext-in-checkout"
    assert CANARY not in str(err.value) + (err.value.hint or "") and WINDOW not in str(err.value)
    return err.value


def test_control_a_clean_history_passes_and_each_blob_is_read_once(repo: Path) -> None:
    (repo / "docs" / "index.md").write_text("# A leaderboard\n\nStill nothing embargoed.\n")
    git(repo, "commit", "-q", "-am", "edit")
    files, _, _ = scan_checkout(repo, NEEDLES)
    # working tree: .gitignore, docs/index.md; history adds only the first index.md
    assert files == 3


def test_text_committed_then_deleted_at_the_tip_is_in_every_clone(repo: Path) -> None:
    (repo / "notes.md").write_text(f"We found: {WINDOW}.\n")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "oops")
    git(repo, "rm", "-q", "notes.md")
    git(repo, "commit", "-q", "-m", "remove it")
    assert not (repo / "notes.md").exists()
    err = refused(repo)
    assert err.where.startswith("notes.md (blob ") and err.where.endswith("in history (reachable from HEAD))")
    assert "question text of soohak item q17 found in the git history reachable from HEAD" in str(err)
    assert "filter-repo" in (err.hint or "")


def test_text_staged_then_deleted_from_disk_is_in_the_next_commit(repo: Path) -> None:
    (repo / "items.jsonl").write_text(f'{{"canary": "{CANARY}"}}\n')
    git(repo, "add", "items.jsonl")
    (repo / "items.jsonl").unlink()
    err = refused(repo)
    assert err.where.startswith("items.jsonl (blob ") and "in the index" in err.where
    assert "canary of soohak item q17 found in the git index" in str(err)
    assert "git rm --cached items.jsonl" in (err.hint or "")


def test_text_staged_then_rewritten_on_disk_is_in_the_next_commit(repo: Path) -> None:
    (repo / "docs" / "index.md").write_text(f"{WINDOW}\n")
    git(repo, "add", "docs/index.md")
    (repo / "docs" / "index.md").write_text("# A leaderboard\n")
    assert "in the index" in refused(repo).where


DISGUISES = {
    "base64": base64.b64encode(WINDOW.encode()).decode(),
    "base64-in-mime-lines": "\n".join(base64.b64encode(WINDOW.encode()).decode()[i : i + 40] for i in range(0, 120, 40)),
    "one-word-per-line": "\n".join(WINDOW.split()),
    "reversed-words": " ".join(reversed(WINDOW.split())),
    "invisible-separators-between-letters": "\u2063".join(WINDOW),
    "spaced-letters": "  ".join(" ".join(w) for w in WINDOW.split()),
}


@pytest.mark.parametrize("text", DISGUISES.values(), ids=DISGUISES.keys())
def test_disguised_text_in_history_is_caught(repo: Path, text: str) -> None:
    (repo / "docs" / "note.md").write_text(text + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "note")
    git(repo, "rm", "-q", "docs/note.md")
    git(repo, "commit", "-q", "-m", "gone")
    assert refused(repo).where.startswith("docs/note.md (blob ")


def test_ignored_and_build_paths_in_history_follow_the_working_tree_rule(repo: Path) -> None:
    # The build's own staging (.sealboard/) is left out in history as in the working tree.
    (repo / ".sealboard").mkdir()
    (repo / ".sealboard" / "x.md").write_text(WINDOW)
    git(repo, "add", "-f", ".sealboard/x.md")
    git(repo, "commit", "-q", "-m", "staging")
    assert [b.path for b in git_blobs(repo)] == [".gitignore", "docs/index.md"]
    scan_checkout(repo, NEEDLES)


def test_a_repository_without_commits_scans_its_index(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.md").write_text(WINDOW)
    git(root, "add", "a.md")
    (root / "a.md").unlink()
    assert "in the index" in refused(root).where


def test_lab_files_found_clean_before_render_are_not_scanned_plainly_again(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The publish stage's checkout scan skips the plain scan of a blob the bundle-folder scan
    (before render) found clean with the same needles, bytes and name; it still reads it as
    lab text (reversed words: only the folded reading sees them), and a leaking version of
    the file in history is still named."""
    from builder.leakscan.scan import Needles
    from builder.pipeline.checkout import refuse_leaking_bundles

    notes = repo / "bundles" / "soohak" / "lab-x" / "run-1" / "notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(f"We found: {WINDOW}.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a lab's note")
    notes.write_text(" ".join(reversed(WINDOW.split())) + "\n")
    git(repo, "commit", "-q", "-am", "reworded")
    before = refuse_leaking_bundles(repo, repo / "site", [], [], NEEDLES)
    assert before.rejections == [] and len(before.clean) == 1  # the plain scan misses reversed words
    plain: list[bytes] = []
    scan_file = Needles.scan_file
    monkeypatch.setattr(Needles, "scan_file", lambda self, data, name: plain.append(data) or scan_file(self, data, name))
    _, _, in_labs = scan_checkout(repo, NEEDLES, clean=before.clean)
    assert notes.read_bytes() not in plain and f"We found: {WINDOW}.\n".encode() in plain
    # both versions named: the one in HEAD by the folded reading, the old one by the plain scan
    assert sorted(label for _, label in in_labs) == ["question text of soohak item q17"] * 2
    assert all(where.startswith("bundles/soohak/lab-x/run-1/notes.md (blob ") for where, _ in in_labs)
    # the control: without what the earlier scan found, every blob is scanned plainly
    plain.clear()
    assert scan_checkout(repo, NEEDLES)[2] == in_labs and notes.read_bytes() in plain
