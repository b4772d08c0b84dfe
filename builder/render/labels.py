"""Human-readable column titles and number formats for the pages (the data files keep ids).

A metric's title comes from the benchmark config when it declares one; measures the config
names only by id (``accuracy``, ``output_tokens``) get a title here; a breakdown column
shows its group value with a readable name (an MSC code with its subject name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from builder.render.escaping import page_text

# Titles of the measures every benchmark can use (builder/scoring/measures.py ids).
MEASURE_TITLES = {
    "accuracy": "Accuracy",
    "output_tokens": "Output tokens",
    "cost_per_correct": "Cost per correct answer",
    "regraded_samples": "Regraded samples",
    "judge_graded_samples": "Judge-graded samples",
    "disagreements": "Disagreements",
    "disagreement_rate": "Disagreement rate",
    "refusal_rate": "Refusal rate",
}

UNIT_LABELS = {"fraction": "%", "difference": "pp", "usd": "USD", "tokens": "tokens"}

# A board's summary facts (builder.scoring.gate.SUMMARY_RULES keys) as a reader says them.
SUMMARY_TITLES = {"items": "Items", "unsolved_items": "Items solved by no submission"}


def summary_facts(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """(title, value) of each published summary fact; one without a value is left out
    rather than shown as an empty "key:" line."""
    return [(SUMMARY_TITLES.get(k, k.replace("_", " ").capitalize()), v) for k, v in summary.items() if v is not None and v != ""]


# MSC2020 top-level classes (https://msc2020.org), the names SOOHAK's Table 7 uses.
MSC_NAMES = {
    "00": "General", "01": "History and biography", "03": "Logic and foundations", "05": "Combinatorics",
    "06": "Order, lattices", "08": "General algebraic systems", "11": "Number theory",
    "12": "Field theory and polynomials", "13": "Commutative algebra", "14": "Algebraic geometry",
    "15": "Linear algebra; matrix theory", "16": "Associative rings", "17": "Nonassociative rings",
    "18": "Category theory", "19": "K-theory", "20": "Group theory", "22": "Topological and Lie groups",
    "26": "Real functions", "28": "Measure and integration", "30": "Complex variable",
    "31": "Potential theory", "32": "Several complex variables", "33": "Special functions",
    "34": "Ordinary differential equations", "35": "Partial differential equations",
    "37": "Dynamical systems", "39": "Difference and functional equations", "40": "Sequences, series",
    "41": "Approximations", "42": "Harmonic analysis", "43": "Abstract harmonic analysis",
    "44": "Integral transforms", "45": "Integral equations", "46": "Functional analysis",
    "47": "Operator theory", "49": "Calculus of variations", "51": "Geometry",
    "52": "Convex and discrete geometry", "53": "Differential geometry", "54": "General topology",
    "55": "Algebraic topology", "57": "Manifolds", "58": "Global analysis", "60": "Probability",
    "62": "Statistics", "65": "Numerical analysis", "68": "Computer science", "70": "Mechanics",
    "74": "Deformable solids", "76": "Fluid mechanics", "78": "Optics, electromagnetism",
    "80": "Thermodynamics", "81": "Quantum theory", "82": "Statistical mechanics", "83": "Relativity",
    "85": "Astronomy", "86": "Geophysics", "90": "Operations research", "91": "Game theory, economics",
    "92": "Biology", "93": "Systems theory; control", "94": "Information theory", "97": "Mathematics education",
}  # fmt: skip

# Group fields whose values read better with a word around them.
_GROUP_VALUE: dict[str, Callable[[str], str]] = {
    "points": lambda v: f"{v}-point",
    "problem_type": lambda v: {
        "undergrad": "Undergraduate",
        "graduate": "Graduate",
        "olympiad": "Olympiad",
        "beyond": "Beyond graduate",
    }.get(v, v),
    "tier": lambda v: str(v).capitalize(),
}
GROUP_FIELD_TITLES = {"msc": "MSC subfield", "tier": "Difficulty tier", "points": "Points", "problem_type": "Problem type"}

_RUNS = re.compile(r"\d+(?:\.\d+)?|\D+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?\Z")
# Reasoning efforts read low to high, not in the alphabet's order (high, low, medium).
_EFFORT = {w: i for i, w in enumerate(("none", "minimal", "low", "medium", "high", "xhigh", "max"))}


def natural_key(text: str) -> tuple[tuple[int, float, str], ...]:
    """Sort key reading digit runs as numbers: 0.6B, 1.7B, 8B, 14B (not 0.6B, 1.7B, 14B, 8B).

    Each run is tagged (number or text), so a number and a word never meet in a comparison."""
    return tuple((0, float(t), "") if t[:1].isdigit() else (1, 0.0, t.casefold()) for t in _RUNS.findall(text))


def option_order(values: Iterable[Any]) -> list[str]:
    """A filter's distinct options: numbers by value (2 before 10), then reasoning efforts
    low to high, then any other label in natural order."""

    def key(v: str) -> tuple[int, float, tuple[tuple[int, float, str], ...]]:
        if _NUMBER.match(v):
            return (0, float(v), ())
        if v.casefold() in _EFFORT:
            return (1, _EFFORT[v.casefold()], ())
        return (2, 0.0, natural_key(v))

    return sorted({str(v) for v in values}, key=key)


def unit_label(unit: str) -> str:
    return UNIT_LABELS.get(unit, "")


def group_title(field: str, value: Any) -> tuple[str, str]:
    """(short title, longer name or "") of one breakdown column."""
    value = str(value)
    if field == "msc":
        return value, MSC_NAMES.get(value, "")
    fmt = _GROUP_VALUE.get(field)
    return (fmt(value) if fmt else value), ""


def field_title(field: str) -> str:
    return GROUP_FIELD_TITLES.get(field, field.replace("_", " ").capitalize())


def metric_title(metric: dict[str, Any]) -> str:
    """Plain-text title of a metric column (no unit)."""
    group = metric.get("group")
    if group:
        short, name = group_title(group["field"], group["value"])
        return f"{short} {name}".strip()
    title = metric.get("title") or metric["name"]
    if title == metric["name"] or title == metric.get("measure"):
        title = MEASURE_TITLES.get(metric["name"]) or MEASURE_TITLES.get(metric.get("measure") or "") or title.replace("_", " ")
    return title[:1].upper() + title[1:]


def metric_header(metric: dict[str, Any]) -> str:
    """HTML of a column header: title, subject name (MSC) and unit, escaped."""
    group = metric.get("group")
    unit = unit_label(metric["unit"])
    small = f' <small class="sb-unit">{page_text(unit)}</small>' if unit else ""
    if group:
        short, name = group_title(group["field"], group["value"])
        if name:
            return f'{page_text(short)} <small class="sb-sub">{page_text(name)}</small>{small}'
        return page_text(short) + small
    return page_text(metric_title(metric)) + small


def axis_title(metric: dict[str, Any]) -> str:
    unit = unit_label(metric["unit"])
    return metric_title(metric) + (f" ({unit})" if unit else "")


def number(value: float | int, unit: str) -> str:
    """One number as the pages print it (a true minus sign, so "−2.0" never reads as a dash)."""
    return _number(value, unit).replace("-", "\u2212")


def _number(value: float | int, unit: str) -> str:
    if unit == "fraction":
        return f"{100 * value:.1f}"
    if unit == "difference":
        out = f"{100 * value:+.1f}"
        return "0.0" if out in ("+0.0", "-0.0") else out
    if unit == "usd":
        return f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}"
    if unit in ("tokens", "count"):
        return f"{value:,.0f}"
    return f"{value:.3f}"


def interval(low: float | None, high: float | None, unit: str) -> str:
    """A 95% interval as "[lo, hi]" (readable with negative bounds); "±0" when it has no width."""
    if low is None or high is None:
        return ""
    lo, hi = number(low, unit), number(high, unit)
    return "±0" if lo == hi else f"[{lo}, {hi}]"
