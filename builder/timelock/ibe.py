"""Boneh–Franklin identity-based encryption on BLS12-381, as drand's ``tlock`` does it.

Only the scheme drand's ``quicknet`` uses is implemented: ``bls-unchained-g1-rfc9380``
(signatures on G1, the chain's public key on G2, hash-to-G1 per RFC 9380). The beacon's
signature of round ``n`` is the IBE private key of the identity ``sha256(n as 8-byte
big-endian)``, so a file key encrypted to that identity opens once round ``n`` is signed.

The encoding follows the reference implementations byte for byte (drand/kyber
``encrypt/ibe`` EncryptCCAonG2 / DecryptCCAonG2, tlock-js ``src/crypto/ibe.ts``):

1. ``Q_id = hash_to_G1(id, DST)``; ``G_id = e(Q_id, master)``;
2. ``sigma`` random, as long as the message (16 bytes: an age file key);
3. ``r = H3(sigma, msg)``; ``U = r·G2``;
4. ``V = sigma XOR H2(G_id^r)``;
5. ``W = msg XOR H4(sigma)``; the ciphertext is ``U (96 bytes compressed) || V || W``.

Decryption computes ``e(signature, U) = G_id^r``, recovers sigma and msg, and checks
``U = H3(sigma, msg)·G2`` (the Fujisaki–Okamoto check: a tampered ciphertext is refused).

BLS12-381 arithmetic is ``py_arkworks_bls12381`` (Rust arkworks): a pairing takes about
1 ms. Its ``GT.__str__`` is the hex of arkworks' canonical serialisation of the Fp12
element (c0 before c1 at every tower level, each Fp little-endian); H2 hashes the kilic /
noble serialisation, which is exactly that byte string reversed (c1 before c0, each Fp
big-endian). tests/timelock/test_ibe.py pins this against a real quicknet ciphertext and
round signature: a wrong byte order cannot open it.
"""

from __future__ import annotations

import hashlib
import secrets

from py_arkworks_bls12381 import GT, G1Point, G2Point, Scalar

# drand "bls-unchained-g1-rfc9380": hash to G1 with the RFC 9380 suite BLS12381G1_XMD:SHA-256_SSWU_RO_.
SCHEME = "bls-unchained-g1-rfc9380"
DST_G1 = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
G1_BYTES = 48  # a compressed signature
G2_BYTES = 96  # a compressed public key, and U
# The IBE hashes' domain labels (kyber encrypt/ibe).
H2_LABEL = b"IBE-H2"
H3_LABEL = b"IBE-H3"
H4_LABEL = b"IBE-H4"
# The BLS12-381 scalar field order r.
R_ORDER = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
MAX_MESSAGE = 32  # the hash output bounds the message (one age file key is 16)


class IBEError(ValueError):
    """A point, signature or ciphertext is malformed or does not verify (no secret inside)."""


def round_identity(round_number: int) -> bytes:
    """The identity (and signed message) of an unchained round: sha256(round, 8 bytes BE)."""
    return hashlib.sha256(round_number.to_bytes(8, "big")).digest()


def _g1(data: bytes, what: str) -> G1Point:
    if len(data) != G1_BYTES:
        raise IBEError(f"{what} is {len(data)} bytes, expected {G1_BYTES} (a compressed G1 point)")
    try:
        point = G1Point.from_compressed_bytes(data)  # checks the curve and the subgroup
    except ValueError:
        raise IBEError(f"{what} is not a point of G1") from None
    if point == G1Point.identity():
        raise IBEError(f"{what} is the point at infinity")
    return point


def _g2(data: bytes, what: str) -> G2Point:
    if len(data) != G2_BYTES:
        raise IBEError(f"{what} is {len(data)} bytes, expected {G2_BYTES} (a compressed G2 point)")
    try:
        point = G2Point.from_compressed_bytes(data)
    except ValueError:
        raise IBEError(f"{what} is not a point of G2") from None
    if point == G2Point.identity():
        raise IBEError(f"{what} is the point at infinity")
    return point


