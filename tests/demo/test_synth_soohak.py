"""Synthetic SOOHAK data reproduces the seed paper's printed figures.

Metric definitions, quoted from seed 000 (Section 3.4.5 / Section 4):
  avg@3  = 1/N Σ_i (1/3 Σ_j c_ij)
  pass@3 = 1/N Σ_i I[max_j c_ij = 1]
Composites (Appendix D.4), on pass@3:
  Capability = (Mini + Challenge)/2, Avg-R = (Mini + Challenge + Refusal)/3.
Every figure below is recomputed here from the result rows, never from the generator's
internal counts.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from fractions import Fraction

import orjson
import pytest

from builder.demo import synth_soohak

pytestmark = pytest.mark.slow  # generates the SOOHAK demo data twice

SEED = 0
SPLITS = ("mini", "challenge", "refusal")


@pytest.fixture(scope="module")
def synth():
    return synth_soohak.generate(SEED)


@pytest.fixture(scope="module")
def items(synth):
    return {it["id"]: it for it in synth.items}


@pytest.fixture(scope="module")
def english(synth):
    """submission key -> item -> list of lab verdicts over the three English samples."""
    out = {}
    for sub in synth.submissions:
        per = defaultdict(list)
        for r in sub.results:
            if r["lang"] == "en":
                per[r["item"]].append(r["correct"])
        out[sub.key] = per
    return out


def avg_at_3(per: dict, ids) -> float:
    return 100 * sum(sum(per[i]) / 3 for i in ids) / len(ids)


def pass_at_3(per: dict, ids) -> float:
    return 100 * sum(any(per[i]) for i in ids) / len(ids)


def digest(synth) -> str:
    h = hashlib.sha256(orjson.dumps(synth.items))
    for sub in synth.submissions:
        h.update(orjson.dumps([sub.key, sub.model, sub.config, sub.results]))
    return h.hexdigest()


def test_same_seed_same_data_other_seed_other_data(synth):
    assert digest(synth_soohak.generate(SEED)) == digest(synth)
    assert digest(synth_soohak.generate(SEED + 1)) != digest(synth)


def test_split_subject_and_type_counts(synth):
    splits = Counter(it["split"] for it in synth.items)
    assert splits == {"mini": 702, "challenge": 340, "refusal": 99}
    areas = Counter(it["category"] for it in synth.items)
    assert areas == {"Algebra & Discrete": 680, "Analysis": 233, "Geometry & Topology": 175, "Applied/CS/OR": 27, "Probability & Statistics": 25, "Logic": 1}
    msc = Counter(it["msc"] for it in synth.items)
    for code, n in {"11": 269, "05": 131, "26": 115, "51": 95, "16": 24, "52": 30, "40": 36, "60": 24, "15": 33}.items():
        assert msc[code] == n
    assert all(len(code) == 2 and code.isdigit() for code in msc)
    mini_types = Counter(it.get("problem_type") for it in synth.items if it["split"] == "mini")
    assert mini_types == {"olympiad": 401, "undergrad": 218, "graduate": 63, "beyond": 18, None: 2}
    chal_types = Counter(it.get("problem_type") for it in synth.items if it["split"] == "challenge")
    assert chal_types["olympiad"] == 77 and chal_types["undergrad"] == 69
    for key, n in synth.targets.items():
        if key[0] == "@dataset" and key[1] in SPLITS:
            assert splits[key[1]] == n


def test_items_are_bilingual_with_unique_canaries(synth):
    canaries = [it["canary"] for it in synth.items]
    assert len(set(canaries)) == len(canaries)
    assert len({it["id"] for it in synth.items}) == len(synth.items)
    for it in synth.items:
        assert it["canary"].startswith("SEALBOARD-CANARY-soohak-")
        assert set(it["question"]) == {"en", "ko"} == set(it["answer"])
        for text in it["question"].values():
            assert it["canary"] in text
        assert "[synthetic]" in it["question"]["en"] and "[합성 문항]" in it["question"]["ko"]
        if it["split"] == "refusal":
            assert it["answer_type"] == "ill_posed"
        else:
            assert it["answer_type"] in ("integer", "fraction")
            if it["answer_type"] == "integer":
                int(it["answer"]["en"])


def test_every_submission_answers_every_item_three_times_in_both_languages(synth, items):
    for sub in synth.submissions:
        grid = Counter((r["item"], r["lang"]) for r in sub.results)
        assert set(grid) == {(i, lang) for i in items for lang in ("en", "ko")}
        assert set(grid.values()) == {3}
        assert {r["sample"] for r in sub.results} == {0, 1, 2}


def test_json_serialisable(synth):
    orjson.dumps(synth.items)
    for sub in synth.submissions:
        orjson.dumps({"model": sub.model, "config": sub.config, "harness": sub.harness, "judge": sub.judge, "results": sub.results})


def test_split_figures_of_tables_2_5_6(synth, items, english):
    ids = {s: [i for i, it in items.items() if it["split"] == s] for s in SPLITS}
    checked = 0
    for (subject, board, metric), value in synth.targets.items():
        if board in SPLITS and metric in ("avg@3", "pass@3"):
            per = english[subject]
            got = avg_at_3(per, ids[board]) if metric == "avg@3" else pass_at_3(per, ids[board])
            assert abs(got - value) <= 0.5, (subject, board, metric, got, value)
            checked += 1
    assert checked == 20 * 3 * 2
    # a few printed figures, spelled out
    gpt5 = english["lab-gpt/gpt-5-medium"]
    assert round(avg_at_3(gpt5, ids["mini"]), 2) == 72.22
    assert round(pass_at_3(english["lab-glm/glm-5"], ids["refusal"]), 2) == 73.74
    assert round(avg_at_3(english["lab-gemini/gemini-3-pro"], ids["challenge"]), 2) == 30.39


def test_table_7_subfield_leaders(synth, items, english):
    boards = [(k, v) for k, v in synth.targets.items() if k[1].startswith("msc:") and not k[0].startswith("@")]
    assert len(boards) == 9
    for (subject, board, _), value in boards:
        ids = [i for i, it in items.items() if it["msc"] == board[4:]]
        assert all(items[i]["split"] in ("mini", "challenge") for i in ids)  # a Mini + Challenge board
        scores = {key: avg_at_3(per, ids) for key, per in english.items()}
        assert abs(scores[subject] - value) <= 0.5, (subject, board, scores[subject], value)
        assert max(scores, key=scores.get) == subject
        assert sorted(scores.values())[-2] < scores[subject]


def test_figure_4_composite_rank_shifts(synth, items, english):
    panel = [k for (k, b, m) in synth.targets if b == "composite" and m == "capability_rank"]
    assert len(panel) == 11
    ids = {s: [i for i, it in items.items() if it["split"] == s] for s in SPLITS}
    p = {k: {s: pass_at_3(english[k], ids[s]) for s in SPLITS} for k in panel}
    cap = {k: (v["mini"] + v["challenge"]) / 2 for k, v in p.items()}
    avg_r = {k: (v["mini"] + v["challenge"] + v["refusal"]) / 3 for k, v in p.items()}
    rank = lambda d: {k: r + 1 for r, k in enumerate(sorted(d, key=d.get, reverse=True))}  # noqa: E731
    rc, ra = rank(cap), rank(avg_r)
    for k in panel:
        assert rc[k] == synth.targets[(k, "composite", "capability_rank")]
        assert ra[k] == synth.targets[(k, "composite", "avg_r_rank")]
    assert rc["lab-gemini/gemini-3-pro"] == 1 and rc["lab-gpt/gpt-5-medium"] == 2
    assert ra["lab-gpt/gpt-5-medium"] == 1
    assert rc["lab-glm/glm-5"] - ra["lab-glm/glm-5"] == 3  # GLM-5 rises three ranks
    assert ra["lab-kimi/kimi-2-5"] - rc["lab-kimi/kimi-2-5"] == 3  # Kimi-2.5 drops three
    # The same shifts hold when every run without test-time scaling is ranked (the Qwen3
    # size sweep joins the panel); with the Table 6 TTS runs too, GLM-5 rises five.
    no_tts = [s.key for s in synth.submissions if not s.config["tts"]]
    p = {k: {s: pass_at_3(english[k], ids[s]) for s in SPLITS} for k in no_tts}
    rc = rank({k: (v["mini"] + v["challenge"]) / 2 for k, v in p.items()})
    ra = rank({k: (v["mini"] + v["challenge"] + v["refusal"]) / 3 for k, v in p.items()})
    assert rc["lab-glm/glm-5"] - ra["lab-glm/glm-5"] == 3 and ra["lab-kimi/kimi-2-5"] - rc["lab-kimi/kimi-2-5"] == 3
    assert ra["lab-gpt/gpt-5-medium"] == 1 and rc["lab-gemini/gemini-3-pro"] == 1


def test_124_challenge_items_unsolved_by_the_default_panel(synth, items, english):
    panel = [k for (k, b, m) in synth.targets if b == "composite" and m == "capability_rank"]
    chal = [i for i, it in items.items() if it["split"] == "challenge"]
    unsolved = [i for i in chal if not any(any(english[k][i]) for k in panel)]
    assert len(unsolved) == synth.targets[("@table2-panel", "challenge", "unsolved_items")] == 124
    assert not any(any(per[i]) for per in english.values() for i in unsolved)  # nor by anyone else


def test_lab_grading_disagrees_with_exact_match_only_where_planted(synth, items):
    for sub in synth.submissions:
        disagreements = 0
        for r in sub.results:
            it = items[r["item"]]
            gold = it["answer"][r["lang"]]
            if it["answer_type"] == "integer":
                disagreements += r["correct"] != (r["answer"] == gold)
            elif it["answer_type"] == "fraction":
                assert r["correct"] == (r["answer"] is not None and Fraction(r["answer"]) == Fraction(gold))
        assert disagreements == synth.targets[(sub.key, "grading", "lab_disagreements")], sub.key
    assert sum(v for (k, b, m), v in synth.targets.items() if m == "lab_disagreements") == 6


def test_refusal_and_truncation_semantics(synth, items):
    false_refusals = 0
    for sub in synth.submissions:
        budget = sub.config["max_output_tokens"]
        for r in sub.results:
            it = items[r["item"]]
            if it["split"] == "refusal" and r["correct"]:
                assert r["refused"] and r["answer"] is None
            if it["split"] != "refusal" and r["refused"]:
                assert not r["correct"] and r["answer"] is None
                false_refusals += 1
            assert 0 < r["output_tokens"] <= budget
            if r["output_tokens"] == budget:
                assert r["answer"] is None and not r["correct"]
    assert false_refusals > 0


def test_korean_scores_are_slightly_lower(synth, items):
    for sub in synth.submissions:
        by_lang = defaultdict(list)
        for r in sub.results:
            if items[r["item"]]["split"] == "mini":
                by_lang[r["lang"]].append(r["correct"])
        en, ko = (100 * sum(by_lang[x]) / len(by_lang[x]) for x in ("en", "ko"))
        assert en - 8 < ko < en, sub.key


def test_costs_reported_all_or_nothing(synth):
    for sub in synth.submissions:
        has = {("cost_usd" in r) for r in sub.results}
        assert len(has) == 1
        assert has == {not sub.model["open_weights"] or sub.submission.startswith(("kimi", "glm", "gpt-oss", "qwen3-235b"))}
