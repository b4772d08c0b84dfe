"""age keys: X25519 recipients (``age1…``) and identities (``AGE-SECRET-KEY-1…``).

Parsing, printing and key generation are pyrage's (Rust ``rage``): it already implements
the spec's Bech32 encoding (c2sp.org/age, "The X25519 recipient type"), so Sealboard keeps
no codec of its own. What stays here is policy a library cannot know: which *kinds* of key
text are refused and with which message (a secret pasted where a recipient belongs, SSH or
post-quantum keys, non-canonical case), and the :class:`Identity` that holds the embargo
key. An Identity never shows
its key in ``repr``/``str``, cannot be pickled, and no error raised here quotes identity
text. :mod:`builder.trust.seal` uses these keys to seal and unseal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath

import pyrage

from builder.errors import SealError, SecretError

Where = str | PurePath | None

# Bech32 prefixes ("The X25519 recipient type"): an identity is HRP "AGE-SECRET-KEY-" and
# a recipient HRP "age", each followed by Bech32's separator "1".
IDENTITY_PREFIX = "AGE-SECRET-KEY-1"
RECIPIENT_PREFIX = "age1"
# "The MLKEM768-X25519 hybrid recipient type": prefixes recognised only to refuse clearly.
PQ_IDENTITY_PREFIX = "AGE-SECRET-KEY-PQ-1"
PQ_RECIPIENT_PREFIX = "age1pq1"

# ---------------------------------------------------------------------------------------
# Recipients and identities
# ---------------------------------------------------------------------------------------


def parse_recipient(s: str, where: Where = None) -> str:
    """Validate an ``age1…`` X25519 recipient and return it (canonical lowercase form).

    Raises :class:`SealError` with reason ``bad-recipient``. Recipients are public, but the
    message still does not echo the input (it may be a pasted secret by mistake).
    """
    hint = "an X25519 recipient is 'age1' followed by 58 lowercase characters, as printed by age-keygen"
    if not isinstance(s, str):
        raise SealError("recipient must be a string", where=where, reason="bad-recipient")
    if s.upper().startswith(IDENTITY_PREFIX[:-1]):
        raise SealError(
            "a secret key was given where a public recipient (age1…) was expected; treat that key as compromised",
            where=where,
            reason="bad-recipient",
            hint="use the 'public key' line age-keygen prints (age-keygen -y IDENTITY_FILE)",
        )
    if s.startswith(("ssh-", "ecdsa-", "sk-")):
        raise SealError(
            "SSH keys are not accepted as age recipients",
            where=where,
            reason="bad-recipient",
            hint=hint,
        )
    # rage accepts either case; the config and manifests hold one canonical spelling, so
    # that comparing recipients as strings is sound.
    if s != s.lower():
        raise SealError(
            "recipient is not in canonical lowercase form",
            where=where,
            reason="bad-recipient",
            hint=hint,
        )
    if s.startswith(PQ_RECIPIENT_PREFIX):
        raise SealError(
            "post-quantum hybrid recipients (age1pq1…) are not supported",
            where=where,
            reason="bad-recipient",
            hint=hint,
        )
    if not s.startswith(RECIPIENT_PREFIX):
        raise SealError(
            "not an age X25519 recipient (Bech32 prefix is not 'age')",
            where=where,
            reason="bad-recipient",
            hint=hint,
        )
    try:
        pyrage.x25519.Recipient.from_str(s)
    except pyrage.RecipientError:
        raise SealError(
            "recipient is not a valid X25519 recipient (bad Bech32 checksum or length: typo or truncated?)",
            where=where,
            reason="bad-recipient",
            hint=hint,
        ) from None
    return s


@dataclass(frozen=True, eq=False, slots=True)
class _Key:
    """One X25519 key. Never printed (Identity hides it); kept module-private."""

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
    _keys: tuple[_Key, ...]  # set once in __init__ (object.__setattr__: the class refuses assignment)

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
            out.append(f"# public key: {k.recipient}")
            out.append(str(k.rage))
        return "\n".join(out) + "\n"


def _key(rage_id: pyrage.x25519.Identity) -> _Key:
    return _Key(recipient=str(rage_id.to_public()), rage=rage_id)


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
            raise SecretError("identity file is not UTF-8 text", where=where, reason="bad-identity", hint=hint) from None
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
        upper = line.upper()
        if upper.startswith(PQ_IDENTITY_PREFIX):
            raise SecretError(
                "post-quantum hybrid identities are not supported; Sealboard embargo keys are X25519",
                where=where,
                line=lineno,
                reason="bad-identity",
                hint=hint,
            ) from None
        if line.lower().startswith(RECIPIENT_PREFIX):
            raise SecretError(
                "line is a public recipient (age1…), not a secret key",
                where=where,
                line=lineno,
                reason="bad-identity",
                hint=hint,
            ) from None
        if not upper.startswith(IDENTITY_PREFIX):
            raise SecretError(
                "line is not an age X25519 secret key (wrong Bech32 prefix; plugin identities are not supported)",
                where=where,
                line=lineno,
                reason="bad-identity",
                hint=hint,
            ) from None
        # Bech32 is all-upper or all-lower case, never mixed (BIP 173).
        if line != upper and line != line.lower():
            rage_id = None
        else:
            try:
                rage_id = pyrage.x25519.Identity.from_str(upper)
            except pyrage.IdentityError:
                rage_id = None
        if rage_id is None:
            raise SecretError(
                "line is not a valid age secret key (bad Bech32 checksum or length: a typo or truncation?)",
                where=where,
                line=lineno,
                reason="bad-identity",
                hint=hint,
            ) from None
        key = _key(rage_id)
        if key.recipient not in seen:
            seen.add(key.recipient)
            keys.append(key)
    if not keys:
        raise SecretError(
            "identity file holds no secret key line",
            where=where,
            reason="bad-identity",
            hint=hint,
        )
    return Identity(tuple(keys))


def generate_identity() -> Identity:
    """A fresh X25519 identity (rage's generator, from the OS CSPRNG)."""
    return Identity((_key(pyrage.x25519.Identity.generate()),))


def identity_file_text(identity: Identity, created: datetime | None = None) -> str:
    """An identity file in age-keygen's layout (contains the SECRET)."""
    created = created or datetime.now(timezone.utc)
    stamp = created.astimezone(timezone.utc).replace(microsecond=0).isoformat()
    stamp = stamp.replace("+00:00", "Z")
    return f"# created: {stamp}\n" + identity.reveal_secret()
