"""What every board kind shares (builder.scoring.kinds): the scoring Context, the RawBoard
each kind returns (estimates for every row; the engine turns it into a BoardTable:
suppression, ranks, cells), the result filter, reference rows and the regrading note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from builder.scoring.measures import Scores
from builder.scoring.spec import BoardSpec, Filter, Reference
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import Estimate, ratio

if TYPE_CHECKING:
    from builder.scoring.frames import Prepared


@dataclass
class Context:
    prep: Prepared
    embargoed: bool
    registry: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # (board id, column) -> estimate


@dataclass
class RawBoard:
    spec: BoardSpec
    board_id: str
    columns: list[MetricDef]
    est: dict[str, Estimate]
    rows: np.ndarray  # (R,) submission index of each row
    extras: list[dict[str, Any]]
    references: list[tuple[Reference, dict[str, Estimate]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    contaminated: bool = False
    extra_needs: dict[str, str] = field(default_factory=dict)  # row extra -> column it is derived from


def results_filter(ctx: Context, *filters: Filter) -> Filter:
    """lang = primary language and the benchmark's result_defaults, overridden by `filters` in turn."""
    out = ctx.prep.spec.result_defaults.merged_over(Filter((("lang", (ctx.prep.spec.primary_language,)),)))
    for f in filters:
        out = f.merged_over(out)
    return out


def fixed(value: float, n: int = 0) -> Estimate:
    """A one-row value with no interval (a constant reference such as 1-in-5 guessing)."""
    nan = np.array([np.nan])
    return Estimate(
        np.array([float(value)]),
        nan,
        nan.copy(),
        None,
        np.zeros(0, dtype=np.int64),
        np.array([n]),
        np.array([n]),
        np.array([None], dtype=object),
    )


def _reference_estimates(
    ctx: Context, sc: Scores | None, item_mask: np.ndarray, board: BoardSpec, raw: RawBoard | None = None
) -> list[tuple[Reference, Estimate]]:
    """Reference values for a column computed with measure sc.measure over `item_mask`.

    A reference drawn from an item field is shown only where it rests on the same items as
    the models: if some of the column's items lack the field, the column gets no reference
    (and the board a note), rather than a value over a different item set.
    """
    out: list[tuple[Reference, Estimate]] = []
    if not board.references or sc is None:
        return out
    for ref in ctx.prep.spec.references:
        if sc.measure.name not in ref.measures:
            continue
        if ref.constant is not None:
            if ref.items is None:
                out.append((ref, fixed(ref.constant)))
            elif np.array_equal(ctx.prep.item_mask(ref.items), item_mask):
                out.append((ref, fixed(ref.constant, int(item_mask.sum()))))
            continue
        bp = ctx.prep.item_bp[ref.complement_of or ""]
        covered = item_mask & (bp >= 0)
        if covered.sum() < item_mask.sum():
            if raw is not None:
                note = (
                    f"{ref.label} is shown only on columns whose items all carry {ref.complement_of}; "
                    "elsewhere it would rest on other items than the models' rows."
                )
                if note not in raw.notes:
                    raw.notes.append(note)
            continue
        elig = covered[None, :]
        a = (10000 - bp).astype(np.float64)[None, :]
        d = np.full_like(a, 10000.0)
        out.append((ref, ratio(a, d, elig, np.array([None], dtype=object))))
    return out


def _add_refs(raw: RawBoard, col: str, refs: list[tuple[Reference, Estimate]]) -> None:
    for ref, value in refs:
        for existing, cols in raw.references:
            if existing.id == ref.id:
                cols[col] = value
                break
        else:
            raw.references.append((ref, {col: value}))


def _all_rows(ctx: Context) -> tuple[np.ndarray, list[dict[str, Any]]]:
    s = ctx.prep.n_subs
    return np.arange(s), [{} for _ in range(s)]


def _regrade_note(ctx: Context, raw: RawBoard) -> None:
    types = ", ".join(ctx.prep.spec.regrade_types) or "none"
    raw.notes.append(
        f"Correctness of {types} answers is regraded by Sealboard from the extracted answer (exact, else math-verify equivalence); other answer types keep the lab's judge verdict."
    )
