"""What an embargoed board may show: the Ladder (Blum & Hardt, 2015) on a grid.

Threat: a lab that holds a valid key submits probe runs that differ from each other in a
few answers and reads the published scores back, recovering the answer key item by item
(adaptive overfitting to a holdout; Dwork et al. 2015, Blum & Hardt 2015). Full coverage
(builder.bundles.coverage) makes every probe a whole run; the submission budget
(builder.bundles.budget) caps the number of probes; this module bounds what each probe
reveals.

Under embargo, for every board, every lab and every published rate (unit ``fraction`` or
``difference``), the lab's submissions are taken in order of their signed ``created``:

- the first shows its value rounded to the grid ``η`` (default 0.05), its interval widened
  outward to the grid;
- a later one shows its value only if it beats the best value shown so far for that lab by
  at least ``η`` (Blum & Hardt's Ladder); otherwise the cell is withheld with flag
  ``ladder``.

So one published cell takes one of at most ``1/η + 2`` states (a grid point or withheld),
at most ``log2(1/η + 2)`` bits (4.4 bits at η = 0.05), and a lab's cell can move up at most
``1/η`` times in the whole embargo. A probe that changes answers on ``m`` of a cell's ``n``
items moves the raw rate by at most ``m/n``; with ``m/n < η/2`` it can neither clear the
Ladder margin nor, from the first submission's rounded value, tell which way it moved.
Cells resting on fewer than ``2/η`` items are withheld (one answer would move them by more
than ``η/2``). Ranks are recomputed from the shown values (no interval-based rank ranges),
row extras derived from results are dropped (by the publication gate, builder.scoring.gate), and a rate's companion counts (tokens, cost)
are shown as reported. Every other figure (counts, slopes) is withheld under embargo.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import replace
from datetime import datetime, timezone

from builder.scoring.tables import BoardRow, BoardTable, Cell, MetricDef

LADDER_UNITS = ("fraction", "difference")
REPORTED_UNITS = ("tokens", "usd")  # lab-reported quantities, not graded against the key
LAST = datetime.max.replace(tzinfo=timezone.utc)


def _floor(x: float, grid: float) -> float:
    return round(math.floor(x / grid + 1e-9) * grid, 10)


def _ceil(x: float, grid: float) -> float:
    return round(math.ceil(x / grid - 1e-9) * grid, 10)


def _round(x: float, grid: float) -> float:
    return round(math.floor(x / grid + 0.5) * grid, 10)


def min_items(grid: float) -> int:
    """Fewest items a published embargoed rate may rest on: one answer moves it < η/2."""
    return math.ceil(2 / grid) + 1


def _withheld(cell: Cell, flag: str | None = None) -> Cell:
    # A withheld cell reveals neither its value nor how many items it rests on.
    return Cell(None, None, None, None, suppressed=True, flag=flag)


def coarsen(
    tables: list[BoardTable], created: Mapping[str, tuple[str, datetime]], grid: float, public: Collection[tuple[str, str, str]] = ()
) -> list[BoardTable]:
    """Apply the Ladder to every board. ``created``: submission -> (lab, signed created);
    ``public``: (board, metric, submission) cells resting on released items only, which are
    constants anyone can recompute from the release and so are shown exactly."""
    return [_board(t, created, grid, public) for t in tables]


def _board(
    table: BoardTable, created: Mapping[str, tuple[str, datetime]], grid: float, public: Collection[tuple[str, str, str]] = ()
) -> BoardTable:
    floor_n = min_items(grid)
    order = sorted(range(len(table.rows)), key=lambda i: (created.get(table.rows[i].submission, ("", LAST))[1], table.rows[i].submission))
    metrics: list[dict[str, Cell]] = [dict(r.metrics) for r in table.rows]
    for m in table.metrics:
        if m.unit in REPORTED_UNITS and "correct" not in (m.measure or m.name):
            continue
        best: dict[str, float] = {}
        for i in order:
            cell = metrics[i].get(m.name)
            if (table.board, m.name, table.rows[i].submission) in public:
                continue  # released items only: nothing embargoed to protect
            if cell is None or cell.value is None:
                if cell is not None and cell.suppressed:
                    metrics[i][m.name] = _withheld(cell)
                continue
            if m.unit not in LADDER_UNITS or (cell.n or 0) < floor_n:
                metrics[i][m.name] = _withheld(cell)
                continue
            lab = created.get(table.rows[i].submission, (table.rows[i].lab, None))[0]
            sign = -1.0 if m.higher_is_better is False else 1.0
            score = sign * float(cell.value)
            if lab in best and score < best[lab] + grid:
                metrics[i][m.name] = _withheld(cell, "ladder")
                continue
            shown = _round(float(cell.value), grid)
            best[lab] = sign * shown
            lo = None if cell.ci_low is None else _floor(cell.ci_low, grid)
            hi = None if cell.ci_high is None else _ceil(cell.ci_high, grid)
            metrics[i][m.name] = Cell(shown, lo, hi, cell.n)
    rows = [_row(r, metrics[i]) for i, r in enumerate(table.rows)]
    rows = _rerank(rows, next((m for m in table.metrics if m.name == table.rank_by), None))
    # Summary facts, notes and row extras derived from exact results are withheld by the
    # publication gate (builder.scoring.gate), which runs next under the Ladder's policy.
    return replace(table, rows=tuple(rows))


def _row(row: BoardRow, metrics: dict[str, Cell]) -> BoardRow:
    return BoardRow(row.submission, row.model, row.lab, metrics, rank=None, rank_range=None, extra=row.extra)


def _rerank(rows: list[BoardRow], by: MetricDef | None) -> list[BoardRow]:
    """Competition ranks (1-2-2-4) on the shown values only."""
    if by is None:
        return sorted(rows, key=lambda r: r.submission)
    sign = -1.0 if by.higher_is_better is False else 1.0

    def key(r: BoardRow) -> float | None:
        c = r.metrics.get(by.name)
        return None if c is None or c.value is None else sign * float(c.value)

    keyed = [(k, r) for r in rows if (k := key(r)) is not None]
    ranked = [r for _, r in sorted(keyed, key=lambda kr: (-kr[0], kr[1].submission))]
    out: list[BoardRow] = []
    for pos, r in enumerate(ranked):
        rank = out[-1].rank if out and key(out[-1]) == key(r) else pos + 1
        out.append(replace(r, rank=rank))
    return out + sorted((r for r in rows if key(r) is None), key=lambda r: r.submission)
