"""The 339 KCSAT-ML core items: cohort error rates, points, years, forms, answers.

The full set is every question of every form, 2014–2025 (8 years × 2 forms × 30 plus
4 years × (22 common + 3 × 8 elective) = 664). The 339 core items (split ``core``) carry
``cohort_error_rate``; the other 325 (split ``extended``, mostly easier 2- and 3-point
questions) have none, as in the paper.

Core counts follow the seed paper (Section 3.1, Table 7): Easy (≤50 %) 148, Medium (51–75 %)
113, Hard (≥76 %) 78; 3-point 76 and 4-point 263; integer 227, fraction 66, expression
18, options 17, decimal 11; 204 items below 60 % (Section 4.5) and 23 at or above 93 %.
Rates are official-style percentages with one decimal, stored as fractions (0.468); none
falls strictly between 50 % and 51 % or between 75 % and 76 %, so the paper's tiers are
unambiguous, and items sit exactly on the 0.50 and 0.75 boundaries (both Easy/Medium
tiers' upper ends). Items the paper names (Appendix B, Appendix D / Table 6) keep their
year, form, number, rate, points and, where printed, answer; their text is synthetic.
"""

from __future__ import annotations

import random
from fractions import Fraction

from builder.demo.synth_common import canaries, fmt_fraction, rng_for

BINS = ("E", "M1", "M2", "H", "X")  # Easy | Medium below 60 % | Medium from 60 % | Hard below 93 % | Hard from 93 %
BIN_SIZES = {"E": 148, "M1": 56, "M2": 57, "H": 55, "X": 23}
BIN_RANGES = {"E": (0.06, 0.50), "M1": (0.51, 0.599), "M2": (0.60, 0.75), "H": (0.76, 0.929), "X": (0.93, 0.985)}
BOUNDARY_RATES = {"E": (0.50, 0.50), "M1": (0.51,), "M2": (0.60, 0.75, 0.75), "H": (0.76,), "X": (0.93,)}
ANSWER_TYPES = {"integer": 227, "fraction": 66, "expression": 18, "choice": 17, "decimal": 11}
THREE_POINT = 76
# Table 7, full minus core: 325 items, points 2/3/4 = 68/237/20, answer types below.
EXTENDED_POINTS = {2: 68, 4: 20}
EXTENDED_TYPES = {"integer": 223, "fraction": 76, "expression": 19, "choice": 1, "decimal": 6}
YEARS = range(2014, 2026)
FORMS = {
    "a": ("Math A", "수학 A형"),
    "b": ("Math B", "수학 B형"),
    "ga": ("Math GA", "수학 가형"),
    "na": ("Math NA", "수학 나형"),
    "common": ("Common", "수학 공통"),
    "ps": ("Prob. & Stat.", "확률과 통계"),
    "calc": ("Calculus", "미적분"),
    "geo": ("Geometry", "기하"),
}
# (key, year, form, number, cohort error, points, gold or None) — Appendix B and D.
NAMED = (
    ("ps30", 2022, "ps", 30, 0.964, 4, 191),
    ("na30-2020", 2020, "na", 30, 0.979, 4, None),
    ("na30-2018", 2018, "na", 30, 0.934, 4, None),
    ("ga30-2020", 2020, "ga", 30, 0.955, 4, None),
    ("calc29-2024", 2024, "calc", 29, 0.932, 4, None),
    ("na26-2019", 2019, "na", 26, 0.468, 4, None),
    ("calc26-2025", 2025, "calc", 26, 0.322, 3, None),
    ("geo27-2024", 2024, "geo", 27, 0.582, 3, None),
    ("a18-2014", 2014, "a", 18, 0.438, 4, None),
    ("ga24-2019", 2019, "ga", 24, 0.377, 3, 4),
    ("na5-2017", 2017, "na", 5, 0.24, 3, None),
    ("geoseries", 2021, "na", 7, 0.261, 3, None),  # "a textbook geometric-series item" (our pick)
)
ADMINISTERED = {  # exam year -> administration date (the items' "published" date)
    2014: "2013-11-07", 2015: "2014-11-13", 2016: "2015-11-12", 2017: "2016-11-17", 2018: "2017-11-23", 2019: "2018-11-15",
    2020: "2019-11-14", 2021: "2020-12-03", 2022: "2021-11-18", 2023: "2022-11-17", 2024: "2023-11-16", 2025: "2024-11-14",
}
EXPRESSIONS = ("2\\sqrt{3}", "3+2\\sqrt{2}", "\\frac{\\pi}{3}", "\\ln 2", "e^{2}-1", "4\\sqrt{2}", "\\frac{\\sqrt{3}}{2}", "1+\\ln 3", "\\frac{\\pi}{6}", "2\\sqrt{5}")
CHOICES = "ABCDE"  # option labels as letters (the exam prints ①–⑤), so an exact regrader can read them


