"""Regrading: recompute correctness from the extracted answer, as the papers' judges would.

For ``integer``, ``fraction``, ``decimal``, ``expression`` and ``choice`` items Sealboard
does not take the lab's verdict: it compares the lab's extracted ``answer`` with the
item's ``gold`` itself. Other types (``ill_posed`` …) keep the lab's judge verdict, and the
boards say so. Refusal items are graded by the lab's judge by design (SOOHAK §3.4.4): "We
mark responses as incorrect if they present a specific mathematical answer as though the
item were well-posed, or if they refuse without engaging the mathematical validity of the
prompt."

Two paths, the first decisive whenever it applies:

1. **Exact** (plain numbers and letters, no library): the answer is unwrapped (``$…$``,
   ``\\boxed{…}``, ``\\text{…}``, ``**…**``, white space, a leading ``+``, the Unicode
   minus) and, if exactly one number remains once surrounding words are set aside (units,
   "The answer is", Korean text such as ``답은 12입니다``), it is read as an exact rational:
   an integer (thousands separators ``1,234,567`` allowed), a decimal (``12.0`` = ``12``,
   ``1.50`` = ``3/2``; ``0.333`` ≠ ``1/3``), ``a/b`` or ``\\frac{a}{b}``. Numeric types
   compare these rationals exactly, or within the item's declared ``tolerance`` (an
   absolute difference; an item without one is compared exactly). A choice answer is the
   one option it names, by position: a stand-alone letter (``(B)``, ``B.``, ``Answer:
   (B)``, ``정답은 (B)입니다``), a circled number ``①``–``⑳``, ``3번`` or a bare option
   number, so ``C``, ``③``, ``3번`` and ``3`` are the same option against a gold stored
   either way. A stand-alone ``I`` followed by a word (``I think the answer is C``) is the
   pronoun, not option I. Two different options are unparsed. Spellings real outputs use
   and a careful human accepts are read as their plain twins first
   (``builder.scoring.answer_spellings``): full-width digits and letters from an input
   method (``１２``, ``Ｃ``), vulgar fractions and mixed numbers (``½``, ``1¾``), Unicode
   roots (``2√2`` is ``2\\sqrt{2}``), a circled number on an integer-typed item (a Korean
   exam's option numbers: ``③``, ``정답은 ③번`` is 3), and English number words
   (``twelve``, ``one hundred and five``, ``two thirds``, ``two and a half``) in an answer
   that states no number in digits. A gold is read as written.
2. **Equivalence** (`math-verify <https://github.com/huggingface/Math-Verify>`_, sympy
   underneath), for answers the exact path cannot read: LaTeX expressions, powers, roots,
   ``\\pi``: ``\\sqrt{12}`` = ``2\\sqrt{3}``, ``10^2`` = ``100``, ``1+x^2`` = ``x^2+1``.
   Where one side is a plain decimal and the other a constant (``2.8284271`` against
   ``2\\sqrt{2}``), math-verify's rounding to 6 decimals is not used: the decimal is read
   exactly and the difference is held to the item's tolerance (default 0: never equal to
   an irrational constant).

Before either path, what the answer *says* is read apart from how it is spelled
(``builder.scoring.answer_claims``): an answer that negates (``not 12``, ``12가 아니다``,
``x ≠ 12``, ``C is wrong``), hedges (``approximately 12``, ``약 12``), states a bound
(``less than 12``, ``12 이상``) or offers several candidates (``12 or 13``) is not the
gold, whatever value could be extracted from it: it is graded wrong (parsed, with the
claim as its reason), never correct by extraction. A claim the gold itself makes (an
inequality gold) does not count against the answer.

Before the equivalence path an answer is screened, because a symbolic library can be made
to work without bound: longer than 300 characters (``answer-too-long``), a numeric
exponent of 4+ digits (``1e9999``, ``10^{9999}``: ``huge-exponent``), a numeric power
tower (``10^{10^{10}}``: ``power-tower``) or a factorial of 4+ digits (``huge-factorial``)
is refused without parsing, and math-verify runs under its own 5-second alarm (``timeout``;
its grammar is loaded once beforehand so that the first answer is not charged for it).
A refused, null or unreadable answer is incorrect ("unparsed"). Rows are graded once per
distinct (answer, item) pair, so millions of rows cost one comparison per distinct pair;
the equivalence path's verdicts are graded before scoring under a per-bundle time budget
and handed to scoring with each benchmark (``builder.pipeline.regrade_budget``).

The module's parts: ``builder.scoring.answer_parsing`` (the exact path),
``builder.scoring.equivalence`` (the equivalence path) and, here, the grading kernel.

A gold answer that does not parse as a numeric or choice type is an error in the dataset
(ScoringInputError); an ``expression`` gold that math-verify cannot read leaves that item
to the lab's judge. Messages never quote answers or gold: they are embargoed.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from builder.scoring.answer_claims import RULES, claim, claims
from builder.scoring.answer_parsing import NUMERIC_TYPES, as_tolerance, canonical, exact_choice, exact_number, option_count
from builder.scoring.equivalence import MAX_EQUIVALENCE_CHARS, Pair, Verdict, Verdicts, equivalent, gold_parsed, screen

# Re-exported: the regrade's callers (and its tests) name these here.
__all__ = [
    "EXACT_REASONS", "HOW", "MAX_EQUIVALENCE_CHARS", "NUMERIC_TYPES", "Pair", "Verdict", "Verdicts", "as_tolerance",
    "canonical", "equivalent", "exact_choice", "exact_number", "gold_key", "gold_problem", "grade", "option_count",
    "regrade", "regrade_pairs", "screen",
]  # fmt: skip

NO_VERDICTS: Verdicts = {}


def grade(answer_type: str, gold: str, answer: object, *, tolerance: object = None, verdicts: Verdicts = NO_VERDICTS) -> Verdict:
    """The verdict on one answer (both paths): what regrade() computes for every row.

    `tolerance` is the item's declared one (:func:`as_tolerance`); `verdicts` holds the
    equivalence path's verdicts graded beforehand (builder.pipeline.regrade_budget), used
    instead of running math-verify here."""
    if not isinstance(answer, str) or not answer.strip():
        return Verdict(False, False, "unparsed", "no-answer")
    said = claim(answer, gold)
    if said is not None:
        return Verdict(False, True, "exact", said)
    tol = as_tolerance(tolerance)
    if answer_type == "choice":
        key, gold_key = exact_choice(answer), exact_choice(gold, gold=True)
        if key is not None and gold_key is not None:
            return Verdict(key == gold_key, True, "exact")
        return Verdict(False, False, "unparsed", "no-single-option")
    if answer_type not in NUMERIC_TYPES and answer_type != "expression":
        raise ValueError(f"{answer_type!r} is not a regraded answer type")
    circled = answer_type == "integer"  # ③ is 3 for an integer-typed option (a Korean exam's)
    a, g = exact_number(answer, circled=circled), exact_number(gold, circled=circled, gold=True)
    if a is not None and g is not None:
        return Verdict(abs(a - g) <= tol, True, "exact")
    known = verdicts.get((answer_type, gold, answer, tol))
    return known if known is not None else equivalent(answer_type, gold, answer, tol)


def gold_key(answer_type: str, gold: object) -> str | None:
    """An item's gold as the regrade compares it; None when it cannot be graded."""
    if not isinstance(gold, str):
        return None
    if answer_type == "expression":
        key = canonical(answer_type, gold, gold=True)
        if key is not None:
            return key
        if screen(gold) is not None:
            return None
        try:
            return gold if gold_parsed(gold) else None
        except Exception:
            return None
    return canonical(answer_type, gold, gold=True)


