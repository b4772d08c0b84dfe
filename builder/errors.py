"""The error tree. Every failure Sealboard reports is one of these.

A message says what failed, where (file, and line when known) and how to fix it.
Messages never contain secret material: callers pass paths and fingerprints, never
identities or private keys.
"""

from __future__ import annotations

from pathlib import PurePath


class BuilderError(Exception):
    """Base of every error Sealboard raises on purpose.

    `where` is the file (relative to the instance root when possible), `line` its 1-based
    line when known, `hint` how to fix it. `reason` is a short stable code that tests and
    the rejected-submissions page use (e.g. ``"bad-signature"``).
    """

    reason = "error"

    def __init__(
        self,
        message: str,
        *,
        where: str | PurePath | None = None,
        line: int | None = None,
        hint: str | None = None,
        reason: str | None = None,
    ) -> None:
        self.message = message
        self.where = str(where) if where is not None else None
        self.line = line
        self.hint = hint
        if reason is not None:
            self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        loc = ""
        if self.where:
            loc = self.where + (f":{self.line}" if self.line else "") + ": "
        text = loc + self.message
        if self.hint:
            text += f" — hint: {self.hint}"
        return text

    def at(self, where: str | PurePath, line: int | None = None) -> "BuilderError":
        """Fill in the location if the raiser did not know it (e.g. a parser of bytes)."""
        if self.where is None:
            self.where = str(where)
            if line is not None and self.line is None:
                self.line = line
            self.args = (str(self),)
        return self


class ConfigError(BuilderError):
    """A leaderboard config, mkdocs.yml or instance layout is invalid. Raised by config loaders."""

    reason = "config"


class ParseError(BuilderError):
    """Untrusted bytes failed strict parsing (JSON, YAML, JSONL). Raised by builder.strict."""

    reason = "parse"


class BundleError(BuilderError):
    """A bundle's layout or manifest is invalid. Raised by ingest and manifest checks."""

    reason = "bundle"


class SignatureError(BundleError):
    """An SSHSIG signature is malformed, does not verify, or is by an unacceptable key."""

    reason = "signature"


class TrustError(BuilderError):
    """The key registry is invalid, or a key is not trusted for what it signed."""

    reason = "trust"


class SealError(BundleError):
    """An age file is malformed, uses a refused stanza, or does not decrypt."""

    reason = "seal"


class IntegrityError(BundleError):
    """A file's bytes do not match the digest or size the signed manifest commits to."""

    reason = "integrity"


class ResultsError(BundleError):
    """A decrypted results.jsonl line is invalid."""

    reason = "results"


class ReleaseError(BuilderError):
    """A release statement is invalid, unsigned by the threshold, or not yet due."""

    reason = "release"


class LeakError(BuilderError):
    """The leak scan found embargoed bytes in the output. The output has been removed."""

    reason = "leak"


class SecretError(BuilderError):
    """An identity or private key could not be loaded. Never includes the secret itself."""

    reason = "secret"
