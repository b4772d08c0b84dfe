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
   pronoun, not option I. Two different options are unparsed.
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
A refused, null or unreadable answer is incorrect ("unparsed"). Verdicts are cached by
(type, gold, answer), so millions of rows cost one comparison per distinct pair.

A gold answer that does not parse as a numeric or choice type is an error in the dataset
(ScoringInputError); an ``expression`` gold that math-verify cannot read leaves that item
to the lab's judge. Messages never quote answers or gold: they are embargoed.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pandas as pd

from builder.scoring.answer_claims import RULES, claim, claims

NUMERIC_TYPES = ("integer", "fraction", "decimal")
MAX_NUMBER_CHARS = 200  # longer "numbers" are not answers (and int() would be slow)
MAX_EQUIVALENCE_CHARS = 300  # longest answer handed to math-verify
TIMEOUT_S = 5  # math-verify's alarm (whole seconds): a backstop, the screen comes first

# math-verify logs the inputs it fails on; answers are embargoed, so it stays silent.
logging.getLogger("math_verify").setLevel(logging.CRITICAL + 1)
logging.getLogger("latex2sympy2_extended").setLevel(logging.CRITICAL + 1)

_WS = re.compile(r"\s+", re.UNICODE)
_WRAP = re.compile(r"\\(?:boxed|fbox|text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
_NUM = r"[-+]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]{1,3})?|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]{1,3})?"
_RATIONAL = re.compile(rf"(?:(?P<tex>-?)\\[dt]?frac\{{(?P<tn>-?[0-9]+)\}}\{{(?P<td>-?[0-9]+)\}}|(?P<n>{_NUM})(?:/(?P<d>[-+]?[0-9]+))?)")
# The sentence around an answer handed to math-verify ("답은 … 입니다", "The answer is …."):
# words before, Hangul after, a final full stop.
_SENTENCE_ENDS = re.compile(
    r"^(?:(?:(?:the|my)\s+)?(?:final\s+)?answer(?:\s+is)?\s*[:=]?\s*|[\uac00-\ud7a3]+[\s:]*)+"
    r"|(?:[\s]*[\uac00-\ud7a3]+)*[.\s]*$",
    re.IGNORECASE,
)
_NUMBERISH = re.compile(r"[0-9]")
_MATHY = re.compile(r"[\\^_{}=<>√π!]|(?<![A-Za-z])[a-zA-Z](?![A-Za-z])\s*[-+*/^(]|[-+*/^(]\s*[a-zA-Z](?![A-Za-z])")
CIRCLED_ONE = 0x2460  # ①; ⑳ is U+2473
MAX_OPTIONS = 20
_OPTION = re.compile(
    r"(?<![A-Za-z'\u2019])(?P<letter>[A-Za-z])(?![A-Za-z])|(?P<circled>[\u2460-\u2473])|(?<![0-9.,/])(?P<number>[0-9]{1,3})(?![0-9.,/])"
)
_PRONOUN_I = re.compile(r"(?<![A-Za-z])I(?=\s+[a-z]|['\u2019])")
_HUGE_EXP = re.compile(r"(?:[0-9.]\s*[eE]|\^|\*\*)\s*\{?\s*\(?\s*[-+]?[0-9]{4,}")
_TOWER = re.compile(r"[0-9]\s*(?:\^|\*\*)\s*\{?\s*\(?\s*[0-9.]+\s*(?:\^|\*\*)")
_FACTORIAL = re.compile(r"[0-9]{4,}\s*!")


@dataclass(frozen=True)
class Verdict:
    correct: bool
    parsed: bool
    how: str  # "exact" | "equivalence" | "refused" | "unparsed"
    reason: str | None = None  # why an answer was refused or unparsed


def _unwrap(text: str) -> str:
    s = text.replace("\u2212", "-").replace("−", "-")
    for _ in range(4):  # \boxed{\text{B}}
        t = _WRAP.sub(r"\1", s)
        if t == s:
            break
        s = t
    s = s.replace("$", "").replace("\\(", "").replace("\\)", "").replace("\\[", "").replace("\\]", "").replace("**", "")
    s = s.replace("\\!", "").replace("\\,", "").replace("\\ ", "").replace("{,}", ",")
    return s.strip()


def _rational(m: re.Match) -> Fraction | None:
    if m.group("tn") is not None:
        num, den = int(m.group("tn")), int(m.group("td"))
        if den == 0:
            return None
        f = Fraction(num, den)
        return -f if m.group("tex") else f
    text = m.group("n").replace(",", "")
    if m.group("d") is not None:
        den = int(m.group("d"))
        if den == 0 or not re.fullmatch(r"[-+]?[0-9]+", text):
            return None
        return Fraction(int(text), den)
    try:
        d = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only finite numbers
        return None
    return Fraction(d) if d.is_finite() else None


def _unwrapped(text: object) -> str | None:
    """`text` without its wrappers, or None if it is no string or too long to be an answer."""
    if not isinstance(text, str):
        return None
    s = _unwrap(text)
    return s if s and len(s) <= MAX_NUMBER_CHARS else None


def exact_number(text: object) -> Fraction | None:
    """The one number `text` states (exact path), or None."""
    s = _unwrapped(text)
    if s is None:
        return None
    compact = _WS.sub("", s)
    m = _RATIONAL.fullmatch(compact)
    if m:
        return _rational(m)
    # Words around one number ("12 points", "답은 12입니다", "x = 7"): only when nothing
    # else in the answer looks like mathematics.
    if _MATHY.search(re.sub(r"(?<![A-Za-z])[a-zA-Z]\s*=", "", s)):
        return None
    found = list(_RATIONAL.finditer(s))
    if len(found) != 1:
        return None
    rest = s[: found[0].start()] + s[found[0].end() :]
    if _NUMBERISH.search(rest):
        return None
    return _rational(found[0])


def exact_choice(text: object) -> str | None:
    """The one option `text` names, as its 1-based position (``C``, ``③``, ``3번``, ``3``
    all give ``"3"``), or None when it names none or several."""
    s = _unwrapped(text)
    if s is None:
        return None
    s = _PRONOUN_I.sub(" ", s)
    positions = set()
    for m in _OPTION.finditer(s):
        letter, circled, number = m.group("letter"), m.group("circled"), m.group("number")
        if letter is not None:
            positions.add(ord(letter.upper()) - ord("A") + 1)
        elif circled is not None:
            positions.add(ord(circled) - CIRCLED_ONE + 1)
        else:
            n = int(number)
            if not 1 <= n <= MAX_OPTIONS:
                return None  # a number that names no option: not a choice answer
            positions.add(n)
    return str(positions.pop()) if len(positions) == 1 else None


def option_count(labels: object) -> int | None:
    """How many options an item's declared ``choice_labels`` name (one character each:
    ``ABCDE``, ``①②③④⑤``, ``12345``), or None when it declares none."""
    return len(labels) if isinstance(labels, str) and labels else None


def canonical(answer_type: str, text: object) -> str | None:
    """The exact-path comparison key of `text` under `answer_type`, or None."""
    if answer_type == "choice":
        return exact_choice(text)
    if answer_type in NUMERIC_TYPES or answer_type == "expression":
        f = exact_number(text)
        return None if f is None else str(f)
    raise ValueError(f"{answer_type!r} is not a regraded answer type")


def screen(text: str) -> str | None:
    """Why `text` must not reach the equivalence path, or None."""
    if len(text) > MAX_EQUIVALENCE_CHARS:
        return "answer-too-long"
    if _TOWER.search(text):
        return "power-tower"
    if _HUGE_EXP.search(text):
        return "huge-exponent"
    if _FACTORIAL.search(text):
        return "huge-factorial"
    return None


def _looks_like_latex(text: str) -> bool:
    if "$" in text or "\\boxed" in text or re.search(r"[\uac00-\ud7a3]", text):
        return False  # math-verify finds the answer itself
    words = re.sub(r"\\[A-Za-z]+", "", text)
    return not re.search(r"[A-Za-z]{3,}", words)


@lru_cache(maxsize=1)
def _warm() -> None:
    """Load math-verify and compile its LaTeX grammar (seconds) outside any alarm."""
    from math_verify import LatexExtractionConfig, parse

    parse("$x^2+1$", extraction_config=[LatexExtractionConfig()], parsing_timeout=None)


def _parse(text: str, latex: bool) -> list:
    from math_verify import LatexExtractionConfig, parse

    _warm()
    timeout = TIMEOUT_S if threading.current_thread() is threading.main_thread() else None
    if latex:
        return parse(f"${text}$", extraction_config=[LatexExtractionConfig()], parsing_timeout=timeout)
    return parse(text, parsing_timeout=timeout)


@lru_cache(maxsize=1 << 16)
def _gold_parsed(gold: str) -> tuple:
    return tuple(_parse(gold, latex=True))


def as_tolerance(value: object) -> Fraction:
    """An item's declared ``tolerance`` as an exact rational (its decimal spelling, not the
    nearest double); 0 (exact comparison) when the item declares none."""
    if value is None or isinstance(value, bool) or (isinstance(value, float) and value != value):
        return Fraction(0)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, float, str, Decimal)):
        t = Fraction(Decimal(str(value)))
        if t < 0:
            raise ValueError("a tolerance is an absolute difference: it cannot be negative")
        return t
    raise ValueError(f"a tolerance must be a number, not {type(value).__name__}")


