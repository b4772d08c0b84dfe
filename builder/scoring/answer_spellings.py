"""Spellings of a number that real model outputs use and a careful human grader accepts.

Each function rewrites one family of spellings into the ASCII one the exact path
(:mod:`builder.scoring.answer_parsing`) and math-verify read, and nothing else:

- full-width forms typed through an input method (``１２``, ``Ｃ``, ``１／２``, the
  ideographic space) become their ASCII twins (:func:`fold_width`);
- circled numbers ``①``–``⑳`` become digits, for an integer-typed item only (a Korean
  exam writes its option numbers so: ``③``, ``정답은 ③번``) (:func:`uncircle`);
- vulgar fractions ``½``, ``⅔``, ``1¾`` (a mixed number) and the fraction slash ``1⁄2``
  become ``1/2``, or ``\\frac{1}{2}`` beside a symbol so that ``½x`` stays x/2 (:func:`unvulgar`);
- Unicode roots ``√2``, ``2√(3)``, ``∛x`` become ``\\sqrt{2}``, ``2\\sqrt{3}``, ``\\sqrt[3]{x}``
  (:func:`unroot`);
- English number words (``twelve``, ``one hundred and five``, ``one half``, ``two thirds``,
  ``two and a half``) become digits, only in an answer that states no number in digits and
  only when every run of number words reads as one number (:func:`unword`).

None of them decides anything: what the answer claims (``not ③``, ``③ or ④``, ``at most
twelve``) is read by :mod:`builder.scoring.answer_claims`, and an answer that names two
numbers once respelled is still unparsed.
"""

from __future__ import annotations

import re
from fractions import Fraction

# U+FF01–U+FF5E are ASCII U+0021–U+007E shifted by 0xFEE0; U+3000 is the ideographic space.
_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
CIRCLED = {chr(0x2460 + i): str(i + 1) for i in range(20)}  # ① … ⑳
_CIRCLED = re.compile("[\u2460-\u2473]")
VULGAR = {
    "½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅖": (2, 5), "⅗": (3, 5),
    "⅘": (4, 5), "⅙": (1, 6), "⅚": (5, 6), "⅐": (1, 7), "⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8), "⅞": (7, 8),
    "⅑": (1, 9), "⅒": (1, 10),
}  # fmt: skip
_VULGAR = re.compile(rf"(?<![0-9.,])(?P<whole>[0-9]+)?(?P<frac>[{''.join(VULGAR)}])")
_SYMBOL = re.compile(r"[A-Za-z0-9\\^_{}()√]")
_FRACTION_SLASH = "\u2044"
_ROOT = re.compile(r"(?P<root>[√∛∜])\s*(?:\{(?P<braced>[^{}]*)\}|\((?P<bracketed>[^()]*)\)|(?P<bare>[0-9]+(?:\.[0-9]+)?|[A-Za-z]))")
_ROOT_INDEX = {"√": "", "∛": "[3]", "∜": "[4]"}


def fold_width(text: str) -> str:
    """Full-width ASCII forms (``１２``, ``Ｃ``, ``－``) as ASCII."""
    return text.translate(_WIDTH)


def uncircle(text: str) -> str:
    """Circled numbers ``①``–``⑳`` as digits (for an integer-typed item)."""
    return _CIRCLED.sub(lambda m: CIRCLED[m.group()], text)


def unvulgar(text: str) -> str:
    """Vulgar fractions (``½``, mixed ``1½``) and the fraction slash as ``a/b``, or as
    ``\\frac{a}{b}`` where a symbol stands beside it (``½x``, ``2^½``)."""
    text = text.replace(_FRACTION_SLASH, "/")

    def spelled(m: re.Match[str]) -> str:
        n, d = VULGAR[m.group("frac")]
        value = Fraction(n, d) + int(m.group("whole") or 0)
        before, after = m.string[m.start() - 1 : m.start()], m.string[m.end() : m.end() + 1]
        if _SYMBOL.fullmatch(before or " ") or _SYMBOL.fullmatch(after or " "):
            return f"\\frac{{{value.numerator}}}{{{value.denominator}}}"
        return f"{value.numerator}/{value.denominator}"

    return _VULGAR.sub(spelled, text)


def unroot(text: str) -> str:
    """Unicode roots (``√2``, ``√(x+1)``, ``∛8``) as LaTeX ``\\sqrt``."""

    def spelled(m: re.Match[str]) -> str:
        body = next(g for g in (m.group("braced"), m.group("bracketed"), m.group("bare")) if g is not None)
        return f"\\sqrt{_ROOT_INDEX[m.group('root')]}{{{body}}}"

    return _ROOT.sub(spelled, text)


