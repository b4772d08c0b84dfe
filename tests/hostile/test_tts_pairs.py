"""TTS pairs never cross labs: `model.family` is free text, so another lab can claim any
family. A fake "TTS off" baseline in acme's family must not move acme's gains, DRG or
profile (KCSAT-ML §3.2, §4.7), whatever its budget or tokens."""

from __future__ import annotations

import pytest

from tests.scoring.frames import Instance, row


def _kcsat(with_intruder: bool) -> tuple[dict, str, str]:
    inst = Instance("kcsat-ml")
    easy = [inst.item(f"e{i}", split="core", answer_type="integer", gold="1", year=2020, points=4, cohort_error_rate=0.2) for i in range(4)]
    hard = [inst.item(f"h{i}", split="core", answer_type="integer", gold="1", year=2020, points=4, cohort_error_rate=0.9) for i in range(4)]
    off = inst.sub("acme/off", family="fam", tts=False)
    on = inst.sub("acme/on", family="fam", tts=True)
    for item, p in zip(easy + hard, "11000000"):
        inst.answer(off, item, p, budget=4096)
    for item, p in zip(easy + hard, "11001110"):
        inst.answer(on, item, p, budget=8192)
    if with_intruder:
        # Same family, TTS off, the lowest budget (it would sort first as the baseline),
        # every answer right: paired with acme's run it would flip DRG and the gain.
        evil = inst.sub("mallory/fake-off", family="fam", tts=False)
        for item in easy + hard:
            inst.answer(evil, item, "1", budget=0)
        on_evil = inst.sub("mallory/fake-on", family="fam", tts=True)
        for item in easy + hard:
            inst.answer(on_evil, item, "0", budget=1)
    return inst.score(), off, on


@pytest.mark.parametrize(
    "board,metrics", [("drg", ["drg", "scf_easy_off", "scf_hard_off", "scf_easy_on", "scf_hard_on"]), ("tts", ["gain"])]
)
def test_another_labs_fake_baseline_cannot_move_a_labs_pairs(board, metrics):
    clean, off, on = _kcsat(with_intruder=False)
    attacked, _, _ = _kcsat(with_intruder=True)
    before, after = row(clean[board], on), row(attacked[board], on)
    assert after.extra["baseline"] == off == before.extra["baseline"]
    for m in metrics:
        assert after.metrics[m].value == pytest.approx(before.metrics[m].value), m
    assert after.extra.get("profile") == before.extra.get("profile")
    # The intruder pairs only with itself: its own lab's runs.
    mallory = [r for r in attacked[board].rows if r.submission.startswith("mallory/")]
    assert all(r.extra["baseline"] == "mallory/fake-off" for r in mallory)


def test_drg_by_hand_is_unchanged_by_the_intruder():
    attacked, _, on = _kcsat(with_intruder=True)
    # SCF_E^off = 2/4, SCF_H^off = 4/4, SCF_E^on = 2/4, SCF_H^on = 1/4: DRG = 0.75 − 0 = +0.75.
    assert row(attacked["drg"], on).metrics["drg"].value == pytest.approx(0.75)
    assert row(attacked["drg"], on).extra["profile"] == "HIGH"
