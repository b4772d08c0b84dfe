"""Equivalence: the regrade's second path, math-verify (sympy underneath), screened first.

For answers the exact path (:mod:`builder.scoring.answer_parsing`) cannot read: LaTeX
expressions, powers, roots, ``\\pi``. An answer is screened before it reaches the library
(:func:`screen`), math-verify runs under its own alarm, and a plain decimal against a
constant is held to the item's tolerance rather than math-verify's 6-decimal rounding.
:func:`equivalent` is a pure function of (type, gold, answer, tolerance), memoised;
verdicts graded elsewhere (under a time budget, builder.pipeline.regrade_budget) reach
the kernel as a :data:`Verdicts` value, never through this module.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from builder.scoring.answer_parsing import exact_number
from builder.scoring.answer_spellings import respell

MAX_EQUIVALENCE_CHARS = 300  # longest answer handed to math-verify
TIMEOUT_S = 5  # math-verify's alarm (whole seconds): a backstop, the screen comes first

# math-verify logs the inputs it fails on; answers are embargoed, so it stays silent.
logging.getLogger("math_verify").setLevel(logging.CRITICAL + 1)
logging.getLogger("latex2sympy2_extended").setLevel(logging.CRITICAL + 1)

# The sentence around an answer handed to math-verify ("답은 … 입니다", "The answer is …."):
# words before, Hangul after, a final full stop.
_SENTENCE_ENDS = re.compile(
    r"^(?:(?:(?:the|my)\s+)?(?:final\s+)?answer(?:\s+is)?\s*[:=]?\s*|[\uac00-\ud7a3]+[\s:]*)+"
    r"|(?:[\s]*[\uac00-\ud7a3]+)*[.\s]*$",
    re.IGNORECASE,
)
_HUGE_EXP = re.compile(r"(?:[0-9.]\s*[eE]|\^|\*\*)\s*\{?\s*\(?\s*[-+]?[0-9]{4,}")
_TOWER = re.compile(r"[0-9]\s*(?:\^|\*\*)\s*\{?\s*\(?\s*[0-9.]+\s*(?:\^|\*\*)")
_FACTORIAL = re.compile(r"[0-9]{4,}\s*!")


@dataclass(frozen=True)
class Verdict:
    correct: bool
    parsed: bool
    how: str  # "exact" | "equivalence" | "refused" | "unparsed"
    reason: str | None = None  # why an answer was refused or unparsed


# (answer type, gold, answer, the item's tolerance) -> its verdict: verdicts graded before
# scoring (builder.pipeline.regrade_budget), handed to the kernel as a value.
Pair = tuple[str, str, str, Fraction]
Verdicts = Mapping[Pair, Verdict]


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
def warm() -> None:
    """Load math-verify and compile its LaTeX grammar (seconds) outside any alarm."""
    from math_verify import LatexExtractionConfig, parse

    parse("$x^2+1$", extraction_config=[LatexExtractionConfig()], parsing_timeout=None)


def _parse(text: str, latex: bool) -> list:
    from math_verify import LatexExtractionConfig, parse

    warm()
    timeout = TIMEOUT_S if threading.current_thread() is threading.main_thread() else None
    if latex:
        return parse(f"${text}$", extraction_config=[LatexExtractionConfig()], parsing_timeout=timeout)
    return parse(text, parsing_timeout=timeout)


@lru_cache(maxsize=1 << 16)
def gold_parsed(gold: str) -> tuple:
    return tuple(_parse(gold, latex=True))


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


@lru_cache(maxsize=1 << 18)
def equivalent(answer_type: str, gold: str, answer: str, tolerance: Fraction = Fraction(0)) -> Verdict:
    """The equivalence path (math-verify) for one (gold, answer) pair, screened first."""
    from math_verify import verify

    reason = screen(answer)
    if reason is not None:
        return Verdict(False, False, "refused", reason)
    main = threading.current_thread() is threading.main_thread()
    try:
        g = list(gold_parsed(gold))
        spelled = respell(answer, words=False) or answer  # "2√2", "½x", "１２": the spellings math-verify lacks
        bare = _SENTENCE_ENDS.sub("", spelled) or spelled  # "답은 2\\sqrt{2}입니다": the sentence around the answer
        a = _parse(bare, latex=_looks_like_latex(bare)) if g else []
        if not g or not a:
            return Verdict(False, False, "unparsed", "not-understood")
        decided = _decimal_against_constant(gold, answer, g, a, tolerance)
        ok = decided if decided is not None else verify(g, a, timeout_seconds=TIMEOUT_S if main else None)
    except Exception:  # math-verify raises on its own alarm and on malformed input
        return Verdict(False, False, "refused", "timeout")
    return Verdict(bool(ok), True, "equivalence")
