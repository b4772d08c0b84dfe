"""Answer parsing: the one value an answer states, read exactly (the regrade's exact path).

The answer is unwrapped (``$…$``, ``\\boxed{…}``, ``\\text{…}``, ``**…**``, white space, a
leading ``+``, the Unicode minus) and, if exactly one number remains once surrounding words
are set aside, it is read as an exact rational; a choice answer is the one option it names,
by position. :mod:`builder.scoring.regrade` says which spellings are read; nothing here
decides whether an answer is right (that is :mod:`builder.scoring.regrade`'s kernel) or
reads what an answer claims about its value (:mod:`builder.scoring.answer_claims`).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from builder.scoring.answer_spellings import respell

NUMERIC_TYPES = ("integer", "fraction", "decimal")
MAX_NUMBER_CHARS = 200  # longer "numbers" are not answers (and int() would be slow)
_WS = re.compile(r"\s+", re.UNICODE)
_WRAP = re.compile(r"\\(?:boxed|fbox|text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
_NUM = r"[-+]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]{1,3})?|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]{1,3})?"
_RATIONAL = re.compile(rf"(?:(?P<tex>-?)\\[dt]?frac\{{(?P<tn>-?[0-9]+)\}}\{{(?P<td>-?[0-9]+)\}}|(?P<n>{_NUM})(?:/(?P<d>[-+]?[0-9]+))?)")
_NUMBERISH = re.compile(r"[0-9]")
_MATHY = re.compile(r"[\\^_{}=<>√π!]|(?<![A-Za-z])[a-zA-Z](?![A-Za-z])\s*[-+*/^(]|[-+*/^(]\s*[a-zA-Z](?![A-Za-z])")
CIRCLED_ONE = 0x2460  # ①; ⑳ is U+2473
MAX_OPTIONS = 20
_OPTION = re.compile(
    r"(?<![A-Za-z'\u2019])(?P<letter>[A-Za-z])(?![A-Za-z])|(?P<circled>[\u2460-\u2473])|(?<![0-9.,/])(?P<number>[0-9]{1,3})(?![0-9.,/])"
)
_PRONOUN_I = re.compile(r"(?<![A-Za-z])I(?=\s+[a-z]|['\u2019])")
# An integer in its one plain spelling ("12", "-7"; no sign on 0, no leading zero, at most
# 18 digits): every step of the exact path leaves it as it is and reads it back as itself.
# Most answers are such (51,671 of the demo build's 59,427 readings).
_PLAIN_INTEGER = re.compile(r"0|-?[1-9][0-9]{0,17}")


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


def _unwrapped(text: object, *, gold: bool, circled: bool = False, words: bool = False) -> str | None:
    """`text` respelled (:func:`builder.scoring.answer_spellings.respell`; a `gold` is
    read as written) and without its wrappers, or None if it is no string, too long to be
    an answer or unreadable words."""
    if not isinstance(text, str):
        return None
    respelled = text if gold else respell(text, circled=circled, words=words)
    if respelled is None:
        return None
    s = _unwrap(respelled)
    return s if s and len(s) <= MAX_NUMBER_CHARS else None


def exact_number(text: object, *, circled: bool = False, gold: bool = False) -> Fraction | None:
    """The one number `text` states (exact path), or None. `circled`: an integer-typed
    item, where a circled number (``③``) is the number it circles. A `gold` is a
    dataset's, written in digits: the spellings of model outputs are not read in it."""
    s = _unwrapped(text, gold=gold, circled=circled, words=True)
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


def exact_choice(text: object, *, gold: bool = False) -> str | None:
    """The one option `text` names, as its 1-based position (``C``, ``③``, ``3번``, ``3``
    all give ``"3"``), or None when it names none or several."""
    s = _unwrapped(text, gold=gold)
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


def canonical(answer_type: str, text: object, *, gold: bool = False) -> str | None:
    """The exact-path comparison key of `text` under `answer_type`, or None (a `gold` read
    as written: :func:`exact_number`)."""
    if answer_type == "choice":
        return exact_choice(text, gold=gold)
    if answer_type in NUMERIC_TYPES or answer_type == "expression":
        if isinstance(text, str) and _PLAIN_INTEGER.fullmatch(text):
            return text  # what exact_number would read, without respelling and unwrapping it
        f = exact_number(text, circled=answer_type == "integer", gold=gold)
        return None if f is None else str(f)
    raise ValueError(f"{answer_type!r} is not a regraded answer type")


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
