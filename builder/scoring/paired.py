"""Paired differences for the compare page of a released benchmark: how two models' per-item
scores move together on a board.

**Method.** A board's ranking metric that is the plain mean of a per-item score (accuracy,
avg@k, pass@k, refusal rate: a table column or a breakdown's overall column) has, for two
models graded on the same n items, the paired difference θ̂_b − θ̂_a. Its 95% interval is
the one Sealboard already uses to separate ranks (builder.scoring.uncertainty): Zou &
Donner's MOVER, the correlated form of Newcombe's square-and-add — for 0/1 items with one
sample each it is Newcombe's (1998) method 10 for paired proportions, with each model's own
item-clustered Wilson limits in place of plain Wilson's:

    lower = d − √(e_b⁻² + e_a⁺² − 2ρ·e_b⁻·e_a⁺),   upper = d + √(e_b⁺² + e_a⁻² − 2ρ·e_b⁺·e_a⁻)

with e⁻ = θ̂ − lower(θ), e⁺ = upper(θ) − θ̂ each model's published distances to its limits
and ρ the correlation over the n items of the two models' per-item scores (the cosine of
their item influences, which for a common per-item denominator is Pearson's correlation of
the item scores). ρ = 0 gives back the unpaired square-and-add the page shows under embargo;
models that solve the same items have ρ > 0 and a narrower, honest interval. We chose it
over a t interval on the item differences, mean(d) ± t·sd(d)/√n, so that the compare page
and the rank ranges agree (a Δ whose interval excludes 0 is exactly a separation there),
and because it keeps Wilson's behaviour near 0 and 1 where the t interval collapses.

**What is paired.** Only what a release already made public: the submissions whose
per-item results it publishes (``publish_on_release``), on boards every one of whose items
has its results published (a partly released benchmark's board over embargoed items stays
unpaired), and only models graded on every item of the board, so that the items both were
graded on are the board's n items and the published values and intervals are the ones on
them. This module returns ρ for each such pair; the page combines it with the published
limits (assets/sealboard.js). Everything else keeps the unpaired figure, labelled so.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd

from builder.scoring import boards as B
from builder.scoring.frames import prepare
from builder.scoring.kinds import REGISTRY
from builder.scoring.measures import estimate
from builder.scoring.regrade import NO_VERDICTS, Verdicts
from builder.scoring.spec import BoardSpec, ScoringSpec

RHO_SCALE = 1000  # ρ is published as round(1000·ρ): three decimals move no shown limit


@dataclass(frozen=True)
class PairedBoard:
    """The pairable models of one board and their item correlations."""

    board: str
    n: int  # the board's items: every pairable model was graded on all of them
    submissions: tuple[str, ...]  # pairable models, sorted
    # round(RHO_SCALE·ρ) for each pair i < j of `submissions`, row by row: (0,1), (0,2)…, (1,2)…
    rho: tuple[int, ...]

    def correlation(self, a: str, b: str) -> float:
        """ρ of submissions a and b (the published, rounded figure)."""
        i, j = sorted((self.submissions.index(a), self.submissions.index(b)))
        if i == j:
            return 1.0
        m = len(self.submissions)
        return self.rho[i * m - i * (i + 1) // 2 + (j - i - 1)] / RHO_SCALE


def _boards(spec: ScoringSpec) -> list[tuple[str, BoardSpec, bool]]:
    """(board id, spec, contaminated) for every board, contamination twins included."""
    out = []
    for board in spec.boards:
        if spec.contamination is not None and board.contamination:
            out += [(board.id, board, True), (board.id + spec.contamination.all_suffix, board, False)]
        else:
            out.append((board.id, board, False))
    return out


def correlations(infl: np.ndarray) -> np.ndarray:
    """(S, S) cosine of the rows of an influence matrix; 0 where a row has no spread."""
    gram = infl @ infl.T
    norm = np.sqrt(np.diag(gram))
    denom = norm[:, None] * norm[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, gram / np.where(denom > 0, denom, 1.0), 0.0)


def paired_boards(spec: ScoringSpec, items: pd.DataFrame, results: pd.DataFrame, submissions: pd.DataFrame, *,
                  public_items: Collection[str], public_submissions: Collection[str],
                  verdicts: Verdicts = NO_VERDICTS) -> dict[str, PairedBoard]:  # fmt: skip
    """Board id -> its pairable models and their ρ, from the published per-item results only:
    rows of ``public_submissions`` on ``public_items`` (the rest of ``results`` is dropped
    before anything is computed). Boards with fewer than two pairable models are left out."""
    subs, ids = set(public_submissions), set(public_items)
    results = results[results["submission"].isin(subs) & results["item"].isin(ids)]
    submissions = submissions[submissions["submission"].isin(subs)]
    if results.empty:
        return {}
    prep = prepare(spec, items, results, submissions, verdicts)
    ctx = B.Context(prep, embargoed=False)
    public = np.isin(prep.item_ids, np.asarray(sorted(ids), dtype=object))
    out = {}
    for board_id, board, contaminated in _boards(spec):
        if board.rank_by is None:
            continue
        got = REGISTRY[board.kind].item_scores(ctx, board, board.rank_by, contaminated)
        if got is None:
            continue
        sc, mask = got
        if sc.L is None or not mask.any() or (mask & ~public).any():
            continue  # not a plain mean of item scores, or resting on items not all published
        est = estimate(sc)
        graded = sc.elig & ~sc.short & (sc.n > 0)
        full = (graded == mask[None, :]).all(axis=1) & ~np.isnan(est.value) & (est.infl is not None)
        rows = np.flatnonzero(full)
        if len(rows) < 2 or est.infl is None:
            continue
        rho = correlations(est.infl[rows])
        upper = np.triu_indices(len(rows), k=1)
        out[board_id] = PairedBoard(
            board_id,
            int(mask.sum()),
            tuple(str(s) for s in prep.sub_ids[rows]),
            tuple(int(v) for v in np.rint(np.clip(rho[upper], -1.0, 1.0) * RHO_SCALE).tolist()),
        )
    return out
