"""The time-lock primitives against a real quicknet ciphertext and round signature."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from builder.timelock import ibe, tle
from builder.timelock.chain import QUICKNET
from tests.timelock.vectors import QUICKNET_HELLO, QUICKNET_ROUND, QUICKNET_SIGNATURE


def test_quicknet_constants_match_the_real_ciphertext() -> None:
    stanza = tle.read_stanza(QUICKNET_HELLO, "hello.tle")
    assert (stanza.round, stanza.chain_hash) == (QUICKNET_ROUND, QUICKNET.hash)
    assert (QUICKNET.period, QUICKNET.genesis_time) == (3, 1692803367)


def test_real_round_signature_verifies_and_another_round_does_not() -> None:
    ibe.verify_round_signature(QUICKNET.public_key_bytes, QUICKNET_ROUND, QUICKNET_SIGNATURE)
    with pytest.raises(ibe.IBEError, match="does not verify"):
        ibe.verify_round_signature(QUICKNET.public_key_bytes, QUICKNET_ROUND + 1, QUICKNET_SIGNATURE)


def test_a_stock_tle_ciphertext_opens() -> None:
    # tle (Go) wrote it; opening it pins hash-to-G1, the pairing, the GT byte order of H2,
    # H3/H4 and the age framing at once: any difference fails the U = r·G2 check or the MAC.
    assert tle.decrypt(QUICKNET_HELLO, QUICKNET_SIGNATURE, "hello.tle") == b"hello world"


def test_round_clock_matches_quicknet() -> None:
    assert QUICKNET.time_of(QUICKNET_ROUND) == datetime.fromtimestamp(1692803367 + (QUICKNET_ROUND - 1) * 3, timezone.utc)
    at = QUICKNET.time_of(QUICKNET_ROUND)
    assert QUICKNET.round_at_or_after(at) == QUICKNET_ROUND
    assert QUICKNET.round_at_or_after(datetime.fromtimestamp(at.timestamp() + 1, timezone.utc)) == QUICKNET_ROUND + 1


def test_our_ciphertext_opens_with_the_real_signature_only() -> None:
    data = tle.encrypt(b"embargo identity", QUICKNET.public_key_bytes, QUICKNET.hash, QUICKNET_ROUND)
    assert tle.decrypt(data, QUICKNET_SIGNATURE, "ours.tle") == b"embargo identity"
    other = ibe.sign_round(12345, QUICKNET_ROUND)  # a signature of the right round by another key
    with pytest.raises(tle.TleError, match="does not open"):
        tle.decrypt(data, other, "ours.tle")


@pytest.mark.parametrize("bad", [b"\x00" * 48, QUICKNET_SIGNATURE[:47], bytes([0xC0]) + bytes(47)])
def test_malformed_signatures_are_refused(bad: bytes) -> None:
    with pytest.raises(ibe.IBEError):
        ibe.verify_round_signature(QUICKNET.public_key_bytes, QUICKNET_ROUND, bad)
