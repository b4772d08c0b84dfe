"""score_benchmark end to end: every preset on a synthetic instance, and edge cases."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from builder.scoring import ScoringInputError, default_spec, score_benchmark

from .frames import Instance, cell

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_scoring.py"


def _synth():
    spec = importlib.util.spec_from_file_location("bench_scoring", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SYNTH


@pytest.mark.parametrize("name", ["soohak", "livemathematicianbench", "kcsat-ml"])
@pytest.mark.parametrize("embargoed", [False, True])
def test_every_board_of_every_preset_is_strict_json(name, embargoed):
    items, results, subs = _synth()[name](np.random.default_rng(0), 12)
    spec = default_spec(name)
    tables = score_benchmark(spec, items, results, subs, embargoed=embargoed)
    assert [t.board for t in tables] == spec.board_ids()
    for t in tables:
        text = json.dumps(t.to_dict(), allow_nan=False)
        assert json.loads(text)["board"] == t.board
        assert all(len(r) == len(t.csv_columns()) for r in t.to_csv_rows())
        for r in t.rows:
            assert set(r.metrics) == {m.name for m in t.metrics}
            if r.rank_range is not None:
                assert r.rank_range[0] <= r.rank <= r.rank_range[1]


def test_a_submission_without_results_is_listed_unranked():
    inst = Instance("soohak")
    for i in range(6):
        inst.item(f"m{i}", "mini")
    a, b = inst.sub("acme/a"), inst.sub("beta/idle")
    for i in range(6):
        inst.answer(a, f"m{i}", "111")
    mini = inst.score()["mini"]
    assert [r.submission for r in mini.rows] == [a, b]
    assert cell(mini, b, "avg@3").flag == "not-evaluated" and mini.rows[1].rank is None


def test_no_submissions_at_all():
    inst = Instance("kcsat-ml")
    inst.item("k0", gold="1", cohort_error_rate=0.5, year=2020, points=3)
    items, _, _ = inst.frames()
    results = pd.DataFrame(columns=["submission", "item", "lang", "sample", "answer", "lab_correct", "refused", "budget"])
    subs = pd.DataFrame(columns=["submission", "lab", "model", "family", "tts"])
    tables = score_benchmark(inst.spec, items, results, subs, embargoed=True)
    assert all(not t.rows for t in tables)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda i, r, s: (i, r.assign(item="nope"), s), "name items not in the dataset"),
        (lambda i, r, s: (i, r.assign(submission="x/y"), s), "not in the submissions frame"),
        (lambda i, r, s: (i, r.assign(lang="fr"), s), "not declared in languages"),
        (lambda i, r, s: (i.assign(split="Mini"), r, s), "outside mini, challenge, refusal"),
        (lambda i, r, s: (i, r.drop(columns=["refused"]), s), r"lacks column\(s\) refused"),
        (lambda i, r, s: (pd.concat([i, i]), r, s), "appears twice"),
    ],
)
def test_frames_that_contradict_the_spec_are_refused(mutate, message):
    inst = Instance("soohak")
    inst.item("m0", "mini")
    a = inst.sub("acme/a")
    inst.answer(a, "m0", "111")
    items, results, subs = mutate(*inst.frames())
    with pytest.raises(ScoringInputError, match=message) as exc:
        score_benchmark(inst.spec, items, results, subs, embargoed=False)
    assert exc.value.reason == "scoring-input"


def test_lab_correct_may_arrive_as_correct():
    # builder.bundles.results names the lab's verdict `correct`; ARCHITECTURE.md calls it lab_correct.
    inst = Instance("soohak")
    inst.item("m0", "mini", "expression", gold="x")
    a = inst.sub("acme/a")
    inst.answer(a, "m0", "110")
    items, results, subs = inst.frames()
    tables = score_benchmark(inst.spec, items, results.rename(columns={"lab_correct": "correct"}), subs, embargoed=False)
    mini = next(t for t in tables if t.board == "mini")
    assert mini.rows[0].metrics["avg@3"].value == pytest.approx(2 / 3)
