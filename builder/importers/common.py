"""What every importer shares: item-id mapping, the import report, writing the outputs."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from builder.errors import ParseError, ResultsError
from builder.importers.limits import MAX_ID_CHARS, ItemSources, shown

MAX_LOG_BYTES = 1 << 30  # a log larger than 1 GiB is not read into memory


def read_capped(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_LOG_BYTES:
        raise ParseError(f"is {size} bytes; logs larger than {MAX_LOG_BYTES} bytes are not imported", where=str(path), reason="oversize")
    return path.read_bytes()


@dataclass
class ImportReport:
    """Rows produced, and everything in the logs that did not become a results field."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    # "where the field lives" -> field name -> how many records carried it
    not_imported: dict[str, Counter] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    description: dict[str, Any] = field(default_factory=dict)

    def skipped(self, place: str, names: Any) -> None:
        counter = self.not_imported.setdefault(place, Counter())
        counter.update(names)

    def summary_lines(self) -> list[str]:
        lines = []
        for place, counter in self.not_imported.items():
            if counter:
                listed = ", ".join(f"{name} ({n})" for name, n in sorted(counter.items()))
                lines.append(f"not imported — {place}: {listed}")
        return lines + self.notes


class IdMap:
    """Maps a log's sample ids to the benchmark's item ids (``--map FILE.csv``).

    The CSV has two columns, the id in the log and the benchmark's item id; a first row
    ``source,item`` (any header naming both) is skipped. Without a map, ids pass through.
    """

    def __init__(self, mapping: dict[str, str] | None = None, where: str = "") -> None:
        self.mapping = mapping
        self.where = where
        self.unmapped: list[str] = []

    @classmethod
    def load(cls, path: Path | None) -> "IdMap":
        if path is None:
            return cls()
        where = str(path)
        try:
            text = read_capped(path).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ParseError("is not UTF-8 text", where=where, reason="bad-encoding", hint="save the map as UTF-8 CSV") from None
        mapping: dict[str, str] = {}
        try:
            rows = list(csv.reader(io.StringIO(text)))
        except csv.Error as exc:  # the csv module's own field limit (128 Ki characters) among them
            raise ParseError(
                f"is not a CSV map, or has a cell longer than {MAX_ID_CHARS} characters ({exc})",
                where=where,
                reason="id-too-long" if "field larger" in str(exc) else "bad-map",
            ) from None
        for number, row in enumerate(rows, start=1):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 2:
                raise ParseError(
                    f"has {len(row)} column(s); a map row is: id in the log, item id", where=where, line=number, reason="bad-map"
                )
            if any(len(c) > MAX_ID_CHARS for c in row):
                raise ParseError(
                    f"has a cell longer than {MAX_ID_CHARS} characters; a map cell is an id", where=where, line=number, reason="id-too-long"
                )
            source, item = row[0].strip(), row[1].strip()
            if number == 1 and source.lower() in ("source", "id", "log_id", "sample_id") and item.lower() in ("item", "item_id", "target"):
                continue
            if not source or not item:
                raise ParseError("has an empty id", where=where, line=number, reason="bad-map")
            if source in mapping and mapping[source] != item:
                raise ParseError(f"maps {shown(repr(source))} twice", where=where, line=number, reason="bad-map")
            mapping[source] = item
        if not mapping:
            raise ParseError("maps no ids", where=where, reason="bad-map")
        return cls(mapping, where)

    def __call__(self, source: Any) -> str:
        key = str(source)
        if self.mapping is None:
            return key
        item = self.mapping.get(key)
        if item is None:
            self.unmapped.append(key)
            return key
        return item

    def check(self) -> None:
        if self.unmapped:
            first = sorted(set(self.unmapped))
            raise ParseError(
                f"{len(first)} id(s) in the logs are not in the map: {shown(', '.join(first[:5]))}{' …' if len(first) > 5 else ''}",
                where=self.where,
                reason="unmapped-id",
                hint="add a row for each (id in the log, item id)",
            )


