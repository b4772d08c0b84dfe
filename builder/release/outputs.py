"""The data a release in force publishes, under ``data/<benchmark>/``.

- ``items.jsonl``: every released item as committed (salt included, so anyone can
  recompute its commitment), keys sorted;
- ``items.csv``: the same, one column per language for question and gold answer;
- ``matrix.csv``: the item × submission results matrix, one row per sample, for the
  submissions whose manifests opted in (``publish_on_release.results``) and released
  items only. ``correct`` is the verdict the boards count, ``graded_by`` says whose it is
  (``regrade``: Sealboard's, ``lab``: the lab's judge), ``lab_correct`` and
  ``regrade_correct`` are both verdicts (the latter empty where the row is not regraded;
  builder.scoring.row_verdicts). ``answer`` is the answer as a JSON string literal
  (``"-4"``, ``null``): exact for any JSON reader, and a cell starting with ``"`` is text,
  never a formula, in a spreadsheet, so no answer is altered to neutralise one;
- ``paired.json``: for the compare page, the correlation of each pair of models' per-item
  results on each board they can be paired on (builder.scoring.paired), derived from the
  rows ``matrix.csv`` publishes;
- ``transcripts/<lab>/<submission>.jsonl``: opted-in transcripts of released items, if the
  release publishes transcripts (builder.release.transcripts).

Also the per-item summary the item pages and the item browser render from
(``item_summaries``), so no number on those pages is missing from a data file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import pandas as pd

from builder.bundles.dataset import ITEM_METADATA
from builder.release.transcripts import transcript_files
from builder.render.data import columns_to_csv, to_csv
from builder.report.records import BenchmarkState
from builder.scoring.paired import RHO_SCALE, PairedBoard, paired_boards
from builder.scoring.row_verdicts import row_verdicts

MATRIX_FIRST = ["submission", "item", "lang", "sample", "answer", "correct", "graded_by", "lab_correct", "regrade_correct", "refused"]
MATRIX_EXTRA = ["output_tokens", "latency_s", "cost_usd", "variant", "sketch", "budget"]


def is_released(state: BenchmarkState) -> bool:
    return state.status in ("released", "partly released") and bool(state.released_items)


def languages(items: tuple[dict[str, Any], ...]) -> list[str]:
    return sorted({lang for it in items for lang in it["question"]})


def opted_in(state: BenchmarkState) -> dict[str, Any]:
    """Submission key -> bundle, for submissions that opted in to publishing per-item results."""
    return {b.manifest.key: b for b in state.bundles if b.manifest.publish_results}


def matrix_frame(state: BenchmarkState) -> pd.DataFrame:
    # per-item rows only of items whose governing statement publishes results
    ids = {it["id"] for it in state.released_items} & state.verdicts.published_ids("results")
    if state.results is None or not ids:
        return pd.DataFrame(columns=MATRIX_FIRST)
    frame = state.results
    frame = frame[frame["submission"].isin(set(opted_in(state))) & frame["item"].isin(ids)]
    verdicts = row_verdicts(state.config.scoring, state.items, frame, state.regrade_verdicts)
    frame = frame.drop(columns=[c for c in ("correct", "lab_correct") if c in frame.columns]).join(verdicts)
    columns = MATRIX_FIRST + [c for c in MATRIX_EXTRA if c in frame.columns]
    return frame[columns].sort_values(["submission", "item", "lang", "sample"], kind="stable").reset_index(drop=True)


def paired_figures(state: BenchmarkState) -> dict[str, PairedBoard]:
    """The compare page's paired figures (builder.scoring.paired), from exactly the rows
    ``matrix.csv`` publishes: opted-in submissions, released items whose results a
    statement in force publishes. Nothing while the release publishes no results."""
    if (
        not is_released(state)
        or state.results is None
        or state.items is None
        or state.submissions is None
        or not state.verdicts.publishes("results")
    ):
        return {}
    ids = {it["id"] for it in state.released_items} & state.verdicts.published_ids("results")
    return paired_boards(
        state.config.scoring,
        state.items,
        state.results,
        state.submissions,
        public_items=ids,
        public_submissions=set(opted_in(state)),
        verdicts=state.regrade_verdicts,
    )


def paired_file(bench: str, pairs: dict[str, PairedBoard]) -> bytes:
    """``paired.json``: the compare page's item correlations, board by board (the page
    renders from this data; builder.scoring.paired says what ρ is and when it is given)."""
    return orjson.dumps({
        "benchmark": bench,
        "method": "paired MOVER (Newcombe's method 10 with item-clustered limits): see the Methodology page",
        "rho_scale": RHO_SCALE,
        "boards": {b: {"n": p.n, "submissions": list(p.submissions), "rho": list(p.rho)} for b, p in pairs.items()},
    }, option=orjson.OPT_SORT_KEYS) + b"\n"  # fmt: skip


def json_cell(value: Any) -> str:
    """A text cell as its JSON string literal: the published answer, exact (``"-4"``), and
    never read as a formula (the cell starts with a quote)."""
    return orjson.dumps(None if value is None or value != value else value).decode()


@dataclass(frozen=True)
class ItemSummary:
    item: dict[str, Any]
    samples: int
    correct: int
    # submission, model, lab, correct, samples, lab_correct, regraded, regrade_correct, answers
    per_submission: tuple[dict[str, Any], ...]

    @property
    def solve_rate(self) -> float | None:
        return self.correct / self.samples if self.samples else None

    @property
    def solved_by_none(self) -> bool:
        return self.samples > 0 and self.correct == 0


def _cell_counts(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per (item, submission) group: samples, correct, lab_correct, the rows regraded and
    regrade_correct, summed in C (KCSAT-ML has 68k groups: a Python step per row or per
    group costs most of a second)."""
    lab, regrade = matrix["lab_correct"], matrix["regrade_correct"]
    flags = pd.DataFrame(
        {
            "item": matrix["item"],
            "submission": matrix["submission"],
            "correct": matrix["correct"].astype(bool),
            "lab_correct": lab.notna() & lab.astype(bool),  # None/NaN: the lab gave no verdict
            "regraded": regrade.notna(),
            "regrade_correct": regrade.notna() & regrade.astype(bool),
        }
    )
    # observed: categorical keys (builder.bundles.unseal) group by the pairs present only
    return flags.groupby(["item", "submission"], sort=False, observed=True).agg(
        samples=("correct", "size"), correct=("correct", "sum"), lab_correct=("lab_correct", "sum"),
        regraded=("regraded", "sum"), regrade_correct=("regrade_correct", "sum"),
    )  # fmt: skip


