"""Regrading of exact answer types (builder.scoring.regrade), case by case.

Normalisation: white space, a leading '+', integers as integers, fractions reduced to
a/b, decimals compared exactly as Decimal, choice letters case-insensitive.
"""

from __future__ import annotations

import pytest

from builder.scoring.regrade import canonical

from .frames import Instance, row, value


def same(answer_type: str, a: str, b: str) -> bool:
    ka, kb = canonical(answer_type, a), canonical(answer_type, b)
    return ka is not None and ka == kb


@pytest.mark.parametrize(
    "a, b",
    [
        ("42", " 42 "),
        ("42", "+42"),
        ("42", "0042"),
        ("0", "-0"),
        ("-17", "−17"),  # Unicode minus sign
        ("1000000", "1 000 000"),
        ("12345678901234567890", "12345678901234567890"),
    ],
)
def test_integer_equal(a, b):
    assert same("integer", a, b)


@pytest.mark.parametrize("a, b", [("42", "43"), ("42", "42.0"), ("42", "4 2x"), ("-1", "1")])
def test_integer_different_or_unparsed(a, b):
    assert not same("integer", a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("3/2", "6/4"),
        ("3/2", " 3 / 2 "),
        ("-3/2", "3/-2"),
        ("3/2", "1.5"),
        ("3/2", "\\frac{3}{2}"),
        ("-3/2", "-\\dfrac{3}{2}"),
        ("4", "8/2"),
        ("+1/3", "2/6"),
    ],
)
def test_fraction_equal_when_reduced(a, b):
    assert same("fraction", a, b)


@pytest.mark.parametrize("a, b", [("1/3", "0.333"), ("1/3", "1/0"), ("1/2", "1/3"), ("1/2", "one half")])
def test_fraction_different_or_unparsed(a, b):
    assert not same("fraction", a, b)


@pytest.mark.parametrize("a, b", [("1.5", "1.50"), ("1.5", "+1.5"), ("15", "15.000"), ("1.5", "15e-1"), ("0.0", "-0"), ("0.25", ".25")])
def test_decimal_exact_equal(a, b):
    assert same("decimal", a, b)


@pytest.mark.parametrize("a, b", [("0.333", "0.3333"), ("1.5", "1.49999999999999999999"), ("1.5", "NaN"), ("1", "Infinity"), ("1.5", "3/2")])
def test_decimal_exact_different_or_unparsed(a, b):
    assert not same("decimal", a, b)


@pytest.mark.parametrize("a, b", [("B", "b"), ("B", " (b) "), ("B", "B."), ("B", "[B]"), ("C", "c)")])
def test_choice_case_insensitive(a, b):
    assert same("choice", a, b)


@pytest.mark.parametrize("a, b", [("B", "C"), ("B", "BC"), ("B", "option B")])
def test_choice_different_or_unparsed(a, b):
    assert not same("choice", a, b)


def test_null_answer_is_unparsed():
    assert canonical("integer", None) is None


def test_regrading_overrides_the_lab_and_is_reported():
    inst = Instance("soohak")
    inst.item("m0", "mini", "integer", gold="42")
    inst.item("m1", "mini", "fraction", gold="3/2")
    inst.item("m2", "mini", "expression", gold="x^2+1")
    a = inst.sub("acme/a")

    def sample(item, j, answer, lab):
        inst.results.append(dict(submission=a, item=item, lang="en", sample=j, answer=answer, lab_correct=lab, refused=False))

    sample("m0", 0, "+042", False)  # regraded correct; lab said wrong → disagreement
    sample("m0", 1, "41", True)  # regraded wrong; lab said right → disagreement
    sample("m0", 2, None, False)  # unparsed, wrong, agrees
    sample("m1", 0, "6/4", True)  # correct, agrees
    sample("m1", 1, "0.5", False)  # wrong, agrees
    sample("m1", 2, "1.5", True)  # correct (exact rational), agrees
    sample("m2", 0, "1+x^2", True)  # judge-graded: the lab's verdict stands
    sample("m2", 1, "x^2+1", False)
    sample("m2", 2, "nonsense", True)
    boards = inst.score()
    # m0: 1/3 correct, m1: 2/3, m2 (lab): 2/3  → avg@3 = (1/3 + 2/3 + 2/3) / 3 = 5/9
    assert value(boards["mini"], a, "avg@3") == pytest.approx(5 / 9)
    grading = boards["grading"]
    r = row(grading, a)
    assert r.metrics["regraded_samples"].value == 6
    assert r.metrics["judge_graded_samples"].value == 3
    assert r.metrics["disagreements"].value == 2
    assert r.metrics["unparsed_answers"].value == 1
    # disagreement rate pools samples: 2 / 6
    assert r.metrics["disagreement_rate"].value == pytest.approx(2 / 6)


def test_gold_that_does_not_parse_is_a_dataset_error_that_does_not_echo_it():
    from builder.scoring import ScoringInputError

    inst = Instance("soohak")
    inst.item("m0", "mini", "integer", gold="forty-two")
    a = inst.sub("acme/a")
    inst.answer(a, "m0", "111")
    with pytest.raises(ScoringInputError) as exc:
        inst.score()
    assert "m0" in str(exc.value) and "forty-two" not in str(exc.value)
