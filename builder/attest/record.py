"""Each deploy's attestation, kept in the repository: ``attestations/<built>-<digest12>/``.

One folder per deploy (not per benchmark: one statement covers the whole site, every
benchmark's status in it), named by the stamped build time (``20261202T061500Z``) and the
first 12 hex digits of the statement's sha256, holding ``statement.json`` and its
``statement.json.sig`` exactly as the site published them, and ``boards/<benchmark>/<board>.json``:
the board files of every benchmark, as published (their sha256 is in the signed statement,
so a changed copy shows), and ``index.json``: the deploy's ``data/index.json``, which names
every board it showed (attested too, so the record's completeness is checked against what
the build key signed, not against what the folder happens to hold). So the history of what was shown is itself signed and public:
``sealboard audit`` re-derives the embargoed boards after a release, cell by cell, and the
site shows every recorded deploy's boards as a dated snapshot (builder.attest.snapshots).

A record is believed only whole (``check_complete``): its statement verifies against the
registry's build key, it sits in the folder its statement names (a statement swapped in from
another deploy does not), and it holds the index and every board copy that index lists, each
hashing to its signed digest. Anything less is a finding with its reason
(``attestation-misfiled``, ``attestation-incomplete``, ``attestation-file-changed``), in the
audit, on the snapshot pages and in ``validate`` alike. A record deleted outright is found by
builder.attest.history (the chain each statement signs, and git's first-parent history).

A deploy is recorded only when it shows something new: a board or data file other than
``data/index.json`` (which names the commit) changed, or a benchmark's status did, since
the newest recorded one. Otherwise merging the scheduled build's recording pull request
would make a new commit, whose build would ask to be recorded again, forever.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.attest.statement import SIG_SUFFIX, STATEMENT, AttestationError, Statement, parse
from builder.attest.verify import check_signer
from builder.errors import BuilderError
from builder.strict import loads_json
from builder.trust.sshsig import NS_SITE, verify

DIR = "attestations"
INDEX = "data/index.json"
BOARDS = "boards"
INDEX_COPY = "index.json"
FOLDER = re.compile(
    r"[0-9A-Za-z][0-9A-Za-z-]{0,80}"
)  # a deploy folder's name (folder_name), as a chain may name one  # the deploy's data/index.json, beside statement.json
RELEASED = "released"
AUDITS = "audits"  # attestations/audits/: the audit's results (builder.release.audit_record), not a deploy


@dataclass(frozen=True)
class Recorded:
    name: str  # the folder under attestations/
    statement: Statement
    signature: bytes | None


def recorded(root: Path) -> list[Recorded]:
    """Every recorded attestation, oldest first (folder names sort by build time)."""
    return [read_recorded(folder) for folder in folders(root)]


def folders(root: Path) -> list[Path]:
    """The deploy folders under attestations/, oldest first (not attestations/audits/)."""
    base = root / DIR
    return sorted(p for p in base.iterdir() if p.is_dir() and p.name != AUDITS) if base.is_dir() else []


def read_recorded(folder: Path) -> Recorded:
    """One deploy folder's statement (parsed, not verified: check_recorded) and signature."""
    where = f"{DIR}/{folder.name}/statement.json"
    if not (folder / "statement.json").is_file():
        raise AttestationError("is missing", where=where, reason="attestation-missing", hint="restore it from git history")
    sig = folder / ("statement.json" + SIG_SUFFIX)
    return Recorded(folder.name, parse((folder / "statement.json").read_bytes(), where), sig.read_bytes() if sig.is_file() else None)


def check_recorded(root: Path, rec: Recorded) -> None:
    """The recorded statement is signed by the build key its registry version lists (the
    repository's verified chain, builder.attest.verify), and is not a rehearsal. attestations/
    is a folder a pull request can touch: nothing in it is believed before this."""
    where = f"{DIR}/{rec.name}/statement.json"
    if rec.signature is None:
        raise AttestationError("is not signed", where=where, reason="attestation-unsigned")
    try:
        signer = verify(rec.signature, rec.statement.data, NS_SITE, where=where + SIG_SUFFIX)
    except BuilderError as exc:
        raise AttestationError(
            f"signature does not verify ({exc.reason})", where=where + SIG_SUFFIX, reason="attestation-bad-signature"
        ) from None
    check_signer(root, rec.statement, signer)
    if rec.statement.rehearsal is not None:
        raise AttestationError("is a rehearsal", where=STATEMENT, reason="attestation-rehearsal")