def _distinct_answers(matrix: pd.DataFrame) -> dict[tuple[str, str], list[str]]:
    """Per (item, submission): its distinct answers as text, sorted (NaN and None are no answer)."""
    given = matrix["answer"].notna()
    answers = pd.DataFrame({"item": matrix["item"][given], "submission": matrix["submission"][given],
                            "answer": matrix["answer"][given].astype(str)}).drop_duplicates()  # fmt: skip
    out: dict[tuple[str, str], list[str]] = {}
    for item, sub, answer in zip(*(answers[c].tolist() for c in ("item", "submission", "answer"))):
        out.setdefault((item, sub), []).append(answer)
    for texts in out.values():
        texts.sort()
    return out


def item_summaries(state: BenchmarkState, matrix: pd.DataFrame) -> list[ItemSummary]:
    subs = opted_in(state)
    counts = _cell_counts(matrix)
    answers = _distinct_answers(matrix)
    groups: dict[str, list[dict[str, Any]]] = {}
    keys = (counts.index.get_level_values(level).tolist() for level in (0, 1))
    for item, sub, samples, correct, lab_correct, regraded, regrade_correct in zip(
        *keys, *(counts[c].tolist() for c in ("samples", "correct", "lab_correct", "regraded", "regrade_correct"))
    ):
        m = subs[sub].manifest
        groups.setdefault(item, []).append(
            {"submission": sub, "model": m.model.name, "lab": m.lab, "correct": correct, "samples": samples,
             "answers": answers.get((item, sub), []), "lab_correct": lab_correct,
             # of the rows regraded only: LiveMathematicianBench regrades its standard variant, not every sample
             "regraded": regraded, "regrade_correct": regrade_correct if regraded else None}
        )  # fmt: skip
    out = []
    for it in sorted(state.released_items, key=lambda i: i["id"]):
        rows = sorted(groups.get(it["id"], []), key=lambda r: (-r["correct"] / max(r["samples"], 1), r["model"], r["submission"]))
        out.append(ItemSummary(it, sum(r["samples"] for r in rows), sum(r["correct"] for r in rows), tuple(rows)))
    return out


