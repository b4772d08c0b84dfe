"""SOOHAK metrics against hand computations from the paper's definitions.

SOOHAK §3.4.5:
    avg@3  = (1/N) Σ_i ( (1/3) Σ_{j=1..3} c_ij )
    pass@3 = (1/N) Σ_i I[ max_j c_ij = 1 ]
"where N is the number of questions in the split, c_ij ∈ {0, 1} indicates correctness
for question i and sample j".

SOOHAK §3.4.7 (on pass@3):
    Capability = ½ (SOOHAK-Mini + Challenge)
    Avg-R      = ⅓ (SOOHAK-Mini + Challenge + Refusal) = Capability − ⅓ (Capability − Refusal)
    SOOHAK-R   = ½ (Challenge + Refusal)
"A model with Capability = 70 and Refusal = 40 receives Avg-R = 70 − (1/3)(30) = 60".
"""

from __future__ import annotations

import pytest

from .frames import Instance, cell, row, spec_with, value


def test_avg_and_pass_at_3_by_hand():
    inst = Instance("soohak")
    for i in range(4):
        inst.item(f"m{i}", "mini", gold=str(10 + i))
    a = inst.sub("acme/a")
    # correct samples per item: 3, 2, 0, 1 (of 3)
    for item, pattern in zip(["m0", "m1", "m2", "m3"], ["111", "101", "000", "001"]):
        inst.answer(a, item, pattern)
    mini = inst.score()["mini"]
    # avg@3 = (3/3 + 2/3 + 0/3 + 1/3) / 4 = 2/4 = 0.5
    assert value(mini, a, "avg@3") == pytest.approx(0.5)
    # pass@3 = (1 + 1 + 0 + 1) / 4 = 0.75
    assert value(mini, a, "pass@3") == pytest.approx(0.75)
    assert cell(mini, a, "avg@3").n == 4


def test_unbiased_pass_at_k_with_more_samples_than_k():
    inst = Instance("soohak")
    for i in range(3):
        inst.item(f"m{i}", "mini", gold=str(i + 1))
    a = inst.sub("acme/a")
    inst.answer(a, "m0", "11000")  # n=5, c=2: 1 − C(3,3)/C(5,3) = 1 − 1/10 = 0.9
    inst.answer(a, "m1", "00000")  # n=5, c=0: 1 − C(5,3)/C(5,3) = 0
    inst.answer(a, "m2", "11100")  # n=5, c=3: 1 − C(2,3)/C(5,3) = 1 − 0 = 1
    mini = inst.score()["mini"]
    assert value(mini, a, "pass@3") == pytest.approx((0.9 + 0 + 1) / 3)
    # avg@3 with n = 5 averages all five samples: (2/5 + 0 + 3/5) / 3 = 1/3
    assert value(mini, a, "avg@3") == pytest.approx(1 / 3)


def test_fewer_than_k_samples_is_refused_not_scored():
    inst = Instance("soohak")
    inst.item("m0", "mini")
    inst.item("m1", "mini")
    a, b = inst.sub("acme/a"), inst.sub("acme/b")
    inst.answer(a, "m0", "111")
    inst.answer(a, "m1", "11")  # only two samples: pass@3 is not defined
    mini = inst.score()["mini"]
    for metric in ("avg@3", "pass@3"):
        c = cell(mini, a, metric)
        assert c.value is None and c.flag == "fewer-than-k-samples" and c.n == 2
        assert cell(mini, b, metric).flag == "not-evaluated"
    assert row(mini, a).rank is None


