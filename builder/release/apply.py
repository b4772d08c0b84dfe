"""What the build does with a benchmark's release state, after unsealing its items.

- each item's publish flags come from the one effective statement that governs it
  (builder.release.status.ReleaseState.governing); statements never combine;
- an effective statement whose scope covers no item of the dataset is refused
  (``empty-scope``): it releases nothing, and does not make the benchmark "partly released";
- the items in force are checked against the commitments of the dataset manifest the
  statements pin; one mismatch blocks the release and names the item (the benchmark stays
  embargoed);
- the benchmark's status becomes ``released`` or ``partly released``;
- the leak scan's needles (``embargoed_text``) keep every item whose text is not published,
  and drop only the published ones.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from builder.errors import ReleaseError
from builder.release.check import check_commitments
from builder.release.scope import covers
from builder.release.status import EMBARGOED, PARTLY, RELEASED, ReleaseState, state_of
from builder.release.verify import EFFECTIVE, INVALID
from builder.report.records import BenchmarkState

STATUS = {RELEASED: "released", PARTLY: "partly released"}


def refuse_empty_scopes(release: ReleaseState, items: list[dict[str, Any]]) -> ReleaseState:
    """The release state with every effective statement covering no item refused (`empty-scope`)."""
    verdicts = []
    for v in release.verdicts:
        st = v.statement
        if v.state == EFFECTIVE and st is not None and not any(covers(st.scope, it["split"], it.get("edition")) for it in items):
            v = replace(
                v,
                state=INVALID,
                reason="empty-scope",
                message=f"{v.path}: its scope ({st.scope.describe()}) covers no item of dataset {release.version}; it releases nothing",
            )
        verdicts.append(v)
    if verdicts == list(release.verdicts):
        return release
    return replace(release, verdicts=tuple(verdicts), state=state_of(verdicts))


def apply_release(state: BenchmarkState, items: list[dict[str, Any]], release: ReleaseState | None) -> BenchmarkState:
    if release is None:
        return state
    release = refuse_empty_scopes(release, items)
    if release.state not in STATUS:
        return replace(state, release=release)
    per_item = release.item_publish(items)
    release = replace(release, per_item=per_item)
    chosen = [it for it in items if it["id"] in per_item]
    try:
        check_commitments(chosen, state.dataset_commitments, state.dataset_where or state.config.path)
    except ReleaseError as exc:
        return replace(state, release=replace(release, state=EMBARGOED, blocked=f"{exc.reason}: {exc.message}", per_item={}))
    shown = release.published_ids("items")  # the rest (aggregates only) keeps its text guarded
    return replace(
        state,
        release=release,
        status=STATUS[release.state],
        released_items=tuple(it for it in chosen if it["id"] in shown),
        embargoed_text=tuple(e for e in state.embargoed_text if e[0] not in shown),
    )
