"""Exact values of scoring figures: each row's rational, so that ties are decided exactly.

A rate is Σa/Σd over integer item numerators and denominators (builder.scoring.measures),
so a cell *is* a rational. A difference or mean of cells computed in floating point is
not: 1/3 − 0 is 0.3333333333333333 and 3/3 − 2/3 is 0.33333333333333337, and a rank
decided by that bit is noise (issue 19: two KCSAT-ML TTS gains of exactly 135/339). An :class:`Exact` keeps each row's rational: ranks are decided
on it, and rows of a combined figure whose rationals are equal but whose floats rounding
split are published as the one correctly rounded float of that rational (identical JSON).
Every other row keeps the float its arithmetic gave: no published number moves by a last
bit unless rounding had split its tie.

Kept lazily as integer-valued numerator/denominator arrays (the sums a ratio computes
anyway): Python :class:`fractions.Fraction` objects are made only for the figures that
are combined or ranked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

_EXACT_LIMIT = float(1 << 53)  # integers a float64 holds exactly


class Exact:
    """Per-row rationals (None where a row has no value)."""

    __slots__ = ("_num", "_den", "_fractions")

    def __init__(self, num: np.ndarray | None = None, den: np.ndarray | None = None, fractions: Sequence[Fraction | None] | None = None):
        self._num, self._den = num, den
        self._fractions: list[Fraction | None] | None = None if fractions is None else list(fractions)

    @classmethod
    def of_sums(cls, num: np.ndarray, den: np.ndarray) -> "Exact | None":
        """The rationals num/den, if both hold integers a float represents exactly (else None:
        the figure is not a ratio of integer sums, e.g. a pathological sample-count mix)."""
        both = np.concatenate([num, den])
        finite = np.isfinite(both)
        if not (finite.all() and np.array_equal(both, np.floor(both)) and np.abs(both).max(initial=0.0) < _EXACT_LIMIT):
            return None
        return cls(num, den)

    def fractions(self) -> list[Fraction | None]:
        if self._fractions is None:
            if self._num is None or self._den is None:
                raise AssertionError()
            self._fractions = [None if d == 0 else Fraction(int(n), int(d)) for n, d in zip(self._num.tolist(), self._den.tolist())]
        return self._fractions

    def take(self, idx: np.ndarray) -> "Exact":
        if self._fractions is None and self._num is not None and self._den is not None:
            return Exact(self._num[idx], self._den[idx])
        fr = self.fractions()
        return Exact(fractions=[fr[i] for i in idx.tolist()])

    def floats(self) -> np.ndarray:
        """Each row's value as one correctly rounded float (NaN where there is none)."""
        return np.array([np.nan if f is None else float(f) for f in self.fractions()], dtype=np.float64)


def combine(terms: Sequence[tuple[Fraction, Exact]]) -> Exact:
    """Σ c·x row by row, exactly (None in a row where any term has none)."""
    columns = [(c, e.fractions()) for c, e in terms]
    rows = len(columns[0][1]) if columns else 0
    out: list[Fraction | None] = []
    for r in range(rows):
        row = [(c, fr[r]) for c, fr in columns]
        out.append(None if any(x is None for _, x in row) else sum((c * x for c, x in row if x is not None), Fraction(0)))
    return Exact(fractions=out)


def tied_floats(exact: Exact, value: np.ndarray) -> np.ndarray:
    """`value`, except where rows share a rational but floating point gave them different
    floats: those rows all get the rational's correctly rounded float. Equal rationals thus
    publish identical floats, and no other number moves (a tie already published alike stays)."""
    fr = exact.fractions()
    floats_of: dict[Fraction, set[float]] = defaultdict(set)
    for f, v in zip(fr, value.tolist()):
        if f is not None:
            floats_of[f].add(v)
    out = np.array(value, dtype=np.float64, copy=True)
    for r, f in enumerate(fr):
        if f is not None and len(floats_of[f]) > 1:
            out[r] = float(f)
    return out


def competition_ranks(keys: Sequence[Fraction]) -> np.ndarray:
    """1-2-2-4 ranks of exact `keys`, smaller key = better: equal rationals share a rank."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    ranks = np.empty(len(keys), dtype=np.float64)
    for pos, i in enumerate(order):
        tied = pos > 0 and keys[order[pos - 1]] == keys[i]
        ranks[i] = ranks[order[pos - 1]] if tied else pos + 1
    return ranks
