"""Regrading: recompute correctness of exact answer types from the extracted answer.

For ``integer``, ``choice``, ``fraction`` and ``decimal`` items Sealboard does not trust
the lab's grading: it normalises the lab's extracted ``answer`` and the item's ``gold``
the same way and compares them. Judge-graded types (``expression``, ``ill_posed`` …)
keep the lab's verdict, and the boards say so. Refusal items are graded by the lab's
judge by design (SOOHAK §3.4.4): "We mark responses as incorrect if they present a
specific mathematical answer as though the item were well-posed, or if they refuse
without engaging the mathematical validity of the prompt."

Normalisation (both sides):

- all white space removed (including no-break and thin spaces); a leading ``+`` dropped;
  the Unicode minus ``−`` read as ``-``;
- integer: ``[-]digits``; leading zeros and ``-0`` canonicalised (``007`` = ``7``);
- fraction: ``a/b``, ``\\frac{a}{b}``, an integer or a finite decimal, reduced exactly
  (``6/4`` = ``3/2`` = ``1.5``; ``0.333`` ≠ ``1/3``); a zero denominator is unparsed;
- decimal: compared exactly as :class:`decimal.Decimal` (``1.50`` = ``1.5`` = ``15e-1``;
  ``0.333`` ≠ ``0.3333``); NaN and infinities are unparsed;
- choice: one letter, case-insensitive, optionally in ``( )``/``[ ]`` or followed by ``.``/``)``.

An answer that is null or does not parse as the item's type is incorrect ("unparsed").
A gold answer that does not parse is an error in the dataset (ScoringInputError).
Messages never quote answers or gold: they are embargoed.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import numpy as np
import pandas as pd

MAX_NUMBER_CHARS = 200  # longer "numbers" are not answers (and int() would be slow)

_WS = re.compile(r"\s+", re.UNICODE)
_INT = re.compile(r"-?[0-9]+\Z")
_FRAC = re.compile(r"(-?[0-9]+)/(-?[0-9]+)\Z")
_TEX_FRAC = re.compile(r"(-?)\\[dt]?frac\{(-?[0-9]+)\}\{(-?[0-9]+)\}\Z")
_DEC = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]{1,4})?\Z")
_CHOICE = re.compile(r"[(\[]?([A-Za-z])[)\].]?\Z")


def _clean(text: str) -> str:
    s = _WS.sub("", text).replace("\u2212", "-")
    if s.startswith("+"):
        s = s[1:]
    return s


def canonical(answer_type: str, text: object) -> str | None:
    """The comparison key of `text` under `answer_type`, or None if it does not parse."""
    if not isinstance(text, str):
        return None
    s = _clean(text)
    if not s or (answer_type != "choice" and len(s) > MAX_NUMBER_CHARS):
        return None
    if answer_type == "integer":
        return str(int(s)) if _INT.match(s) else None
    if answer_type == "choice":
        m = _CHOICE.match(s)
        return m.group(1).upper() if m else None
    if answer_type == "fraction":
        value = _fraction(s)
        return None if value is None else f"{value.numerator}/{value.denominator}"
    if answer_type == "decimal":
        if not _DEC.match(s):
            return None
        try:
            d = Decimal(s)
        except InvalidOperation:  # pragma: no cover - the pattern admits only finite numbers
            return None
        if not d.is_finite():
            return None
        if d == 0:
            return "0"
        # Exact value: the reduced fraction of the decimal (1.50 and 15e-1 agree).
        f = Fraction(d)
        return f"{f.numerator}/{f.denominator}"
    raise ValueError(f"{answer_type!r} is not an exact answer type")


def _fraction(s: str) -> Fraction | None:
    m = _FRAC.match(s)
    if m:
        num, den = int(m.group(1)), int(m.group(2))
        return None if den == 0 else Fraction(num, den)
    m = _TEX_FRAC.match(s)
    if m:
        num, den = int(m.group(2)), int(m.group(3))
        if den == 0:
            return None
        return -Fraction(num, den) if m.group(1) else Fraction(num, den)
    if _INT.match(s):
        return Fraction(int(s))
    if _DEC.match(s):
        try:
            d = Decimal(s)
        except InvalidOperation:  # pragma: no cover
            return None
        return Fraction(d) if d.is_finite() else None
    return None


def regrade(
    answers: pd.Series | np.ndarray,
    row_item: np.ndarray,
    row_mask: np.ndarray,
    item_type: np.ndarray,
    item_gold: list[str | None],
    type_names: tuple[str, ...],
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised regrading of result rows.

    `row_item` maps each row to an item index; only rows where `row_mask` holds are
    regraded. `item_type[i]` indexes `type_names` (-1: judge-graded) and `item_gold[i]` is
    the item's canonical gold (:func:`canonical`). Each distinct answer string is
    normalised once per type, so the Python work grows with distinct answers, not rows.

    Returns (correct, parsed), booleans per row (False outside the regraded rows).
    """
    codes, uniques = pd.factorize(pd.Series(answers, copy=False), use_na_sentinel=True)
    codes = np.asarray(codes)
    n = len(codes)
    correct = np.zeros(n, dtype=bool)
    parsed = np.zeros(n, dtype=bool)
    row_type = np.where(row_mask, item_type[row_item], -1)
    for t, name in enumerate(type_names):
        of_type = np.flatnonzero(item_type == t)
        if not len(of_type):
            continue
        key_of: dict[str, int] = {}
        item_key = np.full(len(item_type), -1, dtype=np.int64)
        for i in of_type:
            item_key[i] = key_of.setdefault(item_gold[i], len(key_of))  # type: ignore[arg-type]
        rows = np.flatnonzero((row_type == t) & (codes >= 0))
        if not len(rows):
            continue
        keys = np.full(len(uniques), -1, dtype=np.int64)  # -1 unparsed, -2 parsed but matches no gold
        for u in np.unique(codes[rows]):
            k = canonical(name, uniques[u])
            if k is not None:
                keys[u] = key_of.get(k, -2)
        ak = keys[codes[rows]]
        parsed[rows] = ak != -1
        correct[rows] = (ak >= 0) & (ak == item_key[row_item[rows]])
    return correct, parsed
