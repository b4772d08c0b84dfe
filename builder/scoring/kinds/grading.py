"""kind: grading — how each submission's samples were graded: regraded by Sealboard, kept
as the lab's judge verdict, disagreements, unparsed answers. Not ranked unless rank_by says."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.scoring import definitions as D
from builder.scoring.boards import Context, RawBoard, _all_rows
from builder.scoring.config_base import ParserBase
from builder.scoring.disclosure import Term
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import select
from builder.scoring.nulls import is_none
from builder.scoring.spec import BoardSpec, KindParams, Pairing
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import count, ratio

COLUMNS = ("regraded_samples", "judge_graded_samples", "lab_ungraded_samples", "disagreements", "disagreement_rate", "unparsed_answers")
QUANTITIES = ("n", "regraded", "compared", "disagree", "ungraded", "unparsed", "equivalence")


@dataclass(frozen=True)
class Params(KindParams):
    pass


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    return Params(), list(COLUMNS)


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    rows, extras = _all_rows(ctx)
    raw = RawBoard(board, board_id, [], {}, rows, extras, contaminated=contaminated)
    # Grading covers every result row (all languages and conditions) unless the board narrows it.
    sel = select(ctx.prep, board.items, board.results, contaminated)
    q = ctx.prep.dense(sel.conds, QUANTITIES)
    elig = sel.elig & (q["n"] > 0)
    n_items = elig.sum(axis=1)
    flag = np.array([None] * len(rows), dtype=object)
    flag[n_items == 0] = "not-evaluated"
    has = ~is_none(sel.row_flag)
    flag[has] = sel.row_flag[has]

    def total(name: str) -> np.ndarray:
        return np.where(elig, q[name], 0).sum(axis=1)

    raw.est["regraded_samples"] = count(total("regraded"), n_items, flag)
    raw.est["equivalence_graded"] = count(total("equivalence"), n_items, flag)
    raw.est["judge_graded_samples"] = count(total("n") - total("regraded"), n_items, flag)
    raw.est["lab_ungraded_samples"] = count(total("ungraded"), n_items, flag)
    raw.est["disagreements"] = count(total("disagree"), n_items, flag)
    # The rate is over the samples where both verdicts exist: a lab without the gold answers
    # (correct: null) has nothing to disagree with, and is not diluted into agreeing.
    rated = elig & (q["compared"] > 0)
    rate_flag = flag.copy()
    rate_flag[is_none(rate_flag) & (rated.sum(axis=1) == 0)] = "undefined"
    # Disagreements and equivalence grading depend on the gold answers: audited like rates
    # (the count and the rate share their unknowns, the per-item disagreement counts).
    stream = ("disagree", 0, sel.conds.tobytes())
    raw.est["disagreement_rate"] = ratio(q["disagree"], q["compared"], rated, rate_flag, stream=stream)
    raw.est["disagreements"].basis = (Term(1.0, stream, rows, elig, None),)
    raw.est["equivalence_graded"].basis = (Term(1.0, ("equivalence", 0, sel.conds.tobytes()), rows, elig, None),)
    raw.est["unparsed_answers"] = count(total("unparsed"), n_items, flag)
    for name in (
        "regraded_samples",
        "equivalence_graded",
        "judge_graded_samples",
        "lab_ungraded_samples",
        "disagreements",
        "disagreement_rate",
        "unparsed_answers",
    ):
        unit = "fraction" if name == "disagreement_rate" else "count"
        better = False if name in ("disagreements", "disagreement_rate", "unparsed_answers") else None
        raw.columns.append(MetricDef(name, name.replace("_", " ").capitalize(), D.GRADING[name], unit, better))
    note = (
        "Verdicts by source: regraded samples (types " + (", ".join(ctx.prep.spec.regrade_types) or "none") + ") are Sealboard's — "
        "exact comparison of plain numbers and letters, else math-verify equivalence (counted in Equivalence graded); "
        "judge-graded samples keep the lab's judge verdict; lab-ungraded samples (correct: null, a lab without the gold answers) "
        "are regraded ones the lab left to Sealboard, and are not compared."
    )
    if (ctx.prep.item_tokens["answer_type"] == "ill_posed").any():
        note += " " + D.REFUSAL_GRADING
    raw.notes.append(note)
    return raw


KIND = Kind("grading", frozenset(), parse, build, ranked_by_default=False)
