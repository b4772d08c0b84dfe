"""Import inspect_ai evaluation logs (``.eval`` archives or ``.json``).

Format (inspect_ai ``EvalLog``): ``eval`` (task, model, model_generate_config, packages),
``plan.config`` (the generate config: temperature, max_tokens, reasoning_effort…) and
``samples``, each with ``id``, ``epoch`` (from 1), ``output`` (``choices[0].stop_reason``,
``usage``), ``scores`` (scorer name → ``{value, answer, explanation, metadata}``),
``metadata``, ``model_usage``, ``total_time`` and ``error``. A ``.eval`` file is a zip
holding ``header.json`` (the log without samples) and each sample either as
``samples/<id>_epoch_<n>.json`` or in the chunked layout (``samples/<id>_epoch_<n>/sample.json``
and ``metadata.json`` beside transcript chunks, which are not read): ``eval_layout``.

One results row per sample: ``item`` = the sample id (or ``--id-field`` from its metadata,
then ``--map``), ``lang`` = ``--lang-field`` from its metadata or ``--lang``, ``sample`` =
numbered from 0 per item and language in (log, epoch) order, ``answer`` = the scorer's
extracted answer, ``correct`` = its value (``C`` or 1 is correct), ``refused`` = the model
stopped on its content filter, ``output_tokens``/``cost_usd`` from the model usage,
``latency_s`` = the sample's total time.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.errors import ParseError
from builder.importers.common import MAX_LOG_BYTES, IdMap, ImportReport, Sample, collect, picked, read_capped, skeleton
from builder.importers.eval_layout import SampleEntry, check_named, sample_entries
from builder.importers.limits import MAX_MEMBER, check_epoch, check_id, load_json, read_member, shown

HARNESS = "inspect_ai"
# Sample keys this importer reads, and those that only hold the transcript or bookkeeping.
USED = {"id", "epoch", "output", "scores", "metadata", "model_usage", "total_time", "error"}
TRANSCRIPT = {
    "input", "target", "messages", "events", "store", "role_usage", "started_at", "completed_at", "working_time", "uuid",
    "error_retries", "attachments", "events_data", "turn_count", "limit", "invalidation", "choices", "sandbox", "files", "setup",
    "message_refs",  # the chunked layout's shell: where its final messages are in the chunks
}  # fmt: skip
CORRECT = {"C": True, "I": False, "P": False, "N": False}


def _json(data: bytes, where: str) -> Any:
    return load_json(data, where, what="a JSON inspect log")


ZIP_ZSTANDARD = 93  # the compression inspect_ai writes .eval members with (APPNOTE 4.4.5)


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> bytes:
    """One member's bytes; zstd members are decompressed here (zipfile before Python 3.14
    cannot), with the size capped by the directory entry and the CRC checked."""
    info = archive.getinfo(name)
    if info.compress_type != ZIP_ZSTANDARD:
        return read_member(archive, info, str(path))
    if info.file_size > MAX_MEMBER:
        raise ParseError(
            f"member {shown(name)} declares {info.file_size} bytes; members larger than {MAX_MEMBER} are not imported",
            where=str(path),
            reason="oversize",
        )
    try:
        import zstandard
    except ImportError:
        raise ParseError(
            "is a zstd-compressed .eval log and the zstandard package is not installed",
            where=str(path),
            reason="missing-dependency",
            hint="add zstandard (Sealboard's importers extra) to the environment Sealboard is installed in, "
            "or convert the log with 'inspect log convert --to json'",
        ) from None
    with path.open("rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise ParseError(f"member {shown(name)} has no local header", where=str(path), reason="bad-log")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        raw = fh.read(info.compress_size)
    try:
        data = zstandard.ZstdDecompressor().decompress(raw, max_output_size=info.file_size)
    except zstandard.ZstdError:
        raise ParseError(
            f"member {shown(name)} is not valid zstd data, or inflates beyond its declared size", where=str(path), reason="zip-member-size"
        ) from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise ParseError(
            f"member {shown(name)} does not inflate to the {info.file_size} bytes its entry declares (or fails its CRC)",
            where=str(path),
            reason="zip-member-size",
        )
    return data


def read_log(path: Path) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The log's header and its samples, from either file format."""
    where = str(path)
    if zipfile.is_zipfile(path):
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError):
            raise ParseError("is not a readable zip (.eval) archive", where=where, reason="bad-log") from None
        names = archive.namelist()
        total = sum(info.file_size for info in archive.infolist())
        if total > MAX_LOG_BYTES:
            raise ParseError(
                f"unpacks to {total} bytes; logs larger than {MAX_LOG_BYTES} bytes are not imported", where=where, reason="oversize"
            )
        if "header.json" not in names:
            raise ParseError("is a zip without header.json, not an inspect .eval log", where=where, reason="bad-log")
        header = _json(_member(archive, "header.json", path), f"{where}!header.json")
        entries = sample_entries(names, where)  # refuses an unknown layout before any sample is read

        def samples() -> Iterator[dict[str, Any]]:
            for entry in entries:
                yield _sample(archive, entry, path)

        return header, samples()
    log = _json(read_capped(path), where)
    if not isinstance(log, dict) or "eval" not in log:
        raise ParseError(
            "is not an inspect log (no 'eval' section)",
            where=where,
            reason="bad-log",
            hint="pass the .eval or .json file inspect wrote under its log directory",
        )
    return log, iter(log.get("samples") or [])


