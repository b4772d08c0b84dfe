"""The publish stage's attestation: the facts a deploy was built from, gathered from the
build report as the predicate of builder.attest's statement, then written into the site.

Only what both builds of one commit share goes in (the stamped time, never the judging
clock), so the statement is byte-reproducible like the site it describes.
"""

from __future__ import annotations

import hashlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from builder import __version__
from builder.attest.record import folders
from builder.attest.write import Written, write_attestation
from builder.bundles.manifest import MANIFEST
from builder.render.data import git_commit
from builder.report.records import BuildReport
from builder.trust.registry_format import format_time
from builder.trust.sshkeys import PrivateKey

# The distribution that carries each site generator's version.
GENERATOR_DISTRIBUTIONS = {"mkdocs": ("mkdocs", "mkdocs-material"), "zensical": ("zensical",)}


def _version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def _file_sha256(root: Path, rel: str) -> str | None:
    path = root / rel
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def predicate(report: BuildReport, generator: str, key: PrivateKey | None) -> dict[str, Any]:
    registry = report.registry
    dists = GENERATOR_DISTRIBUTIONS.get(generator, (generator,))
    return {
        "commit": git_commit(report.root),
        "built": format_time(report.stamped) if report.stamped else None,
        "time_source": report.time_source,
        "authorised": report.authorised,
        "rehearsal": format_time(report.as_of) if report.as_of else None,
        "registry": {"version": registry.version if registry else None,
                     "build_key": key.public.fingerprint if key is not None else None},
        # The signed chain of recorded deploys: the folders attestations/ held at this commit,
        # so a later deletion of any of them is a finding (builder.attest.record.unaccounted).
        "recorded": [p.name for p in folders(report.root)],
        "benchmarks": [{"id": s.config.id, "version": s.config.version, "status": s.status} for s in report.benchmarks],
        "bundles": [
            {"benchmark": s.config.id, "submission": b.manifest.key, "path": b.where,
             "manifest_sha256": hashlib.sha256(b.files[MANIFEST]).hexdigest()}
            for s in report.benchmarks for b in sorted(s.bundles, key=lambda b: b.where) if MANIFEST in b.files
        ],
        "releases": [
            {"benchmark": bench, "statement": v.path, "sha256": _file_sha256(report.root, v.path)}
            for bench, state in sorted(report.releases.items()) for v in state.effective
        ],
        "sealboard": {"version": __version__},
        "generator": {"name": generator, "version": _version(dists[0]),
                      **({"theme": f"{dists[1]} {_version(dists[1])}"} if len(dists) > 1 else {})},
    }


def attest(report: BuildReport, site: Path, generator: str, key: PrivateKey | None) -> Written:
    return write_attestation(site, predicate(report, generator, key), key, report.registry)