def _composite_instance() -> Instance:
    inst = Instance("soohak")
    for split in ("mini", "challenge", "refusal"):
        for i in range(5):
            inst.item(f"{split}{i}", split, "ill_posed" if split == "refusal" else "integer", gold="7")
    a, b = inst.sub("acme/a"), inst.sub("beta/b")
    # A: Mini pass@3 4/5 = 0.8, Challenge 3/5 = 0.6, Refusal 2/5 = 0.4
    # B: Mini 5/5 = 1.0, Challenge 3/5 = 0.6, Refusal 0/5 = 0.0
    solved = {a: {"mini": 4, "challenge": 3, "refusal": 2}, b: {"mini": 5, "challenge": 3, "refusal": 0}}
    for sub, per_split in solved.items():
        for split, k in per_split.items():
            for i in range(5):
                inst.answer(sub, f"{split}{i}", "100" if i < k else "000")
    return inst


def test_composites_reproduce_the_papers_example():
    boards = _composite_instance().score()
    comp = boards["composite"]
    # A: Capability = ½(0.8 + 0.6) = 0.7; Avg-R = ⅓(0.8 + 0.6 + 0.4) = 0.6
    #    = 0.7 − ⅓(0.7 − 0.4) = 0.6, the paper's "Capability = 70, Refusal = 40 → 60".
    assert value(comp, "acme/a", "capability") == pytest.approx(0.7)
    assert value(comp, "acme/a", "avg_r") == pytest.approx(0.6)
    assert value(comp, "acme/a", "avg_r") == pytest.approx(0.7 - (0.7 - 0.4) / 3)
    # SOOHAK-R = ½(0.6 + 0.4) = 0.5
    assert value(comp, "acme/a", "soohak_r") == pytest.approx(0.5)
    # B: Capability = ½(1.0 + 0.6) = 0.8; Avg-R = ⅓(1.6 + 0) = 0.5333
    assert value(comp, "beta/b", "capability") == pytest.approx(0.8)
    assert value(comp, "beta/b", "avg_r") == pytest.approx(1.6 / 3)


def test_rank_shift_between_capability_and_avg_r():
    comp = _composite_instance().score()["composite"]
    # Capability ranks B (0.8) over A (0.7); Avg-R ranks A (0.6) over B (0.533): A rises one place.
    a, b = row(comp, "acme/a"), row(comp, "beta/b")
    assert (a.extra["rank_capability"], a.extra["rank_avg_r"], a.extra["rank_shift"]) == (2, 1, 1)
    assert (b.extra["rank_capability"], b.extra["rank_avg_r"], b.extra["rank_shift"]) == (1, 2, -1)
    assert comp.rank_by == "avg_r" and a.rank == 1 and b.rank == 2


def test_refusal_split_keeps_the_lab_judge_verdict():
    inst = Instance("soohak")
    inst.item("r0", "refusal", "ill_posed", gold="(ill-posed)")
    a = inst.sub("acme/a")
    # The answer text matches nothing, but the judge said the response diagnosed the flaw.
    inst.results.append(dict(submission=a, item="r0", lang="en", sample=0, answer=None, lab_correct=True, refused=True))
    inst.results.append(dict(submission=a, item="r0", lang="en", sample=1, answer="5", lab_correct=False, refused=False))
    inst.results.append(dict(submission=a, item="r0", lang="en", sample=2, answer=None, lab_correct=True, refused=True))
    refusal = inst.score()["refusal"]
    assert value(refusal, a, "avg@3") == pytest.approx(2 / 3)
    assert value(refusal, a, "pass@3") == 1.0


def test_unsolved_challenge_items():
    inst = Instance("soohak")
    for i in range(4):
        inst.item(f"c{i}", "challenge", gold="3")
    a, b = inst.sub("acme/a"), inst.sub("beta/b")
    inst.answer(a, "c0", "100")
    inst.answer(a, "c1", "000")
    inst.answer(a, "c2", "000")
    inst.answer(a, "c3", "000")
    inst.answer(b, "c0", "000")
    inst.answer(b, "c1", "010")
    inst.answer(b, "c2", "000")
    inst.answer(b, "c3", "000")
    inst.answer(b, "c2", "111", lang="ko")  # other languages do not count: the board is English
    challenge = inst.score()["challenge"]
    # c0 solved by A, c1 by B; c2 and c3 by nobody in English
    assert challenge.summary == {"unsolved_items": 2, "items": 4}


