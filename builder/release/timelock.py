"""A release no one can stop: the embargo identity time-locked to a drand beacon round.

Scheduling (``sealboard release flip BENCH --not-before T --timelock``, with the identity):
the embargo identity — the same text ``publish-identity`` writes to ``keys/released/`` — is
encrypted to the first round of the chain at or after ``T`` in drand's ``tle`` format
(builder.timelock), written beside the statement as ``<name>.tle``, and the statement names
the chain, the round, the ciphertext's SHA-256 and the embargo recipient. Once a threshold
of maintainers signed that statement, nobody can swap the ciphertext or the chain.

Opening (any build, no secret), for a statement in force that authorises the identity
(``ReleaseState.identity_authorised``), in this order, the first failure being the reason:

1. the ciphertext file is there (``timelock-ciphertext-missing``) and its SHA-256 is the
   statement's (``timelock-digest-mismatch``); its stanza names the statement's round and
   chain (``bad-timelock``);
2. the build's clock is at or past the round's time (``round-not-reached``);
3. the round's signature: ``<name>.beacon.json`` in the repository, else a relay when one is
   given (``beacon-unavailable``); it must verify against the statement's chain public key
   (``beacon-signature-invalid``) — a relay or a committed file is a carrier, never trusted;
4. the file decrypts (``timelock-bad-ciphertext``) to an identity that opens exactly the
   statement's recipient, which is the benchmark's embargo recipient (``timelock-wrong-recipient``).

The identity then serves as if the maintainers had published it: the build unseals with it
in memory (``builder.release.identity.published_identities``), and ``sealboard release
open-timelock`` writes it to ``keys/released/`` as ``publish-identity`` would.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from builder.config import BenchmarkConfig
from builder.errors import BuilderError, ReleaseError, SecretError
from builder.release.identity_file import released_identity_text
from builder.release.statement import BEACON_SUFFIX, TLE_SUFFIX, Statement, Timelock, release_dir
from builder.timelock import tle
from builder.timelock.beacon import beacon_json, check_round_reached, fetch_beacon, verified_signature
from builder.timelock.chain import Chain
from builder.trust.agekeys import Identity, load_identity

MAX_TLE_BYTES = 16 * 1024
MAX_BEACON_FILE = 4096


def seal_identity(
    config: BenchmarkConfig, identities: list[Identity], chain: Chain, not_before: datetime, name: str
) -> tuple[Timelock, bytes]:
    """The time-lock of ``config``'s embargo identity to the first round at or after ``not_before``."""
    key = next((ident for ident in identities if config.embargo_recipient in ident.recipients), None)
    if key is None:
        raise SecretError(
            f"the identity given does not hold the embargo key of {config.id} ({config.embargo_recipient})",
            where="--identity / SEALBOARD_IDENTITY",
            reason="wrong-identity",
            hint="--timelock encrypts the embargo identity: pass it with --identity",
        )
    round_number = chain.round_at_or_after(not_before)
    data = tle.encrypt(released_identity_text(config, key).encode(), chain.public_key_bytes, chain.hash, round_number)
    return Timelock(chain, round_number, name + TLE_SUFFIX, hashlib.sha256(data).hexdigest(), config.embargo_recipient), data


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _read(path: Path, where: str, limit: int) -> bytes:
    if path.is_symlink() or not path.is_file() or path.stat().st_size > limit:
        raise ReleaseError(f"is not a regular file of at most {limit} bytes", where=where, reason="bad-file")
    return path.read_bytes()


@dataclass(frozen=True)
class Opened:
    """A time-lock opened by :func:`open_timelock` (the only maker): the identity, and the
    verified round signature that opened it (``from_relay``: not committed yet)."""

    identity: Identity
    signature: bytes
    from_relay: bool


def round_signature(root: Path, st: Statement, relay: str | None) -> tuple[bytes, bool]:
    """The verified signature of the statement's round, and whether it came from the relay."""
    tl = st.timelock
    if tl is None:
        raise AssertionError()
    rel = f"{Path(st.path).parent}/{st.name}{BEACON_SUFFIX}"
    path = root / rel
    if _present(path):
        return verified_signature(_read(path, rel, MAX_BEACON_FILE), tl.chain, tl.round, rel), False
    if relay is None:
        raise ReleaseError(
            f"is missing: round {tl.round}'s signature is needed to open the time-lock",
            where=rel,
            reason="beacon-unavailable",
            hint=f"commit it (sealboard release open-timelock {st.benchmark} --beacon-relay URL), or build with --beacon-relay URL",
        )
    return verified_signature(fetch_beacon(relay, tl.chain, tl.round), tl.chain, tl.round, f"{relay} round {tl.round}"), True


def open_timelock(root: Path, config: BenchmarkConfig, st: Statement, clock: datetime, relay: str | None = None) -> Opened:
    """The embargo identity out of a time-locked statement (steps in the module docstring)."""
    tl = st.timelock
    if tl is None:
        raise ReleaseError("is not time-locked", where=st.path, reason="bad-timelock")
    rel = f"{Path(st.path).parent}/{tl.ciphertext}"
    # 1. The ciphertext the maintainers signed.
    if not _present(root / rel):
        raise ReleaseError(
            "is missing: the time-locked identity its statement signed",
            where=rel,
            reason="timelock-ciphertext-missing",
            hint="restore it from the commit that admitted the statement; the maintainers' route (publish-identity) remains",
        )
    data = _read(root / rel, rel, MAX_TLE_BYTES)
    if hashlib.sha256(data).hexdigest() != tl.ciphertext_sha256:
        raise ReleaseError(
            f"SHA-256 {hashlib.sha256(data).hexdigest()[:16]}… is not the {tl.ciphertext_sha256[:16]}… its statement signed",
            where=rel,
            reason="timelock-digest-mismatch",
            hint="the ciphertext was replaced after signing; restore it from the commit that admitted the statement",
        )
    stanza = tle.read_stanza(data, rel)
    if (stanza.round, stanza.chain_hash) != (tl.round, tl.chain.hash):
        raise ReleaseError(
            f"is locked to round {stanza.round} of chain {stanza.chain_hash[:16]}…, the statement names round {tl.round} "
            f"of {tl.chain.hash[:16]}…",
            where=rel,
            reason="bad-timelock",
        )
    # 2. Not before the round's time at the build's clock.
    check_round_reached(tl.chain, tl.round, clock, rel)
    # 3. The round's signature, verified against the chain the statement names.
    signature, from_relay = round_signature(root, st, relay)
    # 4. Decrypt, and the identity must open exactly the recipient signed for.
    plain = tle.decrypt(data, signature, rel)
    try:
        ident = load_identity(plain, rel)
    except BuilderError:
        raise ReleaseError("decrypts to something that is not an age identity", where=rel, reason="timelock-wrong-recipient") from None
    if ident.recipients != (tl.recipient,) or tl.recipient != config.embargo_recipient:
        raise ReleaseError(
            f"opens {', '.join(ident.recipients)}, not exactly the embargo recipient {config.embargo_recipient} its statement names",
            where=rel,
            reason="timelock-wrong-recipient",
            hint="the maintainers' route (publish-identity) remains",
        )
    return Opened(ident, signature, from_relay)


def save_beacon(root: Path, st: Statement, signature: bytes) -> Path:
    """Commit-ready ``<name>.beacon.json`` with a verified round signature (offline builds)."""
    if st.timelock is None:
        raise AssertionError()
    path = release_dir(root, st.benchmark) / f"{st.name}{BEACON_SUFFIX}"
    path.write_bytes(beacon_json(st.timelock.round, signature))
    return path
