"""Synthetic SOOHAK (seed paper 000): 702 Mini, 340 Challenge, 99 Refusal items, en+ko.

Every submission answers every item three times in English and three times in Korean
(``sample`` 0–2 per language). English correctness reproduces the paper exactly:

- ``(sub, split, "avg@3" | "pass@3")`` — Table 2 / Section 5 text, Tables 5–6; chosen
  values (source ``chosen``) where the paper prints none;
- ``(sub, "msc:<code>", "avg@3")`` — Table 7 subfield leaders, avg@3 over every item of
  that MSC code (all in Mini + Challenge: no Refusal item carries a Table 7 subject), and
  the leader is strictly first on that board;
- ``(sub, "composite", "capability_rank" | "avg_r_rank")`` — Figure 4 among the eleven
  default-configuration systems, composites on pass@3 (Appendix D.4);
- ``("@table2-panel", "challenge", "unsolved_items")`` — 124 Challenge items no default
  system solves in any English sample (Section 5); no other submission solves them either,
  so a board counting items unsolved by every submission also shows 124;
- ``(sub, "grading", "lab_disagreements")`` — English integer-answer samples whose lab
  verdict differs from exact comparison with the gold answer (deliberate judge errors,
  in pairs that leave every rate unchanged whichever grading is used);
- ``("@dataset", ...)`` — split, subject (Table 1) and problem-type (Appendix B.6) counts.

Korean scores are slightly lower (the paper prints none). Refusal items: a correct
sample refuses (``refused`` true, ``answer`` null); wrong ones answer a number or refuse
without engaging. Well-posed items see a small false-refusal rate, and some wrong samples
run out of tokens (``output_tokens`` = the budget, ``answer`` null).
"""

from __future__ import annotations

import random
from fractions import Fraction

from builder.demo.figures import LABS, SYNTHETIC_NOTE, Synth, SynthSubmission
from builder.demo.synth_common import (
    Guard,
    canaries,
    counts_from_order,
    exact_count,
    fmt_fraction,
    mean_lognormal,
    rng_for,
    shift_group,
    wrong_integer,
)
from builder.demo.synth_soohak_panel import (
    DISAGREEMENT_PAIRS,
    MSC_51_CHOSEN,
    MSC_LEADERS,
    PANEL,
    SPLITS,
    UNSOLVED_CHALLENGE,
    Spec,
)
from builder.demo.synth_soohak_text import AREAS, CHALLENGE_HEAVY, FIXED_SPLITS, MINI_HEAVY, MSC, question_texts

BENCHMARK = "soohak"
VERSION = "1.0"
N_ITEMS = {"mini": 702, "challenge": 340, "refusal": 99}
# Appendix B.6: Mini 401/218/63/18 (these sum to 700 of 702: two Mini items stay
# unlabelled, as in the paper); Challenge 77 olympiad and 69 undergrad as printed, the
# graduate/beyond split and the Refusal labels are our choice.
PROBLEM_TYPES = {
    "mini": {"beyond": 18, "graduate": 63, "undergrad": 218, "olympiad": 401},
    "challenge": {"beyond": 74, "graduate": 120, "undergrad": 69, "olympiad": 77},
    "refusal": {"beyond": 9, "graduate": 22, "undergrad": 30, "olympiad": 38},
}
UNDERGRAD_MSC = {"26", "40", "15", "30", "34", "33", "28", "12", "13", "60", "62", "65"}
MSC_EFFECT = {"16": 1.1, "52": 0.7, "40": -0.8, "11": -0.3, "26": -0.6, "60": 0.2, "05": 0.3}
TYPE_EFFECT = {"olympiad": -0.2, "undergrad": -0.3, "graduate": 0.3, "beyond": 0.6, None: 0.0}
ID_PREFIX = {"mini": "mini", "challenge": "chal", "refusal": "ref"}
TOKEN_SPLIT = {"mini": 1.0, "challenge": 1.6, "refusal": 1.2}
HARNESS = {"name": "soohak-eval (synthetic)", "version": "1.0.0"}
JUDGE = "gpt-5-mini-2025-08-07"


