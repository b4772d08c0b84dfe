"""Synthetic LiveMathematicianBench reproduces the seed paper's abstract.

Quoted from seed 001 (Abstract): "the best-performing model, Gemini-3.1-pro-preview,
achieves only 43.5% accuracy in the standard setting. Under substitution-resistant
evaluation, accuracy drops sharply across all models: GPT-5.4 achieves the highest score
at 30.6%, while Gemini-3.1-pro-preview falls to 17.6%, below the 20% random baseline. A
dual-mode protocol comparing performance with and without proof-sketch access reveals
that sketches yield consistent gains (e.g., +13.6 pp for Gemini-3.1-pro-preview)".
Accuracy = correct answers / items, one sample per item and cell.
"""

from __future__ import annotations

import calendar
import hashlib
from collections import Counter, defaultdict

import orjson
import pytest

from builder.demo import synth_lmb

SEED = 0
GEMINI = "lab-gemini/gemini-3-1-pro-preview"
GPT54 = "lab-gpt/gpt-5-4"


@pytest.fixture(scope="module")
def synth():
    return synth_lmb.generate(SEED)


@pytest.fixture(scope="module")
def items(synth):
    return {it["id"]: it for it in synth.items}


def board(row: dict) -> str:
    return row["variant"] + ("+sketch" if row["sketch"] else "")


@pytest.fixture(scope="module")
def accuracy(synth):
    out = {}
    for sub in synth.submissions:
        cells = defaultdict(list)
        for r in sub.results:
            cells[board(r)].append(r["correct"])
        out[sub.key] = {b: 100 * sum(v) / len(v) for b, v in cells.items()}
    return out


def digest(synth) -> str:
    h = hashlib.sha256(orjson.dumps(synth.items))
    for sub in synth.submissions:
        h.update(orjson.dumps([sub.key, sub.model, sub.config, sub.results]))
    return h.hexdigest()


def test_deterministic(synth):
    assert digest(synth_lmb.generate(SEED)) == digest(synth)
    assert digest(synth_lmb.generate(SEED + 1)) != digest(synth)


def test_monthly_editions_of_five_option_items(synth):
    editions = Counter(it["edition"] for it in synth.items)
    assert len(editions) >= 4 and sum(editions.values()) == len(synth.items) == 360
    for (subject, b, _), n in synth.targets.items():
        if subject == "@dataset":
            assert editions[b.split(":", 1)[1]] == n
    for it in synth.items:
        year, month = map(int, it["edition"].split("-"))
        assert it["published"].startswith(it["edition"] + "-")
        assert 1 <= int(it["published"][-2:]) <= calendar.monthrange(year, month)[1]
        assert it["answer_type"] == "choice" and it["answer"] == {"en": it["answer"]["en"]} and it["answer"]["en"] in "ABCDE"
        text = it["question"]["en"]
        assert all(f"({x})" in text for x in "ABCDE")
        assert it["canary"] in text and it["canary"].startswith("SEALBOARD-CANARY-livemathematicianbench-")
    assert len({it["canary"] for it in synth.items}) == 360
    assert len({it["category"] for it in synth.items}) == 13


def test_every_item_in_all_four_cells_once(synth, items):
    for sub in synth.submissions:
        grid = Counter((r["item"], r["variant"], r["sketch"]) for r in sub.results)
        assert set(grid) == {(i, v, s) for i in items for v in ("standard", "substitution") for s in (False, True)}
        assert set(grid.values()) == {1}
        assert {r["lang"] for r in sub.results} == {"en"} and {r["sample"] for r in sub.results} == {0}
        for r in sub.results:
            assert r["correct"] == (r["answer"] == items[r["item"]]["answer"]["en"])


def test_json_serialisable(synth):
    orjson.dumps(synth.items)
    for sub in synth.submissions:
        orjson.dumps({"model": sub.model, "config": sub.config, "results": sub.results})


def test_abstract_figures(synth, accuracy):
    for (subject, b, metric), value in synth.targets.items():
        if metric == "accuracy":
            assert abs(accuracy[subject][b] - value) <= 0.5, (subject, b)
    assert abs(accuracy[GEMINI]["standard"] - 43.5) <= 0.5
    assert abs(accuracy[GPT54]["substitution"] - 30.6) <= 0.5
    assert abs(accuracy[GEMINI]["substitution"] - 17.6) <= 0.5 and accuracy[GEMINI]["substitution"] < 20
    gain = accuracy[GEMINI]["standard+sketch"] - accuracy[GEMINI]["standard"]
    assert abs(gain - synth.targets[(GEMINI, "sketch-gain:standard", "pp")]) <= 0.5


def test_orderings_the_abstract_states(accuracy):
    assert max(accuracy, key=lambda k: accuracy[k]["standard"]) == GEMINI
    assert max(accuracy, key=lambda k: accuracy[k]["substitution"]) == GPT54
    for cells in accuracy.values():
        assert cells["substitution"] < cells["standard"]
        assert cells["standard+sketch"] > cells["standard"]
        assert cells["substitution+sketch"] > cells["substitution"]


def test_training_cutoffs_make_contamination_filtering_matter(synth, items):
    cutoffs = {sub.key: sub.model["training_cutoff"] for sub in synth.submissions}
    first = min(it["published"] for it in synth.items)
    last = max(it["published"] for it in synth.items)
    assert None in cutoffs.values()  # a model with no declared cutoff
    inside = [k for k, c in cutoffs.items() if c and first <= c < last]
    assert len(inside) >= 2
    for sub in synth.submissions:
        cut = cutoffs[sub.key]
        if sub.key in inside:
            pre = [r["correct"] for r in sub.results if board(r) == "standard" and items[r["item"]]["published"] <= cut]
            post = [r["correct"] for r in sub.results if board(r) == "standard" and items[r["item"]]["published"] > cut]
            assert 100 * sum(pre) / len(pre) > 100 * sum(post) / len(post) + 10
        elif cut:
            assert cut < first  # the abstract's models: every item is after their cutoff
