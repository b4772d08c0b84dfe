"""Embargo suppression: cells over fewer than min_cell_items items (k = 5) are withheld,
with n withheld too and `suppressed: true`; so is any cell that would reveal one by subtraction."""

from __future__ import annotations

import pytest

from .frames import Instance, cell, row


def _soohak(n_mini: int, n_challenge: int) -> Instance:
    inst = Instance("soohak")
    for i in range(n_mini):
        inst.item(f"m{i}", "mini", problem_type="olympiad" if i < 12 else "undergrad" if i < 22 else "graduate")
    for i in range(n_challenge):
        inst.item(f"c{i}", "challenge", problem_type="beyond")
    a = inst.sub("acme/a")
    for i in range(n_mini):
        inst.answer(a, f"m{i}", "110")
    for i in range(n_challenge):
        inst.answer(a, f"c{i}", "100")
    return inst


def test_small_cells_are_withheld_under_embargo_only():
    inst = _soohak(n_mini=6, n_challenge=4)
    open_ = inst.score(embargoed=False)
    sealed = inst.score(embargoed=True)
    c = cell(sealed["challenge"], "acme/a", "avg@3")
    assert (c.value, c.ci_low, c.ci_high, c.n, c.suppressed) == (None, None, None, None, True)
    assert c.to_dict() == {"value": None, "ci_low": None, "ci_high": None, "n": None, "suppressed": True}
    assert cell(open_["challenge"], "acme/a", "avg@3").value == pytest.approx(1 / 3)
    assert cell(sealed["mini"], "acme/a", "pass@3").value == pytest.approx(1.0)  # 6 items ≥ 5
    # avg@3 on Mini (6 items) is withheld too, jointly: the MSC and problem-type boards
    # publish avg@3 over all 10 items, and 10 − 6 would give the 4 Challenge items.
    assert cell(sealed["mini"], "acme/a", "avg@3").suppressed
    assert cell(sealed["msc"], "acme/a", "avg@3").value == pytest.approx(16 / 30)
    assert row(sealed["challenge"], "acme/a").rank is None  # a withheld value is not ranked


def test_composites_of_withheld_cells_are_withheld():
    inst = _soohak(n_mini=6, n_challenge=4)
    comp = inst.score(embargoed=True)["composite"]
    assert cell(comp, "acme/a", "capability").suppressed  # uses Challenge (4 items)


def test_breakdown_complementary_suppression():
    # Mini + Challenge by problem type: olympiad 12, undergrad 10, graduate 8, beyond 3.
    inst = _soohak(n_mini=30, n_challenge=3)
    pt = inst.score(embargoed=True)["problem-type"]
    a = "acme/a"
    assert cell(pt, a, "problem_type=beyond").suppressed  # 3 < 5: withheld
    # overall − (olympiad + undergrad + graduate) would reveal beyond, so the smallest
    # shown group (graduate, 8 items) is withheld too; the others stay.
    assert cell(pt, a, "problem_type=graduate").suppressed
    assert not cell(pt, a, "problem_type=olympiad").suppressed
    assert not cell(pt, a, "problem_type=undergrad").suppressed
    assert cell(pt, a, "avg@3").value is not None
    # not embargoed: everything shown
    pt_open = inst.score(embargoed=False)["problem-type"]
    assert cell(pt_open, a, "problem_type=beyond").value == pytest.approx(1 / 3)


def test_contamination_twin_difference_is_protected():
    inst = Instance("livemathematicianbench")
    for i in range(20):
        inst.item(f"p{i}", answer_type="choice", gold="A", published=f"2025-0{1 if i < 2 else 6}-10", edition="e", category="c")
    a = inst.sub("acme/a", training_cutoff="2025-03")  # 2 items before the cutoff
    b = inst.sub("beta/b", training_cutoff="2024-01")  # none before
    for sub in (a, b):
        for i in range(20):
            inst.answer(sub, f"p{i}", "1" if i % 3 else "0", variant="standard", sketch=False)
    boards = inst.score(embargoed=True)
    # all (20 items) − post (18 items) would reveal 2 items: the post cell is withheld
    assert cell(boards["overall"], a, "accuracy").suppressed
    assert cell(boards["overall-all"], a, "accuracy").value is not None
    assert cell(boards["overall"], b, "accuracy").value is not None


def test_grading_counts_are_not_suppressed_by_rates_below_k():
    inst = _soohak(n_mini=6, n_challenge=0)
    grading = inst.score(embargoed=True)["grading"]
    assert cell(grading, "acme/a", "regraded_samples").value == 18
