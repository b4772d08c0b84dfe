"""Synthetic LiveMathematicianBench (seed paper 001): monthly editions of 5-option items.

Six monthly editions (2025-11 … 2026-04, 360 items, split ``main``), each item a
five-option multiple-choice question (gold "A"–"E", random baseline 20 %) grounded in a
(synthetic) arXiv theorem ``published`` in its edition's month, with one of thirteen
logical categories. Every submission answers every item once in each of four cells:
``variant`` "standard" | "substitution" × ``sketch`` false | true (``sample`` 0, ``lang``
"en"). The substitution variant keeps the gold letter and replaces the correct option's
text with a reworded statement, so recognising the original wording no longer helps.

Targets (accuracy in points over all 360 items, the configuration the abstract describes;
both models named there have training cutoffs before every edition):

- ``(sub, "standard" | "substitution" | "standard+sketch" | "substitution+sketch", "accuracy")``
- ``(sub, "sketch-gain:standard", "pp")`` — +13.6 for Gemini-3.1-pro-preview.

Gemini-3.1-pro-preview is best on "standard" (43.5), GPT-5.4 best on "substitution"
(30.6); every model drops under substitution and gains with a sketch. Two models have
training cutoffs *inside* the edition range (Kimi-K2.5 2025-12-31, GLM-5 2026-01-31) and
score markedly higher on items published before their cutoff, so contamination-aware
filtering (items published after the cutoff) visibly changes their rows; one model
declares no cutoff at all.

The seed excerpt names eight of the thirteen categories (implication, equivalence,
existence, uniqueness, inequalities, asymptotic bounds, universal quantifiers,
bijections; "classification" and "convergence" come from its introduction). The paper's
Table 1 is not in the excerpt; the remaining three names are our placeholders.
"""

from __future__ import annotations

import calendar
import random
from dataclasses import dataclass
from datetime import date
from typing import Any

from builder.demo.figures import LABS, SYNTHETIC_NOTE, Synth, SynthSubmission
from builder.demo.synth_common import canaries, exact_count, mean_lognormal, rng_for

BENCHMARK = "livemathematicianbench"
VERSION = "2026.04"
EDITIONS = {"2025-11": 58, "2025-12": 61, "2026-01": 57, "2026-02": 63, "2026-03": 60, "2026-04": 61}
LETTERS = "ABCDE"
# category -> (relative frequency, difficulty shift)
CATEGORIES = {
    "Implication": (1.6, 0.0),
    "Equivalence": (1.0, 0.4),
    "Existence": (1.3, -0.3),
    "Uniqueness": (0.8, 0.2),
    "Inequality": (1.2, 0.1),
    "Asymptotic": (0.9, 0.3),
    "Universal": (0.8, 0.4),
    "Bijection": (0.5, 0.2),
    "Classification": (0.7, 0.3),
    "Convergence": (0.8, 0.1),
    "Non-existence": (0.6, 0.0),  # placeholder name (not in the seed excerpt)
    "Characterization": (0.7, 0.3),  # placeholder name
    "Explicit formula": (0.6, -0.4),  # placeholder name
}
ARXIV = ("math.AG", "math.NT", "math.PR", "math.AP", "math.CO", "math.DG", "math.FA", "math.GT", "math.OC", "math.RT", "math.DS", "math.CA")
CELLS = (("standard", False), ("substitution", False), ("standard", True), ("substitution", True))
HARNESS = {"name": "livemathematicianbench-eval (synthetic)", "version": "0.3.0"}
JUDGE = "exact-letter-match"
ABSTRACT = "Abstract"


@dataclass(frozen=True)
class Spec:
    sub: str
    lab: str
    model: dict
    config: dict
    acc: tuple  # (standard, substitution, standard+sketch, substitution+sketch) as (value, source)
    contamination: float = 0.0  # ranking bonus on items published on or before the training cutoff
    tokens: int = 9000
    tps: float = 80.0
    price: tuple[float, float] | None = None


def _m(id_, name, family, open_w, params, active, cutoff, release):
    return {"id": id_, "name": name, "family": family, "open_weights": open_w, "params_b": params, "active_params_b": active, "training_cutoff": cutoff, "release_date": release}


def _c(effort, thinking, temp, max_tokens):
    return {"reasoning_effort": effort, "thinking": thinking, "temperature": temp, "max_output_tokens": max_tokens, "tts": False, "notes": "Dual-mode evaluation: every item with and without its proof sketch, standard and substitution-resistant variants."}


