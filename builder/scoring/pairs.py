"""TTS pairing for the KCSAT-ML kinds pairs and drg (builder.scoring.kinds).

Pairs (§3.2): within one lab's model family (submissions' ``lab`` and ``family``), the
TTS-off run is the baseline and each TTS-on run is compared with it. ``family`` is free
text a lab writes, so pairs never cross labs: another lab's run in "your" family is in a
different group and cannot become your baseline or move your gains, DRG or profile. When a family has several runs of a
kind, they are ordered by the median of the declared budget result field, then by mean
output tokens, then by submission id (only exact ties on both reach the id); the first
TTS-off run is the baseline and the first TTS-on run is "the first TTS turn-on" at which
DRG is taken (§4.7).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from builder.scoring.boards import Context, results_filter
from builder.scoring.config_base import token
from builder.scoring.measures import estimate, scores, select
from builder.scoring.spec import BoardSpec, Measure

TOKENS = Measure("output_tokens", "output_tokens", 1)
PAIRING_NOTE = (
    "Runs are paired within one lab's model family (never across labs): the TTS-off run is the baseline; when a family has several runs of a kind "
    "they are ordered by budget, then mean output tokens, and the first TTS-on run is the first TTS turn-on."
)


def families(ctx: Context, board: BoardSpec) -> tuple[list[tuple[str, int, list[int]]], list[str]]:
    """[(family, baseline submission index, TTS-on indices in order)] per (lab, family) group,
    and the unpaired groups' families."""
    prep, pairing = ctx.prep, ctx.prep.spec.pairing
    if pairing is None:
        raise AssertionError()
    # Submission ids are sorted, so the index is the id's order (the last tie-break).
    # Order on all of the board's items (never the contamination-filtered set), so that a
    # board and its -all twin pair the same runs.
    sel = select(prep, board.items, results_filter(ctx, board.results), False)
    tokens = estimate(scores(prep, sel, TOKENS)).value
    order = np.lexsort((np.arange(prep.n_subs), np.nan_to_num(tokens, nan=np.inf), np.nan_to_num(prep.sub_order, nan=np.inf)))
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    fam = [token(v) for v in prep.subs[pairing.group_by].tolist()]
    switch = [token(v) for v in prep.subs[pairing.switch].tolist()]
    labs = prep.subs["lab"].astype(str).tolist()
    by_family: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
    for s, (lab, f, on) in enumerate(zip(labs, fam, switch)):
        if f is None or on not in ("true", "false"):
            continue
        off_list, on_list = by_family.setdefault((lab, f), ([], []))
        (on_list if on == "true" else off_list).append(s)
    out, unpaired = [], []
    for lab, f in sorted(by_family):
        off_list, on_list = by_family[(lab, f)]
        if not off_list or not on_list:
            unpaired.append(f)
            continue
        base = min(off_list, key=lambda s: rank_of[s])
        out.append((f, base, sorted(on_list, key=lambda s: rank_of[s])))
    return out, unpaired


def pair_extras(ctx: Context, family: str, base: int, first: bool) -> dict[str, Any]:
    subs = ctx.prep.subs
    return {"family": family, "baseline": ctx.prep.sub_ids[base], "baseline_model": str(subs["model"].iat[base]), "first_turn_on": first}
