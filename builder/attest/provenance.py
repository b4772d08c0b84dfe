"""The SLSA provenance of a deploy (https://slsa.dev/provenance/v1), derived from its site
statement alone, so that ``verify-site`` can derive it again and compare bytes.

An in-toto Statement v1 whose subjects are what the build attests as a whole,
``attestation/SHA256SUMS`` (every published file's sha256; the file GitHub's artifact
attestation covers too) and ``attestation/statement.json``, and whose predicate says
(build-provenance.md, "Schema"):

- ``buildDefinition.buildType``: a Sealboard build (`BUILD_TYPE_PATH`: the Data page's
  section on it, under the site's own URL; a URN without ``site_url``);
- ``externalParameters``: the repository and the commit built; ``internalParameters``: the
  facts the build decided itself (authorised, the stamped time and where it came from, the
  registry version);
- ``resolvedDependencies``: the commit (``gitCommit``), the registry version in force, each
  admitted bundle's signed ``manifest.json`` and each release statement in force (sha256),
  and the packages that shaped the pages (``pkg:pypi`` URIs with their versions);
- ``runDetails.builder``: the authorised build workflow of the repository (`WORKFLOW`), with
  Sealboard's version. No ``metadata``: a start time or run id would differ between two
  builds of one commit, and the provenance is as reproducible as the site.
"""

from __future__ import annotations

import hashlib
from typing import Any

from builder.attest.statement import STATEMENT, STATEMENT_TYPE, SUMS, Statement, site_base

SLSA_PROVENANCE_V1 = "https://slsa.dev/provenance/v1"
BUILD_TYPE_PATH = "data/#sealboard-build-v1"
BUILD_TYPE_URN = "urn:sealboard:build:v1"
WORKFLOW = ".github/workflows/build.yml"  # the scaffold's authorised build (builder/scaffold/files/workflows/)
BUILDER_PATH = "data/#sealboard-builder"
BUILDER_URN = "urn:sealboard:authorised-build"


def build_type(site_url: str | None) -> str:
    base = site_base(site_url)
    return base + BUILD_TYPE_PATH if base else BUILD_TYPE_URN


def builder_id(repository: str | None, site_url: str | None) -> str:
    """The workflow that runs the authorised build, in the repository's web view; without a
    repo_url, the Data page's section on the builder (or a URN without a site_url either)."""
    if isinstance(repository, str) and repository.startswith("https://") and not any(c.isspace() for c in repository):
        return f"{repository.rstrip('/')}/blob/main/{WORKFLOW}"
    base = site_base(site_url)
    return base + BUILDER_PATH if base else BUILDER_URN


def _present(d: dict[str, Any]) -> dict[str, Any]:
    """Unset and null mean the same (parsing rules): leave nulls out."""
    return {k: v for k, v in d.items() if v is not None}


def _dependencies(pred: dict[str, Any]) -> list[dict[str, Any]]:
    deps: list[dict[str, Any]] = []
    commit, repository = pred.get("commit"), pred.get("repository")
    if isinstance(commit, str):
        deps.append(
            _present(
                {
                    "name": "source",
                    "uri": f"git+{repository}@{commit}" if isinstance(repository, str) else None,
                    "digest": {"gitCommit": commit},
                }
            )
        )
    registry = pred.get("registry") or {}
    if isinstance(registry.get("path"), str) and isinstance(registry.get("sha256"), str):
        deps.append({"name": registry["path"], "digest": {"sha256": registry["sha256"]}})
    for b in pred.get("bundles") or []:
        deps.append(
            {
                "name": f"{b['path']}/manifest.json",
                "digest": {"sha256": b["manifest_sha256"]},
                "annotations": {"benchmark": b["benchmark"], "submission": b["submission"]},
            }
        )
    for r in pred.get("releases") or []:
        if isinstance(r.get("sha256"), str):
            deps.append({"name": r["statement"], "digest": {"sha256": r["sha256"]}, "annotations": {"benchmark": r["benchmark"]}})
    for name, version in sorted(((pred.get("generator") or {}).get("packages") or {}).items()):
        deps.append({"name": name, "uri": f"pkg:pypi/{name.lower()}@{version}"})
    return deps


def provenance(st: Statement, sums: bytes) -> dict[str, Any]:
    """The provenance statement for the site statement ``st`` and its ``SHA256SUMS`` bytes."""
    pred = st.predicate
    site_url, repository = pred.get("site_url"), pred.get("repository")
    subjects = sorted([(SUMS, hashlib.sha256(sums).hexdigest()), (STATEMENT, st.digest)])
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": name, "digest": {"sha256": digest}} for name, digest in subjects],
        "predicateType": SLSA_PROVENANCE_V1,
        "predicate": {
            "buildDefinition": {
                "buildType": build_type(site_url),
                "externalParameters": _present({"repository": repository, "commit": pred.get("commit")}),
                "internalParameters": _present(
                    {
                        "authorised": pred.get("authorised"),
                        "built": pred.get("built"),
                        "time_source": pred.get("time_source"),
                        "registry_version": (pred.get("registry") or {}).get("version"),
                    }
                ),
                "resolvedDependencies": _dependencies(pred),
            },
            "runDetails": {
                "builder": {
                    "id": builder_id(repository, site_url),
                    "version": {"sealboard": str((pred.get("sealboard") or {}).get("version"))},
                },
            },
        },
    }