def _sample(archive: zipfile.ZipFile, entry: SampleEntry, path: Path) -> dict[str, Any]:
    """One sample, whole: a classic entry, or a chunked sample's shell with its metadata
    (the transcript chunks are never read: no results field comes from them)."""
    where = str(path)
    sample = check_named(_json(_member(archive, entry.shell, path), f"{where}!{entry.shell}"), entry, where)
    if entry.metadata is not None:
        if "metadata" in sample:
            raise ParseError(
                f"chunked sample {shown(entry.stem)!r} has metadata both in {shown(entry.shell)!r} and in {shown(entry.metadata)!r}",
                where=where,
                reason="eval-layout",
            )
        sample["metadata"] = _json(_member(archive, entry.metadata, path), f"{where}!{entry.metadata}")
    return sample


def _scorer(scores: dict[str, Any], chosen: str | None, where: str) -> str:
    if chosen is not None:
        if chosen not in scores:
            raise ParseError(f"has no scorer {chosen!r} (scorers: {', '.join(scores) or 'none'})", where=where, reason="bad-log")
        return chosen
    if len(scores) != 1:
        raise ParseError(
            f"has {len(scores)} scorers ({', '.join(scores) or 'none'})",
            where=where,
            reason="ambiguous-scorer",
            hint="pass --scorer NAME to say which one grades the answer",
        )
    return next(iter(scores))


def _correct(value: Any, where: str, report: ImportReport) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in CORRECT:
        if value == "P":
            report.notes.append("partial credit ('P') imported as incorrect")
        return CORRECT[value]
    if isinstance(value, (int, float)) and value in (0, 1):
        return value == 1
    raise ParseError(
        f"score value {value!r} is not correct/incorrect (C, I, P, N, 0, 1 or true/false)",
        where=where,
        reason="bad-score",
        hint="use a scorer that grades each sample correct or incorrect, or pass --scorer",
    )


def _usage(sample: dict[str, Any]) -> tuple[float | None, float | None]:
    """Output tokens and cost over every model call of the sample (agents make several)."""
    usage = sample.get("model_usage") or {}
    tokens = cost = None
    if isinstance(usage, dict) and usage:
        tokens = sum(u.get("output_tokens") or 0 for u in usage.values() if isinstance(u, dict))
        costs = [c for u in usage.values() if isinstance(u, dict) and (c := u.get("total_cost")) is not None]
        cost = sum(costs) if costs else None
    elif isinstance((sample.get("output") or {}).get("usage"), dict):
        tokens = sample["output"]["usage"].get("output_tokens")
    return tokens, cost


def import_logs(
    paths: list[Path],
    *,
    lang: str | None = None,
    lang_field: str = "lang",
    id_field: str | None = None,
    id_map: IdMap | None = None,
    scorer: str | None = None,
    fields: dict[str, str] | None = None,
    errored_as_incorrect: bool = False,
) -> ImportReport:
    """Rows and a run description from one or more inspect logs of the same model.

    A sample that ended in an error is refused (``errored-sample``): an error is not a wrong
    answer. With ``errored_as_incorrect`` it is counted as an incorrect answer with no
    answer, and the report says how many were."""
    id_map = id_map or IdMap()
    report = ImportReport()
    run = _Run(lang, lang_field, id_field, scorer, fields or {}, errored_as_incorrect)
    collect((s for index, path in enumerate(paths) for s in run.samples(index, path, report)), report, id_map, run.fields, grouped=True)
    id_map.check()
    if run.errored:
        report.notes.append(
            f"{run.errored} sample(s) ended in an error and are counted as incorrect answers with no answer (--errored-as-incorrect)"
        )
    if len(run.models) > 1:
        raise ParseError(
            f"the logs are from different models ({', '.join(sorted(run.models))})",
            where=str(paths[0]),
            reason="mixed-models",
            hint="import one model's logs at a time",
        )
    report.description = _describe(run.header0 or {})
    return report


