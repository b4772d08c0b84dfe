"""What the build does with a benchmark's release state, after unsealing its items.

- the items in force (the union of the scopes of effective statements) are checked
  against the commitments of the dataset manifest the statements pin; one mismatch
  blocks the release and names the item (the benchmark stays embargoed);
- the benchmark's status becomes ``released`` or ``partly released``;
- the leak scan's needles (``embargoed_text``) keep every item outside the scope, and
  drop only the released ones.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from builder.errors import ReleaseError
from builder.pipeline.records import BenchmarkState
from builder.release.check import check_commitments
from builder.release.scope import released_ids
from builder.release.status import EMBARGOED, PARTLY, RELEASED, ReleaseState

STATUS = {RELEASED: "released", PARTLY: "partly released"}


def apply_release(state: BenchmarkState, items: list[dict[str, Any]], release: ReleaseState | None) -> BenchmarkState:
    if release is None or release.state not in STATUS:
        return state
    ids = released_ids(release.scopes, items)
    chosen = [it for it in items if it["id"] in ids]
    try:
        check_commitments(chosen, state.dataset_commitments, state.dataset_where or state.config.path)
    except ReleaseError as exc:
        return replace(state, release=replace(release, state=EMBARGOED, blocked=f"{exc.reason}: {exc.message}"))
    if not release.publishes("items"):  # released aggregates only: the text stays guarded
        return replace(state, status=STATUS[release.state])
    return replace(
        state,
        status=STATUS[release.state],
        released_items=tuple(chosen),
        embargoed_text=tuple(e for e in state.embargoed_text if e[0] not in ids),
    )
