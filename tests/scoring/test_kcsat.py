"""KCSAT-ML: tiers, cohort reference, tokens and cost, TTS pairs, SCF/DRG, calibration.

§3.1: "we bin the 339 core items into three tiers: Easy (0–50%: 148 items), Medium
(51–75%: 113 items), and Hard (76–100%: 78 items)"; §4.7 restates "Easy (≤ 50% cohort
error ...) and Hard (≥ 76%)". Fractional rates between the printed bounds are Medium.

§4.7: "let a_b be the number of items in bin b where the model's error rate exceeds the
human cohort's, and ā_b the number where it falls below. We define the sub-cohort
fraction SCF_b = a_b / (a_b + ā_b)" and
    DRG = (SCF_H^off − SCF_H^on) − (SCF_E^off − SCF_E^on),
"taken at the first TTS turn-on. Positive DRG means TTS preferentially closes the
Hard-bin gap relative to humans".

§4.6: "we regress per-item model error rate on cohort error rate separately for each
TTS condition, treating slope ... and intercept ... as the two summary statistics."
"""

from __future__ import annotations

import numpy as np
import pytest

from builder.scoring.frames import prepare

from .frames import Instance, cell, row, value


@pytest.mark.parametrize(
    "rate, tier",
    [
        (0.0, "easy"),
        (0.3, "easy"),
        (0.50, "easy"),
        (0.5049, "medium"),  # 50.49% — above the Easy bound
        (0.505, "medium"),  # 50.5%
        (0.51, "medium"),
        (0.75, "medium"),
        (0.755, "medium"),  # 75.5%: not yet Hard (Hard is ≥ 76%)
        (0.7599, "medium"),
        (0.76, "hard"),
        (0.93, "hard"),
        (1.0, "hard"),
    ],
)
def test_tier_boundaries(rate, tier):
    inst = Instance("kcsat-ml")
    inst.item("q", gold="1", cohort_error_rate=rate, year=2020, points=4)
    inst.sub("acme/a")
    items, results, subs = inst.frames()
    results = results.reindex(columns=["submission", "item", "lang", "sample", "answer", "lab_correct", "refused", "budget"])
    prep = prepare(inst.spec, items, results, subs)
    assert prep.item_tokens["tier"].tolist() == [tier]


def test_percent_instead_of_fraction_is_refused():
    from builder.scoring import ScoringInputError

    inst = Instance("kcsat-ml")
    inst.item("q", gold="1", cohort_error_rate=76.4, year=2020, points=4)
    a = inst.sub("acme/a")
    inst.answer(a, "q", "1")
    with pytest.raises(ScoringInputError, match="fraction in \\[0, 1\\]"):
        inst.score()


def _core(inst: Instance, rates: list[float], year: int = 2020, points: int = 4) -> list[str]:
    ids = []
    for i, r in enumerate(rates):
        ids.append(inst.item(f"k{len(inst.items):03d}", gold=str(i + 1), cohort_error_rate=r, year=year, points=points))
    return ids


def test_tier_board_and_cohort_reference():
    inst = Instance("kcsat-ml")
    easy = _core(inst, [0.2, 0.4])
    medium = _core(inst, [0.6])
    hard = _core(inst, [0.8, 0.9])
    extra = inst.item("x1", gold="5", year=2020, points=2)  # outside the core: no cohort rate
    a = inst.sub("acme/a")
    for item, p in zip(easy + medium + hard + [extra], "111001"):
        inst.answer(a, item, p)
    boards = inst.score()
    tiers = boards["tiers"]
    assert [m.name for m in tiers.metrics] == ["accuracy", "tier=easy", "tier=medium", "tier=hard"]
    assert value(tiers, a, "tier=easy") == 1.0  # 2/2
    assert value(tiers, a, "tier=medium") == 1.0  # 1/1
    assert value(tiers, a, "tier=hard") == 0.0  # 0/2
    assert value(tiers, a, "accuracy") == pytest.approx(3 / 5)  # the core only
    cohort = tiers.reference_rows[0]
    assert cohort.id == "human-cohort"
    # cohort accuracy = 1 − mean error: easy 1 − 0.3 = 0.7; hard 1 − 0.85 = 0.15; core 1 − (0.2+0.4+0.6+0.8+0.9)/5 = 1 − 0.58 = 0.42
    assert cohort.metrics["tier=easy"].value == pytest.approx(0.7)
    assert cohort.metrics["tier=hard"].value == pytest.approx(0.15)
    assert cohort.metrics["accuracy"].value == pytest.approx(0.42)
    # full board: every item, 4/6
    assert value(boards["full"], a, "accuracy") == pytest.approx(4 / 6)
    # points board includes the 2-point item outside the core
    assert [m.name for m in boards["points"].metrics] == ["accuracy", "points=2", "points=4"]
    # The cohort rests on the 5 core items; `full` and `points` columns also hold the
    # non-core item, so the cohort is not shown there (it would compare other items).
    assert boards["full"].reference_rows == ()
    points_ref = {name for ref in boards["points"].reference_rows for name in ref.metrics}
    assert points_ref == {"points=4"} or not points_ref
    assert any("shown only on columns whose items all carry cohort_error_rate" in n for n in boards["full"].notes)


