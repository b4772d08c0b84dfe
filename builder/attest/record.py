"""Each deploy's attestation, kept in the repository: ``attestations/<built>-<digest12>/``.

One folder per deploy (not per benchmark: one statement covers the whole site, every
benchmark's status in it), named by the stamped build time (``20261202T061500Z``) and the
first 12 hex digits of the statement's sha256, holding ``statement.json`` and its
``statement.json.sig`` exactly as the site published them, and ``boards/<benchmark>/<board>.json``:
the board files of every benchmark, as published (their sha256 is in the signed statement,
so a changed copy shows). So the history of what was shown is itself signed and public:
``sealboard audit`` re-derives the embargoed boards after a release, cell by cell, and the
site shows every recorded deploy's boards as a dated snapshot (builder.attest.snapshots).
Records made before snapshots kept only the boards of benchmarks not yet fully released.

A deploy is recorded only when it shows something new: a board or data file other than
``data/index.json`` (which names the commit) changed, or a benchmark's status did, since
the newest recorded one. Otherwise merging the scheduled build's recording pull request
would make a new commit, whose build would ask to be recorded again, forever.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from builder.attest.statement import SIG_SUFFIX, STATEMENT, AttestationError, Statement, parse
from builder.attest.verify import check_signer
from builder.errors import BuilderError
from builder.strict import loads_json
from builder.trust.sshsig import NS_SITE, verify

DIR = "attestations"
INDEX = "data/index.json"
BOARDS = "boards"
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
        raise AttestationError(f"signature does not verify ({exc.reason})", where=where + SIG_SUFFIX, reason="attestation-bad-signature") from None
    check_signer(root, rec.statement, signer)
    if rec.statement.rehearsal is not None:
        raise AttestationError("is a rehearsal", where=STATEMENT, reason="attestation-rehearsal")


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
        raise AttestationError("has no attestation/statement.json", where=str(site), reason="attestation-missing",
                               hint="record the folder an authorised build wrote")
    sig = site / (STATEMENT + SIG_SUFFIX)
    if not sig.is_file():
        raise AttestationError("is not signed; only signed deploys are recorded", where=STATEMENT, reason="attestation-unsigned",
                               hint="build with --build-key or SEALBOARD_BUILD_KEY")
    st = parse(data, STATEMENT)
    if st.rehearsal is not None:
        raise AttestationError("is a rehearsal; it is never recorded", where=STATEMENT, reason="attestation-rehearsal")
    history = recorded(root)
    if history and _shown(history[-1].statement) == _shown(st):
        return None
    target = root / DIR / folder_name(st)
    target.mkdir(parents=True, exist_ok=True)
    (target / "statement.json").write_bytes(data)
    (target / ("statement.json" + SIG_SUFFIX)).write_bytes(sig.read_bytes())
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
    listed = {s.name for s in st.subjects}
    out = []
    for bench in index.get("benchmarks", []):
        if st.status(str(bench.get("id"))) is None:
            continue
        out += [b["json"] for b in bench.get("boards", []) if isinstance(b.get("json"), str) and b["json"] in listed]
    return sorted(out)


def recorded_board(rec_root: Path, rec: Recorded, name: str) -> bytes | None:
    """The recorded copy of board file ``name`` (``data/<bench>/<board>.json``), or None."""
    path = rec_root / DIR / rec.name / BOARDS / name.removeprefix("data/")
    return path.read_bytes() if path.is_file() else None
