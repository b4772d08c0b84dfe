"""The one time a build stamps (builder.pipeline.source_time): --as-of, then
SOURCE_DATE_EPOCH, then the commit time of the checkout (a real git commit), then the clock,
which the output then names; a malformed SOURCE_DATE_EPOCH is refused, never ignored."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from builder.errors import BuilderError
from builder.pipeline.source_time import AS_OF, CLOCK, COMMIT, SOURCE_DATE_EPOCH, commit_time, source_time

CLOCK_NOW = datetime(2026, 12, 1, 12, 34, 56, 789000, tzinfo=timezone.utc)
COMMITTED = 1767225600  # 2026-01-01T00:00:00Z


def commit(root: Path, epoch: int) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_AUTHOR_DATE": f"{epoch - 3600} +0000",
        "GIT_COMMITTER_DATE": f"{epoch} +0200",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    (root / "f.txt").write_text("x\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "-c", "commit.gpgsign=false", "commit", "-q", "-m", "c"], check=True, env=env)


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    commit(root, COMMITTED)
    return root


def test_the_commit_time_of_head_is_the_committer_time_in_utc(repo):
    # The committer's time (not the author's), whatever the committer's zone.
    assert commit_time(repo) == datetime(2026, 1, 1, tzinfo=timezone.utc)
    found = source_time(repo, clock=CLOCK_NOW, environ={})
    assert (found.at, found.source, found.epoch) == (datetime(2026, 1, 1, tzinfo=timezone.utc), COMMIT, COMMITTED)


def test_an_instance_in_a_subfolder_takes_its_repositorys_commit(repo):
    sub = repo / "instance"
    sub.mkdir()
    assert source_time(sub, clock=CLOCK_NOW, environ={}).source == COMMIT


def test_source_date_epoch_wins_over_the_commit(repo):
    found = source_time(repo, clock=CLOCK_NOW, environ={"SOURCE_DATE_EPOCH": "1700000000"})
    assert (found.at, found.source) == (datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc), SOURCE_DATE_EPOCH)


def test_an_empty_source_date_epoch_counts_as_unset(repo):
    assert source_time(repo, clock=CLOCK_NOW, environ={"SOURCE_DATE_EPOCH": ""}).source == COMMIT


def test_a_rehearsal_is_stamped_with_its_as_of_time(repo):
    as_of = datetime(2027, 1, 15, 9, 0, 0, 500, tzinfo=timezone.utc)
    found = source_time(repo, clock=CLOCK_NOW, as_of=as_of, environ={"SOURCE_DATE_EPOCH": "1700000000"})
    assert (found.at, found.source) == (datetime(2027, 1, 15, 9, 0, tzinfo=timezone.utc), AS_OF)


def test_outside_git_the_clock_is_used_and_named(tmp_path):
    found = source_time(tmp_path, clock=CLOCK_NOW, environ={})
    assert (found.at, found.source) == (datetime(2026, 12, 1, 12, 34, 56, tzinfo=timezone.utc), CLOCK)


def test_a_repository_without_a_commit_uses_the_clock(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert commit_time(tmp_path) is None
    assert source_time(tmp_path, clock=CLOCK_NOW, environ={}).source == CLOCK


@pytest.mark.parametrize("value", ["yesterday", "-1", "1.5", "1e9", " 1700000000", "0x10", "1" * 13, "999999999999"])
def test_a_malformed_source_date_epoch_is_refused(repo, value):
    with pytest.raises(BuilderError) as err:
        source_time(repo, clock=CLOCK_NOW, environ={"SOURCE_DATE_EPOCH": value})
    assert err.value.reason == "bad-source-date-epoch"
    assert err.value.where == "SOURCE_DATE_EPOCH" and "integer" in (err.value.hint or "")


def test_the_generator_child_is_given_the_stamped_time():
    # mkdocs dates the sitemap and sitemap.xml.gz's header by it; the build's own value wins
    # over one inherited from the caller's environment.
    from builder.render.generator import scrubbed_env

    env = scrubbed_env({"PATH": "/usr/bin", "SOURCE_DATE_EPOCH": "1"}, source_date_epoch=COMMITTED)
    assert env["SOURCE_DATE_EPOCH"] == str(COMMITTED)
    assert scrubbed_env({"PATH": "/usr/bin"}).get("SOURCE_DATE_EPOCH") is None
