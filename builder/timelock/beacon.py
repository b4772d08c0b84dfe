"""A round's signature: read from the repository or fetched from a relay, then verified.

Where it comes from is never trusted: a relay (any drand HTTP endpoint: ``/<chain hash>/public/<round>``
or ``/public/<round>``) or a file someone committed is only a carrier. The signature counts
after :func:`verified_signature` checks it against the chain's public key the release
statement names (BLS, ``builder.timelock.ibe``). A signature that verifies is, by the
beacon's threshold, the only one there is for that round, so two sources cannot disagree.

The file Sealboard keeps beside a time-locked statement (``<name>.beacon.json``) is drand's
own JSON for the round (``{"round": N, "signature": "<hex>", "randomness": …}``), so a copy
of ``curl RELAY/<chain hash>/public/N`` works as is.
"""

from __future__ import annotations

import hashlib
import re
import urllib.error
import urllib.request
from datetime import datetime

from builder.errors import ParseError, ReleaseError
from builder.strict import loads_json
from builder.timelock import ibe
from builder.timelock.chain import Chain

MAX_BEACON_BYTES = 4096
FETCH_TIMEOUT_S = 20
_HEX = re.compile(r"[0-9a-f]+\Z")


def beacon_json(round_number: int, signature: bytes) -> bytes:
    """The drand JSON for a round (what a relay serves and the beacon file holds)."""
    sig = signature.hex()
    return (f'{{"round":{round_number},"randomness":"{hashlib.sha256(signature).hexdigest()}","signature":"{sig}"}}\n').encode()


def parse_beacon(data: bytes, round_number: int, where: str) -> bytes:
    """The signature in a drand round JSON, which must name ``round_number``; raises ParseError."""
    if len(data) > MAX_BEACON_BYTES:
        raise ParseError(f"is larger than {MAX_BEACON_BYTES} bytes", where=where, reason="too-large")
    obj = loads_json(data, where)
    if not isinstance(obj, dict) or not isinstance(obj.get("signature"), str) or type(obj.get("round")) is not int:
        raise ParseError('is not a drand round ({"round": N, "signature": "<hex>"})', where=where, reason="bad-timelock")
    if obj["round"] != round_number:
        raise ParseError(f"is round {obj['round']}, the time-lock needs round {round_number}", where=where, reason="bad-timelock")
    sig = obj["signature"]
    if not _HEX.match(sig) or len(sig) != 2 * ibe.G1_BYTES:
        raise ParseError(f"signature must be {2 * ibe.G1_BYTES} lower-case hex digits", where=where, reason="bad-timelock")
    return bytes.fromhex(sig)


def fetch_beacon(relay: str, chain: Chain, round_number: int) -> bytes:
    """Round JSON bytes from a relay: ``/<hash>/public/<n>`` first, then ``/public/<n>``.

    Raises ReleaseError ``beacon-unavailable`` when neither answers with a round."""
    base = relay.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ReleaseError(f"the beacon relay {relay!r} is not an http(s) URL"[:200], where="--beacon-relay", reason="beacon-unavailable")
    errors = []
    for url in (f"{base}/{chain.hash}/public/{round_number}", f"{base}/public/{round_number}"):
        try:
            with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_S) as response:  # noqa: S310 (http(s) only, checked above)
                return bytes(response.read(MAX_BEACON_BYTES + 1))
        except (urllib.error.URLError, OSError, ValueError) as exc:
            errors.append(f"{url}: {getattr(exc, 'code', None) or exc}")
    raise ReleaseError(
        f"no relay answered for round {round_number}: {'; '.join(errors)}"[:400],
        where="--beacon-relay",
        reason="beacon-unavailable",
        hint="try another drand relay, or commit the round's JSON as the beacon file",
    )


def check_round_reached(chain: Chain, round_number: int, clock: datetime, where: str) -> None:
    """Refuse (``round-not-reached``) before the round's time at the build's clock."""
    due = chain.time_of(round_number)
    if clock < due:
        raise ReleaseError(
            f"time-locked to round {round_number}, due {due:%Y-%m-%d %H:%M:%S} UTC; the clock is {clock:%Y-%m-%d %H:%M:%S} UTC",
            where=where,
            reason="round-not-reached",
            hint="the identity opens once the beacon has signed that round",
        )


def verified_signature(data: bytes, chain: Chain, round_number: int, where: str) -> bytes:
    """The round's signature from drand JSON bytes, verified against ``chain`` (``beacon-signature-invalid``)."""
    signature = parse_beacon(data, round_number, where)
    try:
        ibe.verify_round_signature(chain.public_key_bytes, round_number, signature)
    except ibe.IBEError as exc:
        raise ReleaseError(
            f"{exc} (chain {chain.hash[:16]}…)",
            where=where,
            reason="beacon-signature-invalid",
            hint="the relay or file is wrong or hostile: fetch the round from another drand relay",
        ) from None
    return signature