def check_complete(root: Path, rec: Recorded) -> dict[str, list[str]]:
    """The record is whole, as the build key signed it: ``check_recorded``, then the folder
    its statement names, then the attested index copy and every board it lists. Returns the
    board files (``data/<bench>/<board>.json``) of each benchmark the statement names."""
    check_recorded(root, rec)
    named = folder_name(rec.statement)
    if rec.name != named:  # a copy under another name: another deploy's statement, or a made-up date
        raise AttestationError(
            f"holds the signed statement of deploy {named}, not of the deploy its name says",
            where=f"{DIR}/{rec.name}",
            reason="attestation-misfiled",
            hint="a recorded deploy is history: restore the folder from git history",
        )
    subjects = {s.name: s.sha256 for s in rec.statement.subjects}
    index = loads_json(_attested(root, rec, INDEX, INDEX_COPY, subjects), f"{DIR}/{rec.name}/{INDEX_COPY}")
    listed = listed_boards(index if isinstance(index, dict) else {}, rec.statement)
    for names in listed.values():
        for name in names:
            _attested(root, rec, name, f"{BOARDS}/{name.removeprefix('data/')}", subjects)
    return listed


def _attested(root: Path, rec: Recorded, name: str, rel: str, subjects: dict[str, str]) -> bytes:
    """The record's copy ``rel`` of site file ``name``, which must be there and hash to its signed digest."""
    where = f"{DIR}/{rec.name}/{rel}"
    if name not in subjects:
        raise AttestationError(
            f"the signed statement lists no {name}",
            where=f"{DIR}/{rec.name}/statement.json",
            reason="attestation-incomplete",
            hint="record the site the authorised build wrote and signed",
        )
    path = root / where
    if not path.is_file() or path.is_symlink():
        raise AttestationError(
            f"is missing: the deploy showed {name} (its digest is signed) but the record holds no copy",
            where=where,
            reason="attestation-incomplete",
            hint="record the whole attestation (sealboard record-attestation copies every board), or restore it from git history",
        )
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != subjects[name]:
        raise AttestationError(
            f"is not the attested {name} (its sha256 differs from the signed digest)",
            where=where,
            reason="attestation-file-changed",
            hint="a recorded deploy is history: restore the copy from git history",
        )
    return data


def listed_boards(index: dict[str, Any], st: Statement) -> dict[str, list[str]]:
    """Per benchmark the statement names, the board JSON files a deploy's data/index.json
    lists and the statement attests (a board missing from the statement is the build's to
    refuse, not a record's)."""
    listed = {s.name for s in st.subjects}
    out: dict[str, list[str]] = {}
    for bench in index.get("benchmarks", []) if isinstance(index.get("benchmarks"), list) else []:
        bid = bench.get("id") if isinstance(bench, dict) else None
        if not isinstance(bid, str) or st.status(bid) is None:
            continue
        boards = bench.get("boards") if isinstance(bench.get("boards"), list) else []
        out[bid] = sorted(b["json"] for b in boards if isinstance(b, dict) and isinstance(b.get("json"), str) and b["json"] in listed)
    return out


def chained(st: Statement) -> list[str]:
    """The deploy folders the statement's build found under attestations/ (the signed chain:
    ``predicate.recorded``, written by builder.pipeline.attestation; absent in older records)."""
    value = st.predicate.get("recorded")
    return [v for v in value if isinstance(v, str) and FOLDER.fullmatch(v)] if isinstance(value, list) else []