def generate(seed: int = 0) -> Synth:
    meta = _items(seed)
    counts = {spec.sub: _allocate(seed, spec, meta) for spec in PANEL}
    cover = _cover_challenge(seed, counts, meta)
    _fit_subfields(seed, counts, meta, cover)
    flips = _disagreements(seed, counts, meta)
    submissions = [_materialize(seed, spec, counts[spec.sub], meta, flips.get(spec.sub, {})) for spec in PANEL]
    targets, sources = _targets(meta, counts)
    _check(targets, counts, meta)
    return Synth(
        benchmark=BENCHMARK,
        version=VERSION,
        items=[m["item"] for m in meta],
        submissions=submissions,
        targets=targets,
        sources=sources,
    )


# ---- items ---------------------------------------------------------------------------


def _weighted_sample(rng: random.Random, pool: list, weight, k: int) -> list:
    """k of pool without replacement, chance proportional to weight (Efraimidis–Spirakis)."""
    keyed = sorted(pool, key=lambda x: rng.random() ** (1.0 / weight(x)), reverse=True)
    return keyed[:k]


def _items(seed: int) -> list[dict]:
    rng = rng_for(seed, "soohak-items")
    by_split = _splits(rng)
    meta: list[dict] = []
    cans = canaries(rng, BENCHMARK, sum(N_ITEMS.values()))
    for split in SPLITS:
        mscs = by_split[split]
        if len(mscs) != N_ITEMS[split]:
            raise AssertionError()
        rng.shuffle(mscs)
        types = _problem_types(rng, split, mscs)
        for j, msc in enumerate(mscs):
            ptype = types[j]
            meta.append({"split": split, "msc": msc, "ptype": ptype, "d": rng.gauss(0, 1) + MSC_EFFECT.get(msc, 0.0) + TYPE_EFFECT[ptype], "j": j})
    _mark_unsolvable(rng, meta)
    for k, m in enumerate(meta):
        m["item"] = _item(rng, m, cans[k])
    # The human baseline set (§3.4.6): 49 Mini + 30 Challenge items, from a stream of its own
    # so that every other draw stays as it was.
    pick = rng_for(seed, "soohak-human-set")
    for split, count in (("mini", 49), ("challenge", 30)):
        for k in pick.sample([k for k, m in enumerate(meta) if m["split"] == split], count):
            meta[k]["item"]["subset"] = "human-79"
    return meta


def _splits(rng: random.Random) -> dict[str, list[str]]:
    """Each split's subjects (MSC codes): Table 7's fixed counts, the rest drawn."""
    by_split: dict[str, list[str]] = {s: [] for s in SPLITS}
    tail: list[str] = []
    for msc, (_, _, _, total) in MSC.items():
        if msc in FIXED_SPLITS:
            for split, n in zip(SPLITS, FIXED_SPLITS[msc]):
                by_split[split] += [msc] * n
        else:
            tail += [msc] * total
    fixed = {s: len(v) for s, v in by_split.items()}
    idx = list(range(len(tail)))
    refusal = set(_weighted_sample(rng, idx, lambda i: 1.0, N_ITEMS["refusal"] - fixed["refusal"]))
    rest = [i for i in idx if i not in refusal]
    heavy = lambda i: 3.0 if tail[i] in CHALLENGE_HEAVY else 0.4 if tail[i] in MINI_HEAVY else 1.0  # noqa: E731
    challenge = set(_weighted_sample(rng, rest, heavy, N_ITEMS["challenge"] - fixed["challenge"]))
    for i in idx:
        by_split["refusal" if i in refusal else "challenge" if i in challenge else "mini"].append(tail[i])
    return by_split


