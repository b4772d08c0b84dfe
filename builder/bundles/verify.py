"""Verify: signature, trust and integrity of a result bundle, before anything is decrypted.

The checks run in this order (security invariant 2: every sealed byte is checked against
the signed manifest before it is decrypted):

0. no file but the manifest and its signature is readable without a key (text or a
   compressed archive, not an age file): results, transcripts or items in the clear, a leak
   whatever else is wrong
   (``plaintext-in-bundle``, with what to do, never "sign it in": builder.bundles.plaintext);
1. the manifest parses strictly and names the directory it sits in;
2. its signature verifies under namespace ``sealboard-bundle``;
3. the signing key is registered to the manifest's lab and valid now (build time), or at
   ``key_time`` when the caller knows when the bundle was admitted to the repository
   (builder.pipeline.admission: never a time the lab claims);
4. the directory holds exactly the files the manifest lists;
5. every listed file has the listed size and SHA-256.

Only :func:`verify_bundle` makes a :class:`VerifiedBundle`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from builder.bundles.ingest import RawBundle
from builder.bundles.manifest import MANIFEST, SIGNATURE, Manifest, parse_manifest
from builder.bundles.plaintext import check_sealed
from builder.errors import BundleError, IntegrityError
from builder.trust.registry import Registry
from builder.trust.sshsig import NS_BUNDLE, verify

_TOKEN = object()


@dataclass(frozen=True)
class VerifiedBundle:
    manifest: Manifest
    signer: str  # fingerprint of the lab key that signed
    where: str
    files: dict[str, bytes] = field(repr=False)
    _token: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._token is not _TOKEN:
            raise TypeError("VerifiedBundle is only made by builder.bundles.verify.verify_bundle")


def check_files(where: str, files: dict[str, bytes], listed: dict[str, tuple[int, str]]) -> None:
    """Steps 4–5: exactly the listed files, each of the listed size and digest."""
    present = set(files) - {MANIFEST, SIGNATURE}
    for name in sorted(present - set(listed)):
        raise BundleError(
            "is not listed in the signed manifest",
            where=f"{where}/{name}",
            reason="unlisted-file",
            hint="remove it, or recreate the bundle so the manifest lists it",
        )
    for name in sorted(set(listed) - present):
        raise BundleError("is listed in the manifest but missing", where=f"{where}/{name}", reason="missing-file")
    for name, (size, digest) in sorted(listed.items()):
        data = files[name]
        if len(data) != size:
            raise IntegrityError(
                f"is {len(data)} bytes but the signed manifest says {size}",
                where=f"{where}/{name}",
                reason="size-mismatch",
                hint="the file changed after signing; recreate and re-sign the bundle",
            )
        if hashlib.sha256(data).hexdigest() != digest:
            raise IntegrityError(
                "SHA-256 does not match the signed manifest",
                where=f"{where}/{name}",
                reason="digest-mismatch",
                hint="the file changed after signing; recreate and re-sign the bundle",
            )


def verify_bundle(
    raw: RawBundle, registry: Registry, *, now: datetime, benchmark_version: str, key_time: datetime | None = None
) -> VerifiedBundle:
    where = raw.where
    manifest_where = f"{where}/{MANIFEST}"
    # 0. Plaintext in the folder first: it is a leak whatever else is wrong with the bundle.
    check_sealed(where, raw.files)
    for required in (MANIFEST, SIGNATURE):
        if required not in raw.files:
            raise BundleError(f"{required} is missing", where=where, reason="missing-file", hint="run 'sealboard bundle sign'")

    # 1. Strict parse; the manifest must name the directory it sits in, so a bundle copied
    #    into another lab's folder (or renamed) is refused even though its signature is good.
    manifest = parse_manifest(raw.files[MANIFEST], manifest_where)
    for field_name, actual, expected in (
        ("benchmark", manifest.benchmark, raw.benchmark),
        ("lab", manifest.lab, raw.owner),
        ("submission", manifest.submission, raw.name),
    ):
        if actual != expected:
            raise BundleError(
                f"{field_name} is {actual!r} but the bundle sits in {expected!r}",
                where=manifest_where,
                reason="misplaced",
                hint="bundles live at bundles/<benchmark>/<lab>/<submission>/ matching their manifest",
            )

    # 2–3. Signature, then trust in the signer for this lab at build (or admission) time.
    signer = verify(raw.files[SIGNATURE], raw.files[MANIFEST], NS_BUNDLE, f"{where}/{SIGNATURE}")
    registry.lab_key(manifest.lab, signer, key_time or now, f"{where}/{SIGNATURE}")

    if manifest.benchmark_version != benchmark_version:
        raise BundleError(
            f"benchmark_version is {manifest.benchmark_version!r}; this leaderboard scores version {benchmark_version!r}",
            where=manifest_where,
            reason="wrong-version",
            hint="re-run your evaluation on the current version",
        )

    # 4–5. Integrity of every byte the manifest covers.
    check_files(where, raw.files, {f.path: (f.bytes, f.sha256) for f in manifest.files})
    return VerifiedBundle(manifest=manifest, signer=signer.fingerprint, where=where, files=dict(raw.files), _token=_TOKEN)
