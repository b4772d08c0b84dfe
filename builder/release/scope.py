"""Which items a release scope covers.

A split scope covers the items of those splits; an editions scope covers items whose
``edition`` (``YYYY-MM``) is at or before the month named — LiveMathematicianBench's
rolling release of its oldest editions. Items without an edition are never in an
editions scope. Which statement governs an item when several cover it is
builder.release.status.ReleaseState.governing: never the union of their flags.
"""

from __future__ import annotations

from builder.release.statement import Scope


def covers(scope: Scope, split: str, edition: str | None) -> bool:
    if scope.whole:
        return True
    if scope.splits:
        return split in scope.splits
    return edition is not None and str(edition)[:7] <= str(scope.editions_through)