def _mark_unsolvable(rng: random.Random, meta: list[dict]) -> None:
    """The 124 Challenge items nobody solves: the hardest, give or take, but at most a
    third of a Table 7 subject's Challenge items, so its leader can still reach the
    printed subfield score."""
    chal = [k for k, m in enumerate(meta) if m["split"] == "challenge"]
    room = {msc: FIXED_SPLITS[msc][1] // 3 for msc in MSC_LEADERS}
    unsolvable = 0
    for k in sorted(chal, key=lambda k: meta[k]["d"] + rng.gauss(0, 0.3), reverse=True):
        msc = meta[k]["msc"]
        if unsolvable == UNSOLVED_CHALLENGE or room.get(msc, 1) <= 0:
            continue
        if msc in room:
            room[msc] -= 1
        meta[k]["unsolvable"] = True
        unsolvable += 1


def _item(rng: random.Random, m: dict, canary: str) -> dict:
    """One item's dataset entry (its id, gold and question token counts set on `m`)."""
    m["id"] = f"soohak-{ID_PREFIX[m['split']]}-{m['j'] + 1:04d}"
    _gold(rng, m)
    texts = question_texts(rng, m["msc"], m["split"], canary)
    m["qtok"] = {lang: len(t) // 3 + 180 for lang, t in texts.items()}
    item = {
        "id": m["id"],
        "split": m["split"],
        "question": texts,
        "answer": {"en": m["gold_text"], "ko": m["gold_text"]},
        "answer_type": m["atype"],
        "msc": m["msc"],
        "category": AREAS[MSC[m["msc"]][0]][0],
        "canary": canary,
    }
    if m["ptype"] is not None:
        item["problem_type"] = m["ptype"]
    return item


def _problem_types(rng: random.Random, split: str, mscs: list[str]) -> list[str | None]:
    quotas = PROBLEM_TYPES[split]
    out: list[str | None] = [None] * len(mscs)
    free = list(range(len(mscs)))
    weights = {
        "beyond": lambda i: 4.0 if mscs[i] in CHALLENGE_HEAVY else 1.0,
        "graduate": lambda i: 3.0 if mscs[i] in CHALLENGE_HEAVY or mscs[i] == "16" else 1.0,
        "undergrad": lambda i: 4.0 if mscs[i] in UNDERGRAD_MSC else 1.0,
        "olympiad": lambda i: 1.0,
    }
    for ptype, n in quotas.items():
        chosen = set(_weighted_sample(rng, free, weights[ptype], n))
        for i in chosen:
            out[i] = ptype
        free = [i for i in free if i not in chosen]
    return out  # whatever is left (two Mini items) has no label


def _gold(rng: random.Random, m: dict) -> None:
    if m["split"] == "refusal":
        m.update(atype="ill_posed", gold=None, gold_text="ill-posed")
        return
    if rng.random() < 0.05:
        q = rng.randint(2, 60)
        p = rng.randint(1, 4 * q)
        while Fraction(p, q).denominator == 1:
            p += 1
        f = Fraction(p, q)
        m.update(atype="fraction", gold=f, gold_text=fmt_fraction(f))
        return
    if m["split"] == "mini":
        g = rng.randint(0, 999) if rng.random() < 0.7 else rng.randint(1000, 99999)
    else:
        g = rng.choice((rng.randint(0, 999), rng.randint(1000, 10**6), rng.randint(10**6, 10**10)))
    m.update(atype="integer", gold=g, gold_text=str(g))


# ---- English correctness counts --------------------------------------------------------


def _figure(spec: Spec, split: str) -> tuple[int, int]:
    avg, _, pas, _ = spec.figures[split]
    n = N_ITEMS[split]
    return exact_count(avg, 3 * n, what=f"{spec.sub} {split} avg@3"), exact_count(pas, n, what=f"{spec.sub} {split} pass@3")


def _allocate(seed: int, spec: Spec, meta: list[dict]) -> list[int]:
    counts = [0] * len(meta)
    for split in SPLITS:
        rng = rng_for(seed, "alloc", spec.sub, split)
        total, solved = _figure(spec, split)
        pool = [k for k, m in enumerate(meta) if m["split"] == split and not m.get("unsolvable")]
        score = {k: -meta[k]["d"] + spec.aff.get(meta[k]["msc"], 0.0) + rng.gauss(0, spec.noise) for k in pool}
        order = sorted(pool, key=score.__getitem__, reverse=True)
        top = sorted(order[:solved], key=lambda k: score[k] + rng.gauss(0, 0.5), reverse=True)
        for k, c in counts_from_order(top, solved, total).items():
            counts[k] = c
    return counts


class _Cover(Guard):
    """Keeps the 124 unsolved items at zero and every other Challenge item solved by
    at least one default-panel system."""

    def __init__(self, cover: dict[int, int]):
        self.cover = cover

    def allowed(self, i: int, old: int, new: int) -> bool:
        if i not in self.cover:
            return new == 0
        return not (old > 0 and new == 0 and self.cover[i] <= 1)

    def applied(self, i: int, old: int, new: int) -> None:
        if old > 0 and new == 0:
            self.cover[i] -= 1
        elif old == 0 and new > 0:
            self.cover[i] += 1


class _Forbid(Guard):
    """Keeps the 124 unsolved items at zero for systems outside the default panel."""

    def __init__(self, solvable: dict[int, int]):
        self.solvable = solvable

    def allowed(self, i: int, old: int, new: int) -> bool:
        return i in self.solvable or new == 0


def _guard(spec: Spec, split: str, cover: dict[int, int]) -> Guard:
    if split != "challenge":
        return Guard()
    return _Cover(cover) if spec.default_panel else _Forbid(cover)


def _cover_challenge(seed: int, counts: dict[str, list[int]], meta: list[dict]) -> dict[int, int]:
    """Every solvable Challenge item gets at least one default-panel solver (swapping
    within one system, same subject first, so its rates do not move)."""
    rng = rng_for(seed, "cover")
    panel = [s for s in PANEL if s.default_panel]
    solvable = [k for k, m in enumerate(meta) if m["split"] == "challenge" and not m.get("unsolvable")]
    cover = {k: sum(counts[s.sub][k] > 0 for s in panel) for k in solvable}
    for u in [k for k in solvable if cover[k] == 0]:
        for same_subject in (True, False):
            options = [
                (s, v)
                for s in panel
                for v in solvable
                if counts[s.sub][v] > 0 and cover[v] >= 2 and (not same_subject or meta[v]["msc"] == meta[u]["msc"])
            ]
            if options:
                s, v = rng.choice(options)
                c = counts[s.sub]
                c[u], c[v] = c[v], 0
                cover[u] += 1
                cover[v] -= 1
                break
        else:
            raise RuntimeError(f"cannot cover challenge item {meta[u]['id']}")
    return cover


def _fit_subfields(seed: int, counts: dict[str, list[int]], meta: list[dict], cover: dict[int, int]) -> None:
    """Table 7: give each leader its printed subfield score, then keep everyone else
    strictly below it. Swaps trade counts with items of subjects Table 7 does not
    discuss, within one split, so no split rate and no other subfield target moves."""
    rng = rng_for(seed, "subfields")
    specs = {s.sub: s for s in PANEL}
    partners = {s: [k for k, m in enumerate(meta) if m["split"] == s and m["msc"] not in MSC_LEADERS] for s in SPLITS}

    def move(spec: Spec, msc: str, delta: int) -> None:
        order = ("mini", "challenge", "refusal") if delta > 0 else ("challenge", "mini", "refusal")
        for split in order:
            group = [k for k, m in enumerate(meta) if m["split"] == split and m["msc"] == msc]
            delta = shift_group(counts[spec.sub], group, partners[split], delta, rng, _guard(spec, split, cover))
            if not delta:
                return
        raise RuntimeError(f"cannot fit {spec.sub} on MSC {msc}")

    for msc, (leader, value) in MSC_LEADERS.items():
        group = [k for k, m in enumerate(meta) if m["msc"] == msc]
        want = exact_count(value if value is not None else MSC_51_CHOSEN, 3 * len(group))
        move(specs[leader], msc, want - sum(counts[leader][k] for k in group))
    for msc, (leader, _) in MSC_LEADERS.items():
        group = [k for k, m in enumerate(meta) if m["msc"] == msc]
        lead = sum(counts[leader][k] for k in group)
        for spec in PANEL:
            have = sum(counts[spec.sub][k] for k in group)
            if spec.sub != leader and have >= lead - 1:
                move(spec, msc, (lead - 2 - rng.randint(0, 4)) - have)


def _disagreements(seed: int, counts: dict[str, list[int]], meta: list[dict]) -> dict[str, dict[int, str]]:
    """Pairs of English Mini samples the lab judge got wrong: one correct answer marked
    wrong (item keeps another correct sample) and one wrong answer marked correct (item
    already solved), same subject, so every rate is the same under either grading."""
    rng = rng_for(seed, "disagree")
    out: dict[str, dict[int, str]] = {}
    for sub, pairs in DISAGREEMENT_PAIRS.items():
        c = counts[sub]
        mini = [k for k, m in enumerate(meta) if m["split"] == "mini" and m["atype"] == "integer" and m["msc"] not in MSC_LEADERS]
        marks: dict[int, str] = {}
        by_msc: dict[str, tuple[list[int], list[int]]] = {}
        for k in mini:
            fn, fp = by_msc.setdefault(meta[k]["msc"], ([], []))
            (fn if c[k] >= 2 else fp if c[k] in (1, 2) else []).append(k)
        options = [(msc, fn, fp) for msc, (fn, fp) in sorted(by_msc.items()) if fn and fp]
        for msc, fn, fp in rng.sample(options, pairs):
            marks[rng.choice(fn)] = "false-negative"
            marks[rng.choice(fp)] = "false-positive"
        out[sub] = marks
    return out


# ---- result rows -----------------------------------------------------------------------


def _materialize(seed: int, spec: Spec, counts: list[int], meta: list[dict], marks: dict[int, str]) -> SynthSubmission:
    rng = rng_for(seed, "results", spec.sub)
    budget = spec.config["max_output_tokens"]
    rows: list[dict] = []
    for k, m in enumerate(meta):
        c = counts[k]
        en = [True] * c + [False] * (3 - c)
        rng.shuffle(en)
        ko = [(ok and rng.random() >= spec.ko_drop) or (not ok and c > 0 and rng.random() < 0.03) for ok in en]
        attractor = wrong_integer(m["gold"], rng) if m["atype"] == "integer" else None
        for lang, flags in (("en", en), ("ko", ko)):
            for s, ok in enumerate(flags):
                rows.append(_row(rng, spec, m, lang, s, ok, attractor, budget))
        if k in marks:
            _mark(rng, rows[-6:-3], m, marks[k], budget)
    return SynthSubmission(
        lab=spec.lab,
        lab_name=LABS[spec.lab],
        submission=spec.sub,
        model=dict(spec.model),
        config={**spec.config, "notes": f"{spec.config['notes']} {SYNTHETIC_NOTE}"},
        harness=dict(HARNESS),
        judge=JUDGE,
        results=rows,
    )


def _row(rng: random.Random, spec: Spec, m: dict, lang: str, s: int, ok: bool, attractor, budget: int) -> dict:
    refused = False
    truncated = False
    if m["atype"] == "ill_posed":
        if ok:
            answer, refused = None, True
        elif rng.random() < spec.truncation:
            answer, truncated = None, True
        elif rng.random() < 0.15:  # declines without engaging the mathematics: still wrong
            answer, refused = None, True
        else:
            answer = str(rng.randint(0, 999) if rng.random() < 0.7 else rng.randint(1000, 10**6))
    elif ok:
        if m["atype"] == "fraction" and rng.random() < 0.1:
            f = m["gold"]
            answer = f"{2 * f.numerator}/{2 * f.denominator}"  # equivalent, not reduced
        else:
            answer = m["gold_text"]
    elif rng.random() < spec.truncation:
        answer, truncated = None, True
    elif rng.random() < spec.false_refusal:
        answer, refused = None, True
    elif m["atype"] == "fraction":
        answer = fmt_fraction(m["gold"] * rng.choice((2, 3, Fraction(1, 2), Fraction(3, 2))))
    else:
        answer = str(attractor if rng.random() < 0.6 else wrong_integer(m["gold"], rng))
    mean = spec.tokens * TOKEN_SPLIT[m["split"]] * (1.0 if ok else 1.25) * (1.08 if lang == "ko" else 1.0)
    tokens = budget if truncated else min(budget - 1, max(150, round(mean_lognormal(rng, mean, 0.45))))
    row = {
        "item": m["id"],
        "lang": lang,
        "sample": s,
        "answer": answer,
        "correct": ok,
        "refused": refused,
        "output_tokens": tokens,
        "latency_s": round(tokens / spec.tps * mean_lognormal(rng, 1.0, 0.15) + mean_lognormal(rng, 1.5, 0.5), 2),
    }
    if spec.price is not None:
        row["cost_usd"] = round((m["qtok"][lang] * spec.price[0] + tokens * spec.price[1]) / 1e6, 6)
    return row


def _mark(rng: random.Random, en_rows: list[dict], m: dict, kind: str, budget: int) -> None:
    if kind == "false-negative":
        row = rng.choice([r for r in en_rows if r["correct"]])
        row["correct"] = False
    else:
        row = rng.choice([r for r in en_rows if not r["correct"]])
        # A near-miss the judge accepted (never a truncated or refused sample).
        row.update(correct=True, refused=False, answer=str(m["gold"] + rng.choice((-1, 1))), output_tokens=min(row["output_tokens"], budget - 1))


# ---- targets -------------------------------------------------------------------------


def _targets(meta: list[dict], counts: dict[str, list[int]]):
    targets: dict = {}
    sources: dict = {}
    names = {"T2": "Table 2 (Section 5 text)", "T5": "Table 5 (Appendix D.2)", "T6": "Table 6 (Appendix D.3)", "c": "chosen (not printed; consistent with Section 5 and Figure 4)"}

    def put(key, value, source):
        targets[key] = value
        sources[key] = source

    for spec in PANEL:
        key = f"{spec.lab}/{spec.sub}"
        for split in SPLITS:
            avg, a_src, pas, p_src = spec.figures[split]
            put((key, split, "avg@3"), avg, names[a_src])
            put((key, split, "pass@3"), pas, names[p_src])
        put((key, "grading", "lab_disagreements"), 2 * DISAGREEMENT_PAIRS.get(spec.sub, 0), "chosen (deliberate judge errors for regrading)")
    for msc, (leader, value) in MSC_LEADERS.items():
        spec = next(s for s in PANEL if s.sub == leader)
        src = "Table 7 (Appendix D.5)" if value is not None else "chosen (Table 7 names the leader only)"
        put((f"{spec.lab}/{leader}", f"msc:{msc}", "avg@3"), value if value is not None else MSC_51_CHOSEN, src)
    panel = [s for s in PANEL if s.default_panel]
    cap = {s.sub: (s.figures["mini"][2] + s.figures["challenge"][2]) / 2 for s in panel}
    avg_r = {s.sub: (s.figures["mini"][2] + s.figures["challenge"][2] + s.figures["refusal"][2]) / 3 for s in panel}
    for metric, values in (("capability_rank", cap), ("avg_r_rank", avg_r)):
        ranked = sorted(values, key=values.__getitem__, reverse=True)
        for s in panel:
            put((f"{s.lab}/{s.sub}", "composite", metric), ranked.index(s.sub) + 1, "Figure 4 (Appendix D.4): tops and ±3 shifts printed, other ranks follow from chosen pass@3")
    put(("@table2-panel", "challenge", "unsolved_items"), UNSOLVED_CHALLENGE, "Section 5 / Figure 2 (right)")
    for split, n in N_ITEMS.items():
        put(("@dataset", split, "items"), n, "Section 5 (dataset)")
    for area_id, (area, _) in AREAS.items():
        put(("@dataset", f"category:{area}", "items"), sum(t for a, _, _, t in MSC.values() if a == area_id), "Table 1 (Section 3.5)")
    for msc, n in (("11", 269), ("05", 131), ("26", 115), ("51", 95), ("16", 24), ("52", 30), ("40", 36), ("60", 24), ("15", 33)):
        put(("@dataset", f"msc:{msc}", "items"), n, "Table 1 / Table 7")
    for split, quotas in PROBLEM_TYPES.items():
        for ptype, n in quotas.items():
            src = "Appendix B.6" if split == "mini" or ptype in ("olympiad", "undergrad") and split == "challenge" else "chosen"
            put(("@dataset", f"{split}:problem_type:{ptype}", "items"), n, src)
    return targets, sources


def _check(targets: dict, counts: dict[str, list[int]], meta: list[dict]) -> None:
    """Cheap self-check on the English counts: a generator bug fails the demo build."""
    by_key = {f"{s.lab}/{s.sub}": s.sub for s in PANEL}
    for (subject, board, metric), value in targets.items():
        if subject not in by_key or metric not in ("avg@3", "pass@3"):
            continue
        c = counts[by_key[subject]]
        ks = [k for k, m in enumerate(meta) if (m["split"] == board if board in N_ITEMS else m["msc"] == board[4:])]
        got = 100 * (sum(c[k] for k in ks) / (3 * len(ks)) if metric == "avg@3" else sum(c[k] > 0 for k in ks) / len(ks))
        if abs(got - value) > 0.5:
            raise AssertionError(f"{subject} {board} {metric}: {got:.2f} vs {value}")
