"""Does a release statement take effect? Signatures, digest, registry version, clock.

A statement takes effect only when all of these hold (checked in this order, the first
failure is the reason):

1. it parses (``sealboard-release/1``) and names this benchmark and its current version;
2. ``dataset_manifest_sha256`` is the SHA-256 of the dataset bundle's ``manifest.json``
   for that version, that manifest keeps every commitment the version was first committed
   with (``commitment-changed``, builder.release.commitment_history), and a split scope
   names splits the dataset has;
3. ``registry_version`` is a version of the verified registry chain, and not newer than
   the version the signatures are counted against (below);
4. a threshold of the maintainers of the registry version *in force when the statement's
   signatures were completed* (builder.release.registry_history: the version in force at
   the commit that admitted the statement with a complete tally; not ``not_before``, which
   the signers choose) signed the exact bytes under ``sealboard-release``. Without that
   date (no git, a statement not committed, a registry history that cannot date its
   versions or holds a version committed after the build's clock) the latest version
   stands in. Each maintainer counts once; a maintainer removed from that version counts
   zero (``removed-signer``; ``registry-dated-ahead`` when the registry's dates were
   refused for being ahead of the clock), so does a key revoked in *any* version up to the
   latest (``revoked-signer``), and a block that does not verify. Removing or rotating a
   maintainer after the statement was admitted never un-releases a benchmark;
5. the clock (the build's time, or ``--as-of``) is at or past ``not_before``.

Tallying reuses ``builder.trust.registry.tally`` (the registry's own rule for counting
distinct maintainer keys), applied to that version with the latest revocations.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from builder.errors import BuilderError, SignatureError
from builder.release.registry_history import RegistryHistory, statement_admitted
from builder.release.statement import Scope, Statement, StatementFile, parse_statement
from builder.trust.registry import signature_count, tally
from builder.trust.registry_format import RegistryVersion, Revocation
from builder.trust.sshkeys import PublicKey
from builder.trust.sshsig import NS_RELEASE, split_armored, verify

# Verdict states, from worst to best.
INVALID = "invalid"  # cannot take effect as written (parse, benchmark, digest, registry version)
UNSIGNED = "unsigned"  # valid, but short of the threshold
SCHEDULED = "scheduled"  # signed, not_before still ahead
EFFECTIVE = "effective"  # signed and due: in force


@dataclass(frozen=True)
class DatasetFacts:
    """What a statement is checked against: the dataset bundle of the benchmark's version."""

    version: str
    manifest_sha256: str | None  # None when the dataset bundle is missing
    splits: frozenset[str]
    # the refusal when the manifest changed a commitment it was first committed with
    # (builder.release.commitment_history), else None
    changed: BuilderError | None = None
    # splits holding at least one item, and edition months with items (None: the manifest
    # predates its "editions" field, so an editions scope is judged with the items)
    filled_splits: frozenset[str] | None = None
    editions: frozenset[str] | None = None

    def covers_none(self, scope: Scope) -> bool:
        """Whether the scope surely covers no item of the dataset (known with no secret)."""
        if scope.splits:
            return self.filled_splits is not None and not any(s in self.filled_splits for s in scope.splits)
        if scope.editions_through is not None:
            return self.editions is not None and not any(e <= str(scope.editions_through) for e in self.editions)
        return self.filled_splits is not None and not self.filled_splits


@dataclass(frozen=True)
class Verdict:
    path: str
    state: str
    reason: str | None  # stable code when not effective (tests assert it)
    message: str
    statement: Statement | None = None
    signers: tuple[str, ...] = ()  # maintainer ids counted
    needed: int = 0
    # ", in 3 d 4 h": the end of a scheduled statement's message, measured from the build's
    # clock. `release status` shows it; the site does not (published_message), or two builds
    # of one commit an hour apart would differ (builder.pipeline.source_time).
    countdown: str = ""

    @property
    def signed(self) -> bool:
        return self.state in (SCHEDULED, EFFECTIVE)

    @property
    def published_message(self) -> str:
        """The message without the countdown: what the site and its data show."""
        return self.message.removesuffix(self.countdown)


def dataset_digest(manifest_bytes: bytes) -> str:
    return hashlib.sha256(manifest_bytes).hexdigest()