def bin_of(rate: float) -> str:
    if rate <= 0.50:
        return "E"
    if rate < 0.60:
        return "M1"
    if rate <= 0.75:
        return "M2"
    return "H" if rate < 0.93 else "X"


def forms_of(year: int) -> tuple[str, ...]:
    return ("a", "b") if year <= 2016 else ("ga", "na") if year <= 2021 else ("common", "ps", "calc", "geo")


def build(seed: int) -> list[dict]:
    rng = rng_for(seed, "kcsat-items")
    slots: list[dict] = []
    named_bins: dict[str, int] = {}
    for key, year, form, num, rate, points, gold in NAMED:
        slots.append({"named": key, "rate": rate, "year": year, "form": form, "num": num, "points": points, "gold": gold})
        named_bins[bin_of(rate)] = named_bins.get(bin_of(rate), 0) + 1
    for b in BINS:
        lo, hi = BIN_RANGES[b]
        fixed = list(BOUNDARY_RATES[b])
        for k in range(BIN_SIZES[b] - named_bins.get(b, 0)):
            if k < len(fixed):
                rate = fixed[k]
            elif b == "E":
                rate = round(hi - (hi - lo) * rng.random() ** 1.25, 3)
            else:
                rate = round(rng.uniform(lo, hi), 3)
            slots.append({"named": None, "rate": rate})
    _points(rng, slots)
    _place(rng, slots)
    _answers(rng, slots, ANSWER_TYPES)
    extended = _extended(rng, {(s["year"], s["form"], s["num"]) for s in slots})
    _answers(rng, extended, EXTENDED_TYPES)
    everything = slots + extended
    cans = canaries(rng, "kcsat-ml", len(everything))
    everything.sort(key=lambda s: (s["year"], s["form"], s["num"]))
    items = []
    for s, canary in zip(everything, cans):
        s["id"] = f"kcsat-{s['year']}-{s['form']}-{s['num']:02d}"
        core = "rate" in s
        s["bin"] = bin_of(s["rate"]) if core else None
        item = {
            "id": s["id"],
            "split": "core" if core else "extended",
            "question": {"ko": _question(rng, s, canary)},
            "answer": {"ko": s["gold_text"]},
            "answer_type": s["atype"],
            "category": FORMS[s["form"]][0],
            "year": s["year"],
            "published": ADMINISTERED[s["year"]],
            "points": s["points"],
            "canary": canary,
        }
        if core:
            item["cohort_error_rate"] = s["rate"]
        s["item"] = item
        items.append(s)
    return items


def _slots(year: int) -> list[tuple[str, int]]:
    out = []
    for form in forms_of(year):
        span = range(1, 23) if form == "common" else range(23, 31) if form in ("ps", "calc", "geo") else range(1, 31)
        out += [(form, n) for n in span]
    return out


def _extended(rng: random.Random, used: set) -> list[dict]:
    """Every remaining question of every form: the items without cohort statistics."""
    free = [(y, f, n) for y in YEARS for f, n in _slots(y) if (y, f, n) not in used]
    easiness = lambda t: t[2] - 22 if t[1] in ("ps", "calc", "geo") else t[2]  # noqa: E731 (position within its section)
    order = sorted(free, key=lambda t: (easiness(t), rng.random()))
    two = set(order[: EXTENDED_POINTS[2]])
    four = set(order[-EXTENDED_POINTS[4] :])
    return [{"named": None, "year": y, "form": f, "num": n, "points": 2 if (y, f, n) in two else 4 if (y, f, n) in four else 3, "gold": None} for y, f, n in free]


def _points(rng: random.Random, slots: list[dict]) -> None:
    left = THREE_POINT - sum(1 for s in slots if s.get("points") == 3)
    free = [s for s in slots if "points" not in s]
    weight = {"E": 20.0, "M1": 3.0, "M2": 1.0, "H": 0.1, "X": 0.0001}
    chosen = {id(s) for s in sorted(free, key=lambda s: rng.random() ** (1.0 / weight[bin_of(s["rate"])]), reverse=True)[:left]}
    for s in free:
        s["points"] = 3 if id(s) in chosen else 4


