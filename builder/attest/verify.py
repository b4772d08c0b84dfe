"""``sealboard verify-site DIR``: check a deploy against its signed attestation, offline.

The steps, in order; each refusal has its own reason:

1. ``attestation/statement.json`` is there and is our in-toto Statement
   (``attestation-missing``, ``attestation-bad-statement``);
2. it is signed under ``sealboard-site`` (``attestation-unsigned``) and the signature
   verifies over its exact bytes (``attestation-bad-signature``);
3. the signer is the build key of the registry version the statement names, that version
   is part of the repository's verified chain, and the version in force has not revoked it
   (``attestation-key-not-registered``): trust comes from the registry, never from the
   site's own ``allowed_signers`` copy;
4. it is not a rehearsal (``attestation-rehearsal``: an ``--as-of`` build is never a deploy);
5. ``SHA256SUMS`` says exactly what the statement says, and its own signature verifies
   (``attestation-sums-mismatch``, ``attestation-bad-signature``);
6. the two DSSE envelopes are signed (PAE, Ed25519) by that same key, the statement's
   carries exactly ``statement.json``'s bytes, and the provenance's is exactly the SLSA
   provenance Sealboard derives from the statement and ``SHA256SUMS``
   (``attestation-bad-envelope``, ``attestation-provenance-mismatch``);
7. every subject's bytes hash to its digest (``attestation-file-changed``), none is
   missing (``attestation-file-missing``) and no file is there that the statement does not
   list (``attestation-extra-file``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from builder.attest.dsse import verify_envelope
from builder.attest.provenance import provenance
from builder.attest.statement import (
    ATTESTATION_FILES,
    DIR,
    PROVENANCE_ENVELOPE,
    SIG_SUFFIX,
    STATEMENT,
    STATEMENT_ENVELOPE,
    SUMS,
    AttestationError,
    Statement,
    canonical,
    parse,
    published_files,
    sha256sums,
)
from builder.errors import BuilderError, SignatureError
from builder.trust.registry import in_force, read_chain
from builder.trust.sshkeys import PublicKey
from builder.trust.sshsig import NS_SITE, verify

SHOWN = 5  # file names quoted per kind of mismatch


@dataclass(frozen=True)
class VerifiedSite:
    statement: Statement
    signer: PublicKey
    files: int


def _signature(site: Path, rel: str, data: bytes) -> PublicKey:
    sig = site / (rel + SIG_SUFFIX)
    if not sig.is_file():
        raise AttestationError(
            "is not signed (no .sig beside it): this deploy was built without the build key",
            where=rel,
            reason="attestation-unsigned",
            hint="the authorised build signs with --build-key or SEALBOARD_BUILD_KEY; a public build is never signed",
        )
    try:
        return verify(sig.read_bytes(), data, NS_SITE, where=rel + SIG_SUFFIX)
    except SignatureError as exc:
        raise AttestationError(
            f"signature does not verify ({exc.reason}: {exc.message})",
            where=rel + SIG_SUFFIX,
            reason="attestation-bad-signature",
            hint="the file or its signature was changed after the build",
        ) from None


def check_signer(root: Path, st: Statement, signer: PublicKey) -> None:
    """Step 3: the signer is the build key of the statement's registry version (verified chain)."""
    try:
        chain = read_chain(root)
        trusted, _pending = in_force(chain)
    except BuilderError as exc:
        raise AttestationError(
            f"the repository's registry does not verify: {exc.message}",
            where=exc.where or "keys/registry",
            reason="attestation-key-not-registered",
            hint="run verify-site with --root at a clone of the board's repository",
        ) from None
    number = st.registry_version
    named = next((doc for doc, _data, _sigs in chain if doc.version == number), None)
    if trusted is None or named is None or number is None or number > trusted.version:
        raise AttestationError(
            f"names registry version {number}, which is not in force in this repository's chain",
            where=STATEMENT,
            reason="attestation-key-not-registered",
            hint="pull the repository (keys/registry) the site was built from",
        )
    if named.build_key != signer or signer.fingerprint in trusted.revoked_fingerprints:
        listed = named.build_key.fingerprint if named.build_key else "none"
        raise AttestationError(
            f"is signed by {signer.fingerprint}, which is not the build key of registry v{number:04d} ({listed})"
            + (" or was revoked" if signer.fingerprint in trusted.revoked_fingerprints else ""),
            where=STATEMENT + SIG_SUFFIX,
            reason="attestation-key-not-registered",
            hint="a key the registry does not list signed it: do not trust this site",
        )


