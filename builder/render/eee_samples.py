"""Every Eval Ever instance-level samples (``<uuid4>_samples.jsonl``) of released, opted-in results.

One line per published sample (``matrix.csv``'s rows: released items whose governing
statement publishes results, submissions whose manifests opted in), schema
``builder/formats/eee/instance_level_eval.schema.json``:

- ``sample_id`` the item id; ``input`` the released item's question in the sample's
  language and its gold answer as ``reference`` (both published in ``items.jsonl``);
- ``output.raw`` the sample's transcript when the release publishes it (the lab opted in),
  else empty: Sealboard holds the extracted answer, not the response;
- ``answer_attribution`` the answer the lab's harness extracted (none for no answer);
- ``evaluation`` the verdict the boards count (``correct``: Sealboard's regrade where it
  regrades, else the lab's judge), as score 1 or 0;
- ``performance.latency_ms`` when the lab reported a latency;
- ``metadata``: language, sample number, whose verdict counted (``graded_by``), both
  verdicts, refusal, and the run's other result fields (``variant``, ``sketch``, ``budget``,
  ``output_tokens``, ``cost_usd``), as the strings EEE metadata holds: ``sealboard import
  eee`` reads them back to their declared types.

A sample counts on several boards (or none); EEE would repeat it once per aggregate
result, so each line names the benchmark as its ``evaluation_name`` and no
``evaluation_result_id``; the board definitions on the Methodology page say which samples
each board counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from builder.formats.eee.datastore import SCHEMA_VERSION

# matrix.csv columns that become metadata (builder.release.outputs: MATRIX_FIRST, MATRIX_EXTRA)
METADATA = (
    "lang",
    "sample",
    "graded_by",
    "lab_correct",
    "regrade_correct",
    "refused",
    "output_tokens",
    "cost_usd",
    "variant",
    "sketch",
    "budget",
)
CONDITIONS = ("variant", "sketch", "budget")  # fields that tell two samples of one item apart
EXTRACTION = "the lab's harness (results.jsonl answer)"


def text(value: Any) -> str | None:
    """A value as the string EEE metadata holds; None for absent (None, NaN)."""
    if type(value) is str:  # most values, first: 718,240 calls on the demo
        return value
    if value is None or value != value:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _transcripts(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, int], list[Mapping[str, Any]]]:
    out: dict[tuple[str, str, int], list[Mapping[str, Any]]] = {}
    for r in rows:
        out.setdefault((r["item"], r["lang"], int(r["sample"])), []).append(r)
    return out


def _responses(row: Mapping[str, Any], found: list[Mapping[str, Any]]) -> list[str]:
    """The transcripts of this sample: same item, language, sample and every condition the transcript names."""
    return [t["text"] for t in found if all(text(row.get(k)) == text(t[k]) for k in CONDITIONS if k in t)]


def sample_line(
    row: Mapping[str, Any], item: Mapping[str, Any], responses: list[str], *, evaluation_id: str, model_id: str, benchmark: str
) -> dict[str, Any]:
    """One published sample as an EEE instance-level record."""
    lang, answer = row["lang"], row.get("answer")
    gold = item.get("answer", {}).get(lang)
    line: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": benchmark,
        "sample_id": row["item"],
        "interaction_type": "single_turn",
        "input": {"raw": item["question"].get(lang, ""), "reference": [] if gold is None else [str(gold)]},
        "output": {"raw": responses},
        "answer_attribution": []
        if text(answer) is None
        else [{"turn_idx": 0, "source": "answer", "extracted_value": str(answer), "extraction_method": EXTRACTION, "is_terminal": True}],
        "evaluation": {"score": 1.0 if row["correct"] else 0.0, "is_correct": bool(row["correct"])},
    }
    latency = row.get("latency_s")
    if isinstance(latency, (int, float)) and not isinstance(latency, bool) and latency == latency:
        line["performance"] = {"latency_ms": round(latency * 1000, 3)}
    metadata = {k: v for k in METADATA if k in row and (v := text(row[k])) is not None}
    line["metadata"] = metadata
    return line


def samples_file(
    rows: Iterable[Mapping[str, Any]],
    items: Mapping[str, Mapping[str, Any]],
    transcripts: Iterable[Mapping[str, Any]],
    *,
    evaluation_id: str,
    model_id: str,
    benchmark: str,
) -> bytes:
    """One submission's published samples as JSONL, in matrix.csv's order (item, lang, sample).
    ``rows`` hold Python values (None for absent), as ``records`` makes them from the frame.

    A row whose verdict is not a boolean (none should reach matrix.csv) or whose item is
    not among the released ones is left out rather than guessed."""
    found = _transcripts(transcripts)
    out = []
    for row in rows:
        item = items.get(row["item"])
        if item is None or not isinstance(row.get("correct"), bool):
            continue
        responses = _responses(row, found.get((row["item"], row["lang"], int(row["sample"])), []))
        line = sample_line(row, item, responses, evaluation_id=evaluation_id, model_id=model_id, benchmark=benchmark)
        out.append(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
    return b"".join(out)
