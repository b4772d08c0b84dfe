"""The spellings real outputs use (builder.scoring.answer_spellings), read as a careful human
reads them, and every near miss of each still wrong.

Properties run each spelling over many values against the gold and against its neighbour
(the same spelling of another value must be wrong); the near misses wrap a correct spelling
in a denial, a hedge, a bound or a second candidate, which must never be graded correct.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.scoring.answer_spellings import VULGAR, fold_width, respell, unword
from builder.scoring.regrade import grade

CIRCLED = [chr(0x2460 + i) for i in range(20)]  # ① … ⑳

# An independent speller (not the parser's tables) for the number-word properties.
_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spoken(n: int, *, hyphen: bool = True, and_: bool = False) -> str:
    """`n` (0 ≤ n < 10⁶) in English words."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + (("-" if hyphen else " ") + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        return f"{_ONES[n // 100]} hundred" + ((" and " if and_ else " ") + spoken(rest, hyphen=hyphen) if rest else "")
    rest = n % 1000
    head = f"{spoken(n // 1000, hyphen=hyphen, and_=and_)} thousand"
    return head + ((" and " if and_ and rest < 100 else " ") + spoken(rest, hyphen=hyphen, and_=and_) if rest else "")


def wide(text: str) -> str:
    """`text` as an input method types it in full width."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


NEAR_MISSES = ("not {}", "{} or 13", "either {} or 7", "at most {}", "at least {}", "less than {}", "about {}",
               "approximately {}", "probably {}", "{}가 아니다", "약 {}", "{} 이하", "{} 또는 13")  # fmt: skip


def never_correct(answer_type: str, gold: str, spelled: str) -> None:
    for pattern in NEAR_MISSES:
        answer = pattern.format(spelled)
        assert not grade(answer_type, gold, answer).correct, answer


# --- full-width digits ----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=-(10**9), max_value=10**9))
def test_full_width_digits_read_as_their_number_and_only_it(n: int) -> None:
    assert grade("integer", str(n), wide(str(n))).correct
    assert grade("integer", str(n), f"답은 {wide(str(n))}입니다").correct
    assert not grade("integer", str(n + 1), wide(str(n))).correct
    never_correct("integer", str(n), wide(str(n)))
    never_correct("integer", str(n), str(n))  # and the near misses' full-width twins
    assert not grade("integer", str(n), wide(f"not {n}")).correct


def test_full_width_decimals_fractions_and_letters() -> None:
    assert grade("decimal", "2.5", "２．５").correct
    assert grade("fraction", "1/2", "１／２").correct
    assert grade("choice", "C", "Ｃ").correct
    assert not grade("choice", "C", "Ｄ").correct
    assert not grade("choice", "C", "ｎｏｔ Ｃ").correct
    assert fold_width("１２\u3000３") == "12 3"


# --- circled option numbers on an integer-typed item ----------------------------------------


@pytest.mark.parametrize("k", range(1, 21))
def test_a_circled_number_is_its_option_number_on_an_integer_item(k: int) -> None:
    c = CIRCLED[k - 1]
    for answer in (c, f"정답은 {c}번", f"{c}번", f"정답은 {c}", f"The answer is {c}"):
        assert grade("integer", str(k), answer).correct, answer
    other = CIRCLED[k % 20]
    assert not grade("integer", str(k), other).correct
    never_correct("integer", str(k), c)
    for answer in (f"{c} or {other}", f"{c}번과 {other}번", f"{c} 또는 {other}", f"{c}이 아니다", f"not {c}번"):
        assert not grade("integer", str(k), answer).correct, answer


def test_circled_numbers_are_read_for_integer_items_only() -> None:
    # A decimal or fraction item has no options: a circled number there says nothing.
    assert not grade("decimal", "3", "③").correct
    assert not grade("fraction", "3", "③").correct
    assert respell("③", circled=False) == "③"


# --- vulgar fractions ---------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(VULGAR)), st.integers(min_value=0, max_value=10**6))
def test_vulgar_fractions_and_mixed_numbers(glyph: str, whole: int) -> None:
    n, d = VULGAR[glyph]
    value = whole + Fraction(n, d)
    spelled = f"{whole}{glyph}" if whole else glyph
    gold = f"{value.numerator}/{value.denominator}"
    assert grade("fraction", gold, spelled).correct
    assert grade("fraction", gold, f"답은 {spelled}입니다").correct
    off = value + Fraction(1, 100)
    assert not grade("fraction", f"{off.numerator}/{off.denominator}", spelled).correct
    never_correct("fraction", gold, spelled)


def test_a_vulgar_fraction_beside_a_symbol_stays_one_number() -> None:
    # "½x" is x/2, not 1/(2x); "2^½" is √2, not 2/2.
    assert respell("½x") == "\\frac{1}{2}x"
    assert respell("2^½") == "2^\\frac{1}{2}"
    assert respell("1⁄2") == "1/2"  # the fraction slash
    assert not grade("fraction", "1/2", "½x").correct
    assert not grade("integer", "1", "2^½").correct
    assert not grade("fraction", "1/2", "2 ½").correct  # two numbers, not a mixed one


# --- Unicode roots ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gold, answer, correct",
    [
        ("2\\sqrt{2}", "2√2", True),
        ("2\\sqrt{2}", "√8", True),
        ("2\\sqrt{2}", "√(8)", True),
        ("\\sqrt{3}", "√{3}", True),
        ("2", "∛8", True),
        ("2\\sqrt{2}", "답은 2√2입니다", True),
        ("2\\sqrt{2}", "2√3", False),
        ("2\\sqrt{2}", "3√2", False),
        ("2\\sqrt{2}", "2.8284271", False),  # a decimal of the irrational is not it
        ("2\\sqrt{2}", "not 2√2", False),
        ("2\\sqrt{2}", "≈ 2√2", False),
        ("2\\sqrt{2}", "2√2 or 3√2", False),
        ("2\\sqrt{2}", "at most 2√2", False),
        ("2\\sqrt{2}", "약 2√2", False),
        ("2\\sqrt{2}", "±2√2", False),
    ],
)
def test_unicode_roots(gold: str, answer: str, correct: bool) -> None:
    assert grade("expression", gold, answer).correct is correct


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=2, max_value=9), st.sampled_from([2, 3, 5, 6, 7]))
def test_unicode_roots_property(a: int, b: int) -> None:
    assert grade("expression", f"{a}\\sqrt{{{b}}}", f"{a}√{b}").correct
    assert not grade("expression", f"{a}\\sqrt{{{b}}}", f"{a + 1}√{b}").correct
    assert not grade("expression", f"{a}\\sqrt{{{b}}}", f"not {a}√{b}").correct


# --- number words -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=999_999), st.booleans(), st.booleans())
def test_number_words_read_as_their_number_and_only_it(n: int, hyphen: bool, and_: bool) -> None:
    words = spoken(n, hyphen=hyphen, and_=and_)
    assert unword(words) == str(n), words
    assert grade("integer", str(n), words).correct, words
    assert grade("integer", str(n), f"The answer is {words}.").correct, words
    assert grade("integer", str(n), words.upper()).correct, words
    assert not grade("integer", str(n + 1), words).correct, words
    never_correct("integer", str(n), words)


@pytest.mark.parametrize(
    "words, value",
    [("one half", "1/2"), ("a half", "1/2"), ("two thirds", "2/3"), ("three quarters", "3/4"), ("a quarter", "1/4"),
     ("one tenth", "1/10"), ("seven eighths", "7/8"), ("two and a half", "5/2"), ("one and a half", "3/2"),
     ("twenty-one and a quarter", "85/4")],
)  # fmt: skip
def test_fractions_in_words(words: str, value: str) -> None:
    assert grade("fraction", value, words).correct
    assert not grade("fraction", str(Fraction(value) + 1), words).correct
    never_correct("fraction", value, words)


@pytest.mark.parametrize(
    "answer",
    [
        "twelve thirteen",  # two numbers
        "one halves",  # not a fraction
        "two half",
        "twelve hundred hundred",
        "the third",  # an ordinal, not a third
        "half",  # no numerator
        "one of them is twelve",  # two numbers
        "zero twelve",
    ],
)
def test_words_that_are_not_one_number_are_not_read(answer: str) -> None:
    for gold in ("12", "1/2", "1/3", "1200", "1"):
        assert not grade("integer" if "/" not in gold else "fraction", gold, answer).correct, (gold, answer)


def test_number_words_are_not_read_beside_digits() -> None:
    # An answer that states a number in digits is read by its digits: "one" here is prose.
    assert grade("integer", "12", "one answer: 12").correct
    assert unword("one answer: 12") == "one answer: 12"
    assert not grade("integer", "1", "one answer: 12").correct


def test_number_words_are_not_read_as_choice_options() -> None:
    # "the one" is prose on a multiple-choice item; options are letters or option numbers.
    assert grade("choice", "C", "the correct one is C").correct
    assert not grade("choice", "3", "three").correct
