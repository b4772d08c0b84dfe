"""LiveMathematicianBench: contamination-aware boards, sketch gain, variants, baseline.

Paper (seed 001): "By restricting retrieval to papers published strictly after a model's
training cutoff, we ensure that the resulting benchmark is contamination-free by
construction." Items are "a multiple-choice question (MCQ) with five answer options,
exactly one of which is correct" (random baseline 20%). "A dual-mode protocol comparing
performance with and without proof-sketch access reveals that sketches yield consistent
gains (e.g., +13.6 pp ...)": the sketch gain is accuracy with sketch − without.
"""

from __future__ import annotations

import pytest

from .frames import Instance, cell, row, value

STD = dict(variant="standard", sketch=False)


def _instance() -> Instance:
    inst = Instance("livemathematicianbench")
    inst.item("p1", answer_type="choice", gold="A", published="2025-03-15", edition="2025-03", category="implication")
    inst.item("p2", answer_type="choice", gold="B", published="2025-04-01", edition="2025-04", category="implication")
    inst.item("p3", answer_type="choice", gold="C", published="2025-05-10", edition="2025-05", category="existence")
    return inst


def test_only_items_published_strictly_after_the_cutoff_count():
    inst = _instance()
    month = inst.sub("acme/month", training_cutoff="2025-03")  # month precision: through 2025-03-31
    day = inst.sub("beta/day", training_cutoff="2025-04-01")  # p2 published that day: not strictly after
    for sub in (month, day):
        inst.answer(sub, "p1", "1", **STD)
        inst.answer(sub, "p2", "0", **STD)
        inst.answer(sub, "p3", "1", **STD)
    boards = inst.score()
    post, full = boards["overall"], boards["overall-all"]
    # month: p2, p3 eligible → (0 + 1)/2 = 0.5;   day: p3 only → 1/1
    assert (value(post, month, "accuracy"), cell(post, month, "accuracy").n) == (pytest.approx(0.5), 2)
    assert (value(post, day, "accuracy"), cell(post, day, "accuracy").n) == (1.0, 1)
    # the -all twin counts every item: (1 + 0 + 1)/3
    assert value(full, month, "accuracy") == pytest.approx(2 / 3) and cell(full, month, "accuracy").n == 3
    assert any("strictly after" in n for n in post.notes)
    # rows rank on different item sets: each row says how many, and the board says why
    assert (row(post, month).extra["rank_items"], row(post, day).extra["rank_items"]) == (2, 1)
    assert "ranked on different item sets" in post.description
    assert "rank_items" not in row(full, month).extra


def test_unknown_cutoff_means_no_item_is_known_to_be_after_it():
    inst = _instance()
    a = inst.sub("acme/a", training_cutoff=None)
    for item in ("p1", "p2", "p3"):
        inst.answer(a, item, "1", **STD)
    boards = inst.score()
    c = cell(boards["overall"], a, "accuracy")
    assert c.value is None and c.flag == "cutoff-unknown"
    assert value(boards["overall-all"], a, "accuracy") == 1.0


def test_editions_report_n_per_cell():
    inst = _instance()
    a = inst.sub("acme/a", training_cutoff="2025-04-15")
    for item in ("p1", "p2", "p3"):
        inst.answer(a, item, "1", **STD)
    editions = inst.score()["editions"]
    assert [m.name for m in editions.metrics] == ["accuracy", "edition=2025-03", "edition=2025-04", "edition=2025-05"]
    early = cell(editions, a, "edition=2025-03")
    assert (early.value, early.n, early.flag) == (None, 0, "no-items")
    assert (value(editions, a, "edition=2025-05"), cell(editions, a, "edition=2025-05").n) == (1.0, 1)


def test_sketch_gain_is_with_minus_without_on_the_same_items():
    inst = _instance()
    a = inst.sub("acme/a", training_cutoff="2024-12")
    for item, without, with_ in (("p1", "0", "1"), ("p2", "0", "1"), ("p3", "1", "1")):
        inst.answer(a, item, without, variant="standard", sketch=False)
        inst.answer(a, item, with_, variant="standard", sketch=True)
    sketch = inst.score()["sketch"]
    # without: 1/3; with: 3/3; gain = 1 − 1/3 = 2/3
    assert value(sketch, a, "no_sketch") == pytest.approx(1 / 3)
    assert value(sketch, a, "with_sketch") == 1.0
    assert value(sketch, a, "sketch_gain") == pytest.approx(2 / 3)
    gain = cell(sketch, a, "sketch_gain")
    assert gain.ci_low <= gain.value <= gain.ci_high


def test_substitution_variant_keeps_the_lab_verdict_and_is_contrasted():
    inst = _instance()
    a = inst.sub("acme/a", training_cutoff="2024-12")
    for item in ("p1", "p2", "p3"):
        inst.answer(a, item, "1", **STD)
    # substitution-resistant runs: the options change, so the item's gold letter does not
    # apply and the lab judge's verdict stands (answers "Z" would regrade as wrong).
    for item, verdict in (("p1", True), ("p2", False), ("p3", False)):
        inst.results.append(
            dict(
                submission=a,
                item=item,
                lang="en",
                sample=0,
                answer="Z",
                lab_correct=verdict,
                refused=False,
                variant="substitution",
                sketch=False,
            )
        )
    sub = inst.score()["substitution"]
    assert value(sub, a, "standard") == 1.0
    assert value(sub, a, "substitution") == pytest.approx(1 / 3)
    assert value(sub, a, "substitution_minus_standard") == pytest.approx(-2 / 3)
    assert sub.rank_by == "substitution"


def test_random_baseline_reference_row_on_every_board():
    inst = _instance()
    a = inst.sub("acme/a", training_cutoff="2024-12")
    for item in ("p1", "p2", "p3"):
        inst.answer(a, item, "1", **STD)
    boards = inst.score()
    for board_id in ("overall", "overall-all", "editions", "categories", "substitution", "sketch"):
        refs = boards[board_id].reference_rows
        assert [r.id for r in refs] == ["random"], board_id
        rates = [c for name, c in refs[0].metrics.items()]
        assert rates and all(c.value == 0.2 for c in rates)
    assert boards["sketch"].reference_rows[0].metrics.keys() == {"no_sketch", "with_sketch"}


def test_ranks_follow_accuracy():
    inst = _instance()
    hi, lo = inst.sub("acme/hi", training_cutoff="2024-12"), inst.sub("beta/lo", training_cutoff="2024-12")
    for item in ("p1", "p2", "p3"):
        inst.answer(hi, item, "1", **STD)
        inst.answer(lo, item, "0", **STD)
    overall = inst.score()["overall"]
    assert [r.submission for r in overall.rows] == [hi, lo]
    assert row(overall, hi).rank == 1 and row(overall, lo).rank == 2
