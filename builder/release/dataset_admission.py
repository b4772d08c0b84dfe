"""A dataset bundle is judged against the registry in force when git admitted it.

Every dataset is signed by a threshold of maintainers (the gold answers decide every
score). Judged against today's registry, removing or rotating one of its signers would
invalidate it: its benchmark would turn ``sealed`` (no items, no boards) and a release in
force would publish nothing. A dataset that was valid when admitted stays valid: when
today's registry refuses its signatures (a signer no longer a maintainer, or too few
left), they are counted again against the registry version in force at the dataset's
git admission (builder.bundles.admissions.Admissions: when its manifest and signature got
their current bytes; builder.release.registry_history: which version was in force then),
with every revocation up to today's (a revoked key is compromised, so its signatures never
count). Without git history, or with registry dates refused (not committed, dated ahead of
the clock), today's verdict stands: the same fallback as release statements.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from builder.bundles.admissions import Admissions
from builder.bundles.dataset import VerifiedDataset, verify_dataset
from builder.bundles.ingest import RawBundle
from builder.errors import TrustError
from builder.release.registry_history import registry_history
from builder.trust.registry import Registry

# Refusals a later registry change can cause (a revoked key is never forgiven).
_MEMBERSHIP_REASONS = {"signer-not-maintainer", "below-threshold"}


def registry_then(registry: Registry, root: Path, admitted: datetime, now: datetime) -> Registry | None:
    """The registry version in force at `admitted` with today's revocations, or None when
    the history cannot date it (or it is today's version)."""
    history = registry_history(root, registry.version, now)
    if not history.dated:
        return None
    doc = history.at(admitted)
    if doc.version == registry.version:
        return None
    revoked = doc.revoked + tuple(r for r in registry.revoked if r.fingerprint not in doc.revoked_fingerprints)
    return Registry(
        version=doc.version,
        expires=doc.expires,
        threshold=doc.threshold,
        maintainers=doc.maintainers,
        labs=doc.labs,
        revoked=revoked,
        path=doc.path,
    )


def verify_dataset_admitted(
    raw: RawBundle, registry: Registry, *, now: datetime, root: Path | None, admissions: Admissions | None = None
) -> VerifiedDataset:
    """verify_dataset, its signatures judged at admission when today's registry refuses them."""
    try:
        return verify_dataset(raw, registry, now=now)
    except TrustError as exc:
        if exc.reason not in _MEMBERSHIP_REASONS or root is None:
            raise
        admitted = (admissions or Admissions(root)).time(raw)
        then = registry_then(registry, root, admitted, now) if admitted is not None and admitted <= now else None
        if then is None:
            raise
        return verify_dataset(raw, then, now=now)
