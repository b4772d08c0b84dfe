"""Which items a release scope covers.

A split scope covers the items of those splits; an editions scope covers items whose
``edition`` (``YYYY-MM``) is at or before the month named — LiveMathematicianBench's
rolling release of its oldest editions. Items without an edition are never in an
editions scope. Several effective statements release the union of their scopes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from builder.release.statement import Scope


def covers(scope: Scope, split: str, edition: str | None) -> bool:
    if scope.whole:
        return True
    if scope.splits:
        return split in scope.splits
    return edition is not None and str(edition)[:7] <= str(scope.editions_through)


def released_ids(scopes: Iterable[Scope], items: Iterable[dict[str, Any]]) -> set[str]:
    """Ids of the items any of `scopes` covers."""
    scopes = tuple(scopes)
    return {it["id"] for it in items if any(covers(s, it["split"], it.get("edition")) for s in scopes)}