def item_row(s: ItemSummary) -> dict[str, Any]:
    """One item's browser row (also items' summary JSON)."""
    it = s.item
    cohort = it.get("cohort_error_rate")
    return {
        "id": it["id"],
        "split": it["split"],
        "subfield": it.get("msc") or it.get("category"),
        "type": it.get("problem_type") or it["answer_type"],
        "answer_type": it["answer_type"],
        "languages": sorted(it["question"]),
        "year": it.get("year"),
        "edition": it.get("edition"),
        "difficulty": it.get("points"),
        "solve_rate": s.solve_rate,
        "samples": s.samples,
        "cohort_solve_rate": None if cohort is None else 1 - cohort,
        "solved_by_none": s.solved_by_none,
    }


def items_jsonl(items: list[dict[str, Any]]) -> bytes:
    """items.jsonl: every released item as committed, sorted by id."""
    return b"".join(orjson.dumps(it, option=orjson.OPT_SORT_KEYS) + b"\n" for it in sorted(items, key=lambda i: i["id"]))


def items_csv(items: list[dict[str, Any]]) -> bytes:
    """items.csv: the same items as items.jsonl, one row each (`release verify --site`
    rebuilds it from items.jsonl and compares bytes, so both copies say the same)."""
    items = sorted(items, key=lambda i: i["id"])
    langs = languages(tuple(items))
    meta = [k for k in ITEM_METADATA if any(k in it for it in items)]
    columns = [
        "id",
        "split",
        "answer_type",
        *meta,
        *(f"question_{lang}" for lang in langs),
        *(f"answer_{lang}" for lang in langs),
        "salt",
        "canary",
    ]
    rows = [
        {
            **{k: it.get(k) for k in ("id", "split", "answer_type", "salt", "canary", *meta)},
            **{f"question_{lang}": it["question"].get(lang) for lang in langs},
            **{f"answer_{lang}": it["answer"].get(lang) for lang in langs},
        }
        for it in items
    ]
    return to_csv(columns, rows)


def release_files(state: BenchmarkState, summaries: list[ItemSummary], matrix: pd.DataFrame) -> dict[str, bytes]:
    """Data files (path under data/ -> bytes) a release in force publishes."""
    bench = state.config.id
    items = sorted(state.released_items, key=lambda i: i["id"])
    files = {
        f"{bench}/items.jsonl": items_jsonl(items),
        f"{bench}/items.csv": items_csv(items),
        f"{bench}/item_summary.json": orjson.dumps(
            {"benchmark": bench, "items": [item_row(s) for s in summaries]}, option=orjson.OPT_INDENT_2
        )
        + b"\n",
    }
    if state.verdicts.publishes("results"):
        published = {c: matrix[c].astype(object).where(matrix[c].notna(), None).tolist() for c in matrix.columns}
        published["answer"] = [json_cell(a) for a in published["answer"]]
        files[f"{bench}/matrix.csv"] = columns_to_csv(list(published), list(published.values()))
    files.update(transcript_files(state))  # opted-in, released items only (builder.release.transcripts)
    return files
