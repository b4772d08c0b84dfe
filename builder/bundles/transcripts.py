"""The transcripts file of a bundle: ``transcripts.jsonl.gz`` (sealed as ``.age``).

gzip-compressed JSON Lines, one line per sample transcript::

    {"item": "m001", "lang": "en", "sample": 0, "text": "…the model's whole output…"}

``item`` and ``text`` are required, ``lang`` (default: the benchmark's primary language)
and ``sample`` (default 0) optional, and so are the benchmark's categorical result fields
(``conditions``: e.g. LiveMathematicianBench's ``variant`` and ``sketch``, which tell apart
the results of one sample, as in ``results.jsonl``); nothing else. ``bundle create`` checks the format, and
the build reads only the lines of released items, as a stream: the decompressed size is
bounded (a gzip bomb is refused, not inflated), and lines of other items are never kept.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson

from builder.errors import BundleError, ParseError
from builder.strict import check_fields, iter_jsonl

MAX_DECOMPRESSED = 512 << 20  # bytes of JSON Lines per transcripts file
MAX_TEXT = 1 << 20  # characters of one transcript
_CHUNK = 8 << 20


def _lines(gz: bytes, where: str) -> Iterator[tuple[int, bytes]]:
    """(first line number, a batch of whole lines) from the gzip stream, bounded."""
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    pending, total, line = b"", 0, 1
    data = gz
    try:
        while data or not inflate.eof:
            out = inflate.decompress(data, _CHUNK)
            data = inflate.unconsumed_tail
            total += len(out)
            if total > MAX_DECOMPRESSED:
                raise BundleError(
                    f"decompresses to more than {MAX_DECOMPRESSED >> 20} MiB",
                    where=where,
                    reason="transcripts-too-large",
                    hint="keep transcripts of the benchmark's items and samples only",
                )
            pending += out
            cut = pending.rfind(b"\n") + 1
            if cut:
                yield line, pending[:cut]
                line += pending[:cut].count(b"\n")
                pending = pending[cut:]
            if not out and not data:
                break
    except zlib.error:
        raise BundleError(
            "is not a gzip file (transcripts.jsonl.gz)",
            where=where,
            reason="bad-transcripts",
            hint="compress the JSON Lines file with gzip before sealing",
        ) from None
    if not inflate.eof or inflate.unused_data:
        raise BundleError("is not one complete gzip stream", where=where, reason="bad-transcripts", hint="compress it again with gzip")
    if pending:
        yield line, pending


def _skippable(line: bytes, keep: Callable[[str], bool]) -> bool:
    """A line of an item not kept: never published, so not worth the strict parser (about
    10x slower). Anything odd goes to the strict parser, which names the problem."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(obj, dict) and isinstance(obj.get("item"), str) and not keep(obj["item"])


def _condition_ok(value: Any, kind: str | tuple[str, ...]) -> bool:
    return type(value) is bool if kind == "bool" else isinstance(value, str) and value in kind


def read_transcripts(
    gz: bytes,
    where: str,
    primary_language: str,
    keep: Callable[[str], bool] = lambda _: True,
    *,
    check_all: bool = False,
    conditions: Mapping[str, str | tuple[str, ...]] | None = None,
) -> list[dict[str, Any]]:
    """Every valid line whose item ``keep`` accepts, as ``{item, lang, sample, text}`` plus
    the ``conditions`` it names (categorical field -> "bool" or its allowed values).

    Lines of other items are skipped unparsed unless ``check_all`` (``bundle create``: the
    lab sees every problem before signing)."""
    rows = []
    for first, batch in _lines(gz, where):
        for number, raw in enumerate(batch.split(b"\n"), start=first):
            if not raw.strip() or (not check_all and _skippable(raw, keep)):
                continue
            try:
                [(_, obj)] = iter_jsonl(raw, where)
            except ParseError as exc:
                raise ParseError(exc.message, where=where, line=number, reason=exc.reason, hint=exc.hint) from None
            line = number
            conds = conditions or {}
            obj = check_fields(obj, {"item", "text"}, {"lang", "sample", *conds}, where=where, line=line, context="transcript")
            row = {"item": obj["item"], "lang": obj.get("lang", primary_language), "sample": obj.get("sample", 0), "text": obj["text"]}
            for key, kind in conds.items():
                if key in obj:
                    if not _condition_ok(obj[key], kind):
                        allowed = "true or false" if kind == "bool" else ", ".join(kind)
                        raise BundleError(f"{key} must be {allowed}, as in results.jsonl", where=where, line=line, reason="bad-transcripts")
                    row[key] = obj[key]
            if not all(isinstance(row[k], str) for k in ("item", "lang", "text")) or type(row["sample"]) is not int or row["sample"] < 0:
                raise BundleError(
                    "item, lang and text must be strings and sample an integer >= 0", where=where, line=line, reason="bad-transcripts"
                )
            if len(row["text"]) > MAX_TEXT:
                raise BundleError(f"text is longer than {MAX_TEXT} characters", where=where, line=line, reason="bad-transcripts")
            if keep(row["item"]):
                rows.append(row)
    return rows