_DECIMAL_LITERAL = re.compile(r"[0-9]\.[0-9]|(?<![0-9])\.[0-9]|[0-9][eE][-+]?[0-9]")


def _constant(parsed: Sequence[object]):
    """The first number math-verify parsed (a sympy expression without symbols), floats
    read from their decimal spelling, or None."""
    import sympy

    for value in parsed:
        if isinstance(value, sympy.Basic) and getattr(value, "is_number", False) and not value.free_symbols:
            floats = value.atoms(sympy.Float)
            return value.xreplace({f: sympy.Rational(str(f)) for f in floats}) if floats else value
    return None


def _decimal_against_constant(gold: str, answer: str, g: Sequence[object], a: Sequence[object], tolerance: Fraction) -> bool | None:
    """Where one side is a plain decimal and the other a numeric constant: whether they
    differ by at most `tolerance` (None when this rule does not apply). math-verify would
    round both to 6 decimals and call ``2.8284271`` equal to ``2\\sqrt{2}``."""
    import sympy

    for text, other in ((answer, g), (gold, a)):
        if not _DECIMAL_LITERAL.search(text):
            continue
        x = exact_number(text)
        if x is None:
            continue
        value = _constant(other)
        if value is None:
            continue
        diff = sympy.Abs(value - sympy.Rational(x.numerator, x.denominator))
        approx = sympy.N(diff, 60)
        if not approx.is_number or not approx.is_real:
            return False
        bound = sympy.Rational(tolerance.numerator, tolerance.denominator)
        if approx > bound + sympy.Rational(1, 10**50):
            return False
        if tolerance > 0 and approx < bound - sympy.Rational(1, 10**50):
            return True
        return bool(sympy.simplify(diff - bound) <= 0)
    return None


