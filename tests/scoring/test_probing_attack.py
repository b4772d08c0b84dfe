"""The answer-key-recovery attack of issue 9, run at the submission budget.

LiveMathematicianBench-shaped: 360 five-option items in 12 monthly editions of 30 and 12
categories, gold letters drawn uniformly (seeded). Two honest labs are on the board. The
attacker ("mallory") submits 252 full-coverage probe runs: a baseline answering "A"
everywhere, then probes each answering "B" on one item and "A" elsewhere. The budget
(builder.bundles.budget, the build's and validate's rule; default 3 per 30 days) admits
the baseline and 2 probes; the rest are refused as over-budget. The admitted runs are
scored by the real engine under embargo with the Ladder on the 0.05 grid
(builder.scoring.ladder), and the attacker reads every published figure on every board.

Results (asserted below):
- with the defences: the attacker's recovered key matches gold on 21.9% of items (79/360,
  exactly what guessing "A" everywhere gets; chance is 20% ± 2.1%), and the published boards are byte-identical whatever the gold letters of
  the probed items are — so no inference from them beats the prior;
- without them (no budget, exact embargoed scores), the same probes give each probed
  item's letter-B verdict exactly (the attack the issue reports).

The last test runs the attack through the full authorised build instead: real signed and
sealed bundles in a repository, `build` with the embargo identity and the default embargo,
and the attacker reading only the board JSON the build writes.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import orjson
import pytest

from builder.bundles.budget import Entry, over_budget
from builder.config import Budget

from .frames import Instance

pytestmark = pytest.mark.slow  # a full build under attack

LETTERS = "ABCDE"
N_ITEMS, EDITIONS = 360, 12
T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)


def make_key(seed: int = 2015) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(LETTERS) for _ in range(N_ITEMS)]


def board_instance(gold: list[str], runs: dict[str, dict[int, str]]) -> Instance:
    """Every run answers every item (full coverage); `runs[sub]` overrides the default "A"."""
    inst = Instance("livemathematicianbench")
    for i, g in enumerate(gold):
        edition = f"2026-{1 + i % EDITIONS:02d}"
        inst.item(f"q{i:03d}", "test", answer_type="choice", gold=g, edition=edition, category=f"cat{i % 12}", published=f"{edition}-15")
    rng = random.Random(7)
    for k, (sub, answers) in enumerate(runs.items()):
        inst.sub(sub, training_cutoff="2025-01-01", created=T0 + timedelta(hours=k))
        for i, g in enumerate(gold):
            if sub.startswith("mallory/"):
                letter = answers.get(i, "A")
            else:  # honest labs: right ~60% / ~40% of the time
                letter = g if rng.random() < (0.6 if sub.startswith("acme/") else 0.4) else LETTERS[(LETTERS.index(g) + 1) % 5]
            inst.answer(sub, f"q{i:03d}", [letter == g], variant="standard", sketch=False)
            inst.results[-1]["answer"] = letter
    return inst


def published(inst: Instance, *, grid: float | None) -> dict[str, dict]:
    from builder.scoring import score_benchmark

    items, results, subs = inst.frames()
    tables = score_benchmark(inst.spec, items, results, subs, embargoed=True, grid=grid)
    return {t.board: t.to_dict() for t in tables}


def mallory_view(boards: dict[str, dict], sub: str) -> list:
    """Every figure published for one submission, on every board, in a fixed order."""
    out = []
    for name in sorted(boards):
        for r in boards[name]["rows"]:
            if r["submission"] == sub:
                out.append((name, r["rank"], orjson.dumps(r["metrics"], option=orjson.OPT_SORT_KEYS)))
        out.append((name, tuple(boards[name]["notes"]), orjson.dumps(boards[name]["summary"], option=orjson.OPT_SORT_KEYS)))
    return out


def attack(gold: list[str], *, budget: Budget | None, grid: float | None, probes: int = 251) -> tuple[list[str], set[int]]:
    wanted = {"mallory/base": {}} | {f"mallory/p{i:03d}": {i: "B"} for i in range(probes)}
    entries = [Entry(f"bundles/lmb/{s}", "mallory", T0 + timedelta(hours=k)) for k, s in enumerate(wanted)]
    refused = over_budget(entries, budget) if budget else {}
    admitted = {s: a for s, a in wanted.items() if f"bundles/lmb/{s}" not in refused}
    runs = {"acme/run-1": {}, "beta/run-1": {}} | admitted
    boards = published(board_instance(gold, runs), grid=grid)
    base = mallory_view(boards, "mallory/base")
    guess = ["A"] * N_ITEMS  # the prior: the baseline's letter
    probed = set()
    for sub, answers in admitted.items():
        if not answers:
            continue
        ((i, letter),) = answers.items()
        probed.add(i)
        view = mallory_view(boards, sub)
        for (_, _, b), (_, _, p) in zip(base, view):
            if b != p:
                before = orjson.loads(b) if b.startswith(b"{") else {}
                after = orjson.loads(p) if p.startswith(b"{") else {}
                for metric, cell in after.items():
                    old = before.get(metric, {}).get("value")
                    if isinstance(cell, dict) and cell.get("value") is not None and old is not None and cell["value"] != old:
                        guess[i] = letter if cell["value"] > old else "C"  # up: B is gold; down: A was gold, not B
                break
    return guess, probed


def test_attack_at_the_budget_recovers_no_better_than_chance() -> None:
    gold = make_key()
    guess, probed = attack(gold, budget=Budget(), grid=0.05)
    assert len(probed) == 2, "the budget admits the baseline and two probes"
    hits = sum(g == t for g, t in zip(guess, gold))
    chance = sum(t == "A" for t in gold)  # what the prior alone gets
    assert hits == chance == 79, (hits, chance)
    assert hits / N_ITEMS <= 0.2 + 3 * (0.2 * 0.8 / N_ITEMS) ** 0.5


def test_published_boards_do_not_depend_on_the_probed_items() -> None:
    """Indistinguishability: changing the gold letter of each probed item changes nothing
    the attacker can see, so no inference beats the prior on those items."""
    gold = make_key()
    runs = {"acme/run-1": {}, "beta/run-1": {}, "mallory/base": {}, "mallory/p000": {0: "B"}, "mallory/p001": {1: "B"}}
    views = []
    for letters in (("A", "A"), ("B", "B"), ("C", "B"), ("B", "D")):
        alt = list(gold)
        alt[0], alt[1] = letters
        boards = published(board_instance(alt, runs), grid=0.05)
        views.append([mallory_view(boards, s) for s in ("mallory/base", "mallory/p000", "mallory/p001")])
    assert all(v == views[0] for v in views[1:])


@pytest.mark.parametrize("probes", [12])
def test_without_the_defences_the_attack_works(probes: int) -> None:
    """The control: no budget and exact embargoed scores let every probe read its item."""
    gold = make_key()
    guess, probed = attack(gold, budget=None, grid=None, probes=probes)
    assert probed == set(range(probes))
    for i in probed:
        assert (guess[i] == "B") == (gold[i] == "B"), i  # each probe's B-or-not verdict is exact


# -- the same attack through the full authorised build -----------------------------------


def test_attack_through_the_full_build_recovers_no_better_than_chance(tmp_path):
    """Real signed, sealed bundles in a repository; `build` with the embargo identity and
    the default embargo (budget 3 per 30 days, Ladder on 0.05); the attacker reads back only
    the board JSON the build publishes. SOOHAK-shaped: 60 Mini items whose gold answers are
    digits 1–5 (seeded). mallory submits a baseline answering 1 everywhere and six probes,
    each answering 2 on one item: the build refuses four as over budget and publishes
    nothing that tells the two admitted probes from the baseline."""
    from builder.demo.instance import _config_text
    from builder.pipeline.build import build
    from tests.factory import NOW, VERSION, make_instance, results_for, soohak_items

    rng = random.Random(2015)
    items = soohak_items(n_mini=60, n_challenge=6, n_refusal=6)
    for it in items:
        if it["answer_type"] == "integer":
            digit = str(rng.randint(1, 5))
            it["answer"] = {"en": digit, "ko": digit}
    inst = make_instance(tmp_path / "inst", labs=("acme", "mallory"), items=items)
    # the real defaults, not the test instance's exact scores and open budget
    (inst.root / "leaderboards" / "soohak.yaml").write_text(_config_text("soohak", VERSION, inst.identity.recipient, embargo=""))
    inst.add_submission("acme", "run-1", results_for(items, {it["id"]: [rng.random() < 0.6] * 3 for it in items}))

    def rows(guess: dict[str, str]) -> list[dict]:
        out = []
        for it in items:
            for s in range(3):
                if it["answer_type"] == "ill_posed":
                    out.append({"item": it["id"], "lang": "en", "sample": s, "answer": "7", "correct": False, "refused": False})
                else:
                    answer = guess.get(it["id"], "1")
                    out.append(
                        {
                            "item": it["id"],
                            "lang": "en",
                            "sample": s,
                            "answer": answer,
                            "correct": answer == it["answer"]["en"],
                            "refused": False,
                        }
                    )
        return out

    mini = [it["id"] for it in items if it["split"] == "mini"]
    probes = {f"p{j:03d}": mini[j] for j in range(6)}
    inst.add_submission("mallory", "a-base", rows({}))
    for name, item in probes.items():
        inst.add_submission("mallory", name, rows({item: "2"}))

    out = tmp_path / "site"
    report = build(inst.root, out, identities=[inst.identity], now=NOW)
    refused = sorted((r.where, r.reason) for r in report.rejections)
    assert refused == [(f"bundles/soohak/mallory/p{j:03d}", "over-budget") for j in range(2, 6)]
    assert all("budget of" in r.message for r in report.rejections)

    files = {p.stem: orjson.loads(p.read_bytes()) for p in sorted((out / "data" / "soohak").glob("*.json"))}
    boards = {name: data for name, data in files.items() if isinstance(data, dict) and data.get("format") == "sealboard-board/1"}
    assert "mini" in boards and any(r["submission"] == "mallory/a-base" for r in boards["mini"]["rows"])
    base = mallory_view(boards, "mallory/a-base")
    gold = {it["id"]: it["answer"]["en"] for it in items if it["split"] == "mini"}
    guess = dict.fromkeys(gold, "1")  # the prior: the baseline's answer
    for name in ("p000", "p001"):
        view = mallory_view(boards, f"mallory/{name}")
        assert view != [] and len(view) == len(base)
        for (_, _, b), (_, _, p) in zip(base, view):
            before, after = orjson.loads(b) if b.startswith(b"{") else {}, orjson.loads(p) if p.startswith(b"{") else {}
            for metric, cell in after.items():
                old = before.get(metric, {}).get("value")
                if isinstance(cell, dict) and cell.get("value") is not None and old is not None and cell["value"] != old:
                    guess[probes[name]] = "2" if cell["value"] > old else "3"
    hits = sum(guess[i] == gold[i] for i in gold)
    chance = sum(g == "1" for g in gold.values())
    assert hits == chance, (hits, chance)
    # every figure a probe shows is the baseline's own (the rest the Ladder withholds as
    # no better by the grid): nothing published depends on the probed answers
    for name in ("p000", "p001"):
        for (_, _, b), (_, _, p) in zip(base, mallory_view(boards, f"mallory/{name}")):
            before, after = orjson.loads(b) if b.startswith(b"{") else {}, orjson.loads(p) if p.startswith(b"{") else {}
            for metric, cell in after.items():
                if isinstance(cell, dict) and cell.get("value") is not None:
                    assert cell["value"] == before[metric]["value"], (name, metric)
