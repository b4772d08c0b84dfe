"""The duplicate rule (builder.bundles.duplicates) for a pull request.

Candidates: every bundle on the target branch (already admitted, so they come first) and
the pull request's new or changed bundles (not yet admitted); only the latter are reported.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from builder.bundles.duplicates import Candidate, find_duplicates
from builder.bundles.ingest import BUNDLES_DIR, DATASET_DIR
from builder.bundles.manifest import MANIFEST, parse_manifest
from builder.errors import BuilderError
from builder.validate.gitread import Entry, Repo

_ADMITTED = datetime(1970, 1, 1, tzinfo=timezone.utc)  # "before anything the PR adds"


def _manifests(tree: dict[str, Entry], keep: Any) -> dict[str, Entry]:
    return {
        path.rsplit("/", 1)[0]: e for path, e in tree.items()
        if path.endswith("/" + MANIFEST) and path.count("/") == 4 and path.split("/")[2] != DATASET_DIR and keep(path.rsplit("/", 1)[0])
    }  # fmt: skip


def check_duplicates(repo: Repo, target: str, head: str, changed: set[str], report: Any) -> None:
    """Report every changed bundle (``bundles/<bench>/<lab>/<name>``) the rule refuses."""
    if not changed:
        return
    admitted = _manifests(repo.tree(target, BUNDLES_DIR), lambda where: where not in changed)
    new = _manifests(repo.tree(head, BUNDLES_DIR), lambda where: where in changed)
    blobs = repo.blobs(sorted({e.oid for e in [*admitted.values(), *new.values()]}))
    candidates = []
    for group, when in ((admitted, _ADMITTED), (new, None)):
        for where, entry in group.items():
            try:
                manifest = parse_manifest(blobs[entry.oid], f"{where}/{MANIFEST}")
            except BuilderError:
                continue  # a changed one is reported by verification; a target one is the build's business
            candidates.append(Candidate(where, manifest, when))
    for where, error in sorted(find_duplicates(candidates).items()):
        if where in changed:
            report.add_error(error, where)
