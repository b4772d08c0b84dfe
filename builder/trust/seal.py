"""Sealing: age (C2SP age, ``age-encryption.org/v1``) files, X25519 recipients only.

Encryption and payload decryption go through ``pyrage`` (Rust ``rage``). Before a sealed
file from a bundle reaches ``pyrage``, :func:`unseal` parses and checks its header here,
strictly per the spec (https://c2sp.org/age), so that policy refusals and malformed input
get a precise, stable ``reason``:

=========================  ==============================================================
reason                     when
=========================  ==============================================================
``armored-refused``        the input is ASCII-armored (PEM, ``age -a``). Sealed bundle
                           files are binary ``.age`` (design); armor adds a second parser
                           and a malleable encoding for no benefit, so it is refused
                           rather than decoded.
``bad-header``             the header does not follow the v1 grammar, an X25519 stanza is
                           malformed, or the payload nonce is missing.
``scrypt-refused``         a passphrase (``scrypt``) stanza is present.
``no-matching-recipient``  no X25519 stanza unwraps with any of our identities.
``decrypt-failed``         a stanza unwrapped, but the header MAC or the payload does not
                           authenticate (wrong/tampered/truncated file).
``bad-identity``           (:class:`SecretError`) an identity file could not be loaded.
``bad-recipient``          a recipient string is not an ``age1…`` X25519 recipient.
=========================  ==============================================================

Order of checks in :func:`unseal` (first failure wins): armor → v1 header grammar
(``bad-header``) → scrypt policy (``scrypt-refused``) → X25519 stanza shape
(``bad-header``) → then pyrage: unwrap with our identities (``no-matching-recipient``; a
low-order share is ``bad-header``), header MAC and payload (``decrypt-failed``).
Everything stays in memory; nothing is written to disk.

Why a header pre-parser next to rage: the cryptography (unwrap, MAC, payload) is rage's
alone, but rage is more lenient than the spec in places (the C2SP vectors show two
malformed headers it decrypts) and collapses several policy cases into one error. The
pre-parser guarantees (1) the spec's MUST-reject header grammar — canonical base64, 64-column
stanza bodies, LF only, no armor — so a sealed file has exactly one byte encoding, and
(2) Sealboard's policy refusals with their own reasons: no passphrase (scrypt) stanza
ever, and the X25519 stanza shape (32-byte share and body) checked before any
decryption, the spec's partitioning-oracle mitigation.

Keys (recipients, identities, Bech32) live in :mod:`builder.trust.agekeys` and are re-exported
here. Secrets: :class:`Identity` never shows its key in ``repr``/``str``, is not picklable, and
no error raised here contains identity text (errors are raised ``from None`` so that no
chained exception carries it either). No message even contains the literal secret-key
prefix, so a log grep for it finds real leaks only.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Sequence

import pyrage

from builder.errors import SealError
from builder.trust.agekeys import Identity, generate_identity, identity_file_text, load_identity, parse_recipient

__all__ = [
    "Identity",
    "load_identity",
    "generate_identity",
    "identity_file_text",
    "parse_recipient",
    "seal",
    "unseal",
    "parse_header",
    "Header",
    "Stanza",
    "VERSION_LINE",
    "X25519_LABEL",
    "SCRYPT_LABEL",
]

Where = str | PurePath | None

# ---------------------------------------------------------------------------------------
# Spec constants (c2sp.org/age, "age-encryption.org/v1").
# ---------------------------------------------------------------------------------------

# "Header / Version line": the header starts with "age-encryption.org/" + version, LF.
VERSION_PREFIX = "age-encryption.org/"
# "ABNF definition of file header": v1-line = %s"age-encryption.org/v1" LF
VERSION_LINE = "age-encryption.org/v1"
# "Recipient stanza" / ABNF arg-line = "-> " argument *(SP argument) LF
STANZA_PREFIX = "-> "
# ABNF argument = 1*VCHAR  (VCHAR = %x21-7E, RFC 5234 B.1)
ARGUMENT_RE = re.compile(rb"[\x21-\x7e]+\Z")
# "Recipient stanza": body is base64 "wrapped at 64 columns"; full-line = 64base64char LF,
# final-line = *63base64char LF (MUST be present, MAY be empty).
BODY_COLUMNS = 64
# ABNF base64char = ALPHA / DIGIT / "+" / "/"   (no "=" padding anywhere in the header)
BASE64_LINE_RE = re.compile(rb"[A-Za-z0-9+/]*\Z")
# "Header MAC" / ABNF end = "--- " 43base64char LF ; the MAC covers the header up to and
# including the "---" mark (not the space after it).
MAC_MARK = "---"
MAC_PREFIX = "--- "
MAC_B64_CHARS = 43  # base64 of the 32-byte HMAC-SHA-256 without padding
MAC_BYTES = 32
# "File key": 128-bit.
FILE_KEY_BYTES = 16
# "Payload": begins with a 16-byte nonce.
PAYLOAD_NONCE_BYTES = 16

# "The X25519 recipient type" / "X25519 recipient stanza": exactly two arguments, the
# fixed string "X25519" and the canonical base64 of a 32-byte ephemeral share; the body
# is exactly 32 bytes (16-byte file key + 16-byte Poly1305 tag) and is checked before any
# decryption (partitioning-oracle mitigation).
X25519_LABEL = "X25519"
X25519_ARGS = 2
X25519_SHARE_BYTES = 32
X25519_BODY_BYTES = FILE_KEY_BYTES + 16

# rage's error strings (first sentence) for the outcomes we give their own reason; any
# other decrypt error is a payload failure. tests/trust/test_seal.py pins them through the
# C2SP vectors, so a rage upgrade that rewords one fails there, not silently here.
RAGE_NO_MATCH = "No matching keys found"
RAGE_BAD_HEADER = "Header is invalid"
RAGE_BAD_MAC = "Header MAC is invalid"

# "The scrypt recipient type": first argument "scrypt". Refused by Sealboard policy.
SCRYPT_LABEL = "scrypt"

# "ASCII armor": strict PEM (RFC 7468) with label "AGE ENCRYPTED FILE". Refused.
ARMOR_BEGIN = b"-----BEGIN AGE ENCRYPTED FILE-----"
PEM_DASHES = b"-----"  # any PEM-like boundary (after optional whitespace) counts as armor

# Sanity caps on untrusted headers (not from the spec): a bundle file is sealed to the
# embargo key plus a few maintainers; rage adds one grease stanza.
MAX_STANZAS = 64
MAX_HEADER_LINE = 4096

_SCRYPT_MESSAGE = "passphrase-encrypted files are not accepted from bundles; encrypt to the benchmark's recipient"


# ---------------------------------------------------------------------------------------
# Sealing
# ---------------------------------------------------------------------------------------


def seal(plaintext: bytes, recipients: Sequence[str], where: Where = None) -> bytes:
    """Encrypt ``plaintext`` to X25519 ``recipients`` as a binary age file (pyrage)."""
    if isinstance(recipients, str):
        raise TypeError("recipients must be a list of age1… strings, not one string")
    if not recipients:
        raise SealError("no recipient to seal to", where=where, reason="bad-recipient")
    parsed: list[object] = []
    seen: set[str] = set()
    for r in recipients:
        r = parse_recipient(r, where)
        if r in seen:
            continue
        seen.add(r)
        parsed.append(pyrage.x25519.Recipient.from_str(r))
    return pyrage.encrypt(bytes(plaintext), parsed)


# ---------------------------------------------------------------------------------------
# Header parsing (age v1, strict)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stanza:
    args: tuple[bytes, ...]
    body: bytes
    line: int  # 1-based header line of the "-> " line


@dataclass(frozen=True, slots=True)
class Header:
    stanzas: tuple[Stanza, ...]
    mac: bytes
    length: int  # header bytes including the MAC line's LF; the payload starts here


def _bad(message: str, where: Where, line: int | None = None, hint: str | None = None) -> SealError:
    return SealError(message, where=where, line=line, hint=hint, reason="bad-header")


def _b64decode_canonical(s: bytes) -> bytes | None:
    """Unpadded canonical base64 (spec "Conventions": decoders MUST reject non-canonical
    encodings and '=' padding). ``s`` has already been checked to be base64char-only."""
    if len(s) % 4 == 1:
        return None
    try:
        raw = base64.b64decode(s + b"=" * (-len(s) % 4), validate=True)
    except binascii.Error:
        return None
    if base64.b64encode(raw).rstrip(b"=") != s:
        return None  # non-zero trailing bits
    return raw


def _armored(data: bytes) -> bool:
    i = 0
    n = min(len(data), 4096)
    while i < n and data[i] in b" \t\r\n":
        i += 1
    return data.startswith(PEM_DASHES, i)


def parse_header(data: bytes, where: Where = None) -> Header:
    """Parse the age v1 header of ``data`` strictly. Raises SealError (``bad-header`` or
    ``armored-refused``). Does not look at stanza types beyond the grammar."""
    if _armored(data):
        raise SealError(
            "ASCII-armored (PEM) age files are not accepted",
            where=where,
            reason="armored-refused",
            hint="seal to a binary .age file (do not pass -a/--armor to age)",
        )

    pos = 0
    lineno = 0
    size = len(data)

    def next_line() -> bytes:
        nonlocal pos, lineno
        end = data.find(b"\n", pos, pos + MAX_HEADER_LINE + 1)
        lineno += 1
        if end < 0:
            if size - pos > MAX_HEADER_LINE:
                raise _bad("header line is too long", where, lineno)
            raise _bad("header is truncated (a line has no LF)", where, lineno)
        line = data[pos:end]
        pos = end + 1
        return line

    # "Version line": exactly age-encryption.org/v1 LF.
    if not data:
        raise _bad("file is empty", where, hint="not an age file")
    first = next_line()
    if first != VERSION_LINE.encode():
        if first == VERSION_LINE.encode() + b"\r":
            raise _bad(
                "header lines end with CRLF; age headers use LF only",
                where,
                1,
                hint="the file was converted as text (git autocrlf?); mark *.age binary in .gitattributes and re-seal",
            )
        if first.startswith(VERSION_PREFIX.encode()):
            raise _bad("unsupported age format version (only age-encryption.org/v1)", where, 1)
        raise _bad(
            "not an age v1 file (first line is not age-encryption.org/v1)",
            where,
            1,
            hint="sealed files are binary age files made with age/rage/pyrage",
        )

    stanzas: list[Stanza] = []
    stanza_prefix = STANZA_PREFIX.encode()
    mac_prefix = MAC_PREFIX.encode()
    while True:
        line = next_line()
        if line.startswith(stanza_prefix):
            # "Recipient stanza": arg-line = "-> " argument *(SP argument) LF
            at = lineno
            if len(stanzas) >= MAX_STANZAS:
                raise _bad(f"header has more than {MAX_STANZAS} stanzas", where, at)
            args = tuple(line[len(stanza_prefix) :].split(b" "))
            for a in args:
                if not ARGUMENT_RE.match(a):
                    raise _bad(
                        "stanza argument is empty or has a character outside printable ASCII",
                        where,
                        at,
                    )
            # body: *full-line final-line; a line shorter than 64 columns ends it.
            chunks: list[bytes] = []
            while True:
                body_line = next_line()
                if len(body_line) > BODY_COLUMNS:
                    raise _bad("stanza body line is longer than 64 columns", where, lineno)
                if not BASE64_LINE_RE.match(body_line):
                    raise _bad(
                        "stanza body line is not unpadded base64 (missing body or final line?)",
                        where,
                        lineno,
                    )
                chunks.append(body_line)
                if len(body_line) < BODY_COLUMNS:
                    break
            body = _b64decode_canonical(b"".join(chunks))
            if body is None:
                raise _bad("stanza body is not canonical base64", where, at)
            stanzas.append(Stanza(args=args, body=body, line=at))
            continue
        if line.startswith(MAC_MARK.encode()):
            # "Header MAC": end = "--- " 43base64char LF
            if not stanzas:
                raise _bad("header has no recipient stanza", where, lineno)
            enc = line[len(mac_prefix) :]
            if not line.startswith(mac_prefix) or len(enc) != MAC_B64_CHARS or not BASE64_LINE_RE.match(enc):
                raise _bad("MAC line is malformed (expected '--- ' and 43 base64 characters)", where, lineno)
            mac = _b64decode_canonical(enc)
            if mac is None or len(mac) != MAC_BYTES:
                raise _bad("MAC is not canonical base64", where, lineno)
            break
        raise _bad("unexpected header line (expected '-> ' stanza or '--- ' MAC line)", where, lineno)

    # "Payload": begins with a 16-byte nonce.
    if size - pos < PAYLOAD_NONCE_BYTES:
        raise _bad("file is truncated: payload nonce is missing", where)
    return Header(stanzas=tuple(stanzas), mac=mac, length=pos)


# ---------------------------------------------------------------------------------------
# Unsealing
# ---------------------------------------------------------------------------------------


def _check_x25519_stanza(st: Stanza, where: Where) -> None:
    """Spec "X25519 recipient stanza": reject (not ignore) a malformed X25519 stanza."""
    if len(st.args) != X25519_ARGS:
        raise _bad(f"X25519 stanza has {len(st.args)} arguments, expected {X25519_ARGS}", where, st.line)
    arg = st.args[1]
    share = _b64decode_canonical(arg) if BASE64_LINE_RE.match(arg) else None
    if share is None or len(share) != X25519_SHARE_BYTES:
        raise _bad("X25519 stanza share is not canonical base64 of 32 bytes", where, st.line)
    if len(st.body) != X25519_BODY_BYTES:
        raise _bad(f"X25519 stanza body is {len(st.body)} bytes, expected {X25519_BODY_BYTES}", where, st.line)


def unseal(ciphertext: bytes, identities: Sequence[Identity], where: Where = None) -> bytes:
    """Decrypt a binary age file in memory. See the module docstring for the checks."""
    if isinstance(identities, Identity):
        identities = [identities]
    keys = [k for ident in identities for k in ident._keys]
    if not keys:
        raise ValueError("unseal needs at least one identity")
    if not isinstance(ciphertext, bytes):
        ciphertext = bytes(ciphertext)

    header = parse_header(ciphertext, where)

    # Policy: no passphrase stanzas, alone or mixed (spec also forbids mixing).
    if any(st.args[0] == SCRYPT_LABEL.encode() for st in header.stanzas):
        raise SealError(
            _SCRYPT_MESSAGE,
            where=where,
            reason="scrypt-refused",
            hint="re-seal with: age -r <benchmark recipient age1…> -o FILE.age FILE",
        )

    # Shape of every X25519 stanza first (the spec's MUST-reject rules); others ignored.
    x_label = X25519_LABEL.encode()
    x_stanzas = [st for st in header.stanzas if st.args[0] == x_label]
    for st in x_stanzas:
        _check_x25519_stanza(st, where)

    # Unwrap, header MAC and payload: rage's. Its errors are fixed strings (no input
    # echoed); map them to our stable reasons.
    try:
        return pyrage.decrypt(ciphertext, [k.rage for k in keys])
    except pyrage.DecryptError as e:
        detail = str(e).split(". ")[0].split("\n")[0][:100] or "decryption error"
    if detail == RAGE_NO_MATCH:
        n_x = len(x_stanzas)
        n_other = len(header.stanzas) - n_x
        ours = ", ".join(k.recipient for k in keys)
        raise SealError(
            f"no recipient stanza is addressed to our identity: the header has {n_x} X25519 "
            f"stanza(s) and {n_other} other stanza(s), none unwraps with {ours}",
            where=where,
            reason="no-matching-recipient",
            hint="the file must be sealed to the benchmark's embargo recipient (see its leaderboard config)",
        )
    if detail == RAGE_BAD_HEADER:
        raise _bad("header is invalid (rage refused it after the grammar check)", where)
    if detail == RAGE_BAD_MAC:
        raise SealError(
            "header MAC does not verify: the header was altered or the file is corrupt",
            where=where,
            reason="decrypt-failed",
        )
    raise SealError(
        f"payload does not decrypt ({detail}): the file is truncated, corrupt or tampered",
        where=where,
        reason="decrypt-failed",
    )