@dataclass(frozen=True)
class _Count:
    counted: tuple[str, ...]  # maintainer ids, once each
    needed: int
    failures: tuple[tuple[str, str], ...]  # (reason, message) of blocks that count zero


def count_signatures(
    data: bytes,
    sig: bytes | None,
    doc: RegistryVersion,
    revoked: tuple[Revocation, ...],
    where: str,
    history: RegistryHistory | None = None,
) -> _Count:
    """Count a statement's signatures against registry version `doc` (never raises)."""
    sig_where = where + ".sig"
    failures: list[tuple[str, str]] = []
    keys: list[PublicKey] = []
    if sig:
        try:
            blocks = split_armored(sig, sig_where)
        except SignatureError as exc:
            blocks = []
            failures.append((exc.reason, exc.message))
        for i, block in enumerate(blocks, start=1):
            try:
                keys.append(verify(block, data, NS_RELEASE, sig_where))
            except SignatureError as exc:
                failures.append((exc.reason, f"signature {i}: {exc.message}"))
    # Keys revoked in any later version count zero: judge against the named version with
    # the latest revocations added, through the registry's own tally.
    extra = tuple(r for r in revoked if r.fingerprint not in doc.revoked_fingerprints)
    revoked_fps = {r.fingerprint for r in revoked} | doc.revoked_fingerprints
    judged = replace(doc, revoked=doc.revoked + extra)
    t = tally(None, judged, keys)
    counted = tuple(dict.fromkeys(m.id for m in t.old_signers))
    for key in t.strangers:
        removed = history.removed_from(key.fingerprint, doc) if history else None
        if key.fingerprint in revoked_fps:
            failures.append(("revoked-signer", f"signature by revoked key {key.fingerprint} counts zero"))
        elif removed is not None:
            failures.append(
                (
                    "removed-signer",
                    f"signature by {key.fingerprint}, a maintainer removed from the registry in v{removed:04d}, "
                    f"counts zero under registry v{doc.version:04d}",
                )
            )
        else:
            failures.append(
                ("signer-not-maintainer", f"signature by {key.fingerprint}, not a maintainer of registry v{doc.version:04d}, counts zero")
            )
    ids = [m for m in (_maintainer_of(k, judged) for k in keys) if m]
    dupes = sorted({m for m in ids if ids.count(m) > 1})
    if dupes:
        failures.append(("duplicate-signer", f"maintainer(s) {', '.join(dupes)} signed more than once; counted once"))
    return _Count(counted, judged.threshold, tuple(failures))


def _maintainer_of(key: PublicKey, doc: RegistryVersion) -> str | None:
    m = doc.active_maintainers.get(key.fingerprint)
    return m.id if m else None


# Which failure explains a shortfall best: a forged or misdirected block first, then keys
# that may not count, then repeats.
_SHORTFALL_ORDER = ("wrong-namespace", "bad-signature", "revoked-signer", "removed-signer", "signer-not-maintainer", "duplicate-signer")


def judge(
    file: StatementFile,
    *,
    benchmark: str,
    version: str,
    dataset: DatasetFacts | None,
    history: RegistryHistory,
    revoked: tuple[Revocation, ...],
    clock: datetime,
    root: Path | None = None,
) -> Verdict:
    """The verdict on one statement file at `clock` (never raises: a bad statement is a verdict)."""
    where = file.path
    if file.error is not None:
        return Verdict(where, INVALID, file.error.reason, str(file.error))
    if file.data is None:
        raise AssertionError()
    try:
        st = parse_statement(file.data, where, file.name)
    except BuilderError as exc:
        return Verdict(where, INVALID, exc.reason, str(exc))

    def invalid(reason: str, message: str) -> Verdict:
        return Verdict(where, INVALID, reason, f"{where}: {message}", st)

    wrong = _against_dataset(st, benchmark, version, dataset)
    if wrong is not None:
        return invalid(*wrong)
    latest = history.latest.version
    if st.registry_version not in history.versions:
        return invalid("unknown-registry-version", f"names registry version {st.registry_version}; the registry has 1–{latest}")
    data = file.data

    def complete(sig: bytes | None, at: datetime) -> bool:
        c = count_signatures(data, sig, history.at(at), revoked, where, history)
        return len(c.counted) >= c.needed

    # The registry in force when the signatures were completed (git admission); unknown: the latest.
    admitted = statement_admitted(root, where, data, complete) if history.dated else None
    doc = history.at(admitted) if admitted is not None else history.latest
    if st.registry_version > doc.version:
        return invalid(
            "registry-version-not-in-force",
            f"names registry v{st.registry_version:04d}, but v{doc.version:04d} was in force when its signatures were completed; "
            "write it again with 'sealboard release flip' and sign it",
        )
    count = count_signatures(file.data, file.sig, doc, revoked, where, history)
    if len(count.counted) < count.needed:
        return _unsigned(where, st, count, history, clock, doc.version)
    if clock < st.not_before:
        return Verdict(
            where,
            SCHEDULED,
            "not-yet",
            f"{where}: not before {when(st.not_before, clock)}",
            st,
            count.counted,
            count.needed,
            countdown=f", in {countdown(st.not_before, clock)}",
        )
    return Verdict(
        where,
        EFFECTIVE,
        None,
        f"{where}: in force since {st.not_before:%Y-%m-%d %H:%M} UTC ({st.scope.describe()})",
        st,
        count.counted,
        count.needed,
    )


