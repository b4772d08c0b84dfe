"""Each recorded deploy's boards, as they stood: what the site's snapshot pages show.

A snapshot is a deploy folder under ``attestations/`` (builder.attest.record), believed
only once the record is whole as the build key signed it (``check_complete``: the statement
verifies against the registry's build key, sits in the folder it names, and every board
copy the deploy showed is there and hashes to its signed digest). attestations/ is a folder
any pull request can touch, so a folder that fails is listed with its reason and shows
nothing: a forged, edited or incomplete record never reaches a page as if it were whole. A
record deleted outright is listed too, from the signed chain of the records after it
(``predicate.recorded``). One bad folder never hides the others.

Per benchmark, a deploy whose boards of that benchmark are byte-identical to the previous
shown deploy's points at that earlier snapshot (``same_as``) instead of repeating it: a
deploy is recorded when *any* benchmark changed, and the site should not grow a page per
benchmark per deploy for boards that did not move.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.attest.record import DIR, Recorded, check_complete, deleted, folders, read_recorded, recorded_board, unaccounted
from builder.attest.statement import AttestationError
from builder.errors import BuilderError
from builder.strict import loads_json

BOARD_KEYS = ("board", "title", "metrics", "rows")  # what a snapshot page reads of a board
SAFE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")  # a benchmark id, as config ids are: it becomes a page path


@dataclass(frozen=True)
class BenchmarkSnapshot:
    id: str
    status: str  # the benchmark's status in the signed statement: embargoed | partial | released
    boards: tuple[dict[str, Any], ...]  # parsed board copies, in data/index.json's order
    digest: str  # over the board copies' attested digests: equal digests, equal boards
    same_as: str | None = None  # an earlier snapshot folder with these very boards


@dataclass(frozen=True)
class Snapshot:
    name: str  # the folder under attestations/
    built: str | None
    commit: str | None
    registry_version: int | None
    benchmarks: tuple[BenchmarkSnapshot, ...] = ()
    problem: str | None = None  # why nothing of it is shown (reason: message)
    missing: tuple[str, ...] = field(default=())  # benchmarks whose boards the record does not hold

    @property
    def shown(self) -> bool:
        return self.problem is None


def _read(root: Path, rec: Recorded) -> Snapshot:
    """The snapshot of one record: its boards when it is whole (check_complete), else why not."""
    pred = rec.statement.predicate
    base = Snapshot(rec.name, _str(pred.get("built")), _str(pred.get("commit")), rec.statement.registry_version)
    try:
        listed = check_complete(root, rec)
    except AttestationError as exc:
        return _refused(base, _why(exc))
    subjects = {s.name: s.sha256 for s in rec.statement.subjects}
    benches, missing = [], []
    for entry in pred.get("benchmarks") or []:
        bench, status = _str(entry.get("id")), _str(entry.get("status"))
        if bench is None or status is None or not SAFE_ID.fullmatch(bench):
            continue
        boards, digests = [], []
        for name in listed.get(bench, []):
            copy = recorded_board(root, rec, name) or b""  # present and attested: check_complete
            board = loads_json(copy, f"{DIR}/{rec.name}/boards/{name.removeprefix('data/')}")
            if not isinstance(board, dict) or any(k not in board for k in BOARD_KEYS):
                continue  # signed as shown, but not a board a snapshot page can read
            boards.append(board)
            digests.append(f"{name} {subjects[name]}")
        if not boards:
            missing.append(bench)  # the deploy showed no board of it (nothing scored yet)
            continue
        digest = hashlib.sha256("\n".join(digests).encode()).hexdigest()
        benches.append(BenchmarkSnapshot(bench, status, tuple(boards), digest))
    return Snapshot(base.name, base.built, base.commit, base.registry_version, tuple(benches), None, tuple(missing))


def _refused(base: Snapshot, problem: str) -> Snapshot:
    return Snapshot(base.name, base.built, base.commit, base.registry_version, problem=problem)


def _why(exc: BuilderError) -> str:
    where = f"{exc.where}: " if exc.where else ""
    return f"{exc.reason or 'attestation-bad-statement'}: {where}{exc.message}"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def snapshots(root: Path) -> list[Snapshot]:
    """Every recorded deploy, oldest first, verified; each benchmark's unchanged boards point
    at the earlier snapshot that first showed them."""
    out: list[Snapshot] = []
    readable: list[Recorded] = []
    first_shown: dict[tuple[str, str], str] = {}  # (benchmark, digest) -> folder
    for folder in folders(root):
        try:
            rec = read_recorded(folder)
            readable.append(rec)
            snap = _read(root, rec)
        except BuilderError as exc:  # unreadable statement or board copy: listed, not shown
            snap = Snapshot(folder.name, None, None, None, problem=_why(exc))
        benches = []
        for b in snap.benchmarks:
            earlier = first_shown.setdefault((b.id, b.digest), snap.name)
            benches.append(b if earlier == snap.name else BenchmarkSnapshot(b.id, b.status, b.boards, b.digest, same_as=earlier))
        out.append(Snapshot(snap.name, snap.built, snap.commit, snap.registry_version, tuple(benches), snap.problem, snap.missing))
    # A record deleted outright leaves no folder to list: the signed chain of later records names it.
    for name, by in sorted(unaccounted(root, readable).items()):
        out.append(Snapshot(name, None, None, None, problem=_why(deleted(name, f"the signed statement of {by} says it was recorded"))))
    return sorted(out, key=lambda snap: snap.name)
