"""The attestation format: an in-toto Statement v1 over every published file of a deploy.

https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md: ``_type``, a list of
``subject`` (name + digest), ``predicateType`` (a URI naming the predicate's schema) and the
``predicate``. Ours says what the site was built from; its type URI is the site's own
(`predicate_type`: mkdocs' ``site_url`` + ``data/#site-attestation-v1``, the Data page's
section that documents the predicate), so a board names its own format and nothing points at
a placeholder host. The statement lives in the site it describes, under ``attestation/``, so that folder is left out of the
subjects (a file cannot list its own digest); ``SHA256SUMS`` there is the subjects again in
the form ``sha256sum -c`` reads from the site root, and ``verify-site`` checks that it says
exactly what the signed statement says.

The bytes are canonical (keys sorted, subjects sorted by name, two-space indent, one final
newline), so two builds of one commit write the same statement (and Ed25519 signs it the
same way: the build key must be Ed25519, builder.trust.registry_format). The same bytes are
also published as the payload of a DSSE envelope (builder.attest.dsse), beside an SLSA
provenance statement derived from this one (builder.attest.provenance).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from builder.errors import BuilderError
from builder.strict import loads_json

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
# The predicate's type: the Data page's section on it, under the site's own URL (its
# ``site_url``, recorded in the predicate as ``site_url``). A site without one cannot name a
# URL of its own: its statements use the URN, which names the same predicate.
SITE_TYPE_PATH = "data/#site-attestation-v1"
SITE_TYPE_URN = "urn:sealboard:site-attestation:v1"
# What builds before issue 42 wrote: still parsed, so the repository's recorded history
# (attestations/) reads; it carries no site_url.
LEGACY_PREDICATE_TYPE = "https://sealboard.invalid/attestation/site/v1"
DIR = "attestation"
STATEMENT = f"{DIR}/statement.json"
SUMS = f"{DIR}/SHA256SUMS"
SIG_SUFFIX = ".sig"
ALLOWED_SIGNERS = f"{DIR}/allowed_signers"  # a copy for the stock commands; the registry is the authority
# DSSE envelopes (in-toto bundles of one line, spec/v1/bundle.md), for supply-chain tools:
# the statement's exact bytes, and the SLSA provenance derived from it (builder.attest.provenance).
STATEMENT_ENVELOPE = f"{DIR}/statement.intoto.jsonl"
PROVENANCE_ENVELOPE = f"{DIR}/provenance.intoto.jsonl"
ATTESTATION_FILES = (STATEMENT, STATEMENT + SIG_SUFFIX, SUMS, SUMS + SIG_SUFFIX, ALLOWED_SIGNERS, STATEMENT_ENVELOPE, PROVENANCE_ENVELOPE)
MAX_STATEMENT = 64 << 20


class AttestationError(BuilderError):
    """A site's attestation is missing, malformed, unsigned, signed by a key the registry
    does not list, or does not match the files. Raised by builder.attest."""

    reason = "attestation-bad-statement"


@dataclass(frozen=True)
class Subject:
    name: str  # path under the site root, with '/'
    sha256: str


def published_files(site: Path) -> Iterator[tuple[str, Path]]:
    """(name, path) of every file of the site outside attestation/, in byte order of name."""
    found = []
    for path in site.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            continue
        name = path.relative_to(site).as_posix()
        if name == DIR or name.startswith(DIR + "/"):
            continue
        found.append((name, path))
    yield from sorted(found, key=lambda pair: pair[0].encode())


def subjects_of(site: Path) -> tuple[Subject, ...]:
    out = []
    for name, path in published_files(site):
        if "\n" in name or "\\" in name or path.is_symlink():
            # sha256sum escapes such names; a site never needs one, so none is attested.
            raise AttestationError(
                "cannot be attested (a link, or a name with a newline or backslash)",
                where=name,
                reason="attestation-bad-path",
                hint="remove or rename it in site_src/ and rebuild",
            )
        out.append(Subject(name, hashlib.sha256(path.read_bytes()).hexdigest()))
    return tuple(out)


def site_base(site_url: str | None) -> str | None:
    """The site's root URL ending in '/', or None when mkdocs.yml sets no http(s) site_url."""
    if not isinstance(site_url, str) or not site_url.startswith(("https://", "http://")) or any(c.isspace() for c in site_url):
        return None
    return site_url if site_url.endswith("/") else site_url + "/"


def predicate_type(site_url: str | None) -> str:
    """The site predicate's type URI: under the site's own URL, or the URN without one."""
    base = site_base(site_url)
    return base + SITE_TYPE_PATH if base else SITE_TYPE_URN


def statement(subjects: tuple[Subject, ...], predicate: dict[str, Any]) -> dict[str, Any]:
    """The statement over ``subjects``; its type comes from the predicate's ``site_url``."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": s.name, "digest": {"sha256": s.sha256}} for s in subjects],
        "predicateType": predicate_type(predicate.get("site_url")),
        "predicate": predicate,
    }


def canonical(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def sha256sums(subjects: tuple[Subject, ...]) -> bytes:
    """GNU sha256sum's text format: digest, two spaces, name (run ``sha256sum -c`` in the site root)."""
    return "".join(f"{s.sha256}  {s.name}\n" for s in subjects).encode()


@dataclass(frozen=True)
class Statement:
    """A parsed statement (parsed is not verified: builder.attest.verify)."""

    data: bytes
    subjects: tuple[Subject, ...]
    predicate: dict[str, Any]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def rehearsal(self) -> str | None:
        value = self.predicate.get("rehearsal")
        return value if isinstance(value, str) else None

    @property
    def registry_version(self) -> int | None:
        value = (self.predicate.get("registry") or {}).get("version")
        return value if type(value) is int else None

    def status(self, benchmark: str) -> str | None:
        return next((b.get("status") for b in self.predicate.get("benchmarks", []) if b.get("id") == benchmark), None)


def parse(data: bytes, where: str) -> Statement:
    """Strict JSON, the in-toto envelope fields, our predicate type, well-formed subjects."""
    if len(data) > MAX_STATEMENT:
        raise AttestationError("is too large", where=where)
    obj = loads_json(data, where)
    pred = obj.get("predicate") if isinstance(obj, dict) else None
    # The type must be the one the predicate's own site_url gives (or the legacy one, which
    # has no site_url): a statement cannot claim another site's format.
    expected: tuple[str, ...] = (predicate_type(pred.get("site_url")),) if isinstance(pred, dict) else ()
    if isinstance(pred, dict) and "site_url" not in pred:
        expected += (LEGACY_PREDICATE_TYPE,)
    if not isinstance(obj, dict) or obj.get("_type") != STATEMENT_TYPE or obj.get("predicateType") not in expected:
        raise AttestationError(
            f"is not an in-toto Statement v1 with Sealboard's predicateType ({' or '.join(expected) or 'none'})",
            where=where,
            hint="use the attestation/statement.json a Sealboard build wrote",
        )
    subjects = []
    for entry in obj.get("subject") or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        digest = (entry.get("digest") or {}).get("sha256") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not isinstance(digest, str) or len(digest) != 64:
            raise AttestationError("has a subject without a name or a sha256 digest", where=where)
        if name.startswith("/") or ".." in name.split("/") or name.startswith(DIR + "/"):
            raise AttestationError(f"subject {name!r} is not a path inside the site", where=where)
        subjects.append(Subject(name, digest))
    predicate = obj.get("predicate")
    if not subjects or not isinstance(predicate, dict):
        raise AttestationError("has no subjects or no predicate", where=where)
    return Statement(data, tuple(subjects), predicate)
