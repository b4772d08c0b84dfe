"""The ingest and verify stages' bundle work: read every bundle (``ingest``), verify it,
and apply the admission policy (``admit``, builder.bundles.admission_policy) with the git
facts about each bundle (builder.bundles.admissions: when git admitted it, and whether its
signed files changed since). An expired key is judged at admission time (``verify_admitted``).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from builder.bundles import admission_policy as policy
from builder.bundles.admissions import Admissions
from builder.bundles.ingest import DATASET_DIR, RawBundle, Rejection, discover
from builder.bundles.manifest import MANIFEST
from builder.bundles.verify import VerifiedBundle, verify_bundle
from builder.bundles.withdrawn import Tombstone, read_tombstones
from builder.config import BenchmarkConfig
from builder.errors import BuilderError, TrustError
from builder.leakscan.labkeys import refuse_key_text
from builder.trust.registry import Registry

# Judged at admission time only for these: the key's window closed (or had not opened) at
# build time. Every other refusal stands as it is.
_WINDOW_REASONS = ("key-expired",)


def verify_admitted(raw: RawBundle, registry: Registry, *, now: datetime, benchmark_version: str, admissions: Admissions) -> VerifiedBundle:
    """verify_bundle, judging the key's validity window at admission time when it is closed now.
    Key-shaped lab text refuses the bundle first (builder.leakscan.labkeys), whatever else is wrong."""
    refuse_key_text(raw.files.get(MANIFEST, b""), raw.where)
    try:
        return verify_bundle(raw, registry, now=now, benchmark_version=benchmark_version)
    except TrustError as exc:
        if exc.reason not in _WINDOW_REASONS:
            raise
        admitted = admissions.time(raw)
        if admitted is None or admitted >= now:
            raise
        return verify_bundle(raw, registry, now=now, benchmark_version=benchmark_version, key_time=admitted)


def verify_all(
    raws: Sequence[RawBundle], registry: Registry, *, now: datetime, benchmark_version: str, admissions: Admissions
) -> list[VerifiedBundle | BuilderError]:
    """verify_admitted for every bundle, in order; a refusal is returned in its place.

    Nearly all of verification is SHA-256 over the sealed files (as large as the results),
    and hashlib releases the GIL on large buffers: threads hash several bundles at once.
    Each bundle is still verified whole, by the same function, before anything decrypts it.
    """

    from builder.bundles.unseal import workers_available  # not at import: it loads pandas and pyarrow

    def one(raw: RawBundle) -> VerifiedBundle | BuilderError:
        try:
            return verify_admitted(raw, registry, now=now, benchmark_version=benchmark_version, admissions=admissions)
        except BuilderError as exc:
            return exc

    workers = min(workers_available(), len(raws))
    if workers < 2:
        return [one(raw) for raw in raws]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, raws))


def reject(exc: BuilderError, raw: RawBundle) -> Rejection:
    return Rejection(exc.where or raw.where, exc.reason, str(exc), exc.hint, raw.benchmark, raw.owner)


@dataclass(frozen=True)
class Ingested:
    """Stage 1's result: every bundle's bytes per benchmark (datasets included), the
    tombstones, and what was refused on reading (unreadable folders, withdrawn names)."""

    raws: dict[str, list[RawBundle]]
    tombstones: dict[str, Tombstone]
    rejections: tuple[Rejection, ...]


def ingest(root: Path, benchmarks: Sequence[str]) -> Ingested:
    """Read every bundle (with caps, no links). A withdrawn submission's folder (a tombstone
    beside it) stays out whatever bytes it holds: rule 1 of builder.bundles.admission_policy."""
    raws: dict[str, list[RawBundle]] = {b: [] for b in benchmarks}
    tombstones, errors = read_tombstones(root)
    rejections = [Rejection(exc.where or "bundles", exc.reason, str(exc), exc.hint) for exc in errors]
    facts = policy.Facts(tombstones=tombstones)
    for found in discover(root, set(raws)):
        if isinstance(found, Rejection):
            rejections.append(found)
        elif (error := policy.withdrawn(found.where, facts)) is not None:
            rejections.append(reject(error, found))
        else:
            raws[found.benchmark].append(found)
    return Ingested(raws, tombstones, tuple(rejections))


@dataclass(frozen=True)
class Admitted:
    """Stage 2's result for submissions: per benchmark the bundles admitted to the boards,
    the admission order (earliest first, for the clone rule after unsealing), and the
    refusals (signatures, digests, then the admission policy's rules)."""

    bundles: dict[str, list[VerifiedBundle]]
    order: tuple[str, ...]
    rejections: tuple[Rejection, ...]


def admit(configs: Sequence[BenchmarkConfig], ingested: Ingested, registry: Registry, *, now: datetime, admissions: Admissions) -> Admitted:
    """Verify every lab submission, then let the admission policy decide, from the git facts
    (admission times, rewritten bundles) and the tombstones, which ones the boards rank."""
    rejections: list[Rejection] = []
    verified: list[tuple[RawBundle, VerifiedBundle]] = []
    for config in configs:
        submitted = [raw for raw in ingested.raws[config.id] if raw.owner != DATASET_DIR]
        for raw, outcome in zip(
            submitted, verify_all(submitted, registry, now=now, benchmark_version=config.version, admissions=admissions)
        ):
            if isinstance(outcome, BuilderError):
                rejections.append(reject(outcome, raw))
            else:
                verified.append((raw, outcome))
    facts = policy.Facts(
        tombstones=ingested.tombstones,
        budgets={c.id: c.budget for c in configs},
        rewritten=frozenset(raw.where for raw, _ in verified if admissions.rewritten(raw)),
    )
    decisions = policy.decide([policy.Submission(b.where, b.manifest, admissions.time(raw)) for raw, b in verified], facts)
    rejections += [reject(decisions.refused[b.where], raw) for raw, b in verified if b.where in decisions.refused]
    admitted = set(decisions.admitted)
    bundles: dict[str, list[VerifiedBundle]] = {c.id: [] for c in configs}
    for raw, b in verified:
        if b.where in admitted:
            bundles[raw.benchmark].append(b)
    return Admitted(bundles, decisions.order, tuple(rejections))