# Verdicts graded before scoring under a time budget (builder.pipeline.regrade_budget),
# in a child process where math-verify's alarm holds: scoring looks them up by
# (answer type, gold, answer, the item's tolerance).
_SEEDED: dict[tuple[str, str, str, Fraction], Verdict] = {}


def seed(verdicts: dict[tuple[str, str, str, Fraction], Verdict]) -> None:
    _SEEDED.update(verdicts)


def seeded(pair: tuple[str, str, str, Fraction]) -> bool:
    return pair in _SEEDED


@lru_cache(maxsize=1 << 18)
def equivalent(answer_type: str, gold: str, answer: str, tolerance: Fraction = Fraction(0)) -> Verdict:
    """The equivalence path (math-verify) for one (gold, answer) pair, screened first."""
    from math_verify import verify

    known = _SEEDED.get((answer_type, gold, answer, tolerance))
    if known is not None:
        return known
    reason = screen(answer)
    if reason is not None:
        return Verdict(False, False, "refused", reason)
    main = threading.current_thread() is threading.main_thread()
    try:
        g = list(_gold_parsed(gold))
        bare = _SENTENCE_ENDS.sub("", answer) or answer  # "답은 2\\sqrt{2}입니다": the sentence around the answer
        a = _parse(bare, latex=_looks_like_latex(bare)) if g else []
        if not g or not a:
            return Verdict(False, False, "unparsed", "not-understood")
        decided = _decimal_against_constant(gold, answer, g, a, tolerance)
        ok = decided if decided is not None else verify(g, a, timeout_seconds=TIMEOUT_S if main else None)
    except Exception:  # math-verify raises on its own alarm and on malformed input
        return Verdict(False, False, "refused", "timeout")
    return Verdict(bool(ok), True, "equivalence")


