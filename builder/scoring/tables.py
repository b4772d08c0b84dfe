"""The records scoring hands to rendering: BoardTable, BoardRow, Cell, MetricDef.

``BoardTable.to_dict()`` is the public board JSON (design, "Output data"):
``benchmark``, ``board``, ``title``, ``description``, ``metrics`` (the metric
definitions, in column order), ``rows`` (one per submission, best first), plus
``reference_rows`` (a human cohort, a random baseline: never ranked), ``notes`` and
``summary`` (board-level facts such as the number of items no submission solved).

A row's ``metrics`` maps each metric name to ``{value, ci_low, ci_high, n}``. Rates are
fractions in [0, 1]; ``n`` is the number of items the cell rests on (the unit of uncertainty).
A cell withheld under embargo has ``value``/``ci_*`` and ``n`` null and
``suppressed: true``; a cell that cannot be computed has ``value`` null and a ``flag``
saying why (see FLAGS).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

FORMAT = "sealboard-board/1"

# Why a cell has no value (stable codes; the Data page lists them).
FLAGS = {
    "no-items": "no item of this cell applies to the submission (e.g. none published after its training cutoff)",
    "not-evaluated": "the submission has no results for this cell",
    "fewer-than-k-samples": "some item of the cell has fewer samples than the benchmark's k; the metric is not defined",
    "not-reported": "the submission did not report this quantity (tokens or cost) for every sample",
    "no-correct": "no correct answer, so a cost per correct answer is undefined",
    "cutoff-unknown": "the submission declares no training cutoff, so no item is known to be after it",
    "undefined": "the statistic is undefined on these items (e.g. zero variance, or every item tied with the cohort)",
    "no-pair": "no TTS-off baseline or TTS-on run in the same family",
    "ladder": "under embargo, a lab's later submission is shown only when it beats the lab's best shown value by the grid (see Methodology)",
}

UNITS = ("fraction", "difference", "count", "tokens", "usd", "slope", "intercept")


def _num(x: float | int | None) -> float | int | None:
    if x is None:
        return None
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


@dataclass(frozen=True)
class Cell:
    """One number with its 95% interval and the number of items it rests on."""

    value: float | int | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = 0  # None: withheld under embargo (a withheld cell does not reveal its n)
    suppressed: bool = False
    flag: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": _num(self.value), "ci_low": _num(self.ci_low), "ci_high": _num(self.ci_high), "n": self.n}
        if self.suppressed:
            out["suppressed"] = True
        if self.flag:
            out["flag"] = self.flag
        return out


@dataclass(frozen=True)
class MetricDef:
    """A column: what it measures, its unit and which direction is better."""

    name: str
    title: str
    description: str
    unit: str = "fraction"
    higher_is_better: bool | None = True
    measure: str | None = None
    group: tuple[str, str] | None = None  # (item field, value) for a breakdown column

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "unit": self.unit,
            "higher_is_better": self.higher_is_better,
        }
        if self.measure:
            out["measure"] = self.measure
        if self.group:
            out["group"] = {"field": self.group[0], "value": self.group[1]}
        return out


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class BoardRow:
    submission: str
    model: str
    lab: str
    metrics: Mapping[str, Cell]
    rank: int | None = None
    rank_range: tuple[int, int] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. family, paired baseline, rank shift

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", _frozen(self.metrics))
        object.__setattr__(self, "extra", _frozen(self.extra))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"submission": self.submission, "model": self.model, "lab": self.lab, "rank": self.rank}
        if self.rank_range is not None:
            out["rank_range"] = list(self.rank_range)
        out["metrics"] = {name: cell.to_dict() for name, cell in self.metrics.items()}
        out.update({k: _plain(v) for k, v in self.extra.items()})
        return out


@dataclass(frozen=True)
class ReferenceRow:
    """A non-ranked comparison row: the human cohort, a random-guess baseline."""

    id: str
    label: str
    metrics: Mapping[str, Cell]
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", _frozen(self.metrics))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "note": self.note,
            "metrics": {name: cell.to_dict() for name, cell in self.metrics.items()},
        }


@dataclass(frozen=True)
class BoardTable:
    benchmark: str
    board: str
    title: str
    description: str
    metrics: tuple[MetricDef, ...]
    rows: tuple[BoardRow, ...]
    notes: tuple[str, ...] = ()
    reference_rows: tuple[ReferenceRow, ...] = ()
    rank_by: str | None = None
    kind: str = "table"
    summary: Mapping[str, Any] = field(default_factory=dict)
    # Under embargo: cells withheld {"disclosure": n, "ladder": m} (builder.scoring.gate)
    withheld: Mapping[str, int] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", _frozen(self.summary))
        if self.withheld is not None:
            object.__setattr__(self, "withheld", _frozen(self.withheld))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "benchmark": self.benchmark,
            "board": self.board,
            "title": self.title,
            "description": self.description,
            "kind": self.kind,
            "rank_by": self.rank_by,
            "metrics": [m.to_dict() for m in self.metrics],
            "rows": [r.to_dict() for r in self.rows],
            "reference_rows": [r.to_dict() for r in self.reference_rows],
            "notes": list(self.notes),
            "summary": {k: _plain(v) for k, v in self.summary.items()},
            **({"withheld_cells": dict(self.withheld)} if self.withheld is not None else {}),
        }

    def csv_columns(self) -> list[str]:
        cols = ["rank", "rank_low", "rank_high", "submission", "model", "lab"]
        for m in self.metrics:
            cols += [m.name, f"{m.name}_ci_low", f"{m.name}_ci_high", f"{m.name}_n"]
        extras: list[str] = []
        for row in self.rows:
            extras += [k for k, v in row.extra.items() if _is_scalar(v) and k not in extras]
        return cols + extras

    def to_csv_rows(self) -> list[dict[str, Any]]:
        """One dict per submission, keys in ``csv_columns()`` order; None for empty."""
        columns = self.csv_columns()
        out = []
        for row in self.rows:
            rec: dict[str, Any] = dict.fromkeys(columns)
            rec.update(rank=row.rank, submission=row.submission, model=row.model, lab=row.lab)
            if row.rank_range is not None:
                rec["rank_low"], rec["rank_high"] = row.rank_range
            for m in self.metrics:
                cell = row.metrics.get(m.name)
                if cell is not None:
                    rec[m.name] = _num(cell.value)
                    rec[f"{m.name}_ci_low"] = _num(cell.ci_low)
                    rec[f"{m.name}_ci_high"] = _num(cell.ci_high)
                    rec[f"{m.name}_n"] = cell.n
            for k, v in row.extra.items():
                if k in rec:
                    rec[k] = _plain(v)
            out.append(rec)
        return out


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _plain(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, float):
        return _num(v)
    return v