@dataclass
class _Run:
    """What reading a run's logs gathers besides its samples (the models named, the first
    header, how many samples ended in an error)."""

    lang: str | None
    lang_field: str
    id_field: str | None
    scorer: str | None
    fields: dict[str, str]
    errored_as_incorrect: bool
    models: set[str] = field(default_factory=set)
    header0: dict[str, Any] | None = None
    errored: int = 0

    def samples(self, index: int, path: Path, report: ImportReport) -> Iterator[Sample]:
        where = str(path)
        header, samples = read_log(path)
        self.header0 = self.header0 or header
        self.models.add(str((header.get("eval") or {}).get("model")))
        if header.get("status") not in (None, "success"):
            report.notes.append(f"{where}: log status is {header.get('status')!r}; samples it lacks are missing from the results")
        for sample in samples:
            yield self.sample(index, where, sample, report)

    def sample(self, index: int, where: str, sample: dict[str, Any], report: ImportReport) -> Sample:
        epoch = check_epoch(sample.get("epoch"), where)
        sid = f"sample {shown(repr(sample.get('id')))[:80]} epoch {epoch}"
        report.skipped("sample keys (unknown to this importer)", set(sample) - USED - TRANSCRIPT)
        metadata = sample.get("metadata") or {}
        source = metadata.get(self.id_field) if self.id_field else sample.get("id")
        if source is None:
            what = "metadata field " + shown(repr(self.id_field)) if self.id_field else "id"
            raise ParseError(f"{sid} has no {what}", where=where, reason="bad-log")
        check_id(source, where, f"{sid}: its id")
        row_lang = metadata.get(self.lang_field) if self.lang_field in metadata else self.lang
        if row_lang is None:
            raise ParseError(
                f"{sid} has no metadata field {self.lang_field!r} and no --lang was given",
                where=where,
                reason="missing-language",
                hint="pass --lang en (or the benchmark's language)",
            )
        answer, correct = self.graded(sample, sid, where, report)
        choices = (sample.get("output") or {}).get("choices") or [{}]
        used_meta = {self.lang_field, self.id_field, *self.fields.values()}
        report.skipped("sample metadata fields", [k for k in metadata if k not in used_meta])
        return Sample(
            source,
            row_lang,
            None if answer is None else str(answer),
            correct,
            where,
            refused=choices[0].get("stop_reason") == "content_filter",
            extra=_measured(sample),
            fields=picked(metadata, self.fields),
            order=(index, epoch),
        )

    def graded(self, sample: dict[str, Any], sid: str, where: str, report: ImportReport) -> tuple[Any, bool]:
        """(the extracted answer, the scorer's verdict); an errored sample refused, or counted
        as an incorrect answer with no answer (--errored-as-incorrect)."""
        scores = sample.get("scores") or {}
        if sample.get("error") is not None:
            if not self.errored_as_incorrect:
                raise ParseError(
                    f"{sid} ended in an error; an error is not a wrong answer",
                    where=where,
                    reason="errored-sample",
                    hint="rerun the errored samples (inspect eval-retry), or pass --errored-as-incorrect to count each as an incorrect answer",
                )
            self.errored += 1
            return None, False
        name = _scorer(scores, self.scorer, sid)
        report.skipped("other scorers", [s for s in scores if s != name])
        score = scores[name] or {}
        return score.get("answer"), _correct(score.get("value"), sid, report)


def _measured(sample: dict[str, Any]) -> dict[str, Any]:
    """Output tokens, latency and cost, where the log has them."""
    tokens, cost = _usage(sample)
    out: dict[str, Any] = {}
    if tokens is not None:
        out["output_tokens"] = tokens
    if isinstance(sample.get("total_time"), (int, float)):
        out["latency_s"] = float(sample["total_time"])
    if cost is not None:
        out["cost_usd"] = float(cost)
    return out


def _describe(header: dict[str, Any]) -> dict[str, Any]:
    ev = header.get("eval") or {}
    config = {**(ev.get("model_generate_config") or {}), **((header.get("plan") or {}).get("config") or {})}
    packages = ev.get("packages") or {}
    scorers = ", ".join(s.get("name", "?") for s in ev.get("scorers") or [] if isinstance(s, dict))
    return skeleton(
        model_id=str(ev.get("model") or "unknown"),
        temperature=config.get("temperature"),
        max_tokens=config.get("max_tokens"),
        reasoning_effort=config.get("reasoning_effort"),
        harness=HARNESS,
        version=str(packages.get("inspect_ai") or ev.get("inspect_version") or "unknown"),
        notes=f"inspect task {ev.get('task')!s}, scorer {scorers or 'unknown'}, epochs {(ev.get('config') or {}).get('epochs')}",
    )