def _against_dataset(st: Statement, benchmark: str, version: str, dataset: DatasetFacts | None) -> tuple[str, str] | None:
    """(reason, message) when the statement does not fit the benchmark's dataset, or None."""
    if st.benchmark != benchmark:
        return "wrong-benchmark", f"names benchmark {st.benchmark!r} but sits under {benchmark!r}"
    if st.version != version:
        return "other-version", f"is for version {st.version}, the benchmark is at version {version}"
    if dataset is None or dataset.manifest_sha256 is None:
        return "missing-dataset", f"no dataset bundle for version {version} to check the digest against"
    if st.dataset_manifest_sha256 != dataset.manifest_sha256:
        return "digest-mismatch", f"digest does not match dataset {version}"
    if dataset.changed is not None:
        return dataset.changed.reason, f"dataset {version} {dataset.changed.message}"
    unknown = [s for s in st.scope.splits if s not in dataset.splits]
    if unknown:
        return "bad-scope", f"scope names split {unknown[0]!r}, which dataset {version} does not have"
    if dataset.covers_none(st.scope):
        # (the build refuses it too, with the items: builder.release.apply.refuse_empty_scopes)
        return "empty-scope", f"its scope ({st.scope.describe()}) covers no item of dataset {version}; it releases nothing"
    return None


def _unsigned(where: str, st: Statement, count: _Count, history: RegistryHistory, clock: datetime, version: int) -> Verdict:
    """The verdict on a statement short of its threshold, naming the first shortfall
    (`version`: the registry version that counted)."""
    reason = "below-threshold"
    details = [msg for _, msg in count.failures]
    for candidate in _SHORTFALL_ORDER:
        if any(r == candidate for r, _ in count.failures):
            reason = candidate
            break
    else:
        if count.failures:
            reason = count.failures[0][0]
    if history.ahead:  # the dates that could have counted these signers were refused
        reason = "registry-dated-ahead"
        ahead = ", ".join(f"v{n:04d}" for n in history.ahead)
        details.append(
            f"registry {ahead} was committed after the build's clock {clock:%Y-%m-%d %H:%M} UTC, "
            f"so no registry date is trusted and the latest version v{version:04d} counts"
        )
    by = f" ({', '.join(count.counted)})" if count.counted else ""
    extra = f"; {'; '.join(details)}" if details else ""
    return Verdict(
        where,
        UNSIGNED,
        reason,
        f"{where}: {signature_count(len(count.counted), count.needed)}{by}{extra}",
        st,
        count.counted,
        count.needed,
    )


def when(at: datetime, clock: datetime) -> str:
    """'2027-01-15 09:00 UTC, in 3 d 4 h' (the countdown `release status` shows)."""
    return f"{at:%Y-%m-%d %H:%M} UTC, in {countdown(at, clock)}"


def countdown(at: datetime, clock: datetime) -> str:
    """'3 d 4 h', '2 h 5 min' or '1 min': the time from ``clock`` to ``at``, rounded down."""
    left = int((at - clock).total_seconds())
    days, rest = divmod(max(left, 0), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        span = f"{days} d {hours} h"
    elif hours:
        span = f"{hours} h {minutes} min"
    else:
        span = f"{max(minutes, 1)} min"
    return span
