"""``sealboard status``: a lab's view of its bundles (design: "a lab's view of its bundles").

A lab learns what happened to each bundle without the identity and without reading the
Rejected page: the no-secret checks are run now (the same build stages as the public build:
ingest, signatures and digests against the registry, tombstones, budget, duplicates), and
the last authorised build's data (``site/data/rejected.json`` and each benchmark's
``submissions.json``, as deployed or as built locally) says what only the identity could
decide (unseal, coverage, the lab-text screen). Each bundle is one of:

- ``rejected``: refused by a no-secret check now, or by the last authorised build (its
  reason code, message and hint, and which of the two said so);
- ``withdrawn``: a maintainers' tombstone stands beside it;
- ``published``: on the last authorised build's site, with these exact signed bytes;
- ``pending``: passes every no-secret check, and the last build did not judge these bytes
  yet (the next scheduled authorised build will).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from builder.bundles.manifest import MANIFEST
from builder.config import benchmark_of
from builder.pipeline.earlier_versions import WRONG_VERSION

CHECKS = "no-secret checks"
LAST_BUILD = "last authorised build"


@dataclass(frozen=True)
class BundleStatus:
    where: str  # bundles/<benchmark>/<lab>/<submission>
    benchmark: str
    lab: str
    submission: str
    status: str  # rejected | withdrawn | published | pending
    reason: str | None = None
    message: str | None = None
    hint: str | None = None
    decided_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bundle_key(where: str) -> tuple[str, str, str, str] | None:
    """(bundle dir, benchmark, lab, submission) of a path under bundles/, else None."""
    parts = where.split("/")
    if len(parts) < 4 or parts[0] != "bundles" or parts[2].startswith("_"):
        return None
    submission = parts[3].removesuffix(".withdrawn")
    return "/".join([*parts[:3], submission]), parts[1], parts[2], submission


def _read_json(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def last_build(site: Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """From a built site: rejected entries by bundle dir, and manifest digests of published submissions."""
    rejected: dict[str, dict[str, Any]] = {}
    for entry in (_read_json(site / "data" / "rejected.json") or {}).get("rejected", []):
        key = bundle_key(str(entry.get("where", "")))
        if key:
            rejected.setdefault(key[0], entry)
    published: dict[str, str] = {}
    for path in sorted((site / "data").glob("*/submissions.json")):
        data = _read_json(path) or {}
        for row in data.get("rows", []):
            # an earlier dataset version's board ("<benchmark>@<version>") ranks the benchmark's bundles
            where = f"bundles/{benchmark_of(str(data.get('benchmark')))}/{row.get('submission')}"
            published[where] = str(row.get("manifest_sha256"))
    return rejected, published


def lab_status(root: Path, *, lab: str | None, site: Path, now: datetime) -> list[BundleStatus]:
    """Every bundle of `lab` (all labs if None), with what happened to it."""
    from builder.pipeline.build import build

    report = build(root, identities=[], now=now, render=False)  # the no-secret checks
    site_rejected, published = last_build(site)
    found: dict[str, BundleStatus] = {}
    for r in report.rejections:
        key = bundle_key(r.where)
        if key is None:
            continue
        if r.reason == WRONG_VERSION and key[0] in published:
            # a run of an earlier version, on that version's boards (builder.pipeline.earlier_versions)
            found.setdefault(key[0], BundleStatus(*key, "published", decided_by=LAST_BUILD))
            continue
        status = "withdrawn" if r.reason == "withdrawn" else "rejected"
        found.setdefault(key[0], BundleStatus(*key, status, r.reason, r.message, r.hint, CHECKS))
    for state in report.benchmarks:
        for b in state.bundles:
            key = bundle_key(b.where)
            if key is None or key[0] in found:
                continue
            digest = hashlib.sha256(b.files[MANIFEST]).hexdigest() if MANIFEST in b.files else None
            entry = site_rejected.get(key[0])
            if entry is not None and published.get(key[0]) is None:
                found[key[0]] = BundleStatus(*key, "rejected", entry.get("reason"), entry.get("message"), entry.get("hint"), LAST_BUILD)
            elif digest is not None and published.get(key[0]) == digest:
                found[key[0]] = BundleStatus(*key, "published", decided_by=LAST_BUILD)
            else:
                found[key[0]] = BundleStatus(*key, "pending", message="passes every no-secret check; the next authorised build decides")
    return [s for _, s in sorted(found.items()) if lab is None or s.lab == lab]
