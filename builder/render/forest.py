"""Forest bars: each row's 95% interval drawn as a bar on one axis shared by the board.

A bar beside the main value lets a visitor see the margin at a glance: two rows whose bars
overlap are not separated, however their values read. Drawn by CSS from three
numbers per cell (~50 bytes, a 100-row board stays light), so it shows with the table,
before and without any chart library. The axis spans every shown value and interval bound of the lead metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.render.labels import number


@dataclass(frozen=True)
class Axis:
    low: float
    high: float
    unit: str

    def at(self, value: float) -> float:
        """A value's place on the axis, as a percentage of the bar column's width."""
        span = self.high - self.low
        return 50.0 if span <= 0 else round(100 * (value - self.low) / span, 1)


def _bounds(cell: dict[str, Any] | None) -> list[float]:
    if not cell or cell.get("value") is None:
        return []
    return [v for v in (cell["value"], cell.get("ci_low"), cell.get("ci_high")) if v is not None]


def forest_axis(rows: list[dict[str, Any]], metric: dict[str, Any] | None) -> Axis | None:
    """The shared axis of one metric over rows (submission and reference rows), or None."""
    if metric is None:
        return None
    found = [v for r in rows for v in _bounds(r["metrics"].get(metric["name"]))]
    if not found:
        return None
    return Axis(min(found), max(found), metric["unit"])


def forest_head(axis: Axis) -> str:
    """The column title: the axis's two ends, so a bar's place reads as a number."""
    return (
        '<th class="sb-forest" data-sort-method="none" title="95% interval of the ranked metric, one axis for the whole board">'
        f'95% interval<span class="sb-axis"><span>{number(axis.low, axis.unit)}</span><span>{number(axis.high, axis.unit)}</span></span></th>'
    )


def forest_cell(cell: dict[str, Any] | None, axis: Axis) -> str:
    """One row's bar (interval) and tick (value) as places on the axis, in percent: the CSS
    draws them (sealboard.css, ``td.sb-forest``); an empty cell where there is no value."""
    if not cell or cell.get("value") is None:
        return '<td class="sb-forest"></td>'
    lo, hi = cell.get("ci_low"), cell.get("ci_high")
    bar = ""
    if lo is not None and hi is not None:
        bar = f";--l:{axis.at(lo)};--w:{max(axis.at(hi) - axis.at(lo), 0.5):.1f}"
    return f'<td class="sb-forest" style="--v:{axis.at(cell["value"])}{bar}"></td>'