def test_false_refusal_rate_on_well_posed_items():
    inst = Instance("soohak")
    for i in range(2):
        inst.item(f"m{i}", "mini")
        inst.item(f"c{i}", "challenge")
    inst.item("r0", "refusal", "ill_posed")
    a = inst.sub("acme/a")
    for item in ("m0", "m1", "c0", "c1", "r0"):
        inst.answer(a, item, "000")
    refused = {("m0", 0), ("c1", 1), ("c1", 2), ("r0", 0), ("r0", 1)}
    for r in inst.results:
        r["refused"] = (r["item"], r["sample"]) in refused
    board = inst.score()["refusal-calibration"]
    # well-posed samples: 4 items × 3 = 12, of which 3 refused → 3/12 = 0.25
    # (per item: 1/3, 0, 0, 2/3 → mean 0.25)
    assert value(board, a, "false_refusal_rate") == pytest.approx(0.25)
    assert cell(board, a, "false_refusal_rate").n == 4
    # ill-posed: 2 of 3 samples refused
    assert value(board, a, "refused_ill_posed") == pytest.approx(2 / 3)
    assert board.rank_by is None and row(board, a).rank is None


def test_languages_on_the_same_items():
    inst = Instance("soohak")
    for i in range(3):
        inst.item(f"m{i}", "mini")
    a = inst.sub("acme/a")
    for item, en, ko in (("m0", "111", "100"), ("m1", "110", "110"), ("m2", "000", "111")):
        inst.answer(a, item, en, lang="en")
        inst.answer(a, item, ko, lang="ko")
    langs = inst.score()["languages"]
    # en avg@3 = (1 + 2/3 + 0)/3 = 5/9; ko = (1/3 + 2/3 + 1)/3 = 2/3; ko − en = 1/9
    assert value(langs, a, "en") == pytest.approx(5 / 9)
    assert value(langs, a, "ko") == pytest.approx(2 / 3)
    assert value(langs, a, "ko_minus_en") == pytest.approx(1 / 9)


def test_msc_subfields_need_twenty_items():
    inst = Instance("soohak")
    for i in range(20):
        inst.item(f"nt{i}", "mini", msc="11")
    for i in range(3):
        inst.item(f"co{i}", "challenge", msc="05")
    a = inst.sub("acme/a")
    for i in range(20):
        inst.answer(a, f"nt{i}", "111" if i < 5 else "000")
    for i in range(3):
        inst.answer(a, f"co{i}", "111")
    msc = inst.score()["msc"]
    names = [m.name for m in msc.metrics]
    assert names == ["avg@3", "msc=11"]  # MSC 05 has 3 < 20 items (Table 7 threshold)
    assert value(msc, a, "msc=11") == pytest.approx(5 / 20)
    # the overall column counts every item; what overall − msc=11 would reveal about the 3
    # items in no column is the disclosure audit's to protect under embargo (test_disclosure)
    assert value(msc, a, "avg@3") == pytest.approx(8 / 23)
    assert row(msc, a).metrics["avg@3"].n == 23
    assert any("05 (3)" in note for note in msc.notes)
    assert any("3 item(s) count in the overall column but in no column shown" in note for note in msc.notes)


