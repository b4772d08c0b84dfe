"""The regrade against a careful human grader's verdicts (tests/scoring/grading_cases.csv).

Each row is (answer type, language, gold, answer as a model wrote it, the human's verdict,
why). At least a third of the answers must be graded wrong: denials, hedges, bounds and
several candidates that an extracting grader would take for the gold. The confusion matrix
is printed (``pytest -s``) and must have no false positive.
"""

from __future__ import annotations

import csv
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from builder.scoring.regrade import EXACT_REASONS, grade, regrade

CASES = Path(__file__).with_name("grading_cases.csv")
TYPES = ("integer", "fraction", "decimal", "expression", "choice")


def cases() -> list[dict[str, str]]:
    with CASES.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def confusion(rows: list[dict[str, str]]) -> Counter:
    """(human, regrade) -> count."""
    return Counter((r["human"], "correct" if grade(r["answer_type"], r["gold"], r["answer"]).correct else "wrong") for r in rows)


def test_the_table_is_large_covers_every_type_and_both_languages_and_a_third_must_be_wrong():
    rows = cases()
    assert len(rows) >= 150
    assert sum(r["human"] == "wrong" for r in rows) * 3 >= len(rows)
    assert {r["human"] for r in rows} == {"correct", "wrong"}
    for t in TYPES:
        for lang in ("en", "ko"):
            kinds = {r["human"] for r in rows if r["answer_type"] == t and r["language"] == lang}
            assert kinds == {"correct", "wrong"}, (t, lang)


def test_confusion_matrix_has_no_false_positive_and_agrees_with_the_human():
    rows = cases()
    m = confusion(rows)
    print("\nconfusion matrix (rows: human, columns: regrade)")
    print(f"{'':>16}{'correct':>10}{'wrong':>10}")
    for human in ("correct", "wrong"):
        print(f"{'human ' + human:>16}{m[(human, 'correct')]:>10}{m[(human, 'wrong')]:>10}")
    agree = (m[("correct", "correct")] + m[("wrong", "wrong")]) / len(rows)
    print(f"agreement {agree:.3f} on {len(rows)} cases")
    assert m[("wrong", "correct")] == 0  # false positives
    disagreements = [r for r in rows if grade(r["answer_type"], r["gold"], r["answer"]).correct != (r["human"] == "correct")]
    assert disagreements == []


@pytest.mark.parametrize(
    "answer, reason",
    [
        ("not 12", "negated"),
        ("12가 아니다", "negated"),
        ("x ≠ 12", "negated"),
        ("approximately 12", "hedged"),
        ("약 12", "hedged"),
        ("less than 12", "bounded"),
        ("12 이상", "bounded"),
        ("12 or 13", "several-candidates"),
        ("12 또는 13", "several-candidates"),
    ],
)
def test_a_claim_is_wrong_and_says_which(answer, reason):
    v = grade("integer", "12", answer)
    assert (v.correct, v.parsed, v.how, v.reason) == (False, True, "exact", reason)
    assert reason in EXACT_REASONS


def test_a_claim_the_gold_makes_is_not_held_against_the_answer():
    assert grade("expression", "x \\neq 1", "x \\ne 1").correct
    assert grade("expression", "x < 3", "x<3").correct
    assert not grade("expression", "x < 3", "x<4").correct


def test_decimals_compare_at_the_items_tolerance_not_six_places():
    assert not grade("expression", "2\\sqrt{2}", "2.8284271").correct
    assert not grade("expression", "2\\sqrt{2}", "2.8284271", tolerance=1e-8).correct  # |diff| ≈ 2.5e-8
    assert grade("expression", "2\\sqrt{2}", "2.8284271", tolerance=1e-7).correct
    assert not grade("decimal", "3.14", "3.1416").correct
    assert grade("decimal", "3.14", "3.1416", tolerance=0.002).correct
    assert not grade("decimal", "3.14", "3.1416", tolerance=0.0015).correct  # |diff| = 0.0016
    assert grade("decimal", "3.14", "3.1415", tolerance=0.0015).correct  # exactly at the bound (decimal, not double)
    assert grade("expression", "\\frac{1}{3}", "0.3333", tolerance=0.0001).correct
    assert not grade("expression", "\\frac{1}{3}", "0.3333").correct
    with pytest.raises(ValueError):
        grade("decimal", "1", "1", tolerance=-0.1)


@pytest.mark.parametrize("gold", ["3", "③", "C", "c", "(C)", "3번"])
@pytest.mark.parametrize("answer", ["C", "③", "3번", "(C)", "3", "정답은 ③", "정답은 3번입니다", "I think the answer is C"])
def test_choice_spellings_against_a_gold_stored_either_way(gold, answer):
    assert grade("choice", gold, answer).correct


@pytest.mark.parametrize("answer", ["D", "④", "4번", "C or D", "③ 또는 ④", "not C", "C is wrong", "정답은 C가 아니다", "0", "21"])
def test_choice_other_options_denials_and_non_options_are_wrong(answer):
    assert not grade("choice", "3", answer).correct


def test_vectorised_regrade_matches_grade_on_the_table_with_tolerances():
    rows = cases() + [
        {"answer_type": "decimal", "gold": "3.14", "answer": "3.1416", "tolerance": "0.002"},
        {"answer_type": "decimal", "gold": "3.14", "answer": "3.1416", "tolerance": "0.001"},
        {"answer_type": "expression", "gold": "2\\sqrt{2}", "answer": "2.8284271", "tolerance": "1e-7"},
    ]
    golds = sorted({(r["answer_type"], r["gold"], r.get("tolerance") or "") for r in rows})
    index = {g: i for i, g in enumerate(golds)}
    from builder.scoring.regrade import gold_key

    types = TYPES
    item_type = np.array([types.index(t) for t, _, _ in golds])
    item_gold = [gold_key(t, g) for t, g, _ in golds]
    item_tol = [Fraction(tol) if tol else None for _, _, tol in golds]
    row_item = np.array([index[(r["answer_type"], r["gold"], r.get("tolerance") or "")] for r in rows])
    answers = pd.Series([r["answer"] for r in rows], dtype=object)
    correct, parsed, how = regrade(
        answers, row_item, np.ones(len(rows), dtype=bool), item_type, item_gold, types, [g for _, g, _ in golds], item_tolerance=item_tol
    )
    for k, r in enumerate(rows):
        v = grade(r["answer_type"], r["gold"], r["answer"], tolerance=r.get("tolerance") or None)
        assert (bool(correct[k]), bool(parsed[k])) == (v.correct, v.parsed), r