C = "chosen"
PANEL: tuple[Spec, ...] = (
    Spec("gemini-3-1-pro-preview", "lab-gemini", _m("gemini-3.1-pro-preview", "Gemini-3.1-pro-preview", "Gemini 3", False, None, None, "2025-01-31", "2026-02-19"),
         _c("high", True, 1.0, 65536), ((43.5, ABSTRACT), (17.6, ABSTRACT), (57.1, ABSTRACT + " (43.5 + 13.6)"), (23.6, C)), tokens=9000, tps=70, price=(2.0, 12.0)),
    Spec("gpt-5-4", "lab-gpt", _m("gpt-5.4", "GPT-5.4", "GPT-5", False, None, None, "2025-08-31", "2026-03-05"),
         _c("high", True, 1.0, 128000), ((41.1, C), (30.6, ABSTRACT), (52.5, C), (36.4, C)), tokens=11000, tps=60, price=(2.0, 15.0)),
    Spec("claude-opus-4-6", "lab-claude", _m("claude-opus-4-6", "Claude-Opus-4.6", "Claude 4.6", False, None, None, "2025-05-31", "2026-02-05"),
         _c(None, True, 1.0, 64000), ((37.2, C), (24.7, C), (46.4, C), (29.4, C)), tokens=7000, tps=45, price=(5.0, 25.0)),
    Spec("gemini-3-flash-preview", "lab-gemini", _m("gemini-3-flash-preview", "Gemini-3-Flash", "Gemini 3", False, None, None, "2025-01-31", "2025-12-17"),
         _c("high", True, 1.0, 65536), ((35.6, C), (15.0, C), (47.2, C), (20.8, C)), tokens=8000, tps=150, price=(0.5, 3.0)),
    Spec("gpt-5-mini-high", "lab-gpt", _m("gpt-5-mini-2025-08-07", "GPT-5-mini (high)", "GPT-5", False, None, None, "2024-05-31", "2025-08-07"),
         _c("high", True, 1.0, 128000), ((29.7, C), (21.1, C), (38.3, C), (25.6, C)), tokens=8500, tps=90, price=(0.25, 2.0)),
    Spec("deepseek-v3-2-thinking", "lab-deepseek", _m("deepseek-v3.2", "DeepSeek-V3.2 (thinking)", "DeepSeek-V3", True, 685.0, 37.0, "2025-06-30", "2025-12-01"),
         _c(None, True, 1.0, 65536), ((31.4, C), (18.3, C), (40.0, C), (22.5, C)), tokens=10000, tps=35, price=(0.28, 0.42)),
    Spec("kimi-k2-5", "lab-kimi", _m("kimi-k2.5", "Kimi-K2.5", "Kimi K2", True, 1040.0, 32.0, "2025-12-31", "2026-01-27"),
         _c(None, True, 1.0, 65536), ((36.9, C), (19.7, C), (45.6, C), (24.2, C)), contamination=0.8, tokens=10500, tps=40, price=(0.6, 3.0)),
    Spec("glm-5", "lab-glm", _m("glm-5", "GLM-5", "GLM", True, 744.0, 40.0, "2026-01-31", "2026-02-11"),
         _c(None, True, 1.0, 65536), ((38.6, C), (21.4, C), (47.5, C), (26.1, C)), contamination=0.8, tokens=9500, tps=45, price=(1.0, 3.2)),
    Spec("grok-4-1-fast", "lab-grok", _m("grok-4-1-fast-reasoning", "Grok-4.1-Fast", "Grok 4", False, None, None, None, "2025-11-19"),
         _c(None, True, 0.7, 65536), ((33.1, C), (16.9, C), (42.5, C), (21.0, C)), tokens=7500, tps=120, price=(0.2, 0.5)),
)
BOARDS = ("standard", "substitution", "standard+sketch", "substitution+sketch")


def generate(seed: int = 0) -> Synth:
    meta = _items(seed)
    subs = [_submission(seed, spec, meta) for spec in PANEL]
    targets: dict = {}
    sources: dict = {}
    for spec in PANEL:
        key = f"{spec.lab}/{spec.sub}"
        for board, (value, src) in zip(BOARDS, spec.acc):
            targets[(key, board, "accuracy")] = value
            sources[(key, board, "accuracy")] = src if src != C else "chosen (consistent with the abstract's ordering)"
    gem = f"{PANEL[0].lab}/{PANEL[0].sub}"
    targets[(gem, "sketch-gain:standard", "pp")] = 13.6
    sources[(gem, "sketch-gain:standard", "pp")] = ABSTRACT
    for edition, n in EDITIONS.items():
        targets[("@dataset", f"edition:{edition}", "items")] = n
        sources[("@dataset", f"edition:{edition}", "items")] = "chosen"
    return Synth(BENCHMARK, VERSION, [m["item"] for m in meta], subs, targets, sources, result_fields={"variant": ("standard", "substitution"), "sketch": "bool"})


