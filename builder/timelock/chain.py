"""A drand chain as a time-lock needs it: public key, round period, genesis, scheme.

Round ``n`` (``n >= 1``) of a chain is produced at ``genesis_time + (n - 1) * period``
(drand ``common/time.go`` TimeOfRound). Only unchained G1-signature chains
(``bls-unchained-g1-rfc9380``, drand's ``quicknet``) are accepted: the round signature is then
the IBE key of the round, with no dependence on earlier rounds.

The chain hash is carried, never recomputed: drand derives it from the chain's genesis seed
(group hash), which a client does not need. What binds a time-lock to a chain is the public
key the threshold-signed release statement names; the hash is the label stock ``tle`` and
``tlock-js`` put in their stanza and look up relays by.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from builder.errors import ParseError
from builder.strict import check_fields
from builder.timelock import ibe

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_PUBLIC_KEY = re.compile(r"[0-9a-f]{192}\Z")
MAX_PERIOD = 3600


@dataclass(frozen=True)
class Chain:
    hash: str  # 64 hex digits
    public_key: str  # 192 hex digits: a compressed G2 point
    period: int  # seconds between rounds
    genesis_time: int  # Unix time of round 1
    scheme: str = ibe.SCHEME

    @property
    def public_key_bytes(self) -> bytes:
        return bytes.fromhex(self.public_key)

    def round_at_or_after(self, at: datetime) -> int:
        """The first round produced at or after ``at`` (never before round 1)."""
        elapsed = int(at.timestamp()) - self.genesis_time
        if elapsed <= 0:
            return 1
        return -(-elapsed // self.period) + 1  # ceil(elapsed / period) + 1

    def time_of(self, round_number: int) -> datetime:
        return datetime.fromtimestamp(self.genesis_time + (round_number - 1) * self.period, timezone.utc)

    def to_yaml(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "public_key": self.public_key,
            "period": self.period,
            "genesis_time": self.genesis_time,
            "scheme": self.scheme,
        }


# drand's mainnet quicknet (https://api.drand.sh/52db…/info), as pinned by drand/tlock's
# and tlock-js's own tests; tests/timelock/test_ibe.py opens a real quicknet ciphertext with it.
QUICKNET = Chain(
    hash="52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key=(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c"
        "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb"
        "5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"
    ),
    period=3,
    genesis_time=1692803367,
)


def parse_chain(obj: Any, where: str) -> Chain:
    """A chain from a release statement's ``timelock.chain`` mapping; raises ParseError."""
    obj = check_fields(obj, ("hash", "public_key", "period", "genesis_time", "scheme"), where=where, context="timelock.chain")
    return _checked(obj["hash"], obj["public_key"], obj["period"], obj["genesis_time"], obj["scheme"], where)


def parse_info(obj: Any, where: str) -> Chain:
    """A chain from a drand relay's ``/info`` JSON (unknown extra fields are ignored there)."""
    if not isinstance(obj, dict) or not all(k in obj for k in ("public_key", "period", "genesis_time", "hash", "schemeID")):
        raise ParseError("is not a drand chain info (public_key, period, genesis_time, hash, schemeID)", where=where, reason="bad-timelock")
    return _checked(obj["hash"], obj["public_key"], obj["period"], obj["genesis_time"], obj["schemeID"], where)


def _checked(hash_: Any, public_key: Any, period: Any, genesis: Any, scheme: Any, where: str) -> Chain:
    def bad(message: str) -> ParseError:
        return ParseError(
            f"timelock chain: {message}",
            where=where,
            reason="bad-timelock",
            hint="copy the chain's /info from a drand relay (quicknet: 'sealboard release flip --timelock' writes it)",
        )

    if scheme != ibe.SCHEME:
        raise bad(f"scheme must be {ibe.SCHEME!r} (an unchained chain with signatures on G1, like quicknet), not {scheme!r}"[:200])
    if not isinstance(hash_, str) or not _HEX64.match(hash_):
        raise bad("hash must be 64 lower-case hex digits")
    if not isinstance(public_key, str) or not _PUBLIC_KEY.match(public_key):
        raise bad("public_key must be 192 lower-case hex digits (a compressed G2 point)")
    try:
        ibe.check_public_key(bytes.fromhex(public_key))
    except ibe.IBEError as exc:
        raise bad(str(exc)) from None
    if type(period) is not int or not 0 < period <= MAX_PERIOD:
        raise bad(f"period must be a whole number of seconds, 1–{MAX_PERIOD}")
    if type(genesis) is not int or genesis <= 0:
        raise bad("genesis_time must be a positive Unix time")
    return Chain(hash_, public_key, period, genesis, scheme)
