"""Release statements, format ``sealboard-release/1``: parse one strictly, write one.

Statements live beside the benchmark's config::

    leaderboards/<benchmark>.release/<name>.yaml       the exact bytes that are signed
    leaderboards/<benchmark>.release/<name>.yaml.sig   armored SSHSIG blocks, concatenated,
                                                       namespace sealboard-release

A file looks like::

    format: sealboard-release/1
    benchmark: livemathematicianbench
    version: "2026.04"
    dataset_manifest_sha256: 3f1c…            # SHA-256 of the dataset bundle's manifest.json
    registry_version: 2                       # the registry whose maintainers sign
    not_before: 2027-01-15T09:00:00Z
    scope:
      editions_through: 2026-01               # or: splits: [mini] — or the word `all`
    publish:
      items: true                             # item text and gold answers
      results: true                           # per-item results of opted-in submissions
      transcripts: true                       # transcripts of opted-in submissions
    timelock:                                 # optional: the embargo identity time-locked to a beacon round
      chain:                                  # the drand chain (quicknet by default)
        hash: 52db9ba7…
        public_key: 83cf0f28…                 # compressed G2 point, hex
        period: 3
        genesis_time: 1692803367
        scheme: bls-unchained-g1-rfc9380
      round: 23456789                         # the first round at or after not_before
      ciphertext: <name>.tle                  # beside the statement (tle/tlock-js format)
      ciphertext_sha256: 9b0e…
      recipient: age1…                        # the embargo recipient the identity must open

A time-lock is allowed only on a statement that authorises everything the identity opens
(scope ``all``, publishing items, results and transcripts: ``ReleaseState.identity_authorised``)
and only to a round due at or after ``not_before``. Opening it is ``builder.release.timelock``.

Whether a statement takes effect is ``builder.release.verify``'s job, not this module's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from builder.errors import BuilderError, ParseError, ReleaseError
from builder.strict import IDENTIFIER_RE, check_fields, loads_yaml
from builder.timelock.chain import Chain, parse_chain
from builder.trust.registry_format import format_time, parse_time

FORMAT = "sealboard-release/1"
RELEASE_DIR_SUFFIX = ".release"
SIG_SUFFIX = ".sig"
MAX_STATEMENT_BYTES = 64 * 1024
MAX_SIG_BYTES = 256 * 1024
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])\Z")
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}\Z")
_FIELDS = {"format", "benchmark", "version", "dataset_manifest_sha256", "registry_version", "not_before", "scope", "publish"}
_TIMELOCK_FIELDS = ("chain", "round", "ciphertext", "ciphertext_sha256", "recipient")
TLE_SUFFIX = ".tle"  # the time-locked identity beside <name>.yaml
BEACON_SUFFIX = ".beacon.json"  # the round's signature, committed for offline builds
_COMPANIONS = (".yaml" + SIG_SUFFIX, TLE_SUFFIX, BEACON_SUFFIX)
_PUBLISH = ("items", "results", "transcripts")


@dataclass(frozen=True)
class Scope:
    """The whole version (``all``), or named splits, or editions up to a month inclusive."""

    splits: tuple[str, ...] = ()
    editions_through: str | None = None  # "YYYY-MM"

    @property
    def whole(self) -> bool:
        return not self.splits and self.editions_through is None

    def describe(self) -> str:
        if self.whole:
            return "the whole version"
        if self.splits:
            return "split(s) " + ", ".join(self.splits)
        return f"editions up to {self.editions_through}"

    def to_yaml(self) -> Any:
        if self.whole:
            return "all"
        if self.splits:
            return {"splits": list(self.splits)}
        return {"editions_through": self.editions_through}


@dataclass(frozen=True)
class Publish:
    items: bool = True
    results: bool = True
    transcripts: bool = True


@dataclass(frozen=True)
class Timelock:
    """The embargo identity encrypted to a beacon round (bound by the statement's signatures)."""

    chain: Chain
    round: int
    ciphertext: str  # file name beside the statement: <name>.tle
    ciphertext_sha256: str
    recipient: str  # age1…: the identity must open exactly this recipient

    def describe(self) -> str:
        return f"time-locked to round {self.round} (≈ {self.chain.time_of(self.round):%Y-%m-%d %H:%M:%S} UTC)"


@dataclass(frozen=True)
class Statement:
    """One parsed statement. Parsed is not trusted: see builder.release.verify."""

    name: str
    benchmark: str
    version: str
    dataset_manifest_sha256: str
    registry_version: int
    not_before: datetime
    scope: Scope
    publish: Publish
    path: str  # relative to the instance root
    data: bytes  # the exact signed bytes
    timelock: Timelock | None = None


def release_dir(root: Path, benchmark: str) -> Path:
    return root / "leaderboards" / f"{benchmark}{RELEASE_DIR_SUFFIX}"


def _scope(value: Any, where: str) -> Scope:
    if value == "all":
        return Scope()
    obj = check_fields(value, (), ("splits", "editions_through"), where=where, context="scope")
    if len(obj) != 1:
        raise ParseError(
            "scope must be `all`, or name exactly one of splits or editions_through",
            where=where,
            reason="bad-scope",
            hint="e.g. scope: {editions_through: 2026-01} or scope: {splits: [mini]}",
        )
    if "splits" in obj:
        splits = obj["splits"]
        if not isinstance(splits, list) or not splits or not all(isinstance(s, str) and IDENTIFIER_RE.match(s) for s in splits):
            raise ParseError("scope.splits must be a non-empty list of split names", where=where, reason="bad-scope")
        if len(set(splits)) != len(splits):
            raise ParseError("scope.splits names a split twice", where=where, reason="bad-scope")
        return Scope(splits=tuple(splits))
    month = obj["editions_through"]
    if not isinstance(month, str) or not _MONTH.match(month):
        raise ParseError(f"scope.editions_through must be a month like 2026-01, not {month!r}"[:160], where=where, reason="bad-scope")
    return Scope(editions_through=month)


def _publish(value: Any, where: str) -> Publish:
    obj = check_fields(value, _PUBLISH, where=where, context="publish")
    for key in _PUBLISH:
        if not isinstance(obj[key], bool):
            raise ParseError(f"publish.{key} must be true or false", where=where, reason="wrong-type")
    if not obj["items"] and (obj["results"] or obj["transcripts"]):
        raise ParseError(
            "publish.results and publish.transcripts need publish.items",
            where=where,
            reason="bad-publish",
            hint="per-item results mean nothing without the items",
        )
    return Publish(**obj)


def _timelock(value: Any, where: str, name: str, not_before: datetime, scope: Scope, publish: Publish) -> Timelock:
    from builder.trust.agekeys import parse_recipient

    obj = check_fields(value, _TIMELOCK_FIELDS, where=where, context="timelock")

    def bad(message: str, hint: str | None = None) -> ParseError:
        return ParseError(f"timelock: {message}", where=where, reason="bad-timelock", hint=hint)

    chain = parse_chain(obj["chain"], where)
    rnd = obj["round"]
    if type(rnd) is not int or rnd < 1:
        raise bad("round must be an integer >= 1")
    if chain.time_of(rnd) < not_before:
        raise bad(
            f"round {rnd} is due {chain.time_of(rnd):%Y-%m-%d %H:%M:%S} UTC, before not_before: the identity would open early",
            hint="use the first round at or after not_before (sealboard release flip --timelock does)",
        )
    if obj["ciphertext"] != name + TLE_SUFFIX:
        raise bad(f"ciphertext must be {name + TLE_SUFFIX!r}, the file beside the statement")
    if not isinstance(obj["ciphertext_sha256"], str) or not _HEX64.match(obj["ciphertext_sha256"]):
        raise bad("ciphertext_sha256 must be 64 lower-case hex digits")
    if not scope.whole or not (publish.items and publish.results and publish.transcripts):
        raise bad(
            "a time-locked identity opens everything sealed to the embargo key, so the statement must have scope `all` "
            "and publish items, results and transcripts"
        )
    if not isinstance(obj["recipient"], str):
        raise bad("recipient must be an age1… recipient")
    try:
        recipient = parse_recipient(obj["recipient"], where)
    except BuilderError as exc:
        raise bad(exc.message) from None
    return Timelock(chain, rnd, obj["ciphertext"], obj["ciphertext_sha256"], recipient)


def parse_statement(data: bytes, where: str, name: str) -> Statement:
    """Parse one statement's bytes strictly; every problem is a ParseError naming the file."""
    if len(data) > MAX_STATEMENT_BYTES:
        raise ParseError(f"is larger than {MAX_STATEMENT_BYTES} bytes", where=where, reason="too-large")
    obj = check_fields(loads_yaml(data, where), _FIELDS, ("timelock",), where=where, context="release statement")
    if obj["format"] != FORMAT:
        raise ParseError(f"format must be {FORMAT!r}, not {obj['format']!r}"[:160], where=where, reason="bad-format")
    for key in ("benchmark", "version", "dataset_manifest_sha256"):
        if not isinstance(obj[key], str):
            raise ParseError(f"{key} must be a string", where=where, reason="wrong-type", hint='quote versions: version: "1.0"')
    if not IDENTIFIER_RE.match(obj["benchmark"]):
        raise ParseError("benchmark must be a benchmark id", where=where, reason="bad-identifier")
    if not _HEX64.match(obj["dataset_manifest_sha256"]):
        raise ParseError(
            "dataset_manifest_sha256 must be 64 lower-case hex digits",
            where=where,
            reason="bad-digest",
            hint="sha256sum bundles/<benchmark>/_dataset/<version>/manifest.json",
        )
    rv = obj["registry_version"]
    if type(rv) is not int or rv < 1:
        raise ParseError("registry_version must be an integer >= 1", where=where, reason="wrong-type")
    not_before = parse_time(obj["not_before"], where, "not_before")
    scope, publish = _scope(obj["scope"], where), _publish(obj["publish"], where)
    return Statement(
        name=name,
        benchmark=obj["benchmark"],
        version=obj["version"],
        dataset_manifest_sha256=obj["dataset_manifest_sha256"],
        registry_version=rv,
        not_before=not_before,
        scope=scope,
        publish=publish,
        path=where,
        data=data,
        timelock=_timelock(obj["timelock"], where, name, not_before, scope, publish) if "timelock" in obj else None,
    )


def statement_text(
    benchmark: str,
    version: str,
    digest: str,
    registry_version: int,
    not_before: datetime,
    scope: Scope,
    publish: Publish,
    timelock: Timelock | None = None,
) -> str:
    """The canonical text `release flip` writes (and the parser reads back identically)."""
    import yaml

    scope_text = yaml.safe_dump({"scope": scope.to_yaml()}, sort_keys=False, default_flow_style=False)
    timelock_text = (
        ""
        if timelock is None
        else yaml.safe_dump(
            {
                "timelock": {
                    "chain": timelock.chain.to_yaml(),
                    "round": timelock.round,
                    "ciphertext": timelock.ciphertext,
                    "ciphertext_sha256": timelock.ciphertext_sha256,
                    "recipient": timelock.recipient,
                }
            },
            sort_keys=False,
            default_flow_style=False,
        )
    )
    return (
        f"# Release statement: takes effect at not_before once a threshold of maintainers signed it\n"
        f"# (sealboard release sign {benchmark} --key KEY, or ssh-keygen -Y sign -n sealboard-release).\n"
        f"format: {FORMAT}\n"
        f"benchmark: {benchmark}\n"
        f'version: "{version}"\n'
        f"dataset_manifest_sha256: {digest}\n"
        f"registry_version: {registry_version}\n"
        f"not_before: {format_time(not_before)}\n"
        f"{scope_text}"
        f"publish:\n"
        f"  items: {str(publish.items).lower()}\n"
        f"  results: {str(publish.results).lower()}\n"
        f"  transcripts: {str(publish.transcripts).lower()}\n"
        f"{timelock_text}"
    )


@dataclass(frozen=True)
class StatementFile:
    """A statement's bytes and signature bytes as read from disk (or a parse failure)."""

    name: str
    path: str
    data: bytes | None
    sig: bytes | None
    error: BuilderError | None = None


def _read(path: Path, where: str, limit: int) -> bytes:
    if path.is_symlink() or not path.is_file():
        raise ReleaseError("is not a regular file", where=where, reason="bad-file", hint="statements are plain files, not links")
    if path.stat().st_size > limit:
        raise ReleaseError(f"is larger than {limit} bytes", where=where, reason="too-large")
    return path.read_bytes()


def read_statements(root: Path, benchmark: str) -> list[StatementFile]:
    """Every statement file of a benchmark; a bad one is returned with its error, never raised.

    No cap on their number: a cap would let junk files sorted first hide a valid statement
    after them. Each file is refused on its own (its size is bounded, MAX_STATEMENT_BYTES /
    MAX_SIG_BYTES), and a statement takes effect only when the threshold signed it."""
    directory = release_dir(root, benchmark)
    rel = f"leaderboards/{directory.name}"
    if not directory.exists():
        return []
    if directory.is_symlink() or not directory.is_dir():
        return [StatementFile("?", rel, None, None, ReleaseError("is not a directory", where=rel, reason="bad-file"))]
    found: list[StatementFile] = []
    names = sorted(p.name for p in directory.iterdir())
    for entry in names:
        where = f"{rel}/{entry}"
        companion = next((c for c in _COMPANIONS if entry.endswith(c)), None)
        if companion is not None or entry.startswith("."):
            # a signature, time-locked identity or beacon file belongs to <name>.yaml beside it
            if companion is not None and entry[: -len(companion)] + ".yaml" not in names:
                found.append(
                    StatementFile(
                        entry, where, None, None, ReleaseError(f"{companion} file without a statement", where=where, reason="bad-file")
                    )
                )
            continue
        stem = entry[: -len(".yaml")] if entry.endswith(".yaml") else ""
        if not _NAME.match(stem):
            found.append(
                StatementFile(
                    entry,
                    where,
                    None,
                    None,
                    ReleaseError(
                        "unexpected file among release statements",
                        where=where,
                        reason="bad-file",
                        hint="statements are named <name>.yaml (a-z, 0-9, '.', '_', '-') with <name>.yaml.sig "
                        "(and, time-locked, <name>.tle and <name>.beacon.json) beside them",
                    ),
                )
            )
            continue
        try:
            data = _read(directory / entry, where, MAX_STATEMENT_BYTES)
            sig_path = directory / (entry + SIG_SUFFIX)
            sig = _read(sig_path, where + SIG_SUFFIX, MAX_SIG_BYTES) if sig_path.exists() or sig_path.is_symlink() else None
            found.append(StatementFile(stem, where, data, sig))
        except BuilderError as exc:
            found.append(StatementFile(stem, where, None, None, exc))
    return found