def grade(answer_type: str, gold: str, answer: object, *, tolerance: object = None) -> Verdict:
    """The verdict on one answer (both paths): what regrade() computes for every row.

    `tolerance` is the item's declared one (:func:`as_tolerance`)."""
    if not isinstance(answer, str) or not answer.strip():
        return Verdict(False, False, "unparsed", "no-answer")
    said = claim(answer, gold)
    if said is not None:
        return Verdict(False, True, "exact", said)
    tol = as_tolerance(tolerance)
    if answer_type == "choice":
        key, gold_key = exact_choice(answer), exact_choice(gold)
        if key is not None and gold_key is not None:
            return Verdict(key == gold_key, True, "exact")
        return Verdict(False, False, "unparsed", "no-single-option")
    if answer_type not in NUMERIC_TYPES and answer_type != "expression":
        raise ValueError(f"{answer_type!r} is not a regraded answer type")
    a, g = exact_number(answer), exact_number(gold)
    if a is not None and g is not None:
        return Verdict(abs(a - g) <= tol, True, "exact")
    return equivalent(answer_type, gold, answer, tol)


def gold_key(answer_type: str, gold: object) -> str | None:
    """An item's gold as the regrade compares it; None when it cannot be graded."""
    if not isinstance(gold, str):
        return None
    if answer_type == "expression":
        key = canonical(answer_type, gold)
        if key is not None:
            return key
        if screen(gold) is not None:
            return None
        try:
            return gold if _gold_parsed(gold) else None
        except Exception:
            return None
    return canonical(answer_type, gold)


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
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(correct, parsed, how) per row: :func:`regrade_pairs`' verdicts looked up per row."""
    pair_of_row, correct, parsed, how = regrade_pairs(
        answers, row_item, row_mask, item_type, item_gold, type_names, item_gold_text, factorized=factorized, item_tolerance=item_tolerance
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
    claim (:mod:`builder.scoring.answer_claims`), are graded pair by pair by :func:`grade`.

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
        _grade_pairs(graded, answer, item, uniques, item_type, item_gold, golds_text, type_names, tolerances, p_correct, p_parsed, p_how)
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
            name != "expression" or (golds_text[i] is not None and canonical(name, golds_text[i]) is not None)
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
        verdict = grade(type_names[item_type[i]], str(golds_text[i]), uniques[answer[j]], tolerance=tolerances[i])
        correct[at[j]], parsed[at[j]], how[at[j]] = verdict.correct, verdict.parsed, HOW[verdict.how]
