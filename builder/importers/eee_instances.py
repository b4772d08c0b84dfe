"""Import Every Eval Ever instance-level JSONL (schema 0.3, ``instance_level_eval.schema.json``).

Each line is one sample of one evaluation: ``sample_id``, ``model_id``, ``evaluation_name``
(and ``evaluation_result_id``), ``interaction_type``, ``input``, ``output`` or
``messages``, ``answer_attribution`` (the answers extracted, ``is_terminal`` marks the
final one), ``evaluation`` (``score``, ``is_correct``), optional ``token_usage``,
``performance``, ``error`` and string-valued ``metadata``.

One results row per line: ``item`` = ``sample_id`` (or ``metadata[--id-field]``, then
``--map``), ``lang`` = ``metadata[--lang-field]`` or ``--lang``, ``sample`` numbered from 0
per item, language and result fields in the order the lines come, ``answer`` = the final
extracted value, ``correct`` = ``evaluation.is_correct``, ``output_tokens`` and
``latency_s`` when given. ``refused`` is false: EEE records no refusal apart from
``error``, which is not a verdict.

EEE metadata values are strings. The result fields a benchmark declares
(``result_fields`` of its scoring: LiveMathematicianBench's ``sketch: bool`` and
``variant: [standard, substitution]``, KCSAT-ML's ``budget: int``) are read from the
metadata key of the same name (or the one ``--field`` names) and turned into their declared
type: ``true``/``false`` for a bool, a decimal integer, a finite number, one of an enum's
values; anything else is refused naming the line and field (``bad-field-value``). So
``sealboard import eee --benchmark livemathematicianbench`` writes rows that benchmark's
bundles accept; ``--field`` of a field the benchmark does not declare copies the text.

A line whose ``error`` is set did not produce a graded answer: it is never turned into a
wrong answer. By default such lines stop the import (listed by line); ``--errored skip``
leaves them out, and the coverage check then names the samples still to run.

The file is lab-supplied: sizes are bounded, every field this importer reads is checked
for its type, duplicate JSON keys and NaN are refused, and every refusal names the file,
the line and a reason code.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.errors import ParseError
from builder.importers.common import IdMap, ImportReport, Sample, collect, picked, read_capped, skeleton
from builder.importers.limits import check_containers

HARNESS = "every-eval-ever"
SCHEMA_MAJOR_MINOR = "0.3"
MAX_LINE_BYTES = 16 << 20  # one sample with its transcript; a longer line is not parsed
MAX_LINES = 5_000_000
MAX_ID_CHARS = 512
USED = {
    "schema_version",
    "evaluation_id",
    "model_id",
    "evaluation_name",
    "evaluation_result_id",
    "sample_id",
    "interaction_type",
    "answer_attribution",
    "evaluation",
    "token_usage",
    "performance",
    "error",
    "metadata",
}
# The item's own content and the transcript: not results fields, and never copied.
CONTENT = {"input", "output", "messages", "sample_hash"}
INTERACTIONS = ("single_turn", "multi_turn", "agentic")
ERRORED = ("refuse", "skip")
# A declared result field's type, in builder.bundles.results.parse_results' vocabulary:
# "bool", "int", "number", "string", or a tuple of an enum's values.
FieldKind = str | tuple[str, ...]
_BOOLS = {"true": True, "false": False}
_INT = re.compile(r"[+-]?[0-9]{1,16}")  # a longer one is beyond 2^53, which the results parser refuses anyway


def declared_value(text: str, kind: FieldKind) -> Any:
    """EEE metadata text as a value of the declared kind; ValueError says what was expected."""
    if isinstance(kind, tuple):
        if text not in kind:
            raise ValueError(f"one of {', '.join(kind)}")
        return text
    if kind == "bool":
        if text.strip().lower() not in _BOOLS:
            raise ValueError("true or false")
        return _BOOLS[text.strip().lower()]
    if kind == "int":
        if not _INT.fullmatch(text.strip()):
            raise ValueError("a decimal integer")
        return int(text)
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError("a number") from None
        if not math.isfinite(number):
            raise ValueError("a finite number")
        return int(number) if _INT.fullmatch(text.strip()) else number
    return text


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class _OutOfRange(ValueError):
    """A number no results field can hold (refused as number-out-of-range)."""


MAX_INTEGER = 1 << 53  # integers a double (and so the results file) holds exactly


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _OutOfRange(f"a number a double cannot hold ({text[:40]})")
    return value


def _bounded(text: str) -> int:
    if len(text.lstrip("-")) > 16 or abs(value := int(text)) > MAX_INTEGER:
        raise _OutOfRange(f"an integer beyond ±2^53 ({text[:40]}{'…' if len(text) > 40 else ''})")
    return value


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class _Line:
    """Typed access to one parsed line: every failure names the file, line and field."""

    def __init__(self, obj: dict[str, Any], where: str, line: int) -> None:
        self.obj, self.where, self.line = obj, where, line

    def fail(self, message: str, reason: str = "bad-log", hint: str | None = None) -> ParseError:
        return ParseError(message, where=self.where, line=self.line, reason=reason, hint=hint)

    def text(self, container: dict[str, Any], key: str, label: str, *, limit: int | None = None) -> str:
        """The field's non-empty string, or a refusal naming the line."""
        value = container.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(
                f"{label} is {'missing' if value is None else type(value).__name__ + ' ' + repr(value)[:40]}, not a non-empty string"
            )
        if limit is not None and len(value) > limit:
            raise self.fail(f"{label} is {len(value)} characters; at most {limit}", reason="oversize")
        return value

    def optional_text(self, container: dict[str, Any], key: str, label: str) -> str | None:
        """The field's non-empty string, or None when it is absent (null or missing)."""
        return None if container.get(key) is None else self.text(container, key, label)

    def mapping(self, key: str, *, required: bool) -> dict[str, Any]:
        value = self.obj.get(key)
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise self.fail(f"{key} is {'missing' if value is None else type(value).__name__}, not an object")
        return value

    def count(self, container: dict[str, Any], key: str, label: str) -> int | None:
        value = container.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"{label} is {value!r}, not a count (an integer ≥ 0)")
        return value


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    where = str(path)
    data = read_capped(path)
    out = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        if number > MAX_LINES:
            raise ParseError(f"has more than {MAX_LINES} lines", where=where, line=number, reason="oversize", hint="split the file")
        if len(raw) > MAX_LINE_BYTES:
            raise ParseError(
                f"line is {len(raw)} bytes; at most {MAX_LINE_BYTES}",
                where=where,
                line=number,
                reason="oversize",
                hint="a line is one sample; leave long transcripts out of the instance file",
            )
        check_containers(raw, where, number)
        try:
            obj = json.loads(
                raw.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded
            )
        except UnicodeDecodeError:
            raise ParseError("is not UTF-8 text", where=where, line=number, reason="bad-encoding") from None
        except _OutOfRange as exc:
            raise ParseError(
                f"holds {exc}",
                where=where,
                line=number,
                reason="number-out-of-range",
                hint="a results field is a count, a duration or a score",
            ) from None
        except (ValueError, RecursionError) as exc:
            detail = str(exc) if isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError) else "not one JSON object"
            raise ParseError(
                f"is not valid JSON here ({detail})",
                where=where,
                line=number,
                reason="bad-log",
                hint="an EEE instance file holds one JSON object per line",
            ) from None
        if _SURROGATE_ESCAPE.search(raw) and _has_lone_surrogate(obj):
            raise ParseError(
                "holds a lone surrogate escape (half of a UTF-16 pair, as \\ud800): it is no character",
                where=where,
                line=number,
                reason="bad-encoding",
                hint="write the text as UTF-8, or escape both halves of the pair",
            )
        if not isinstance(obj, dict) or "sample_id" not in obj or "evaluation" not in obj:
            raise ParseError(
                "is not an Every Eval Ever instance record (needs sample_id and evaluation)",
                where=where,
                line=number,
                reason="bad-log",
                hint="pass the instance-level *_samples.jsonl file, not the aggregate JSON",
            )
        out.append((number, obj))
    if not out:
        raise ParseError("holds no samples", where=where, reason="bad-log")
    return out