def test_output_tokens_and_cost_per_correct():
    inst = Instance("kcsat-ml")
    items = _core(inst, [0.1, 0.2, 0.3, 0.4])
    a, b = inst.sub("acme/a"), inst.sub("beta/b")
    for item, p, tok in zip(items, "1100", [100, 200, 300, 400]):
        inst.answer(a, item, p, output_tokens=float(tok), cost_usd=0.01)
        inst.answer(b, item, p, output_tokens=float(tok), cost_usd=float("nan") if item == items[0] else 0.01)
    core = inst.score()["core"]
    # mean tokens = (100 + 200 + 300 + 400)/4 = 250; cost per correct = 4 × 0.01 / 2 = 0.02 USD
    assert value(core, a, "output_tokens") == pytest.approx(250)
    assert value(core, a, "cost_per_correct") == pytest.approx(0.02)
    missing = cell(core, b, "cost_per_correct")
    assert missing.value is None and missing.flag == "not-reported"


def _drg_instance(close_hard_first: bool) -> tuple[Instance, str, str]:
    """Easy bin: 4 items at 20% cohort error; Hard bin: 4 items at 90%."""
    inst = Instance("kcsat-ml")
    easy = _core(inst, [0.2] * 4)
    hard = _core(inst, [0.9] * 4)
    off = inst.sub("acme/off", family="fam", tts=False)
    on = inst.sub("acme/on", family="fam", tts=True)
    # TTS off: wrong on 2 Easy items (error 1 > 0.2 → a_E = 2, ā_E = 2) and on all Hard
    # items (1 > 0.9 → a_H = 4): SCF_E^off = 2/4 = 0.5, SCF_H^off = 4/4 = 1.0.
    for item, p in zip(easy + hard, "11000000"):
        inst.answer(off, item, p, budget=0)
    if close_hard_first:
        # TTS on closes the Hard gap: 3 Hard right → SCF_H^on = 1/4; Easy unchanged 0.5.
        pattern = "11001110"
    else:
        # TTS on cleans up Easy instead: all Easy right → SCF_E^on = 0; Hard unchanged 1.0.
        pattern = "11110000"
    for item, p in zip(easy + hard, pattern):
        inst.answer(on, item, p, budget=8192)
    return inst, off, on


def test_drg_is_positive_when_the_hard_gap_closes_first():
    inst, off, on = _drg_instance(close_hard_first=True)
    drg = inst.score()["drg"]
    r = row(drg, on)
    assert r.extra["baseline"] == off and r.extra["family"] == "fam"
    assert r.metrics["scf_easy_off"].value == pytest.approx(0.5)
    assert r.metrics["scf_hard_off"].value == pytest.approx(1.0)
    assert r.metrics["scf_easy_on"].value == pytest.approx(0.5)
    assert r.metrics["scf_hard_on"].value == pytest.approx(0.25)
    # DRG = (1.0 − 0.25) − (0.5 − 0.5) = +0.75
    assert r.metrics["drg"].value == pytest.approx(0.75)
    assert r.extra["profile"] == "HIGH"


def test_drg_is_negative_when_the_gain_is_on_easy_items():
    inst, off, on = _drg_instance(close_hard_first=False)
    r = row(inst.score()["drg"], on)
    # DRG = (1.0 − 1.0) − (0.5 − 0.0) = −0.5
    assert r.metrics["scf_easy_on"].value == 0.0
    assert r.metrics["drg"].value == pytest.approx(-0.5)
    assert r.extra["profile"] == "LOW"


