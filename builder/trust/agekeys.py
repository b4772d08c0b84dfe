"""age keys: X25519 recipients (``age1…``) and identities (``AGE-SECRET-KEY-1…``).

Bech32 encoding per the age spec (c2sp.org/age, "The X25519 recipient type"), recipient
validation, and the :class:`Identity` that holds the embargo key. An Identity never shows
its key in ``repr``/``str``, cannot be pickled, and no error raised here quotes identity
text. :mod:`builder.trust.seal` uses these keys to seal and unseal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath
from typing import Iterable

import pyrage
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from builder.errors import SealError, SecretError

Where = str | PurePath | None

# Bech32 HRPs ("The X25519 recipient type"): identity AGE-SECRET-KEY-, recipient age.
IDENTITY_HRP = "age-secret-key-"
RECIPIENT_HRP = "age"
# "The MLKEM768-X25519 hybrid recipient type": HRPs we recognise only to refuse clearly.
PQ_IDENTITY_HRP = "age-secret-key-pq-"
PQ_RECIPIENT_HRP = "age1pq"
# "X25519 recipient stanza": shares and public keys are 32 bytes.
X25519_SHARE_BYTES = 32

# ---------------------------------------------------------------------------------------
# Bech32 (BIP 173, without the 90-character limit, as the age spec says).
# ---------------------------------------------------------------------------------------

_BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_VALUES = {c: i for i, c in enumerate(_BECH32_CHARSET)}
_BECH32_GEN = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _bech32_polymod(values: Iterable[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ v
        for i in range(5):
            if (top >> i) & 1:
                chk ^= _BECH32_GEN[i]
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _convert_bits(data: Iterable[int], frm: int, to: int, pad: bool) -> bytes | None:
    acc = bits = 0
    out = bytearray()
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            out.append((acc >> bits) & maxv)
    if pad:
        if bits:
            out.append((acc << (to - bits)) & maxv)
    elif bits >= frm or ((acc << (to - bits)) & maxv):
        return None  # non-zero or excess padding: not a canonical encoding
    return bytes(out)


def _bech32_decode(s: str) -> tuple[str, bytes] | None:
    """(lowercase hrp, data bytes), or None. Never raises, never echoes ``s``."""
    if not s or any(not (33 <= ord(c) <= 126) for c in s):
        return None
    if s != s.lower() and s != s.upper():
        return None  # mixed case is invalid Bech32
    s = s.lower()
    pos = s.rfind("1")
    if pos < 1 or pos + 7 > len(s):
        return None
    hrp = s[:pos]
    try:
        data = [_BECH32_VALUES[c] for c in s[pos + 1 :]]
    except KeyError:
        return None
    if _bech32_polymod(_hrp_expand(hrp) + data) != 1:
        return None
    raw = _convert_bits(data[:-6], 5, 8, pad=False)
    if raw is None:
        return None
    return hrp, raw


def _bech32_encode(hrp: str, raw: bytes) -> str:
    data = list(_convert_bits(raw, 8, 5, pad=True) or b"")
    polymod = _bech32_polymod(_hrp_expand(hrp) + data + [0] * 6) ^ 1
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_BECH32_CHARSET[d] for d in data + checksum)


# ---------------------------------------------------------------------------------------
# Recipients and identities
# ---------------------------------------------------------------------------------------


def _recipient_of(private: X25519PrivateKey) -> tuple[bytes, str]:
    public = private.public_key().public_bytes_raw()
    return public, _bech32_encode(RECIPIENT_HRP, public)


def parse_recipient(s: str, where: Where = None) -> str:
    """Validate an ``age1…`` X25519 recipient and return it (canonical lowercase form).

    Raises :class:`SealError` with reason ``bad-recipient``. Recipients are public, but the
    message still does not echo the input (it may be a pasted secret by mistake).
    """
    hint = "an X25519 recipient is 'age1' followed by 58 lowercase characters, as printed by age-keygen"
    if not isinstance(s, str):
        raise SealError("recipient must be a string", where=where, reason="bad-recipient")
    if s.upper().startswith(IDENTITY_HRP.upper()):
        raise SealError(
            "a secret key was given where a public recipient (age1…) was expected; "
            "treat that key as compromised",
            where=where,
            reason="bad-recipient",
            hint="use the 'public key' line age-keygen prints (age-keygen -y IDENTITY_FILE)",
        )
    if s.startswith(("ssh-", "ecdsa-", "sk-")):
        raise SealError(
            "SSH keys are not accepted as age recipients", where=where,
            reason="bad-recipient", hint=hint,
        )
    if s != s.lower():
        raise SealError(
            "recipient is not in canonical lowercase form", where=where,
            reason="bad-recipient", hint=hint,
        )
    decoded = _bech32_decode(s)
    if decoded is None:
        raise SealError(
            "recipient is not valid Bech32 (typo or truncated?)", where=where,
            reason="bad-recipient", hint=hint,
        )
    hrp, raw = decoded
    if hrp == PQ_RECIPIENT_HRP:
        raise SealError(
            "post-quantum hybrid recipients (age1pq1…) are not supported", where=where,
            reason="bad-recipient", hint=hint,
        )
    if hrp != RECIPIENT_HRP:
        raise SealError(
            "not an age X25519 recipient (Bech32 prefix is not 'age')", where=where,
            reason="bad-recipient", hint=hint,
        )
    if len(raw) != X25519_SHARE_BYTES:
        raise SealError(
            f"recipient key is {len(raw)} bytes, expected {X25519_SHARE_BYTES}", where=where,
            reason="bad-recipient", hint=hint,
        )
    return s


@dataclass(frozen=True, eq=False, slots=True)
class _Key:
    """One X25519 key. Never printed (Identity hides it); kept module-private."""

    private: X25519PrivateKey
    public: bytes
    recipient: str
    rage: object  # pyrage.x25519.Identity

    def __repr__(self) -> str:
        return f"_Key(recipient={self.recipient!r})"


class Identity:
    """An age identity file's X25519 keys (usually exactly one, as age-keygen writes).

    ``recipient`` is the (first) key's ``age1…`` recipient; ``recipients`` lists all.
    ``repr``/``str`` show only recipients. Immutable and not picklable: to hand an
    identity to another process, pass the identity file's text and load it there.
    """

    __slots__ = ("_keys",)

    def __init__(self, _keys: tuple[_Key, ...]) -> None:
        if not _keys:
            raise ValueError("an Identity needs at least one key")
        object.__setattr__(self, "_keys", tuple(_keys))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Identity is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Identity is immutable")

    @property
    def recipient(self) -> str:
        return self._keys[0].recipient

    @property
    def recipients(self) -> tuple[str, ...]:
        return tuple(k.recipient for k in self._keys)

    def __repr__(self) -> str:
        if len(self._keys) == 1:
            return f"Identity(recipient={self.recipient!r})"
        return f"Identity(recipients={self.recipients!r})"

    __str__ = __repr__

    def __reduce__(self):  # pickle / copy
        raise TypeError("Identity objects are not picklable; pass the identity file text")

    def __copy__(self) -> "Identity":
        return self

    def __deepcopy__(self, memo: dict) -> "Identity":
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Identity):
            return NotImplemented
        return self.recipients == other.recipients

    def __hash__(self) -> int:
        return hash(self.recipients)

    def select(self, recipient: str) -> "Identity":
        """The identity holding only the key of `recipient` (KeyError if absent): publishing
        one benchmark's embargo key at release must not publish the others' keys."""
        keys = tuple(k for k in self._keys if k.recipient == recipient)
        if not keys:
            raise KeyError(recipient)
        return Identity(keys)

    def reveal_secret(self) -> str:
        """The identity file's text (``AGE-SECRET-KEY-1…`` lines). This IS the secret.

        Only for writing an identity file (demo, key generation) or publishing the
        embargo identity at release. Never log or embed it in an error.
        """
        out = []
        for k in self._keys:
            raw = k.private.private_bytes_raw()
            out.append(f"# public key: {k.recipient}")
            out.append(_bech32_encode(IDENTITY_HRP, raw).upper())
        return "\n".join(out) + "\n"


def _key_from_raw(raw: bytes) -> _Key:
    private = X25519PrivateKey.from_private_bytes(raw)
    public, recipient = _recipient_of(private)
    text = _bech32_encode(IDENTITY_HRP, raw).upper()
    try:
        rage_id = pyrage.x25519.Identity.from_str(text)
    except Exception:  # pragma: no cover - our own encoding
        raise SecretError("identity could not be loaded by pyrage", reason="bad-identity") from None
    # Cross-check our Bech32 + X25519 against rage's; a mismatch is a bug, not user error.
    if str(rage_id.to_public()) != recipient:  # pragma: no cover
        raise SecretError("identity derivation mismatch with pyrage", reason="bad-identity")
    return _Key(private=private, public=public, recipient=recipient, rage=rage_id)


def load_identity(text: str | bytes, where: Where = None) -> Identity:
    """Load an age identity file's text: ``#`` comments, blank lines, and one or more
    ``AGE-SECRET-KEY-1…`` lines (surrounding whitespace and CRLF tolerated).

    Raises :class:`SecretError` (reason ``bad-identity``); messages give line numbers only.
    """
    hint = "expected the text of an identity file written by age-keygen (one secret key per line)"
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise SecretError(
                "identity file is not UTF-8 text", where=where, reason="bad-identity", hint=hint
            ) from None
    if not isinstance(text, str):
        raise SecretError("identity must be text", where=where, reason="bad-identity", hint=hint)
    if text.startswith("\ufeff"):
        text = text[1:]
    keys: list[_Key] = []
    seen: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        decoded = _bech32_decode(line)
        if decoded is None:
            raise SecretError(
                "line is not a valid age secret key (not Bech32, or a typo/truncation)",
                where=where, line=lineno, reason="bad-identity", hint=hint,
            ) from None
        hrp, raw = decoded
        if hrp == PQ_IDENTITY_HRP:
            raise SecretError(
                "post-quantum hybrid identities are not supported; "
                "Sealboard embargo keys are X25519",
                where=where, line=lineno, reason="bad-identity", hint=hint,
            ) from None
        if hrp == RECIPIENT_HRP:
            raise SecretError(
                "line is a public recipient (age1…), not a secret key",
                where=where, line=lineno, reason="bad-identity", hint=hint,
            ) from None
        if hrp != IDENTITY_HRP:
            raise SecretError(
                "line is not an age X25519 secret key (wrong Bech32 prefix; plugin "
                "identities are not supported)",
                where=where, line=lineno, reason="bad-identity", hint=hint,
            ) from None
        if len(raw) != 32:
            raise SecretError(
                f"secret key is {len(raw)} bytes, expected 32",
                where=where, line=lineno, reason="bad-identity", hint=hint,
            ) from None
        key = _key_from_raw(raw)
        if key.recipient not in seen:
            seen.add(key.recipient)
            keys.append(key)
    if not keys:
        raise SecretError(
            "identity file holds no secret key line", where=where,
            reason="bad-identity", hint=hint,
        )
    return Identity(tuple(keys))


def generate_identity() -> Identity:
    """A fresh X25519 identity (CSPRNG, via cryptography/OpenSSL)."""
    private = X25519PrivateKey.generate()
    return Identity((_key_from_raw(private.private_bytes_raw()),))


def identity_file_text(identity: Identity, created: datetime | None = None) -> str:
    """An identity file in age-keygen's layout (contains the SECRET)."""
    created = created or datetime.now(timezone.utc)
    stamp = created.astimezone(timezone.utc).replace(microsecond=0).isoformat()
    stamp = stamp.replace("+00:00", "Z")
    return f"# created: {stamp}\n" + identity.reveal_secret()


