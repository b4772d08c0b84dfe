"""The commitments a dataset version published first, read from git: a changed item is refused.

Every build during the embargo publishes the dataset's per-item commitments
(``data/<benchmark>/commitments.json``), so that after the release anyone can check that the
published items are the ones committed to. If the maintainers' threshold later re-signs
the same version with a changed item and its new commitment, the new commitments agree
with the changed item and a check against them alone passes. So the commitments a
version first entered the branch with (the oldest first-parent commit of its
``manifest.json``) are the ones that count: a manifest whose commitments differ from them
for any item is refused (``commitment-changed``), in the build, ``release status`` and
both ``release verify`` modes. Without git history there is nothing earlier to compare
with, and the current manifest stands (the same fallback as registry dates).
"""

from __future__ import annotations

from pathlib import Path

from builder.bundles.dataset import parse_dataset_manifest
from builder.bundles.ingest import DATASET_DIR
from builder.bundles.manifest import MANIFEST
from builder.errors import BuilderError, ReleaseError
from builder.gitrepo.gitread import git_output


def manifest_path(benchmark: str, version: str) -> str:
    return f"bundles/{benchmark}/{DATASET_DIR}/{version}/{MANIFEST}"


def first_commitments(root: Path, benchmark: str, version: str) -> dict[str, str] | None:
    """The commitments of the version's manifest as first committed on the branch (None:
    no git history of it, or that first manifest does not parse)."""
    path = manifest_path(benchmark, version)
    log = git_output(root, "log", "--first-parent", "--reverse", "--format=%H", "HEAD", "--", path)
    for commit in (log or b"").decode().split():
        data = git_output(root, "show", f"{commit}:{path}")
        if data is None:
            continue  # deleted at that commit
        try:
            return parse_dataset_manifest(data, path).commitments
        except BuilderError:
            return None
    return None


def changed_commitment(first: dict[str, str] | None, current: dict[str, str], where: str) -> ReleaseError | None:
    """The refusal when `current` changes or drops a commitment `first` published (None: unchanged)."""
    if first is None:
        return None
    for item_id, commitment in sorted(first.items()):
        now = current.get(item_id)
        if now != commitment:
            what = "drops" if now is None else "changes"
            return ReleaseError(
                f"{what} the commitment to item {item_id!r} published when this dataset version was first committed; "
                "a release of a changed item is void",
                where=where,
                reason="commitment-changed",
                hint="published commitments never change: put changed items in a new dataset version (and a new release statement)",
            )
    return None