def gold_problem(answer_type: str, gold: object, *, choice_labels: object = None) -> str | None:
    """What is wrong with an item's gold for the regrade (never quoting it: golds are
    embargoed), or None. Dataset creation asks this of every regraded item."""
    if gold_key(answer_type, gold) is None:
        if answer_type == "expression":
            return None  # math-verify cannot read it: the lab's judge grades the item
        if answer_type == "choice":
            return "the gold answer names no single option (a letter A-T, a circled number ①-⑳, or an option number such as 3 or 3번)"
        return f"the gold answer does not parse as {answer_type}"
    count = option_count(choice_labels)
    if answer_type == "choice" and count is not None and int(gold_key(answer_type, gold) or 0) > count:
        return f"the gold answer names an option beyond the {count} declared in choice_labels"
    return None


HOW = {"exact": 1, "equivalence": 2, "refused": 3, "unparsed": 4}
# Reasons an answer the exact path decides is wrong whatever value it holds (answer_claims).
EXACT_REASONS = tuple(name for name, _ in RULES)


DENSE_KEYS = 1 << 24  # below this many possible keys, factorize_ints counts instead of hashing


def factorize_ints(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of non-negative int ``keys`` below ``size``, uniques ascending.

    Keys built from a few small codes (answer × item, field combinations) span a small
    range: one bincount and one lookup table replace a hash of every row (several times
    faster on millions of rows). Larger ranges are hashed, with the same result. Codes are
    int32 when they fit: half the memory traffic of every later lookup through them.
    """
    if size > DENSE_KEYS:
        codes, uniques = pd.factorize(keys, sort=True)
        return np.asarray(codes, dtype=np.int32 if len(uniques) < 2**31 else np.int64), np.asarray(uniques, dtype=np.int64)
    uniques = np.flatnonzero(np.bincount(keys, minlength=size))
    table = np.empty(size, dtype=np.int32)
    table[uniques] = np.arange(len(uniques), dtype=np.int32)
    return table[keys], uniques


def factorize_answers(answers: pd.Series | np.ndarray) -> tuple[np.ndarray, Sequence[object]]:
    """(code per row, distinct answers): null answers get code -1."""
    codes, uniques = pd.factorize(pd.Series(answers, copy=False), use_na_sentinel=True)
    return np.asarray(codes), uniques


def regrade(
    answers: pd.Series | np.ndarray,
    row_item: np.ndarray,
    row_mask: np.ndarray,
    item_type: np.ndarray,
    item_gold: list[str | None],
    type_names: tuple[str, ...],
    item_gold_text: list[str | None] | None = None,
    *,
    factorized: tuple[np.ndarray, Sequence[object]] | None = None,
    item_tolerance: Sequence[object] | None = None,
    verdicts: Verdicts = NO_VERDICTS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(correct, parsed, how) per row: :func:`regrade_pairs`' verdicts looked up per row."""
    pair_of_row, correct, parsed, how = regrade_pairs(
        answers,
        row_item,
        row_mask,
        item_type,
        item_gold,
        type_names,
        item_gold_text,
        factorized=factorized,
        item_tolerance=item_tolerance,
        verdicts=verdicts,
    )
    return correct[pair_of_row], parsed[pair_of_row], how[pair_of_row]


def regrade_pairs(
    answers: pd.Series | np.ndarray,
    row_item: np.ndarray,
    row_mask: np.ndarray,
    item_type: np.ndarray,
    item_gold: list[str | None],
    type_names: tuple[str, ...],
    item_gold_text: list[str | None] | None = None,
    *,
    factorized: tuple[np.ndarray, Sequence[object]] | None = None,
    item_tolerance: Sequence[object] | None = None,
    verdicts: Verdicts = NO_VERDICTS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised regrading of result rows, by distinct (answer, item) pair.

    `row_item` maps each row to an item index; only rows where `row_mask` holds are
    regraded. `item_type[i]` indexes `type_names` (-1: judge-graded), `item_gold[i]` is the
    item's gold key (:func:`gold_key`) and `item_gold_text[i]` its gold as written (for the
    equivalence path).

    A row's verdict depends only on its (answer, item), and rows repeat these pairs many
    times over (every submission, language and sample answers the same item): each row is
    mapped to its pair once, the pairs are graded — the exact path once per distinct
    (answer, type), the equivalence path once per distinct (answer, item) the exact path
    cannot read — and the verdicts are looked up per row. So the Python work grows with
    distinct answers, and the work per row is a handful of array passes.

    `factorized` is :func:`factorize_answers` of `answers`, where the caller has it already
    (scoring computes it in a thread while it checks the other columns). `item_tolerance[i]`
    is item i's declared tolerance (None: exact); such items, and answers that make a
    claim (:mod:`builder.scoring.answer_claims`), are graded pair by pair by :func:`grade`,
    with `verdicts` (the equivalence path's, graded beforehand).

    Returns the pair of each row, then per pair (correct, parsed, how); `how` is 0 for the
    pair of the rows not regraded, else :data:`HOW` of the path that decided.
    """
    codes, uniques = factorized if factorized is not None else factorize_answers(answers)
    n_items = len(item_type)
    golds_text = item_gold_text if item_gold_text is not None else item_gold
    # key = 0 for a row not regraded, else 1 + (answer code + 1) × items + item (a null
    # answer has code -1): built in place, one array.
    key = np.asarray(codes, dtype=np.int64) + 1
    key *= n_items
    key += row_item
    key += 1
    key[~(row_mask & (item_type >= 0)[row_item])] = 0
    pair_of_row, pairs = factorize_ints(key, (len(uniques) + 1) * n_items + 1)
    del key
    p_correct = np.zeros(len(pairs), dtype=bool)
    p_parsed = np.zeros(len(pairs), dtype=bool)
    p_how = np.zeros(len(pairs), dtype=np.int8)
    graded = np.flatnonzero(pairs > 0)
    answer, item = np.divmod(pairs[graded] - 1, n_items)
    answer -= 1  # back to the answer's code: -1 is null
    p_how[graded[answer < 0]] = HOW["unparsed"]
    keep = answer >= 0
    graded, answer, item = graded[keep], answer[keep], item[keep]
    if len(graded):
        tolerances = [as_tolerance(t) for t in item_tolerance] if item_tolerance is not None else [Fraction(0)] * n_items
        _grade_pairs(
            graded, answer, item, uniques, item_type, item_gold, golds_text, type_names, tolerances, verdicts, p_correct, p_parsed, p_how
        )
    return pair_of_row, p_correct, p_parsed, p_how


def _grade_pairs(
    at: np.ndarray,
    answer: np.ndarray,
    item: np.ndarray,
    uniques: Sequence[object],
    item_type: np.ndarray,
    item_gold: list[str | None],
    golds_text: list[str | None],
    type_names: tuple[str, ...],
    tolerances: list[Fraction],
    verdicts: Verdicts,
    correct: np.ndarray,
    parsed: np.ndarray,
    how: np.ndarray,
) -> None:
    """Grade the distinct (answer, item) pairs listed by position `at`, writing the verdict
    arrays in place: the exact path first, :func:`grade` pair by pair for what it cannot
    decide alone (answers that make a claim, items with a tolerance, the equivalence path)."""
    n_types = max(len(type_names), 1)
    # One key space for every type: (type, exact key) -> int, golds first.
    key_of: dict[tuple[str, str | None], int] = {}
    item_key = np.full(len(item_type), -1, dtype=np.int64)
    item_plain = np.zeros(len(item_type), dtype=bool)  # the gold is read by the exact path
    for i in np.flatnonzero(item_type >= 0).tolist():
        name = type_names[item_type[i]]
        item_key[i] = key_of.setdefault((name, item_gold[i]), len(key_of))
        item_plain[i] = tolerances[i] == 0 and (
            name != "expression" or (golds_text[i] is not None and canonical(name, golds_text[i], gold=True) is not None)
        )
    # The exact path once per distinct (answer, type).
    kind = item_type[item]
    by_type, answer_types = factorize_ints(answer * n_types + kind, (int(answer.max()) + 1) * n_types)
    type_key = np.empty(len(answer_types), dtype=np.int64)  # -1 not read exactly, -2 read but no gold
    type_claims = np.zeros(len(answer_types), dtype=bool)  # the answer makes a claim: grade() decides per item
    for j, pair in enumerate(answer_types.tolist()):
        u, t = divmod(pair, n_types)
        text = uniques[u]
        if isinstance(text, str) and claims(text):
            type_key[j], type_claims[j] = -1, True
            continue
        k = canonical(type_names[t], text)
        type_key[j] = -1 if k is None else key_of.get((type_names[t], k), -2)
    ak = type_key[by_type]
    claimed = type_claims[by_type]
    exact = (ak != -1) & item_plain[item]
    done = at[exact]
    correct[done] = (ak[exact] >= 0) & (ak[exact] == item_key[item[exact]])
    parsed[done] = True
    how[done] = HOW["exact"]
    slow = ~exact
    is_choice = np.array([name == "choice" for name in type_names])[kind]
    unread_choice = slow & is_choice & ~claimed
    how[at[unread_choice]] = HOW["unparsed"]
    # Everything else once per distinct (answer, item).
    for j in np.flatnonzero(slow & ~unread_choice).tolist():
        i = int(item[j])
        verdict = grade(type_names[item_type[i]], str(golds_text[i]), uniques[answer[j]], tolerance=tolerances[i], verdicts=verdicts)
        correct[at[j]], parsed[at[j]], how[at[j]] = verdict.correct, verdict.parsed, HOW[verdict.how]
