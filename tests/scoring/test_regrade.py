"""Regrading (builder.scoring.regrade): exact path case by case, then a table of real-world
answer spellings against verdicts decided by hand (as a grader following the papers'
"equivalent to the reference answer" rule would), then refusals of pathological input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.scoring.regrade import MAX_EQUIVALENCE_CHARS, canonical, grade

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
        ("42", "42.0"),  # the same number: a judge accepts it
    ],
)
def test_integer_equal(a, b):
    assert same("integer", a, b)


@settings(max_examples=300, deadline=None)
@given(
    answer_type=st.sampled_from(("integer", "fraction", "decimal", "expression")),
    text=st.one_of(
        st.integers(-(10**19), 10**19).map(str),
        st.from_regex(r"[-+0]{0,2}[0-9]{1,20}", fullmatch=True),
        st.text(alphabet="-+0123456789 ", max_size=22),
    ),
    gold=st.booleans(),
)
def test_plain_integers_read_as_the_whole_exact_path_reads_them(answer_type, text, gold):
    """canonical() returns a plain integer ("12", "-7") as it is, without the exact path's
    respelling and unwrapping: that shortcut must give what the whole path gives, on every
    spelling of a number near it (signs, leading zeros, "-0", 19+ digits, spaces)."""
    from builder.scoring.answer_parsing import exact_number

    whole = exact_number(text, circled=answer_type == "integer", gold=gold)
    assert canonical(answer_type, text, gold=gold) == (None if whole is None else str(whole))


@pytest.mark.parametrize("a, b", [("42", "43"), ("42", "4 2x"), ("-1", "1"), ("42", "42.5")])
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
        ("1/2", "one half"),  # number words (issue 40)
    ],
)
def test_fraction_equal_when_reduced(a, b):
    assert same("fraction", a, b)


@pytest.mark.parametrize("a, b", [("1/3", "0.333"), ("1/3", "1/0"), ("1/2", "1/3"), ("1/2", "one third")])
def test_fraction_different_or_unparsed(a, b):
    assert not same("fraction", a, b)


@pytest.mark.parametrize(
    "a, b", [("1.5", "1.50"), ("1.5", "+1.5"), ("15", "15.000"), ("1.5", "15e-1"), ("0.0", "-0"), ("0.25", ".25"), ("1.5", "3/2")]
)
def test_decimal_exact_equal(a, b):
    assert same("decimal", a, b)


@pytest.mark.parametrize("a, b", [("0.333", "0.3333"), ("1.5", "1.49999999999999999999"), ("1.5", "NaN"), ("1", "Infinity")])
def test_decimal_exact_different_or_unparsed(a, b):
    assert not same("decimal", a, b)


@pytest.mark.parametrize("a, b", [("B", "b"), ("B", " (b) "), ("B", "B."), ("B", "[B]"), ("C", "c)"), ("B", "option B")])
def test_choice_case_insensitive(a, b):
    assert same("choice", a, b)


@pytest.mark.parametrize("a, b", [("B", "C"), ("B", "BC"), ("B", "B or C")])
def test_choice_different_or_unparsed(a, b):
    assert not same("choice", a, b)


def test_null_answer_is_unparsed():
    assert canonical("integer", None) is None
    assert grade("integer", "12", None).reason == "no-answer"


# (answer type, gold, answer as a model wrote it, correct?) — decided by hand.
SPELLINGS = [
    ("integer", "12", "12", True),
    ("integer", "12", "12.0", True),
    ("integer", "12", "$12$", True),
    ("integer", "12", "\\boxed{12}", True),
    ("integer", "12", "$\\boxed{12}$", True),
    ("integer", "12", "12 points", True),
    ("integer", "12", "12점", True),
    ("integer", "12", "답은 12입니다", True),
    ("integer", "12", "정답: 12", True),
    ("integer", "12", "The answer is 12.", True),
    ("integer", "7", "x = 7", True),
    ("integer", "1000", "1,000", True),
    ("integer", "1234567", "1,234,567", True),
    ("integer", "1234567", "1{,}234{,}567", True),
    ("integer", "-5", "−5", True),
    ("integer", "-5", "$-5$", True),
    ("integer", "100", "10^2", True),
    ("integer", "100", "$10^{2}$", True),
    ("integer", "12", "13", False),
    ("integer", "12", "\\boxed{13}", False),
    ("integer", "12", "12.5", False),
    ("integer", "12", "twelve", True),  # number words (issue 40)
    ("integer", "12", "12 or 13", False),
    ("fraction", "1/2", "0.5", True),
    ("fraction", "1/2", "\\frac{1}{2}", True),
    ("fraction", "1/2", "$\\dfrac{1}{2}$", True),
    ("fraction", "1/2", "\\boxed{\\frac12}", True),
    ("fraction", "1/2", "2/4", True),
    ("fraction", "-3/4", "-\\frac{3}{4}", True),
    ("fraction", "3/4", "\\frac{-3}{-4}", True),
    ("fraction", "1/3", "0.333", False),
    ("decimal", "0.25", "1/4", True),
    ("decimal", "3.14", "3.140", True),
    ("decimal", "2.5", "$2.5$", True),
    ("decimal", "1.5", "\\boxed{1.5}", True),
    ("decimal", "0.001", "1e-3", True),
    ("decimal", "2.5", "2.6", False),
    ("expression", "x^2+1", "1+x^2", True),
    ("expression", "\\sqrt{2}", "2^{1/2}", True),
    ("expression", "\\frac{\\pi}{4}", "\\pi/4", True),
    ("expression", "2\\sqrt{3}", "\\sqrt{12}", True),
    ("expression", "(x+1)^2", "x^2+2x+1", True),
    ("expression", "\\sqrt{2}", "$\\boxed{\\sqrt{2}}$", True),
    ("expression", "\\sqrt{2}", "1.414", False),
    ("expression", "x^2+1", "x^2-1", False),
    ("choice", "B", "B", True),
    ("choice", "B", "(B)", True),
    ("choice", "B", "b", True),
    ("choice", "B", "B)", True),
    ("choice", "B", "\\boxed{B}", True),
    ("choice", "B", "$\\boxed{\\text{B}}$", True),
    ("choice", "B", "Answer: (B)", True),
    ("choice", "B", "정답은 (B)입니다", True),
    ("choice", "B", "**B**", True),
    ("choice", "B", "(C)", False),
    ("choice", "B", "B or C", False),
]


@pytest.mark.parametrize("answer_type, gold, answer, correct", SPELLINGS)
def test_real_world_spellings(answer_type, gold, answer, correct):
    assert grade(answer_type, gold, answer).correct is correct


def test_the_spelling_table_is_large_and_uses_both_paths():
    assert len(SPELLINGS) >= 40
    how = {grade(t, g, a).how for t, g, a, _ in SPELLINGS}
    assert {"exact", "equivalence"} <= how


@pytest.mark.parametrize(
    "answer, reason",
    [
        ("1e9999", "huge-exponent"),
        ("10^{9999}", "huge-exponent"),
        ("$10^{10^{10}}$", "power-tower"),
        ("9^9^9", "power-tower"),
        ("\\boxed{99999!}", "huge-factorial"),
        ("1" * 1_000_000, "answer-too-long"),
        ("x" * (MAX_EQUIVALENCE_CHARS + 1), "answer-too-long"),
    ],
)
def test_pathological_answers_are_refused_with_a_reason(answer, reason):
    v = grade("expression", "12", answer)
    assert (v.correct, v.parsed, v.how, v.reason) == (False, False, "refused", reason)


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
    sample("m2", 0, "1+x^2", True)  # equivalent (math-verify), agrees
    sample("m2", 1, "x^2+1", False)  # equivalent; lab said wrong → disagreement
    sample("m2", 2, "nonsense", True)  # unparsed, wrong; lab said right → disagreement
    inst.item("r0", "refusal", "ill_posed", gold="ill-posed")
    sample("r0", 0, "no answer exists", True)  # judge-graded: the lab's verdict stands
    boards = inst.score()
    # m0: 1/3 correct, m1: 2/3, m2: 2/3  → avg@3 = (1/3 + 2/3 + 2/3) / 3 = 5/9
    assert value(boards["mini"], a, "avg@3") == pytest.approx(5 / 9)
    grading = boards["grading"]
    r = row(grading, a)
    assert r.metrics["regraded_samples"].value == 9
    assert r.metrics["equivalence_graded"].value == 2
    assert r.metrics["judge_graded_samples"].value == 1
    assert r.metrics["disagreements"].value == 4
    assert r.metrics["unparsed_answers"].value == 2
    # disagreement rate pools samples: 4 / 9
    assert r.metrics["disagreement_rate"].value == pytest.approx(4 / 9)


def test_a_lab_without_gold_answers_leaves_verdicts_to_the_regrade():
    """correct: null (a lab granted the questions, not the answers) on regraded items: the
    boards count Sealboard's verdicts, the grading board counts the ungraded samples apart
    and compares only where the lab gave a verdict (issue 21: no false disagreements)."""
    inst = Instance("soohak")
    inst.item("m0", "mini", "integer", gold="42")
    inst.item("m1", "mini", "fraction", gold="3/2")
    a = inst.sub("acme/a")

    def sample(item, j, answer, lab):
        inst.results.append(dict(submission=a, item=item, lang="en", sample=j, answer=answer, lab_correct=lab, refused=False))

    sample("m0", 0, "42", None)  # correct, ungraded
    sample("m0", 1, "41", None)  # wrong, ungraded
    sample("m0", 2, "42", None)  # correct, ungraded
    sample("m1", 0, "6/4", None)  # correct, ungraded
    sample("m1", 1, "0.5", True)  # wrong; the lab said right → the one disagreement
    sample("m1", 2, "1.5", True)  # correct, agrees
    boards = inst.score()
    # m0: 2/3 correct, m1: 2/3 → avg@3 = 2/3, by Sealboard's verdicts alone
    assert value(boards["mini"], a, "avg@3") == pytest.approx(2 / 3)
    r = row(boards["grading"], a)
    assert r.metrics["regraded_samples"].value == 6
    assert r.metrics["lab_ungraded_samples"].value == 4
    assert r.metrics["disagreements"].value == 1
    # over the 2 samples with both verdicts, not the 6 regraded: 1 / 2
    assert r.metrics["disagreement_rate"].value == pytest.approx(1 / 2)


def test_a_lab_that_grades_nothing_has_no_disagreement_rate():
    inst = Instance("soohak")
    inst.item("m0", "mini", "integer", gold="42")
    a = inst.sub("acme/a")
    for j, answer in enumerate(("42", "7", "42")):
        inst.results.append(dict(submission=a, item="m0", lang="en", sample=j, answer=answer, lab_correct=None, refused=False))
    boards = inst.score()
    r = row(boards["grading"], a)
    assert (r.metrics["lab_ungraded_samples"].value, r.metrics["disagreements"].value) == (3, 0)
    assert r.metrics["disagreement_rate"].value is None and r.metrics["disagreement_rate"].flag == "undefined"
    assert value(boards["mini"], a, "avg@3") == pytest.approx(2 / 3)


def test_gold_that_does_not_parse_is_a_dataset_error_that_does_not_echo_it():
    from builder.scoring import ScoringInputError

    inst = Instance("soohak")
    inst.item("m0", "mini", "integer", gold="forty-two")
    a = inst.sub("acme/a")
    inst.answer(a, "m0", "111")
    with pytest.raises(ScoringInputError) as exc:
        inst.score()
    assert "m0" in str(exc.value) and "forty-two" not in str(exc.value)


# Items of every regraded type and one judge-graded (type -1), golds from the table above.
_ITEMS = [
    ("integer", "12"),
    ("fraction", "1/2"),
    ("decimal", "2.5"),
    ("expression", "x^2+1"),
    ("expression", "\\sqrt{2}"),
    ("choice", "B"),
    ("ill_posed", "ill-posed"),
]
_TYPES = ("integer", "fraction", "decimal", "expression", "choice")
_ANSWERS = sorted({a for _, _, a, _ in SPELLINGS} | {"", "  ", "1e9999", "0"}) + [None]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, len(_ITEMS) - 1), st.sampled_from(_ANSWERS), st.booleans()), min_size=1, max_size=60),
)
def test_vectorised_regrade_is_grade_row_by_row(rows):
    """regrade() grades distinct (answer, item) pairs and looks verdicts up per row; every
    row must get exactly what grade() says of it alone (or nothing, outside the mask)."""
    from builder.scoring.regrade import HOW, gold_key, regrade

    item_type = np.array([_TYPES.index(t) if t in _TYPES else -1 for t, _ in _ITEMS])
    golds = [g for _, g in _ITEMS]
    keys = [gold_key(t, g) if t in _TYPES else None for t, g in _ITEMS]
    items, answers, mask = (np.array(column) for column in zip(*rows))
    correct, parsed, how = regrade(pd.Series(list(answers), dtype=object), items, mask, item_type, keys, _TYPES, golds)
    for j, (i, answer, regraded) in enumerate(rows):
        kind, gold = _ITEMS[i]
        if regraded and kind in _TYPES:
            v = grade(kind, gold, answer)
            expected = (v.correct, v.parsed, HOW[v.how])
        else:
            expected = (False, False, 0)
        assert (bool(correct[j]), bool(parsed[j]), int(how[j])) == expected, (kind, gold, answer)