def _has_lone_surrogate(obj: Any) -> bool:
    """Whether any string (key or value) holds a surrogate: json pairs the halves of a pair,
    so one left is lone. No recursion (the depth is the parser's)."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if any("\ud800" <= c <= "\udfff" for c in node):
                return True
        elif isinstance(node, dict):
            stack += [*node.keys(), *node.values()]
        elif isinstance(node, list):
            stack += node
    return False


def _answer(rec: _Line) -> str | None:
    """The final extracted answer: the last terminal attribution, else the last one."""
    attributions = rec.obj.get("answer_attribution")
    if not isinstance(attributions, list):
        raise rec.fail("answer_attribution is not a list")
    chosen = None
    for index, att in enumerate(attributions):
        if not isinstance(att, dict):
            raise rec.fail(f"answer_attribution[{index}] is not an object")
        if not isinstance(att.get("is_terminal"), bool):
            raise rec.fail(f"answer_attribution[{index}].is_terminal is not true or false")
        if not isinstance(att.get("extracted_value"), str):
            raise rec.fail(f"answer_attribution[{index}].extracted_value is not a string")
        if att["is_terminal"] or chosen is None or not chosen["is_terminal"]:
            chosen = att
    if chosen is None:
        return None
    return chosen["extracted_value"].strip() or None


def import_instances(
    paths: list[Path],
    *,
    lang: str | None = None,
    lang_field: str = "lang",
    id_field: str | None = None,
    id_map: IdMap | None = None,
    evaluation: str | None = None,
    errored: str = "refuse",
    fields: dict[str, str] | None = None,
    declared: Mapping[str, FieldKind] | None = None,
) -> ImportReport:
    """Rows and a run description from EEE instance-level files of one model and one evaluation.

    ``fields``: result field -> metadata key (``--field``); ``declared``: the benchmark's
    result fields and their kinds (``ScoringSpec.results_extras()``), each read from the
    metadata key of its own name unless ``fields`` names another, and typed."""
    if errored not in ERRORED:
        raise ValueError(f"errored must be one of {ERRORED}")
    id_map = id_map or IdMap()
    declared = declared or {}
    report = ImportReport()
    parsed = [(path, _lines(path)) for path in paths]
    evaluations = _evaluations(parsed)
    if evaluation is None and len(evaluations) > 1:
        raise ParseError(
            f"holds {len(evaluations)} evaluations ({', '.join(sorted(evaluations)[:5])})",
            where=str(paths[0]),
            reason="ambiguous-evaluation",
            hint="pass --evaluation NAME (an evaluation_result_id or evaluation_name)",
        )
    run = _Run(evaluation or next(iter(evaluations)), lang, lang_field, id_field, {**{n: n for n in declared}, **(fields or {})}, declared)
    collect((s for path, lines in parsed for s in run.samples(str(path), lines, report)), report, id_map, run.fields)
    _check_run(run, evaluations, paths, errored, report)
    id_map.check()
    model = next(iter(run.models))
    report.description = skeleton(
        model_id=model,
        temperature=None,
        max_tokens=None,
        reasoning_effort=None,
        harness=HARNESS,
        version=SCHEMA_MAJOR_MINOR,
        notes=f"imported from Every Eval Ever instance file(s) {', '.join(p.name for p in paths)}, evaluation {run.chosen}; "
        "the harness and generation settings are in the matching aggregate record",
    )
    return report


def _evaluations(parsed: list[tuple[Path, list[tuple[int, dict[str, Any]]]]]) -> dict[str, str]:
    """Each evaluation the files hold -> where it first appears."""
    evaluations: dict[str, str] = {}
    for path, lines in parsed:
        for number, obj in lines:
            rec = _Line(obj, str(path), number)
            name = rec.optional_text(obj, "evaluation_result_id", "evaluation_result_id") or rec.text(
                obj, "evaluation_name", "evaluation_name"
            )
            evaluations.setdefault(name, f"{path}:{number}")
    return evaluations


@dataclass
class _Run:
    """Reading one evaluation's samples: the settings, and what reading gathers besides the
    samples (the models named, the samples that matched, those that ended in an error)."""

    chosen: str
    lang: str | None
    lang_field: str
    id_field: str | None
    fields: dict[str, str]
    declared: Mapping[str, FieldKind]
    models: dict[str, str] = field(default_factory=dict)
    matched: int = 0
    failed: list[str] = field(default_factory=list)

    def samples(self, where: str, lines: list[tuple[int, dict[str, Any]]], report: ImportReport) -> Iterator[Sample]:
        for number, obj in lines:
            if self.chosen in (obj.get("evaluation_result_id"), obj.get("evaluation_name")):
                self.matched += 1
                sample = self.sample(_Line(obj, where, number), report)
                if sample is not None:
                    yield sample

    def sample(self, rec: _Line, report: ImportReport) -> Sample | None:
        """One line's sample; None for a sample that ended in an error (listed in ``failed``)."""
        obj, where, number = rec.obj, rec.where, rec.line
        version = rec.text(obj, "schema_version", "schema_version")
        if version.split(".")[:2] != SCHEMA_MAJOR_MINOR.split("."):
            raise rec.fail(f"schema_version is {version!r}; this importer reads {SCHEMA_MAJOR_MINOR}.x", reason="unsupported-version")
        if obj.get("interaction_type") not in INTERACTIONS:
            raise rec.fail(f"interaction_type is {obj.get('interaction_type')!r}, not one of {', '.join(INTERACTIONS)}")
        model = rec.text(obj, "model_id", "model_id", limit=MAX_ID_CHARS)
        self.models.setdefault(model, f"{where}:{number}")
        report.skipped("sample keys (unknown to this importer)", [k for k in obj if k not in USED and k not in CONTENT])
        metadata = rec.mapping("metadata", required=False)
        for key, value in metadata.items():
            if not isinstance(value, str):
                raise rec.fail(f"metadata.{key} is {type(value).__name__}; EEE metadata values are strings")
        source = (
            rec.text(metadata, self.id_field, f"metadata.{self.id_field}", limit=MAX_ID_CHARS)
            if self.id_field
            else rec.text(obj, "sample_id", "sample_id", limit=MAX_ID_CHARS)
        )
        row_lang = metadata.get(self.lang_field, self.lang)
        if row_lang is None:
            raise rec.fail(
                f"metadata has no field {self.lang_field!r} and no --lang was given",
                reason="missing-language",
                hint="pass --lang en (or the benchmark's language)",
            )
        error = obj.get("error")
        if error is not None:
            if not isinstance(error, str):
                raise rec.fail(f"error is {type(error).__name__}, not a string or null")
            self.failed.append(f"line {number} ({source}: {error.strip()[:60]})")
            return None
        correct = rec.mapping("evaluation", required=True).get("is_correct")
        if not isinstance(correct, bool):
            raise rec.fail(f"evaluation.is_correct is {correct!r}, not true or false", reason="bad-score")
        # Two ids of the log onto one item (--map) merge samples: the line is where.
        sample = Sample(
            source, row_lang, _answer(rec), correct, f"{where}:{number}", extra=_measured(rec), fields=self.typed(rec, metadata)
        )
        report.skipped("sample metadata fields", [k for k in metadata if k not in {self.lang_field, self.id_field, *self.fields.values()}])
        return sample

    def typed(self, rec: _Line, metadata: dict[str, Any]) -> dict[str, Any]:
        """The result fields the metadata holds, a declared one typed as the benchmark declares it."""
        out = picked(metadata, self.fields)
        for target, key in self.fields.items():
            if key in metadata and target in self.declared:
                try:
                    out[target] = declared_value(metadata[key], self.declared[target])
                except ValueError as exc:
                    raise rec.fail(
                        f"metadata.{key} is {metadata[key][:40]!r}; {target} is declared by the benchmark as {exc}",
                        reason="bad-field-value",
                        hint=f"write {target} as {exc} in every sample's metadata",
                    ) from None
        return out