def check_public_key(public_key: bytes) -> None:
    """Raise IBEError unless ``public_key`` is a compressed G2 point other than infinity."""
    _g2(public_key, "the chain public key")


def verify_round_signature(public_key: bytes, round_number: int, signature: bytes) -> None:
    """BLS verification of an unchained G1 beacon: e(sig, G2) == e(H(id), pk). Raises IBEError."""
    pk = _g2(public_key, "the chain public key")
    sig = _g1(signature, "the round signature")
    q_id = G1Point.hash_to_curve(round_identity(round_number), DST_G1)
    if not GT.pairing_check([sig, -q_id], [G2Point(), pk]):
        raise IBEError(f"the signature does not verify for round {round_number} under the chain public key")


def sign_round(secret: int, round_number: int) -> bytes:
    """A beacon's signature of a round (for a test beacon whose key the caller made)."""
    return (G1Point.hash_to_curve(round_identity(round_number), DST_G1) * Scalar(secret % R_ORDER)).to_compressed_bytes()


def public_key_of(secret: int) -> bytes:
    return (G2Point() * Scalar(secret % R_ORDER)).to_compressed_bytes()


def _gt_bytes(value: GT) -> bytes:
    """The kilic/noble serialisation of a GT element (see the module docstring)."""
    return bytes.fromhex(str(value))[::-1]


def _h2(value: GT, length: int) -> bytes:
    return hashlib.sha256(H2_LABEL + _gt_bytes(value)).digest()[:length]


def _h3(sigma: bytes, msg: bytes) -> int:
    """A scalar from (sigma, msg): rehash with a 16-bit little-endian counter until below r."""
    seed = hashlib.sha256(H3_LABEL + sigma + msg).digest()
    for i in range(1, 65535):
        data = bytearray(hashlib.sha256(i.to_bytes(2, "little") + seed).digest())
        data[0] >>= 1  # BLS12-381's r has 255 bits: drop the top bit
        n = int.from_bytes(data, "big")
        if n < R_ORDER:
            return n
    raise IBEError("no scalar found for H3")  # probability about 2^-65535


def _h4(sigma: bytes, length: int) -> bytes:
    return hashlib.sha256(H4_LABEL + sigma).digest()[:length]


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def encrypt(public_key: bytes, identity: bytes, msg: bytes) -> bytes:
    """U || V || W for ``msg`` under the chain's ``public_key`` and ``identity``."""
    if not 0 < len(msg) <= MAX_MESSAGE:
        raise IBEError(f"message must be 1–{MAX_MESSAGE} bytes")
    master = _g2(public_key, "the chain public key")
    q_id = G1Point.hash_to_curve(identity, DST_G1)  # step 1
    sigma = secrets.token_bytes(len(msg))  # step 2
    r = Scalar(_h3(sigma, msg))  # step 3
    u = G2Point() * r
    v = _xor(sigma, _h2(GT.pairing(q_id * r, master), len(msg)))  # step 4: e(Q_id, master)^r
    w = _xor(msg, _h4(sigma, len(msg)))  # step 5
    return u.to_compressed_bytes() + v + w


def decrypt(signature: bytes, ciphertext: bytes) -> bytes:
    """The message of a U || V || W ciphertext, given the identity's key (the round signature)."""
    rest = len(ciphertext) - G2_BYTES
    if rest <= 0 or rest % 2 or rest // 2 > MAX_MESSAGE:
        raise IBEError(f"the IBE ciphertext is {len(ciphertext)} bytes; expected {G2_BYTES} + 2×(1–{MAX_MESSAGE})")
    u = _g2(ciphertext[:G2_BYTES], "the ciphertext's U")
    v, w = ciphertext[G2_BYTES : G2_BYTES + rest // 2], ciphertext[G2_BYTES + rest // 2 :]
    sig = _g1(signature, "the round signature")
    sigma = _xor(v, _h2(GT.pairing(sig, u), len(v)))
    msg = _xor(w, _h4(sigma, len(w)))
    if G2Point() * Scalar(_h3(sigma, msg)) != u:
        raise IBEError("the ciphertext does not open with this signature (U != H3(sigma, msg)·G2)")
    return msg
