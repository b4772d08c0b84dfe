"""ScoringSpec: a benchmark's scoring declaration, parsed and validated (frozen).

Made only by :func:`builder.scoring.config.parse_scoring_config`; the YAML schema is
documented there and in ``builder/benchmarks/*.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

# Answer types whose correctness Sealboard recomputes itself (builder.scoring.regrade).
EXACT_TYPES = ("integer", "choice", "fraction", "decimal", "expression")  # regradable (builder.scoring.regrade)

# Standard columns of the frames (ARCHITECTURE.md, "Frames handed to scoring").
ITEM_COLUMNS = ("item", "split", "answer_type", "gold")
RESULT_COLUMNS = ("submission", "item", "lang", "sample", "answer", "lab_correct", "refused", "output_tokens", "latency_s", "cost_usd")
SUBMISSION_COLUMNS = ("submission", "lab", "model")

MEASURE_RE = re.compile(r"(avg|pass)@([1-9][0-9]{0,2})\Z")
SIMPLE_MEASURES = ("accuracy", "refusal_rate", "output_tokens", "cost_per_correct")


@dataclass(frozen=True)
class FieldType:
    """A declared column type: bool, int, number, string, fraction ([0, 1]), date, enum."""

    kind: str
    values: tuple[str, ...] = ()
    optional: bool = True

    @property
    def results_extra(self) -> str | tuple[str, ...]:
        """The type vocabulary of builder.bundles.results.parse_results."""
        if self.kind == "enum":
            return self.values
        return {"bool": "bool", "int": "int", "number": "number", "fraction": "number"}.get(self.kind, "string")


@dataclass(frozen=True)
class Measure:
    """What is computed per (submission, item) before averaging over items."""

    name: str  # as written: "avg@3", "pass@3", "accuracy", ...
    kind: str  # "avg" | "pass" | "refusal_rate" | "output_tokens" | "cost_per_correct"
    k: int  # samples an item needs (pass@k: k; otherwise the benchmark's samples)


@dataclass(frozen=True)
class Filter:
    """Rows kept: every listed field takes one of its values, and every `present` field is set."""

    equals: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    present: tuple[str, ...] = ()

    def fields(self) -> set[str]:
        return {f for f, _ in self.equals} | set(self.present)

    def merged_over(self, base: "Filter") -> "Filter":
        """This filter, with `base`'s conditions on fields this one does not mention."""
        mine = {f for f, _ in self.equals}
        return Filter(
            equals=tuple(sorted(self.equals + tuple((f, v) for f, v in base.equals if f not in mine))),
            present=tuple(sorted(set(self.present) | set(base.present))),
        )

    def without(self, name: str) -> "Filter":
        return Filter(tuple((f, v) for f, v in self.equals if f != name), tuple(p for p in self.present if p != name))


@dataclass(frozen=True)
class Bin:
    """One interval of a numeric item field: min <= x, above < x, x <= max, x < below."""

    value: str
    title: str
    min: float | None = None
    above: float | None = None
    max: float | None = None
    below: float | None = None


def bin_codes_bp(bp: np.ndarray, bins: Sequence[Bin], count: bool = False) -> np.ndarray:
    """Index of the bin each value (in basis points, -1 = missing) falls in, or -1.

    With count=True, the number of bins each value falls in (the config check that
    bins cover [0, 1] exactly once uses this).
    """
    hits = np.zeros(len(bp), dtype=np.int64)
    code = np.full(len(bp), -1, dtype=np.int64)
    for i, b in enumerate(bins):
        inside = bp >= 0
        if b.min is not None:
            inside &= bp >= round(b.min * 10000)
        if b.above is not None:
            inside &= bp > round(b.above * 10000)
        if b.max is not None:
            inside &= bp <= round(b.max * 10000)
        if b.below is not None:
            inside &= bp < round(b.below * 10000)
        hits += inside
        code[inside & (code < 0)] = i
    return hits if count else code


@dataclass(frozen=True)
class ItemBins:
    name: str  # the derived item field, e.g. "tier"
    field: str  # the numeric field binned, e.g. "cohort_error_rate"
    bins: tuple[Bin, ...]


@dataclass(frozen=True)
class Reference:
    """A comparison row: `constant` (e.g. 0.2 for 1-in-5 guessing) or 1 - item field."""

    id: str
    label: str
    note: str
    measures: tuple[str, ...]
    constant: float | None = None
    complement_of: str | None = None
    items: "Filter | None" = None  # the only item set a constant applies to (e.g. the 79 items human teams sat)


@dataclass(frozen=True)
class Contamination:
    """Count only items published strictly after the submission's training cutoff."""

    item_date: str
    submission_cutoff: str
    all_suffix: str = "-all"


@dataclass(frozen=True)
class Pairing:
    """TTS off/on pairs: submissions sharing `group_by`, split by boolean `switch`."""

    group_by: str
    switch: str
    order_by_result: str | None = None


@dataclass(frozen=True)
class MetricSpec:
    name: str
    measure: Measure
    title: str | None = None
    description: str | None = None
    items: Filter = Filter()
    results: Filter = Filter()


@dataclass(frozen=True)
class CompositeSpec:
    name: str
    mean_of: tuple[tuple[str, str], ...]  # (board, metric)
    title: str | None = None
    description: str | None = None


class KindParams:
    """Base of each board kind's own typed parameters (builder.scoring.kinds.<kind>.Params)."""


@dataclass(frozen=True)
class BoardSpec:
    """One board: the keys every kind has, and its kind's own typed parameters."""

    id: str
    kind: StrEnum  # a builder.scoring.kinds.BoardKind: the registry says what each kind reads and computes
    title: str
    params: KindParams
    description: str = ""
    items: Filter = Filter()
    results: Filter = Filter()
    rank_by: str | None = None
    notes: tuple[str, ...] = ()
    references: bool = True
    summary: tuple[str, ...] = ()
    contamination: bool = True

    @property
    def rank_shift(self) -> tuple[str, str] | None:
        """(from, to) metrics whose rank difference each row reports (composite boards), or None."""
        shift = getattr(self.params, "rank_shift", None)
        return shift if isinstance(shift, tuple) else None


@dataclass(frozen=True)
class ScoringSpec:
    benchmark: str
    samples: int
    primary_language: str
    languages: tuple[str, ...]
    min_cell_items: int
    regrade_types: tuple[str, ...]
    regrade_when: Filter
    result_fields: Mapping[str, FieldType]
    result_defaults: Filter
    item_fields: Mapping[str, FieldType]
    item_bins: tuple[ItemBins, ...]
    references: tuple[Reference, ...]
    contamination: Contamination | None
    pairing: Pairing | None
    boards: tuple[BoardSpec, ...]
    where: str = field(default="", compare=False)

    def results_extras(self) -> dict[str, str | tuple[str, ...]]:
        """`result_fields` in the vocabulary builder.bundles.results.parse_results takes."""
        return {name: t.results_extra for name, t in self.result_fields.items()}

    def board_ids(self) -> list[str]:
        """Every board id score_benchmark returns, in order (contamination twins included)."""
        out = []
        for b in self.boards:
            out.append(b.id)
            if self.contamination is not None and b.contamination:
                out.append(b.id + self.contamination.all_suffix)
        return out