def _measured(rec: _Line) -> dict[str, Any]:
    """Output tokens and latency, where the line has them."""
    out: dict[str, Any] = {}
    tokens = rec.count(rec.mapping("token_usage", required=False), "output_tokens", "token_usage.output_tokens")
    if tokens is not None:
        out["output_tokens"] = tokens
    latency = rec.mapping("performance", required=False).get("latency_ms")
    if latency is not None:
        if isinstance(latency, bool) or not isinstance(latency, (int, float)) or latency < 0:
            raise rec.fail(f"performance.latency_ms is {latency!r}, not a duration ≥ 0")
        out["latency_s"] = latency / 1000
    return out


def _check_run(run: _Run, evaluations: dict[str, str], paths: list[Path], errored: str, report: ImportReport) -> None:
    """One evaluation, one model; errored samples refused, or left out and said so."""
    if not run.matched:
        raise ParseError(
            f"has no samples of evaluation {run.chosen!r} (evaluations: {', '.join(sorted(evaluations)[:5])})",
            where=str(paths[0]),
            reason="ambiguous-evaluation",
        )
    if len(run.models) > 1:
        raise ParseError(
            f"the files hold samples of {len(run.models)} models ({', '.join(sorted(run.models)[:5])})",
            where=str(paths[0]),
            reason="mixed-models",
            hint="import one model's samples at a time",
        )
    if run.failed:
        listed = "; ".join(run.failed[:5]) + (" …" if len(run.failed) > 5 else "")
        if errored == "refuse":
            raise ParseError(
                f"{len(run.failed)} sample(s) ended in an error and have no graded answer: {listed}",
                where=str(paths[0]),
                reason="errored-samples",
                hint="re-run those samples, or pass --errored skip to leave them out (they are then missing, never counted as wrong)",
            )
        report.notes.append(f"left out {len(run.failed)} errored sample(s), not scored: {listed}")