def _place(rng: random.Random, slots: list[dict]) -> None:
    used = {(s["year"], s["form"], s["num"]) for s in slots if "year" in s}
    free = [s for s in slots if "year" not in s]
    per_year = {y: 28 for y in YEARS}
    for y in (2022, 2023, 2024):
        per_year[y] += 1
    for s in slots:
        if "year" in s:
            per_year[s["year"]] -= 1
    years = [y for y, n in per_year.items() for _ in range(n)]
    rng.shuffle(years)
    # Hard items first so the late, high-point question numbers are still free for them.
    for s, year in zip(sorted(free, key=lambda s: -s["rate"]), sorted(years, key=lambda _: rng.random())):
        for _ in range(200):
            form = rng.choices(forms_of(year), (0.55, 0.15, 0.15, 0.15) if year >= 2022 else (0.5, 0.5))[0]
            num = _number(rng, form, s["points"], s["rate"])
            if (year, form, num) not in used:
                break
        else:
            raise RuntimeError("cannot place item")
        used.add((year, form, num))
        s.update(year=year, form=form, num=num)


def _number(rng: random.Random, form: str, points: int, rate: float) -> int:
    span = range(1, 23) if form == "common" else range(23, 31) if form in ("ps", "calc", "geo") else range(1, 31)
    if rate >= 0.85 and points == 4:
        pool = [n for n in (30, 29, 21, 22, 28, 20, 15, 14, 27, 19) if n in span]
    elif points == 3:
        pool = [n for n in (*range(3, 14), 16, 17, 18, 22, 23, 24, 25, 26, 27) if n in span]
    else:
        pool = [n for n in (*range(9, 22), *range(26, 31)) if n in span]
    return rng.choice(pool or list(span))


def _answers(rng: random.Random, slots: list[dict], counts: dict[str, int]) -> None:
    types = [t for t, n in counts.items() for _ in range(n)]
    for s in slots:
        if s.get("gold") is not None:
            types.remove("integer")
    rng.shuffle(types)
    it = iter(types)
    for s in slots:
        if s.get("gold") is not None:
            s.update(atype="integer", gold_text=str(s["gold"]))
            continue
        t = next(it)
        if t == "integer":
            g = rng.randint(1, 999) if s["num"] >= 22 else rng.randint(1, 60)
            s.update(atype=t, gold=g, gold_text=str(g))
        elif t == "fraction":
            q = rng.randint(2, 36)
            f = Fraction(rng.randint(1, 3 * q), q)
            if f.denominator == 1:
                f += Fraction(1, q if q > 1 else 2)
            s.update(atype=t, gold=f, gold_text=fmt_fraction(f))
        elif t == "expression":
            s.update(atype=t, gold=None, gold_text=rng.choice(EXPRESSIONS))
        elif t == "choice":
            s.update(atype=t, gold=None, gold_text=rng.choice(CHOICES))
        else:
            d = rng.choice((0.25, 0.5, 0.75, 1.5, 2.5, 0.125, 0.2, 0.4, 0.6, 3.75))
            s.update(atype=t, gold=d, gold_text=repr(d))
    if next(it, None) is not None:
        raise AssertionError()


_TEMPLATES = (
    "함수 $f(x) = x^3 {a:+d}x^2 {b:+d}x$ 에 대하여 곡선 $y=f(x)$ 위의 점 $(t, f(t))$ 에서의 접선이 조건을 만족시킬 때, 구하는 값을 답하시오.",
    "첫째항이 ${a}$ 이고 공차가 ${b}$ 인 등차수열 $\\{{a_n\\}}$ 에 대하여 주어진 조건을 만족시키는 값을 구하시오.",
    "주머니에 흰 공 ${a}$ 개와 검은 공 ${b}$ 개가 들어 있다. 주어진 시행을 반복할 때 조건부확률을 구하시오.",
    "좌표공간의 두 점 $A({a}, 0, 0)$, $B(0, {b}, 0)$ 에 대하여 주어진 조건을 만족시키는 점 $P$ 에 대한 값을 구하시오.",
    "실수 전체의 집합에서 연속인 함수 $g(x)$ 가 $\\int_0^{{{a}}} g(x)\\,dx = {b}$ 를 만족시킬 때, 구하는 값을 답하시오.",
)


def _question(rng: random.Random, s: dict, canary: str) -> str:
    body = rng.choice(_TEMPLATES).format(a=rng.randint(-9, 12), b=rng.randint(1, 15))
    return (
        f"[합성 문항] {s['year']}학년도 대학수학능력시험 {FORMS[s['form']][1]} {s['num']}번의 형식을 본뜬 합성 문제입니다 (실제 기출 문항이 아님). "
        f"{body} [{s['points']}점]\n\n[canary: {canary}]"
    )
