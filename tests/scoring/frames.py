"""Small hand-made frames for scoring tests.

`Instance` collects items, per-sample results and submissions, then scores them with a
packaged (or given) spec. Results are written as correctness patterns: a sample marked
correct answers the gold string, an incorrect one answers a wrong value of the same type,
and the lab's verdict agrees unless a test says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from builder.scoring import BoardTable, default_spec, parse_scoring_config, score_benchmark
from builder.scoring.config import load_preset
from builder.scoring.spec import ScoringSpec

WRONG = {"integer": "-999", "choice": "Z", "fraction": "-999/7", "decimal": "-999.5"}


@dataclass
class Instance:
    benchmark: str
    spec: ScoringSpec | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    subs: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.spec is None:
            self.spec = default_spec(self.benchmark)

    def item(self, item: str, split: str = "test", answer_type: str = "integer", gold: str = "42", **meta: Any) -> str:
        self.items.append({"item": item, "split": split, "answer_type": answer_type, "gold": gold, **meta})
        return item

    def sub(self, submission: str, **cols: Any) -> str:
        lab = submission.split("/")[0]
        row = {"submission": submission, "lab": lab, "model": f"Model {submission}", "model_id": submission, **cols}
        row.setdefault("training_cutoff", None)
        row.setdefault("family", None)
        row.setdefault("tts", False)
        self.subs.append(row)
        return submission

    def answer(self, submission: str, item: str, pattern: list[bool] | str, lang: str | None = None, **extra: Any) -> None:
        """One sample per entry of `pattern` (True/1 correct). Extra columns per sample via `extra`."""
        spec = self.spec
        assert spec is not None
        meta = next(i for i in self.items if i["item"] == item)
        if isinstance(pattern, str):
            pattern = [c == "1" for c in pattern]
        for j, ok in enumerate(pattern):
            row = {
                "submission": submission,
                "item": item,
                "lang": lang or spec.primary_language,
                "sample": j,
                "answer": meta["gold"] if ok else WRONG.get(meta["answer_type"], "wrong"),
                "lab_correct": bool(ok),
                "refused": False,
                "output_tokens": 100.0,
                "latency_s": 1.0,
                "cost_usd": 0.001,
            }
            for key, value in extra.items():
                row[key] = value[j] if isinstance(value, list) else value
            self.results.append(row)

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        spec = self.spec
        assert spec is not None
        results = pd.DataFrame(self.results)
        for name in spec.result_fields:
            if name not in results:
                results[name] = None
        items = pd.DataFrame(self.items)
        for name in spec.item_fields:
            if name not in items:
                items[name] = None
        return items, results, pd.DataFrame(self.subs)

    def score(self, embargoed: bool = False) -> dict[str, BoardTable]:
        assert self.spec is not None
        items, results, subs = self.frames()
        return {t.board: t for t in score_benchmark(self.spec, items, results, subs, embargoed=embargoed)}


def spec_with(benchmark: str, **overrides: Any) -> ScoringSpec:
    """A packaged spec with top-level keys replaced (e.g. boards=[...], min_cell_items=...)."""
    raw = load_preset(benchmark)
    raw.update(overrides)
    return parse_scoring_config(raw, f"test:{benchmark}")


def value(table: BoardTable, submission: str, metric: str) -> Any:
    row = next(r for r in table.rows if r.submission == submission)
    return row.metrics[metric].value


def cell(table: BoardTable, submission: str, metric: str) -> Any:
    row = next(r for r in table.rows if r.submission == submission)
    return row.metrics[metric]


def row(table: BoardTable, submission: str) -> Any:
    return next(r for r in table.rows if r.submission == submission)