def test_scf_ties_with_the_cohort_count_in_neither():
    inst = Instance("kcsat-ml")
    hard = _core(inst, [1.0, 0.9, 0.9])
    easy = _core(inst, [0.2, 0.0])
    off = inst.sub("acme/off", family="fam", tts=False)
    on = inst.sub("acme/on", family="fam", tts=True)
    # item at 100% cohort error answered wrong: model error 1 = cohort 1 → a tie.
    for sub in (off, on):
        for item, p in zip(hard + easy, "01011"):
            inst.answer(sub, item, p)
    r = row(inst.score()["drg"], on)
    # Hard: untied items are the two at 0.9: one wrong (above), one right (below) → 1/2
    assert r.metrics["scf_hard_off"].value == pytest.approx(0.5)
    assert r.metrics["scf_hard_off"].n == 2
    # Easy: item at 0.0 answered right → error 0 = cohort 0 → tie; item at 0.2 right → below → 0/1
    assert r.metrics["scf_easy_off"].value == 0.0 and r.metrics["scf_easy_off"].n == 1


def test_first_turn_on_is_the_lowest_budget():
    inst = Instance("kcsat-ml")
    items = _core(inst, [0.2, 0.4, 0.8, 0.9])
    off = inst.sub("acme/off", family="fam", tts=False)
    high = inst.sub("acme/high", family="fam", tts=True)
    low = inst.sub("acme/low", family="fam", tts=True)
    lone = inst.sub("beta/lone", family="solo", tts=True)  # no baseline: not paired
    for item, p in zip(items, "1000"):
        inst.answer(off, item, p, budget=512)
        inst.answer(lone, item, p, budget=512)
    for item, p in zip(items, "1111"):
        inst.answer(high, item, p, budget=32768)
    for item, p in zip(items, "1110"):
        inst.answer(low, item, p, budget=4096)
    boards = inst.score()
    tts = boards["tts"]
    assert {r.submission for r in tts.rows} == {high, low}
    assert row(tts, low).extra["first_turn_on"] is True and row(tts, high).extra["first_turn_on"] is False
    # gain = on − off: low 3/4 − 1/4 = 0.5; high 4/4 − 1/4 = 0.75 (ranked first)
    assert value(tts, low, "gain") == pytest.approx(0.5)
    assert value(tts, high, "gain") == pytest.approx(0.75)
    assert [r.submission for r in tts.rows] == [high, low]
    assert [r.submission for r in boards["drg"].rows] == [low]
    assert any("1 family" in n for n in tts.notes)


def test_calibration_slope_and_intercept_by_hand():
    inst = Instance("kcsat-ml")
    items = _core(inst, [0.2, 0.4, 0.6, 0.8])
    a = inst.sub("acme/a")
    # two samples per item (n > k is allowed): error rates y = 0, 0.5, 0.5, 1
    for item, p in zip(items, ["11", "10", "01", "00"]):
        inst.answer(a, item, p)
    cal = inst.score()["calibration"]
    # x̄ = 0.5, ȳ = 0.5; Sxy = (−.3)(−.5) + (−.1)(0) + (.1)(0) + (.3)(.5) = 0.3;
    # Sxx = .09 + .01 + .01 + .09 = 0.2 → slope = 1.5; intercept = 0.5 − 1.5 × 0.5 = −0.25
    assert value(cal, a, "slope") == pytest.approx(1.5)
    assert value(cal, a, "intercept") == pytest.approx(-0.25)
    cohort = cal.reference_rows[0]
    assert (cohort.metrics["slope"].value, cohort.metrics["intercept"].value) == (1.0, 0.0)
    s = cell(cal, a, "slope")
    assert s.ci_low <= s.value <= s.ci_high and s.n == 4


def test_calibration_with_no_spread_in_cohort_error_is_undefined():
    inst = Instance("kcsat-ml")
    items = _core(inst, [0.5, 0.5, 0.5])
    a = inst.sub("acme/a")
    for item in items:
        inst.answer(a, item, "1")
    c = cell(inst.score()["calibration"], a, "slope")
    assert c.value is None and c.flag == "undefined"


def test_regression_matches_numpy_polyfit_on_random_data():
    rng = np.random.default_rng(3)
    inst = Instance("kcsat-ml")
    rates = np.round(rng.random(40), 3).tolist()
    items = _core(inst, rates)
    a = inst.sub("acme/a")
    y = []
    for item in items:
        p = "".join("1" if rng.random() < 0.6 else "0" for _ in range(3))
        inst.answer(a, item, p)
        y.append(p.count("0") / 3)
    slope, intercept = np.polyfit(rates, y, 1)
    cal = inst.score()["calibration"]
    assert value(cal, a, "slope") == pytest.approx(slope)
    assert value(cal, a, "intercept") == pytest.approx(intercept)