def _items(seed: int) -> list[dict]:
    rng = rng_for(seed, "lmb-items")
    names = list(CATEGORIES)
    weights = [CATEGORIES[c][0] for c in names]
    cans = canaries(rng, BENCHMARK, sum(EDITIONS.values()))
    meta: list[dict[str, Any]] = []
    for edition, n in EDITIONS.items():
        year, month = map(int, edition.split("-"))
        days = calendar.monthrange(year, month)[1]
        for j in range(n):
            cat = rng.choices(names, weights)[0]
            published = date(year, month, rng.randint(1, days)).isoformat()
            gold = rng.choice(LETTERS)
            lure = rng.choice([x for x in LETTERS if x != gold])  # the sketch-adversarial distractor
            item_id = f"lmb-{edition}-{j + 1:03d}"
            text = _question(rng, edition, cat, cans[len(meta)])
            meta.append(
                {
                    "id": item_id,
                    "published": published,
                    "gold": gold,
                    "lure": lure,
                    "d": rng.gauss(0, 1) + CATEGORIES[cat][1],
                    "sketch_help": rng.gauss(0.6, 0.5),
                    "item": {
                        "id": item_id,
                        "split": "main",
                        "question": {"en": text},
                        "answer": {"en": gold},
                        "answer_type": "choice",
                        "category": cat,
                        "edition": edition,
                        "published": published,
                        "canary": cans[len(meta)],
                    },
                }
            )
    return meta


def _question(rng: random.Random, edition: str, category: str, canary: str) -> str:
    area = rng.choice(ARXIV)
    k = rng.randint(2, 9)
    tails = ("alone", "and regularity class $C^{%d}$", "only for $n \\ge %d$", "with the constant replaced by $%d$")
    options = []
    for x in LETTERS:
        tail = rng.choice(tails)
        tail = tail % rng.randint(2, 12) if "%d" in tail else tail
        options.append(f"({x}) the conclusion holds under hypothesis $H_{{{rng.randint(1, 9)}}}$ {tail}")
    return (
        f"[synthetic] LiveMathematicianBench-style item, edition {edition}, {area} (no real paper). "
        f"Logical form: {category}. Let $X$ be an object of type $\\mathcal{{T}}_{k}$ as in the stated setup. "
        "Which of the following statements about the main theorem is correct?\n"
        + "\n".join(options)
        + f"\n\n[canary: {canary}]"
    )


def _submission(seed: int, spec: Spec, meta: list[dict]) -> SynthSubmission:
    rng = rng_for(seed, "lmb", spec.sub)
    cutoff = spec.model["training_cutoff"]
    base = {m["id"]: -m["d"] + rng.gauss(0, 0.6) + (spec.contamination if cutoff and m["published"] <= cutoff else 0.0) for m in meta}
    correct: dict[tuple[str, bool], set[str]] = {}
    for (variant, sketch), (value, _) in zip(CELLS, spec.acc):
        k = exact_count(value, len(meta), what=f"{spec.sub} {variant} sketch={sketch}")
        score = {m["id"]: base[m["id"]] + (m["sketch_help"] if sketch else 0.0) + rng.gauss(0, 0.45) for m in meta}
        correct[(variant, sketch)] = set(sorted(score, key=score.__getitem__, reverse=True)[:k])
    rows = []
    for m in meta:
        for variant, sketch in CELLS:
            ok = m["id"] in correct[(variant, sketch)]
            if ok:
                answer = m["gold"]
            elif rng.random() < 0.01:
                answer = None  # no parsable letter
            elif rng.random() < 0.45:
                answer = m["lure"]
            else:
                answer = rng.choice([x for x in LETTERS if x != m["gold"]])
            mean = spec.tokens * (0.85 if sketch else 1.0) * (1.1 if variant == "substitution" else 1.0) * (1.0 if ok else 1.15)
            tokens = max(120, round(mean_lognormal(rng, mean, 0.4)))
            row = {
                "item": m["id"],
                "lang": "en",
                "sample": 0,
                "answer": answer,
                "correct": ok,
                "refused": False,
                "output_tokens": tokens,
                "latency_s": round(tokens / spec.tps * mean_lognormal(rng, 1.0, 0.15) + mean_lognormal(rng, 2.0, 0.4), 2),
                "variant": variant,
                "sketch": sketch,
            }
            if spec.price is not None:
                prompt = 900 + (450 if sketch else 0)
                row["cost_usd"] = round((prompt * spec.price[0] + tokens * spec.price[1]) / 1e6, 6)
            rows.append(row)
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
