"""Import lm-evaluation-harness per-sample logs (``samples_<task>_<date>.jsonl``).

Format (``lm_eval --log_samples``): one JSON object per document and filter, with
``doc_id``, ``doc`` (the dataset row), ``target``, ``arguments``, ``resps`` (per request,
the list of generations: ``repeats`` of them), ``filtered_resps`` (one per request after
the task's filter, e.g. an answer-extracting regex), ``filter``, ``metrics`` (the metric
names, each also a key holding the document's value), and hashes. The aggregate file
``results_<date>.json`` beside it holds ``config`` (model, model_args, gen_kwargs),
``configs`` (the task's generation_kwargs, repeats) and ``lm_eval_version``: the run
description comes from it when present.

One results row per document (and per repeat): ``item`` = ``doc[--id-field]`` (default
``id``, then ``--map``), ``lang`` = ``doc[--lang-field]`` or ``--lang``, ``sample`` =
numbered from 0 per item and language across the files given, ``answer`` = the filtered
response, ``correct`` = the document's ``--metric`` value (1 is correct).

lm-eval scores a document once even when it generates ``repeats`` responses, so per-sample
correctness of repeats is not in the log: such logs are refused unless
``--grade-by-target`` says to grade each response as equal to the target (after trimming
white space); Sealboard regrades exact answer types itself anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import ParseError
from builder.importers.common import IdMap, ImportReport, Sample, collect, picked, read_capped, skeleton
from builder.importers.limits import check_id, load_json, shown

HARNESS = "lm-evaluation-harness"
KNOWN = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash", "prompt_hash", "target_hash"}
_DATE = re.compile(r"samples_(?P<task>.+)_(?P<date>\d{4}-\d\d-\d\dT[\d.-]+)\.jsonl\Z")


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    where = str(path)
    out = []
    for number, line in enumerate(read_capped(path).splitlines(), start=1):
        if not line.strip():
            continue
        obj = load_json(line, where, number, what="a JSON object per line (an lm-eval samples file)")
        if not isinstance(obj, dict) or "doc" not in obj or "resps" not in obj:
            raise ParseError(
                "is not an lm-eval sample (needs doc and resps)",
                where=where,
                line=number,
                reason="bad-log",
                hint="pass the samples_<task>_<date>.jsonl files lm_eval --log_samples writes",
            )
        out.append((number, obj))
    if not out:
        raise ParseError("holds no samples", where=where, reason="bad-log")
    return out


def results_file(samples: Path) -> Path | None:
    """The aggregate ``results_<date>.json`` written in the same run, if it is beside it."""
    m = _DATE.match(samples.name)
    if m:
        candidate = samples.with_name(f"results_{m['date']}.json")
        if candidate.is_file():
            return candidate
    return None


def _correct(value: Any, where: str, line: int, metric: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return value == 1
    raise ParseError(
        f"metric {metric} is {value!r}, not 0 or 1",
        where=where,
        line=line,
        reason="bad-score",
        hint="pass --metric naming an exact-match style metric",
    )


def import_samples(
    paths: list[Path],
    *,
    lang: str | None = None,
    lang_field: str = "lang",
    id_field: str = "id",
    id_map: IdMap | None = None,
    metric: str | None = None,
    filter_name: str | None = None,
    grade_by_target: bool = False,
    fields: dict[str, str] | None = None,
) -> ImportReport:
    id_map = id_map or IdMap()
    fields = fields or {}
    report = ImportReport()
    options = _Options(lang, lang_field, id_field, metric, grade_by_target, fields)
    collect((s for path in paths for s in _samples(path, filter_name, options, report)), report, id_map, fields)
    id_map.check()
    report.description = _describe(paths[0])
    return report


@dataclass(frozen=True)
class _Options:
    lang: str | None
    lang_field: str
    id_field: str
    metric: str | None
    grade_by_target: bool
    fields: dict[str, str]


def _samples(path: Path, filter_name: str | None, o: _Options, report: ImportReport) -> Iterator[Sample]:
    """The samples of one samples file, under its one filter (or the one chosen)."""
    where = str(path)
    lines = _lines(path)
    filters = sorted({str(obj.get("filter")) for _, obj in lines})
    if filter_name is None and len(filters) > 1:
        raise ParseError(
            f"holds {len(filters)} filters ({', '.join(filters)})", where=where, reason="ambiguous-filter", hint="pass --filter NAME"
        )
    chosen_filter = filter_name or filters[0]
    for number, obj in lines:
        if str(obj.get("filter")) == chosen_filter:
            yield from _document(obj, where, number, o, report)


def _metric(obj: dict[str, Any], where: str, number: int, o: _Options, report: ImportReport) -> str:
    metrics = obj.get("metrics") or []
    report.skipped("sample keys (unknown to this importer)", [k for k in obj if k not in KNOWN and k not in metrics])
    name = o.metric or (metrics[0] if len(metrics) == 1 else None)
    if name is None or name not in obj:
        raise ParseError(
            f"metric {'?' if name is None else repr(name)} not found (metrics: {', '.join(metrics) or 'none'})",
            where=where,
            line=number,
            reason="ambiguous-metric",
            hint="pass --metric NAME",
        )
    report.skipped("other metrics", [m for m in metrics if m != name])
    return name


def _document(obj: dict[str, Any], where: str, number: int, o: _Options, report: ImportReport) -> Iterator[Sample]:
    """One logged document's samples: one, or one per response under --grade-by-target."""
    name = _metric(obj, where, number, o, report)
    doc = obj["doc"] if isinstance(obj["doc"], dict) else {}
    if o.id_field not in doc:
        raise ParseError(
            f"doc has no field {shown(repr(o.id_field))} (fields: {shown(', '.join(map(str, doc)))[:300]})",
            where=where,
            line=number,
            reason="bad-log",
            hint="pass --id-field naming the item id in your task's documents",
        )
    row_lang = doc.get(o.lang_field, o.lang)
    if row_lang is None:
        raise ParseError(
            f"doc has no field {o.lang_field!r} and no --lang was given",
            where=where,
            line=number,
            reason="missing-language",
            hint="pass --lang ko (or the benchmark's language)",
        )
    used = {o.id_field, o.lang_field, *o.fields.values()}
    report.skipped("doc fields (the item's own content)", [k for k in doc if k not in used])
    answers, verdicts = _graded(obj, name, where, number, o.grade_by_target)
    source = doc[o.id_field]
    check_id(source, where, "the document's id", number)
    for answer, verdict in zip(answers, verdicts):
        yield Sample(source, row_lang, answer or None, verdict, where, fields=picked(doc, o.fields))


