"""The duplicate rule (builder.bundles.duplicates) over a pull request's head tree.

Every bundle of the head tree is a candidate: the base revision's bundles are already
admitted, so they come first; the pull request's bundles are the ones reported.
"""

from __future__ import annotations

from datetime import datetime, timezone

from builder.bundles.duplicates import Candidate, find_duplicates
from builder.bundles.ingest import BUNDLES_DIR, DATASET_DIR
from builder.bundles.manifest import MANIFEST, parse_manifest
from builder.errors import BuilderError
from builder.validate.gitread import Repo

_ADMITTED = datetime(1970, 1, 1, tzinfo=timezone.utc)  # "before anything the PR adds"


def check_duplicates(repo: Repo, base: str, head: str, changed: set[tuple[str, str, str]], report) -> None:  # noqa: ANN001
    base_tree, head_tree = repo.tree(base, BUNDLES_DIR), repo.tree(head, BUNDLES_DIR)
    manifests = {
        path: e for path, e in head_tree.items()
        if path.endswith("/" + MANIFEST) and path.count("/") == 4 and path.split("/")[2] != DATASET_DIR
    }  # fmt: skip
    blobs = repo.blobs(sorted({e.oid for e in manifests.values()}))
    candidates = []
    for path, entry in manifests.items():
        try:
            manifest = parse_manifest(blobs[entry.oid], path)
        except BuilderError:
            continue  # reported by verification when it is the PR's; the build's business otherwise
        old = base_tree.get(path)
        candidates.append(Candidate(path.rsplit("/", 1)[0], manifest, _ADMITTED if old is not None and old.oid == entry.oid else None))
    for where, error in sorted(find_duplicates(candidates).items()):
        if tuple(where.split("/")[1:4]) in changed:
            report.add_error(error, where)