def check_unique(rows: list[dict[str, Any]], where: str) -> None:
    """Each (item, lang, sample, variant fields) once: the results parser would refuse it later."""
    seen: set[tuple[Any, ...]] = set()
    for row in rows:
        key = tuple(sorted((k, v) for k, v in row.items() if k in ("item", "lang", "sample", "variant", "sketch")))
        if key in seen:
            raise ResultsError(
                f"item {shown(repr(row['item']))} ({shown(str(row['lang']))}) sample {row['sample']} comes twice from the logs",
                where=where,
                reason="duplicate-sample",
                hint="pass each run's log once; two logs of the same samples need different --sample-offset",
            )
        seen.add(key)


def write_outputs(report: ImportReport, results: Path, describe: Path, *, force: bool) -> None:
    for path in (results, describe):
        if path.exists() and not force:
            raise ParseError("already exists", where=str(path), reason="exists", hint="choose another path or pass --force")
    rows = sorted(report.rows, key=lambda r: (r["lang"], r["item"], r.get("variant") or "", r.get("sketch") or False, r["sample"]))
    results.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    header = (
        "# run.yaml skeleton written by `sealboard import` from the log's model and configuration.\n"
        "# Check every value, fill in what the log could not know (display name, family, open\n"
        "# weights, parameter counts, dates), then pass it to `sealboard bundle create --describe`.\n"
    )
    describe.write_text(header + yaml.safe_dump(report.description, sort_keys=False, allow_unicode=True))


def skeleton(
    *, model_id: str, temperature: Any, max_tokens: Any, reasoning_effort: Any, harness: str, version: str, notes: str
) -> dict[str, Any]:
    """A run description with everything the log tells, placeholders (null) for the rest."""
    return {
        "model": {
            "id": model_id,
            "name": model_id.rsplit("/", 1)[-1],
            "family": model_id.rsplit("/", 1)[-1],
            "open_weights": False,
            "params_b": None,
            "active_params_b": None,
            "training_cutoff": None,
            "release_date": None,
        },
        "config": {
            "reasoning_effort": reasoning_effort,
            "thinking": None,
            "temperature": temperature,
            "max_output_tokens": max_tokens,
            "tts": False,
            "notes": notes,
        },
        "harness": {"name": harness, "version": version},
        "judge": None,
        "publish_on_release": {"results": True, "transcripts": False},
    }


@dataclass(frozen=True)
class Sample:
    """One graded answer as an importer read it from its log: the shared loop
    (:func:`collect`) turns it into a results row."""

    source: Any  # the log's id of the item (mapped by --map)
    lang: Any
    answer: str | None
    correct: bool | None
    where: str  # the log (and line) the sample came from, for a colliding id
    refused: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # output_tokens, latency_s, cost_usd: as the log had them
    fields: dict[str, Any] = field(default_factory=dict)  # result field -> value (--field, declared fields)
    order: tuple[Any, ...] = ()  # how repeats of one condition are numbered (inspect: file, epoch); () is log order


def picked(metadata: dict[str, Any], fields: dict[str, str]) -> dict[str, Any]:
    """Result field -> its value, for the ``--field`` names the sample's metadata holds."""
    return {target: metadata[key] for target, key in fields.items() if key in metadata}


def collect(samples: Iterable[Sample], report: ImportReport, id_map: IdMap, field_names: Iterable[str], *, grouped: bool = False) -> None:
    """The loop every importer shares: each sample's id mapped to its item (two ids of the log
    naming one item refused), its row written, and the repeats of one condition (item,
    language, variant fields) numbered 0, 1, … in log order, or by `order` when `grouped`
    (the rows then come condition by condition)."""
    sources = ItemSources()
    names = sorted(field_names)
    counters: dict[tuple[Any, ...], int] = {}
    keyed: dict[tuple[Any, ...], list[tuple[tuple[Any, ...], dict[str, Any]]]] = {}
    for sample in samples:
        item = id_map(sample.source)
        sources.add(item, sample.source, sample.where)
        row: dict[str, Any] = {"item": item, "lang": sample.lang, "answer": sample.answer, "correct": sample.correct}
        row |= {"refused": sample.refused, **sample.extra, **sample.fields}
        condition = (item, sample.lang, tuple((k, row.get(k)) for k in names))
        if grouped:
            keyed.setdefault(condition, []).append((sample.order, row))
            continue
        row["sample"] = counters.get(condition, 0)
        counters[condition] = row["sample"] + 1
        report.rows.append(row)
    for runs in keyed.values():
        for number, (_, row) in enumerate(sorted(runs, key=lambda r: r[0])):
            row["sample"] = number
            report.rows.append(row)
