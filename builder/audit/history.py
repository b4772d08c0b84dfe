"""Records deleted outright, found in git: the history maintainers control.

A deleted record leaves no folder for the audit to check. Two routes find it: the signed
chain (each statement names the records its commit held: builder.attest.record.unaccounted),
and, for the newest records no later statement names yet, git. On the first-parent history
of HEAD (the commits of the default branch itself, whatever the merge style) a deploy folder
that some commit removed and the tree does not hold again, or a folder HEAD holds but the
checkout lacks, is reported with ``attestation-record-deleted``.

A rewritten history (a force-push that drops the recording commit) is out of git's sight;
the chain still names every record any later signed deploy found.
"""

from __future__ import annotations

from pathlib import Path

from builder.attest.record import AUDITS, DIR, folders
from builder.errors import BuilderError
from builder.gitrepo.gitread import git_output


def _git(root: Path, *args: str) -> bytes:
    out = git_output(root, *args)
    if out is None:
        raise BuilderError(
            f"git {args[0]} failed: the recorded history cannot be read",
            where=str(root),
            reason="audit-git",
            hint="run the audit in a full clone of the board's repository (fetch-depth 0)",
        )
    return out


def deleted_records(root: Path) -> dict[str, str]:
    """Deploy folders the history once held that the checkout does not: folder -> where it went
    (the first-parent commit that removed it, or ``HEAD`` when only the checkout lacks it)."""
    if _git(root, "rev-parse", "--is-shallow-repository").strip() == b"true":
        raise BuilderError(
            "is a shallow clone: a deleted record would not show",
            where=str(root),
            reason="audit-git",
            hint="run the audit in a full clone of the board's repository (git fetch --unshallow)",
        )
    present = {p.name for p in folders(root)}
    gone: dict[str, str] = {}
    head = _git(root, "ls-tree", "-z", "--name-only", "HEAD", "--", f"{DIR}/").split(b"\0")
    for path in head:
        name = path.decode("utf-8", "surrogateescape").removeprefix(f"{DIR}/")
        if name and name != AUDITS and name not in present:
            gone[name] = "HEAD"
    log = _git(
        root,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--no-renames",
        "-z",
        "--format=%x01%H",
        "--diff-filter=D",
        "--name-only",
        "HEAD",
        "--",
        DIR,
    )
    commit = ""
    for token in log.split(b"\0"):
        token = token.strip(b"\n")
        if token.startswith(b"\x01"):
            commit = token[1:].decode()
            continue
        parts = token.decode("utf-8", "surrogateescape").split("/")
        if len(parts) >= 3 and parts[0] == DIR and parts[1] != AUDITS and parts[1] not in present:
            gone.setdefault(parts[1], commit)  # newest first: the commit that last removed it
    return gone
