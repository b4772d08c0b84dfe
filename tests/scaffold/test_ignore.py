"""Every plaintext path Sealboard or its docs write is ignored by git: in an `init`
repository, in the demo and in the project itself (issue 21)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from builder.scaffold.ignore import gitignore_text

ROOT = Path(__file__).resolve().parents[2]

# Written by: the labs page's `age -d … > items.jsonl` (root or any folder), `sealboard
# import` (results.jsonl, run.yaml in the current folder), `build --as-of` (older default
# rehearsal/), the build's staging and output, identity files.
PLAINTEXT = (
    "items.jsonl",
    "lab/items.jsonl",
    "soohak.items.jsonl",
    "results.jsonl",
    "runs/acme/results.jsonl",
    "run.yaml",
    "runs/run.yaml",
    "transcripts.jsonl.gz",
    "rehearsal/index.html",
    ".sealboard/staged/a.md",
    "site/data/index.json",
    "identity.txt",
    "embargo-identity.txt",
)
KEPT = (
    "bundles/soohak/acme/run-1/results.jsonl.age",
    "bundles/soohak/acme/run-1/manifest.json",
    "keys/registry/v0001.yaml",
    "leaderboards/soohak.yaml",
    "site_src/index.md",
    "keys/access/soohak/1.0/acme.jsonl.age",
)


def ignored(repo: Path, paths: tuple[str, ...]) -> set[str]:
    proc = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", "--stdin"], input="\n".join(paths), capture_output=True, text=True
    )
    assert proc.returncode in (0, 1), proc.stderr
    return set(proc.stdout.split())


@pytest.mark.parametrize("source", ["scaffold", "project"])
def test_plaintext_is_ignored_and_the_repository_is_not(tmp_path, source):
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    text = gitignore_text() if source == "scaffold" else (ROOT / ".gitignore").read_text()
    (repo / ".gitignore").write_text(text)
    assert ignored(repo, PLAINTEXT) == set(PLAINTEXT)
    assert ignored(repo, KEPT) == set()
