"""The tle file: round trip, and every tampering refused."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.timelock import ibe, tle
from builder.timelock.chain import QUICKNET
from tests.timelock.vectors import QUICKNET_ROUND, QUICKNET_SIGNATURE


def _binary(armored: bytes) -> bytes:
    return tle.dearmor(armored, "x")


@pytest.mark.parametrize("size", [0, 1, 64 * 1024, 64 * 1024 + 1, 3 * 64 * 1024])
def test_round_trip_across_chunk_boundaries(size: int) -> None:
    plain = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    data = tle.encrypt(plain, QUICKNET.public_key_bytes, QUICKNET.hash, QUICKNET_ROUND)
    assert data.startswith(tle.ARMOR_BEGIN.encode()) and data.endswith(tle.ARMOR_END.encode() + b"\n")
    assert tle.decrypt(data, QUICKNET_SIGNATURE, "x") == plain
    assert tle.decrypt(_binary(data), QUICKNET_SIGNATURE, "x") == plain  # binary form too


def _tampered(data: bytes, at: int) -> bytes:
    raw = bytearray(_binary(data))
    raw[at] ^= 1
    return tle.armor(bytes(raw))


def test_tampered_header_payload_and_stanza_are_refused() -> None:
    data = tle.encrypt(b"secret", QUICKNET.public_key_bytes, QUICKNET.hash, QUICKNET_ROUND)
    raw = _binary(data)
    header_end = raw.index(b"\n--- ") + 5
    with pytest.raises(tle.TleError, match="payload"):
        tle.decrypt(_tampered(data, len(raw) - 1), QUICKNET_SIGNATURE, "x")
    with pytest.raises(tle.TleError):
        tle.decrypt(_tampered(data, header_end + 2), QUICKNET_SIGNATURE, "x")  # the MAC itself
    body_at = raw.index(b"\n", raw.index(b"-> tlock")) + 3
    with pytest.raises(tle.TleError):
        tle.decrypt(_tampered(data, body_at), QUICKNET_SIGNATURE, "x")  # U, V or W


def test_a_second_stanza_or_a_wrong_shape_is_refused() -> None:
    data = _binary(tle.encrypt(b"secret", QUICKNET.public_key_bytes, QUICKNET.hash, QUICKNET_ROUND))
    extra = data.replace(
        b"\n---",
        b"\n-> X25519 " + base64.b64encode(bytes(32)).rstrip(b"=") + b"\n" + base64.b64encode(bytes(32)).rstrip(b"=") + b"\n---",
        1,
    )
    with pytest.raises(tle.TleError, match="exactly one stanza"):
        tle.read_stanza(extra, "x")
    with pytest.raises(tle.TleError, match="64 hex"):
        tle.read_stanza(data.replace(QUICKNET.hash.encode(), b"quicknet", 1), "x")


def test_ibe_refuses_oversized_messages() -> None:
    with pytest.raises(ibe.IBEError):
        ibe.encrypt(QUICKNET.public_key_bytes, b"id", bytes(33))


_SEALED = tle.encrypt(b"an identity-sized plaintext\n" * 4, QUICKNET.public_key_bytes, QUICKNET.hash, QUICKNET_ROUND)
_RAW = tle.dearmor(_SEALED, "x")


@settings(max_examples=150, deadline=None)
@given(at=st.integers(min_value=0, max_value=len(_RAW) - 1), bit=st.integers(min_value=0, max_value=7))
def test_any_flipped_bit_is_refused_never_misread(at: int, bit: int) -> None:
    """Invariant: a tle file with any one bit changed never opens (header, stanza, MAC or payload)."""
    raw = bytearray(_RAW)
    raw[at] ^= 1 << bit
    with pytest.raises(tle.TleError):
        tle.decrypt(bytes(raw), QUICKNET_SIGNATURE, "x")


@settings(max_examples=25, deadline=None)
@given(plain=st.binary(max_size=3000))
def test_round_trip_property(plain: bytes) -> None:
    sealed = tle.encrypt(plain, QUICKNET.public_key_bytes, QUICKNET.hash, QUICKNET_ROUND)
    assert tle.decrypt(sealed, QUICKNET_SIGNATURE, "x") == plain
