"""Each recorded deploy's boards, as they stood: what the site's snapshot pages show.

A snapshot is a deploy folder under ``attestations/`` (builder.attest.record), believed
only once its statement verifies against the registry's build key (``check_recorded``) and
every board copy it holds hashes to the digest that statement signed. attestations/ is a
folder any pull request can touch, so a folder that fails either check is listed with its
reason and shows nothing: a forged or edited board never reaches a page. One bad folder
never hides the others.

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

from builder.attest.record import DIR, check_recorded, folder_name, folders, read_recorded, recorded_board
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


def _board_names(rec_subjects: dict[str, str], bench: str) -> list[str]:
    return sorted(n for n in rec_subjects if n.startswith(f"data/{bench}/") and n.count("/") == 2 and n.endswith(".json"))


def _read(root: Path, folder: Path) -> Snapshot:
    rec = read_recorded(folder)
    pred = rec.statement.predicate
    base = Snapshot(rec.name, _str(pred.get("built")), _str(pred.get("commit")), rec.statement.registry_version)
    try:
        check_recorded(root, rec)
    except AttestationError as exc:
        return _refused(base, _why(exc))
    if rec.name != folder_name(rec.statement):  # a copy under another name: the same deploy twice, or a made-up date
        return _refused(base, f"attestation-bad-statement: {DIR}/{rec.name} holds the statement of deploy {folder_name(rec.statement)}")
    subjects = {s.name: s.sha256 for s in rec.statement.subjects}
    benches, missing = [], []
    for entry in pred.get("benchmarks") or []:
        bench, status = _str(entry.get("id")), _str(entry.get("status"))
        if bench is None or status is None or not SAFE_ID.fullmatch(bench):
            continue
        boards, digests = [], []
        for name in _board_names(subjects, bench):
            copy = recorded_board(root, rec, name)
            if copy is None:
                continue  # a file of the benchmark that is not a board (submissions.json…), or not kept
            if hashlib.sha256(copy).hexdigest() != subjects[name]:
                return _refused(base, f"attestation-file-changed: {DIR}/{rec.name}: the copy of {name} is not the attested file")
            board = loads_json(copy, f"{DIR}/{rec.name}/boards/{name.removeprefix('data/')}")
            if not isinstance(board, dict) or any(k not in board for k in BOARD_KEYS):
                continue  # a data file beside the boards (commitments.json…): signed, but not a board
            boards.append(board)
            digests.append(f"{name} {subjects[name]}")
        if not boards:
            missing.append(bench)
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
    first_shown: dict[tuple[str, str], str] = {}  # (benchmark, digest) -> folder
    for folder in folders(root):
        try:
            snap = _read(root, folder)
        except BuilderError as exc:  # unreadable statement or board copy: listed, not shown
            snap = Snapshot(folder.name, None, None, None, problem=_why(exc))
        benches = []
        for b in snap.benchmarks:
            earlier = first_shown.setdefault((b.id, b.digest), snap.name)
            benches.append(b if earlier == snap.name else BenchmarkSnapshot(b.id, b.status, b.boards, b.digest, same_as=earlier))
        out.append(Snapshot(snap.name, snap.built, snap.commit, snap.registry_version, tuple(benches), snap.problem, snap.missing))
    return out
