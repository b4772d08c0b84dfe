"""The first-parent history of HEAD: the order maintainers gave the branch, and dates bounded by it.

What a build may believe about *when* something entered the branch comes from the branch's
own history, never from a date one contributor's commit carries:

- **Order** is a fact maintainers control: the first-parent chain of the default branch is
  the sequence of merges (and direct commits) they made, oldest first. "Admitted before the
  version was replaced" is decided by position on this chain (``position``), with no date
  in it at all (builder.pipeline.earlier_versions).
- **Dates** are commit metadata that whoever writes a commit sets. A merge commit GitHub or a
  maintainer writes carries the merger's clock; a pull request merged by fast-forward (or
  pushed directly) puts the lab's own commit on the chain with the committer date the lab
  chose. So a commit's date (``time``) is its committer date bounded by the chain:

  * never earlier than the date of its first parent (as bounded): a backdated commit is
    dated no earlier than the newest commit the branch already held when it landed;
  * a non-merge commit (what a fast-forward lands) never later than the next merge commit
    on the chain: a forward-dated commit cannot push the dates after it beyond the next
    merge a maintainer made.

  Only the lower bound matters for leniency: a key is judged at admission time, and a later
  time is the stricter judgement (an expired key stays expired; the build's clock caps it,
  builder.pipeline.admission). A merge commit is trusted for its date only because the
  merger wrote it; a lab's own merge commit fast-forwarded onto the branch is still held
  to its parent's date.

Without git, or outside a repository, nothing is known (every answer is None) and callers
fall back to the build's clock: never more lenient.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from builder.gitrepo.gitread import git_output


@dataclass(frozen=True)
class Step:
    commit: str
    position: int  # 0 = the oldest commit of the chain
    time: datetime  # committer date, bounded by the chain (see the module docstring)


def _steps(root: Path) -> dict[str, Step]:
    log = git_output(root, "log", "--first-parent", "--reverse", "--format=%H %ct %P", "HEAD")
    if log is None:
        return {}
    rows = []
    for line in log.decode().splitlines():
        commit, stamp, *parents = line.split()
        rows.append((commit, datetime.fromtimestamp(int(stamp), timezone.utc), len(parents) > 1))
    # Upper bound of a non-merge commit: the committer date of the next merge commit on the chain.
    caps: list[datetime | None] = [None] * len(rows)
    cap: datetime | None = None
    for i in range(len(rows) - 1, -1, -1):
        caps[i] = cap if not rows[i][2] else None
        if rows[i][2]:
            cap = rows[i][1]
    steps: dict[str, Step] = {}
    floor: datetime | None = None
    for i, (commit, own, _merge) in enumerate(rows):
        upper = caps[i]
        when = own if upper is None else min(own, upper)
        when = when if floor is None else max(when, floor)
        steps[commit] = Step(commit, i, when)
        floor = when
    return steps


class FirstParent:
    """HEAD's first-parent chain, read from git once, on first need."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._steps: dict[str, Step] | None = None

    def step(self, commit: str) -> Step | None:
        """The commit's place on the chain, or None when it is not on it (or git is absent)."""
        if self._steps is None:
            self._steps = _steps(self.root)
        return self._steps.get(commit)

    def position(self, commit: str) -> int | None:
        step = self.step(commit)
        return step.position if step else None

    def time(self, commit: str) -> datetime | None:
        step = self.step(commit)
        return step.time if step else None
