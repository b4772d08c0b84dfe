"""The ``tle`` file: an age v1 file whose one recipient stanza is ``tlock``.

This is what drand's ``tle`` (Go) and ``tlock-js`` write and read::

    age-encryption.org/v1
    -> tlock <round> <chain hash, hex>
    <base64 of U || V || W: the 16-byte file key IBE-encrypted to the round (builder.timelock.ibe)>
    --- <header MAC>
    <payload: age's STREAM of ChaCha20-Poly1305 chunks under a key derived from the file key>

Sealboard writes it ASCII-armored (``-----BEGIN AGE ENCRYPTED FILE-----``), as tlock-js
does, so it sits in git as text. The age parts (header MAC, payload) follow c2sp.org/age;
rage (pyrage) cannot take a custom stanza type, so they are done here with
``cryptography``'s primitives, and the header grammar is checked by
:func:`builder.trust.seal.parse_header`, the same strict parser sealed bundle files pass.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from builder.errors import SealError
from builder.timelock import ibe
from builder.trust.seal import FILE_KEY_BYTES, MAC_MARK, MAC_PREFIX, PAYLOAD_NONCE_BYTES, STANZA_PREFIX, VERSION_LINE, parse_header

# "Recipient stanza" of drand's tlock: type "tlock", two arguments, the round and the chain hash.
TLOCK_LABEL = "tlock"
# c2sp.org/age "Header MAC": HMAC-SHA-256 under HKDF(file key, salt empty, info "header").
HEADER_INFO = b"header"
# c2sp.org/age "Payload": key = HKDF(file key, salt nonce, info "payload"), 64 KiB chunks,
# each sealed with nonce = 11-byte big-endian counter || last-chunk flag.
PAYLOAD_INFO = b"payload"
CHUNK = 64 * 1024
TAG = 16
# c2sp.org/age "ASCII armor": RFC 7468 strict, base64 with padding, 64 columns.
ARMOR_BEGIN = "-----BEGIN AGE ENCRYPTED FILE-----"
ARMOR_END = "-----END AGE ENCRYPTED FILE-----"
ARMOR_COLUMNS = 64
MAX_PLAINTEXT = 1 << 20  # an identity file is under a kilobyte; bound what a reader decrypts
_B64_LINE = re.compile(r"[A-Za-z0-9+/]*={0,2}\Z")


class TleError(SealError):
    """A tle file is malformed, names another round or chain, or does not open."""

    reason = "timelock-bad-ciphertext"


@dataclass(frozen=True)
class TlockStanza:
    round: int
    chain_hash: str
    body: bytes  # U || V || W


def _hkdf(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(ikm)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _payload(file_key: bytes, plaintext: bytes) -> bytes:
    nonce = secrets.token_bytes(PAYLOAD_NONCE_BYTES)
    aead = ChaCha20Poly1305(_hkdf(file_key, nonce, PAYLOAD_INFO))
    chunks = [plaintext[i : i + CHUNK] for i in range(0, len(plaintext), CHUNK)] or [b""]
    out = [nonce]
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        out.append(aead.encrypt(i.to_bytes(11, "big") + (b"\x01" if last else b"\x00"), chunk, None))
    return b"".join(out)


def _open_payload(file_key: bytes, payload: bytes, where: str) -> bytes:
    nonce, rest = payload[:PAYLOAD_NONCE_BYTES], payload[PAYLOAD_NONCE_BYTES:]
    aead = ChaCha20Poly1305(_hkdf(file_key, nonce, PAYLOAD_INFO))
    out: list[bytes] = []
    i = 0
    while True:
        sealed, rest = rest[: CHUNK + TAG], rest[CHUNK + TAG :]
        last = not rest
        try:
            out.append(aead.decrypt(i.to_bytes(11, "big") + (b"\x01" if last else b"\x00"), sealed, None))
        except InvalidTag:
            raise TleError("the payload does not decrypt: the file is truncated or altered", where=where) from None
        if last:
            break
        if len(out[-1]) != CHUNK or sum(map(len, out)) > MAX_PLAINTEXT:
            raise TleError("the payload has a short chunk before the last, or is too large", where=where)
        i += 1
    if out[-1] == b"" and i > 0:
        raise TleError("the payload ends with an empty chunk", where=where)
    return b"".join(out)


def armor(data: bytes) -> bytes:
    text = base64.b64encode(data).decode()
    lines = [text[i : i + ARMOR_COLUMNS] for i in range(0, len(text), ARMOR_COLUMNS)]
    return ("\n".join([ARMOR_BEGIN, *lines, ARMOR_END]) + "\n").encode()


def dearmor(data: bytes, where: str) -> bytes:
    """The binary age file inside strict armor (c2sp.org/age "ASCII armor"); binary passes through."""
    if not data.lstrip().startswith(ARMOR_BEGIN.encode()):
        return data
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise TleError("the armored file is not ASCII", where=where) from None
    lines = text.strip().split("\n")
    if lines[0] != ARMOR_BEGIN or lines[-1] != ARMOR_END or len(lines) < 3:
        raise TleError("the armor's BEGIN/END lines are malformed", where=where)
    body = lines[1:-1]
    if any(len(line) != ARMOR_COLUMNS for line in body[:-1]) or not 0 < len(body[-1]) <= ARMOR_COLUMNS:
        raise TleError("the armor's lines are not 64 columns", where=where)
    if not all(_B64_LINE.match(line) for line in body):
        raise TleError("the armor is not base64", where=where)
    try:
        return base64.b64decode("".join(body), validate=True)
    except binascii.Error:
        raise TleError("the armor is not canonical base64", where=where) from None


def encrypt(plaintext: bytes, public_key: bytes, chain_hash: str, round_number: int) -> bytes:
    """An armored tle file of ``plaintext``, opening at ``round_number`` of the chain."""
    file_key = secrets.token_bytes(FILE_KEY_BYTES)
    body = _b64(ibe.encrypt(public_key, ibe.round_identity(round_number), file_key))
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    if not lines or len(lines[-1]) == 64:
        lines.append("")  # the stanza body ends with a line shorter than 64 columns
    header = "\n".join([VERSION_LINE, f"{STANZA_PREFIX}{TLOCK_LABEL} {round_number} {chain_hash}", *lines, MAC_MARK]).encode()
    mac = hmac.new(_hkdf(file_key, b"", HEADER_INFO), header, hashlib.sha256).digest()
    return armor(header + b" " + _b64(mac).encode() + b"\n" + _payload(file_key, plaintext))


def read_stanza(data: bytes, where: str) -> TlockStanza:
    """The one tlock stanza of a tle file (armored or binary); raises TleError."""
    raw = dearmor(data, where)
    try:
        header = parse_header(raw, where)
    except SealError as exc:
        raise TleError(exc.message, where=where, line=exc.line) from None
    stanzas = [st for st in header.stanzas if st.args[0] == TLOCK_LABEL.encode()]
    if len(stanzas) != 1 or len(header.stanzas) != 1:
        raise TleError(
            f"expected exactly one stanza, of type {TLOCK_LABEL!r}",
            where=where,
            hint="write it with 'sealboard release flip --timelock' or tle/tlock-js",
        )
    st = stanzas[0]
    if len(st.args) != 3 or not st.args[1].isdigit() or not re.fullmatch(rb"[0-9a-f]{64}", st.args[2]):
        raise TleError("the tlock stanza must be '-> tlock <round> <64 hex chain hash>'", where=where, line=st.line)
    return TlockStanza(int(st.args[1]), st.args[2].decode(), st.body)


def decrypt(data: bytes, signature: bytes, where: str) -> bytes:
    """The plaintext of a tle file given its round's signature (already verified by the caller).

    Steps as c2sp.org/age orders them: unwrap the file key (the IBE check refuses a wrong
    signature or a tampered stanza), verify the header MAC, then decrypt the payload."""
    raw = dearmor(data, where)
    stanza = read_stanza(raw, where)
    try:
        file_key = ibe.decrypt(signature, stanza.body)
    except ibe.IBEError as exc:
        raise TleError(f"the tlock stanza does not open: {exc}", where=where) from None
    if len(file_key) != FILE_KEY_BYTES:
        raise TleError(f"the tlock stanza wraps {len(file_key)} bytes, not a {FILE_KEY_BYTES}-byte file key", where=where)
    header = parse_header(raw, where)
    mac_at = raw.rindex(b"\n" + MAC_PREFIX.encode(), 0, header.length) + 1 + len(MAC_MARK)
    expected = hmac.new(_hkdf(file_key, b"", HEADER_INFO), raw[:mac_at], hashlib.sha256).digest()
    if not hmac.compare_digest(expected, header.mac):
        raise TleError("the header MAC does not verify: the header was altered", where=where)
    return _open_payload(file_key, raw[header.length :], where)
