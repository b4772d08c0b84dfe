"""Write a deploy's attestation into the built site: the statement, SHA256SUMS, and (with the
build key) their SSHSIG signatures under ``sealboard-site``, the allowed_signers line, and two
DSSE envelopes signed with the same key (builder.attest.dsse): the statement's exact bytes,
and the SLSA provenance derived from it (builder.attest.provenance).

Called by the publish stage once the output scan passed (builder.pipeline.publish), so the
statement covers exactly the bytes that are published. Without the build key nothing is
signed: the statement says so (``predicate.registry.build_key`` is null) and
``verify-site`` refuses it (``attestation-unsigned``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.attest.dsse import sign_envelope
from builder.attest.provenance import provenance
from builder.attest.statement import (
    ALLOWED_SIGNERS,
    DIR,
    PROVENANCE_ENVELOPE,
    SIG_SUFFIX,
    STATEMENT,
    STATEMENT_ENVELOPE,
    SUMS,
    canonical,
    parse,
    sha256sums,
    statement,
    subjects_of,
)
from builder.errors import TrustError
from builder.trust.registry import BUILD_NAMESPACES, Registry
from builder.trust.sshkeys import PrivateKey
from builder.trust.sshsig import NS_SITE, sign


@dataclass(frozen=True)
class Written:
    files: int  # subjects
    signed: bool
    digest: str  # sha256 of statement.json


def check_build_key(registry: Registry, key: PrivateKey | None, where: str) -> None:
    """Before anything is built: a build key given must be the one the registry in force lists."""
    if key is None:
        return
    listed = registry.build_key
    if listed is None or listed != key.public:
        raise TrustError(
            f"the build key {key.public.fingerprint} is not the build key of registry v{registry.version:04d}"
            + (f" ({listed.fingerprint})" if listed else " (it lists none)"),
            where=where,
            reason="build-key-not-registered",
            hint="propose it with 'sealboard keys set-build-key KEY.pub' and have the threshold sign it, or pass the listed key",
        )


def write_attestation(site: Path, predicate: dict[str, Any], key: PrivateKey | None, registry: Registry | None) -> Written:
    """Hash every published file, write attestation/ into ``site``; sign when ``key`` is given."""
    subjects = subjects_of(site)
    data = canonical(statement(subjects, predicate))
    sums = sha256sums(subjects)
    (site / DIR).mkdir(exist_ok=True)
    (site / STATEMENT).write_bytes(data)
    (site / SUMS).write_bytes(sums)
    if key is not None and registry is not None:
        (site / (STATEMENT + SIG_SUFFIX)).write_text(sign(key, data, NS_SITE))
        (site / (SUMS + SIG_SUFFIX)).write_text(sign(key, sums, NS_SITE))
        (site / ALLOWED_SIGNERS).write_text(registry.allowed_signers(BUILD_NAMESPACES))
        (site / STATEMENT_ENVELOPE).write_bytes(sign_envelope(data, key))
        (site / PROVENANCE_ENVELOPE).write_bytes(sign_envelope(canonical(provenance(parse(data, STATEMENT), sums)), key))
    return Written(len(subjects), key is not None, hashlib.sha256(data).hexdigest())
