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
    ids = {it["id"] for it in state.released_items} & state.release.published_ids("results")
    if state.results is None or not ids:
        return pd.DataFrame(columns=MATRIX_FIRST)
    frame = state.results
    frame = frame[frame["submission"].isin(set(opted_in(state))) & frame["item"].isin(ids)]
    verdicts = row_verdicts(state.config.scoring, state.items, frame)
    frame = frame.drop(columns=[c for c in ("correct", "lab_correct") if c in frame.columns]).join(verdicts)
    columns = MATRIX_FIRST + [c for c in MATRIX_EXTRA if c in frame.columns]
    return frame[columns].sort_values(["submission", "item", "lang", "sample"], kind="stable").reset_index(drop=True)


def paired_figures(state: BenchmarkState) -> dict[str, PairedBoard]:
    """The compare page's paired figures (builder.scoring.paired), from exactly the rows
    ``matrix.csv`` publishes: opted-in submissions, released items whose results a
    statement in force publishes. Nothing while the release publishes no results."""
    if not is_released(state) or state.results is None or state.items is None or state.submissions is None or not state.release.publishes("results"):
        return {}
    ids = {it["id"] for it in state.released_items} & state.release.published_ids("results")
    return paired_boards(state.config.scoring, state.items, state.results, state.submissions, public_items=ids, public_submissions=set(opted_in(state)))


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
    per_submission: tuple[dict[str, Any], ...]  # submission, model, lab, correct, samples, answers

    @property
    def solve_rate(self) -> float | None:
        return self.correct / self.samples if self.samples else None

    @property
    def solved_by_none(self) -> bool:
        return self.samples > 0 and self.correct == 0


def item_summaries(state: BenchmarkState, matrix: pd.DataFrame) -> list[ItemSummary]:
    subs = opted_in(state)
    # One pass over the columns (a pandas groupby with a Python aggregate per (item,
    # submission) group costs seconds on KCSAT-ML's 68k groups).
    cells: dict[tuple[str, str], list[Any]] = {}
    for item, sub, answer, ok, lab_ok, re_ok in zip(matrix["item"], matrix["submission"], matrix["answer"], matrix["correct"],
                                                    matrix["lab_correct"], matrix["regrade_correct"]):
        cell = cells.get((item, sub))
        if cell is None:
            cell = cells[(item, sub)] = [0, 0, set(), 0, None]
        cell[0] += bool(ok)
        cell[1] += 1
        if answer is not None and answer == answer:  # NaN is not an answer
            cell[2].add(str(answer))
        cell[3] += lab_ok is not None and lab_ok == lab_ok and bool(lab_ok)  # None/NaN: the lab gave no verdict
        if re_ok is not None and re_ok == re_ok:
            cell[4] = (cell[4] or 0) + bool(re_ok)
    groups: dict[str, list[dict[str, Any]]] = {}
    for (item, sub), (correct, samples, answers, lab_correct, regrade_correct) in cells.items():
        m = subs[sub].manifest
        groups.setdefault(item, []).append(
            {"submission": sub, "model": m.model.name, "lab": m.lab, "correct": correct, "samples": samples, "answers": sorted(answers),
             "lab_correct": lab_correct, "regrade_correct": regrade_correct}
        )
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
    columns = ["id", "split", "answer_type", *meta, *(f"question_{lang}" for lang in langs), *(f"answer_{lang}" for lang in langs), "salt", "canary"]
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
        ) + b"\n",
    }
    if state.release.publishes("results"):
        published = {c: matrix[c].astype(object).where(matrix[c].notna(), None).tolist() for c in matrix.columns}
        published["answer"] = [json_cell(a) for a in published["answer"]]
        files[f"{bench}/matrix.csv"] = columns_to_csv(list(published), list(published.values()))
    files.update(transcript_files(state))  # opted-in, released items only (builder.release.transcripts)
    return files