def test_two_untyped_items_join_the_smallest_problem_type_under_embargo():
    # SOOHAK's demo: two Mini items lack a problem type. The Mini board and the overall
    # column publish all 28 items, the four types 26: their difference would be the two
    # untyped items. The audit used to withhold the smallest type ("beyond") on every row to
    # protect them (issue 23); under embargo the two items now count in that column,
    # labelled, so beyond + untyped (7 ≥ 5 items) is published and nothing is withheld.
    inst = Instance("soohak")
    sizes = {"olympiad": 6, "undergrad": 7, "graduate": 8, "beyond": 5}
    for t, n in sizes.items():
        for i in range(n):
            inst.item(f"{t}{i}", "mini", problem_type=t)
    inst.item("untyped0", "mini")
    inst.item("untyped1", "mini")
    a = inst.sub("acme/a")
    for it in inst.items:
        inst.answer(a, it["item"], "111" if it["item"].startswith(("beyond", "untyped")) else "011" if it["item"] == "olympiad0" else "000")
    boards = inst.score(embargoed=True)
    board = boards["problem-type"]
    cells = row(board, a).metrics
    # beyond (5 items, all right) + untyped (2 items, all right): 21 of 21 samples
    assert (cells["problem_type=beyond"].value, cells["problem_type=beyond"].n) == (pytest.approx(1.0), 7)
    assert next(m.title for m in board.metrics if m.name == "problem_type=beyond").endswith("(+2 other items)")
    assert any("the 2 item(s) in no group shown count in the column" in note for note in board.notes)
    assert not any(c.suppressed for c in cells.values()) and board.withheld == {"disclosure": 0, "ladder": 0}
    # the other columns are exactly what they are outside the embargo
    assert cells["problem_type=olympiad"].value == pytest.approx(2 / 18) and cells["problem_type=olympiad"].n == 6
    # overall rests on all 28 Mini items: 7 solved on every sample, olympiad0 on two
    assert (cells["avg@3"].value, cells["avg@3"].n) == (pytest.approx(23 / 84), 28)
    assert value(boards["mini"], a, "avg@3") == pytest.approx(23 / 84)
    # outside the embargo nothing is merged: beyond is its own 5 items
    open_ = inst.score(embargoed=False)["problem-type"]
    assert (row(open_, a).metrics["problem_type=beyond"].n, open_.withheld) == (5, None)
    assert any("2 item(s) count in the overall column but in no column shown" in note for note in open_.notes)


def test_problem_types_in_declared_order():
    inst = Instance("soohak")
    for t in ("beyond", "olympiad", "graduate", "undergrad"):
        inst.item(t, "mini", problem_type=t)
    a = inst.sub("acme/a")
    for t, p in (("beyond", "000"), ("olympiad", "111"), ("graduate", "100"), ("undergrad", "110")):
        inst.answer(a, t, p)
    board = inst.score()["problem-type"]
    assert [m.name for m in board.metrics] == [
        "avg@3", "problem_type=olympiad", "problem_type=undergrad", "problem_type=graduate", "problem_type=beyond",
    ]  # fmt: skip
    assert value(board, a, "problem_type=undergrad") == pytest.approx(2 / 3)


def test_min_group_items_comes_from_config():
    spec = spec_with("soohak")
    msc = next(b for b in spec.boards if b.id == "msc")
    assert msc.params.min_group_items == 20


def test_human_teams_are_reference_rows_on_the_79_item_set_only():
    # §3.4.6: five teams on 79 items (49 Mini + 30 Challenge), pass@1; Team B solved 30.
    inst = Instance("soohak")
    for i in range(49):
        inst.item(f"m{i:02d}", "mini", subset="human-79")
    for i in range(30):
        inst.item(f"c{i:02d}", "challenge", subset="human-79")
    inst.item("m99", "mini")  # not in the human set
    a = inst.sub("acme/a")
    for i, it in enumerate(inst.items):
        inst.answer(a, it["item"], "100" if i < 40 else "000")  # 40 items with 1 of 3 right
    boards = inst.score()
    human = boards["human-set"]
    # unbiased pass@1 from 3 samples = c/3 per item: the first 40 of the 79 set items have
    # 1/3, the rest 0 → (40/3)/79 = 40/237
    assert value(human, a, "pass@1") == pytest.approx(40 / 237) and cell(human, a, "pass@1").n == 79
    refs = {r.id: r.metrics["pass@1"] for r in human.reference_rows}
    assert refs["human-team-b"].value == pytest.approx(30 / 79) and refs["human-team-b"].n == 79
    assert refs["human-combined"].value == pytest.approx(40 / 79)
    assert len(refs) == 6
    assert all(not b.reference_rows for name, b in boards.items() if name != "human-set")