def _envelopes(site: Path, st: Statement, sums: bytes, signer: PublicKey) -> None:
    """Step 6: what supply-chain tools read says what the SSH-signed files say."""
    payloads = {}
    for rel in (STATEMENT_ENVELOPE, PROVENANCE_ENVELOPE):
        if not (site / rel).is_file():
            raise AttestationError(
                "is missing: a signed deploy carries its DSSE envelopes",
                where=rel,
                reason="attestation-bad-envelope",
                hint="the attestation folder was changed after the build (or the deploy predates envelopes: rebuild it)",
            )
        payloads[rel] = verify_envelope((site / rel).read_bytes(), signer, rel).payload
    if payloads[STATEMENT_ENVELOPE] != st.data:
        raise AttestationError(
            "carries other bytes than attestation/statement.json",
            where=STATEMENT_ENVELOPE,
            reason="attestation-provenance-mismatch",
            hint="the attestation folder was changed after the build",
        )
    try:
        expected = canonical(provenance(st, sums))
    except (KeyError, TypeError, AttributeError):
        expected = None
    if payloads[PROVENANCE_ENVELOPE] != expected:
        raise AttestationError(
            "is not the SLSA provenance of this statement and SHA256SUMS",
            where=PROVENANCE_ENVELOPE,
            reason="attestation-provenance-mismatch",
            hint="the attestation folder was changed after the build",
        )


def _refuse(site: Path, names: list[str], what: str, *, reason: str) -> None:
    if names:
        more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
        raise AttestationError(
            f"{len(names)} file(s) {what}: {', '.join(names[:SHOWN])}{more}",
            where=str(site),
            reason=reason,
            hint="this is not the site that was built and signed; fetch the deploy again",
        )


def _files(site: Path, st: Statement) -> int:
    """Step 6: every subject present and unchanged, and nothing else."""
    listed = {s.name: s.sha256 for s in st.subjects}
    present = {name: path for name, path in published_files(site)}
    changed = [
        n
        for n, d in listed.items()
        if n in present and (present[n].is_symlink() or hashlib.sha256(present[n].read_bytes()).hexdigest() != d)
    ]
    missing = [n for n in listed if n not in present]
    extra = [n for n in present if n not in listed]
    extra += sorted(
        p.relative_to(site).as_posix()
        for p in (site / DIR).rglob("*")
        if p.relative_to(site).as_posix() not in ATTESTATION_FILES and not p.is_dir()
    )
    _refuse(site, changed, "differ from their attested sha256", reason="attestation-file-changed")
    _refuse(site, missing, "are attested but missing", reason="attestation-file-missing")
    _refuse(site, extra, "are not in the attestation", reason="attestation-extra-file")
    return len(listed)


def verify_site(site: Path, root: Path) -> VerifiedSite:
    """Check ``site`` against its attestation and ``root``'s registry; raise AttestationError."""
    path = site / STATEMENT
    if not path.is_file():
        raise AttestationError(
            "has no attestation/statement.json",
            where=str(site),
            reason="attestation-missing",
            hint="verify the folder a Sealboard build wrote (its root holds index.html and attestation/)",
        )
    data = path.read_bytes()
    st = parse(data, STATEMENT)
    signer = _signature(site, STATEMENT, data)
    check_signer(root, st, signer)
    if st.rehearsal is not None:
        raise AttestationError(
            f"is a rehearsal (--as-of {st.rehearsal}), never a deploy",
            where=STATEMENT,
            reason="attestation-rehearsal",
            hint="deploy a build without --as-of",
        )
    sums = (site / SUMS).read_bytes() if (site / SUMS).is_file() else b""
    if sums != sha256sums(st.subjects):
        raise AttestationError(
            "does not list exactly the statement's subjects",
            where=SUMS,
            reason="attestation-sums-mismatch",
            hint="the attestation folder was changed after the build",
        )
    if _signature(site, SUMS, sums) != signer:
        raise AttestationError("is signed by another key than the statement", where=SUMS + SIG_SUFFIX, reason="attestation-bad-signature")
    _envelopes(site, st, sums, signer)
    return VerifiedSite(st, signer, _files(site, st))