def unaccounted(root: Path, records: list[Recorded]) -> dict[str, str]:
    """Deploy folders a signed statement says were recorded when its deploy was built, but
    which attestations/ no longer holds: a record deleted outright. Folder -> the record naming
    it. Any statement the build key signed counts, whole record or not: the chain is its own."""
    present = {p.name for p in folders(root)}
    out: dict[str, str] = {}
    for rec in records:
        try:
            check_recorded(root, rec)
        except AttestationError:
            continue  # not signed by the build key: names nothing
        for name in chained(rec.statement):
            if name not in present and name != AUDITS:
                out.setdefault(name, rec.name)
    return out


def deleted(name: str, why: str) -> AttestationError:
    """The finding for a record that is gone (``why``: what still names it)."""
    return AttestationError(
        f"a recorded deploy is gone: {why}",
        where=f"{DIR}/{name}",
        reason="attestation-record-deleted",
        hint="restore the folder from git history: a recorded deploy is never deleted",
    )


DELETED = deleted("-", "-").reason  # the code, read from the one place that raises it


def _shown(st: Statement) -> tuple[frozenset[tuple[str, str]], tuple[tuple[str, str], ...]]:
    data = frozenset((s.name, s.sha256) for s in st.subjects if s.name.startswith("data/") and s.name != INDEX)
    statuses = tuple((str(b.get("id")), str(b.get("status"))) for b in st.predicate.get("benchmarks", []))
    return data, statuses


def folder_name(st: Statement) -> str:
    built = str(st.predicate.get("built") or "unknown").replace("-", "").replace(":", "")
    return f"{built}-{hashlib.sha256(st.data).hexdigest()[:12]}"


def record(site: Path, root: Path) -> Path | None:
    """Copy the site's signed statement into root/attestations/; None when nothing new is shown."""
    data = (site / STATEMENT).read_bytes() if (site / STATEMENT).is_file() else None
    if data is None:
        raise AttestationError(
            "has no attestation/statement.json",
            where=str(site),
            reason="attestation-missing",
            hint="record the folder an authorised build wrote",
        )
    sig = site / (STATEMENT + SIG_SUFFIX)
    if not sig.is_file():
        raise AttestationError(
            "is not signed; only signed deploys are recorded",
            where=STATEMENT,
            reason="attestation-unsigned",
            hint="build with --build-key or SEALBOARD_BUILD_KEY",
        )
    st = parse(data, STATEMENT)
    if not (site / INDEX).is_file():
        raise AttestationError(
            f"has no {INDEX}: a record must name every board the deploy showed",
            where=str(site),
            reason="attestation-incomplete",
            hint="record the whole folder an authorised build wrote",
        )
    if st.rehearsal is not None:
        raise AttestationError("is a rehearsal; it is never recorded", where=STATEMENT, reason="attestation-rehearsal")
    history = recorded(root)
    if history and _shown(history[-1].statement) == _shown(st):
        return None
    target = root / DIR / folder_name(st)
    target.mkdir(parents=True, exist_ok=True)
    (target / "statement.json").write_bytes(data)
    (target / ("statement.json" + SIG_SUFFIX)).write_bytes(sig.read_bytes())
    (target / INDEX_COPY).write_bytes((site / INDEX).read_bytes())
    for rel in shown_boards(site, st):
        out = target / BOARDS / rel.removeprefix("data/")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes((site / rel).read_bytes())
    return target


def shown_boards(site: Path, st: Statement) -> list[str]:
    """The board JSON files (``data/<bench>/<board>.json``, as data/index.json lists them) of
    every benchmark the statement names, released or not: the audit needs the embargoed
    ones, the snapshots all of them."""
    index = loads_json((site / INDEX).read_bytes(), INDEX) if (site / INDEX).is_file() else {}
    return sorted(name for names in listed_boards(index, st).values() for name in names)


def recorded_board(rec_root: Path, rec: Recorded, name: str) -> bytes | None:
    """The recorded copy of board file ``name`` (``data/<bench>/<board>.json``), or None."""
    path = rec_root / DIR / rec.name / BOARDS / name.removeprefix("data/")
    return path.read_bytes() if path.is_file() else None