def _graded(obj: dict[str, Any], name: str, where: str, number: int, by_target: bool) -> tuple[list[str | None], list[bool]]:
    """(answers, verdicts) of one document: its one response graded by the metric, or each
    of its several responses against the target (--grade-by-target)."""
    responses = [r for group in obj["resps"] for r in (group if isinstance(group, list) else [group])]
    if len(responses) > 1:
        if not by_target:
            raise ParseError(
                f"document {obj.get('doc_id')} has {len(responses)} responses but one {name} value",
                where=where,
                line=number,
                reason="repeats-ungraded",
                hint="run with repeats: 1 once per sample and pass every samples file, or pass --grade-by-target",
            )
        answers: list[str | None] = [str(r).strip() for r in responses]
        return answers, [a == str(obj.get("target")).strip() for a in answers]
    filtered = obj.get("filtered_resps")
    answer = filtered[0] if isinstance(filtered, list) and filtered else responses[0] if responses else None
    return [None if answer is None else str(answer).strip()], [_correct(obj[name], where, number, name)]


def _describe(samples: Path) -> dict[str, Any]:
    path = results_file(samples)
    if path is None:
        return skeleton(
            model_id="unknown",
            temperature=None,
            max_tokens=None,
            reasoning_effort=None,
            harness=HARNESS,
            version="unknown",
            notes=f"imported from {samples.name}; its results_<date>.json was not beside it",
        )
    agg = load_json(read_capped(path), str(path))
    config = agg.get("config") or {}
    model_args = config.get("model_args") or {}
    if isinstance(model_args, str):  # older versions keep the command-line string
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    model_id = str(model_args.get("pretrained") or model_args.get("model") or config.get("model") or "unknown")
    gen: dict[str, Any] = {}
    for task_config in (agg.get("configs") or {}).values():
        gen.update(task_config.get("generation_kwargs") or {})
    gen.update(config.get("gen_kwargs") or {})
    tasks = ", ".join(agg.get("configs") or {})
    return skeleton(
        model_id=model_id,
        temperature=gen.get("temperature", 0.0 if gen.get("do_sample") is False else None),
        max_tokens=gen.get("max_gen_toks"),
        reasoning_effort=None,
        harness=HARNESS,
        version=str(agg.get("lm_eval_version") or "unknown"),
        notes=f"lm-eval model {config.get('model')}, tasks {tasks}",
    )