# --- number words -------------------------------------------------------------------------

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8,
    "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10,
}  # fmt: skip
_NUMBER_WORDS = {*_UNITS, *_TENS, "hundred", *_SCALES, *_DENOMINATORS}
_CONNECTORS = {"and", "a", "an"}
_WORD_RUN = re.compile(
    r"(?<![A-Za-z])(?:{w})(?:[\s-]+(?:{w}))*(?![A-Za-z])".format(w="|".join(sorted(_NUMBER_WORDS | _CONNECTORS, key=len, reverse=True))),
    re.IGNORECASE,
)
_DIGIT = re.compile(r"[0-9]")


def _below_thousand(words: list[str]) -> int | None:
    """``[nine] hundred [and] [ninety[-]nine]`` read whole, or None."""
    value, rest = 0, words
    if len(rest) >= 2 and rest[1] == "hundred" and rest[0] in _UNITS[1:10]:
        value, rest = 100 * _UNITS.index(rest[0]), rest[2:]
        if rest[:1] == ["and"]:
            rest = rest[1:]
            if not rest:
                return None
    if not rest:
        return value if value else None
    if rest[0] in _TENS:
        tens, rest = _TENS[rest[0]], rest[1:]
        if rest and rest[0] in _UNITS[1:10] and len(rest) == 1:
            return value + tens + _UNITS.index(rest[0])
        return value + tens if not rest else None
    if len(rest) == 1 and rest[0] in _UNITS and not (value and rest[0] == "zero"):
        return value + _UNITS.index(rest[0])
    return None


def _cardinal(words: list[str]) -> int | None:
    """A whole number in words (``twelve``, ``three thousand and five``), or None."""
    if not words:
        return None
    total, start = 0, 0
    for i, word in enumerate(words):
        if word in _SCALES:
            part = _below_thousand(words[start:i])
            if part is None or part == 0:
                return None
            total, start = total + part * _SCALES[word], i + 1
            if words[start : start + 1] == ["and"]:
                start += 1
    if start == len(words):
        return total if start and words[-1] != "and" else None
    rest = _below_thousand(words[start:])
    return None if rest is None else total + rest


def _number(words: list[str]) -> Fraction | None:
    """One number in words: a cardinal, a fraction (``one half``, ``two thirds``, ``a
    quarter``) or a cardinal and a fraction (``two and a half``), or None."""
    if words and words[-1] in _DENOMINATORS:
        den = _DENOMINATORS[words[-1]]
        head = words[:-1]
        plural = words[-1].endswith("s")
        if len(head) >= 3 and head[-2] == "and" and head[-1] in ("a", "an", "one") and not plural:
            whole = _cardinal(head[:-2])
            return None if whole is None else whole + Fraction(1, den)
        num = 1 if head in (["a"], ["an"]) else _cardinal(head)
        if num is None or num == 0 or (num == 1) == plural:
            return None
        return Fraction(num, den)
    whole = _cardinal(words)
    return None if whole is None else Fraction(whole)


def unword(text: str) -> str | None:
    """`text` with its English number words as digits; `text` itself when it has none or
    already states a number in digits; None when a run of number words is not one number
    (``twelve thirteen``): such an answer is not read at all."""
    if _DIGIT.search(text):
        return text
    out, at = [], 0
    for m in _WORD_RUN.finditer(text):
        words = [w.lower() for w in re.split(r"[\s-]+", m.group())]
        while words and words[0] in _CONNECTORS - {"a"}:
            words = words[1:]
        if not words or set(words) <= _CONNECTORS:
            continue
        value = _number(words)
        if value is None:
            # "a" or "and" at the ends of a run belong to the sentence ("a total of twelve and").
            trimmed = words[1:] if words[0] in _CONNECTORS else words
            while trimmed and trimmed[-1] in _CONNECTORS:
                trimmed = trimmed[:-1]
            value = _number(trimmed) if trimmed != words else None
            if value is None:
                return None
        out.append(text[at : m.start()])
        out.append(str(value))
        at = m.end()
    return "".join(out) + text[at:] if out else text


def respell(text: str, *, circled: bool = False, words: bool = True) -> str | None:
    """Every spelling above rewritten (circled numbers only when `circled`: an integer-typed
    item; number words only when `words`); None when number words do not read as numbers."""
    text = unroot(unvulgar(fold_width(text)))
    if circled:
        text = uncircle(text)
    return unword(text) if words else text
