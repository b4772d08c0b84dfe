"""Parse a decrypted ``results.jsonl`` strictly and fast, into a pandas frame.

One line per sample. The fast path parses the whole file with a single orjson call and
validates columns with numpy; anything it cannot vouch for (a blank line, a duplicate key,
a wrong type) is re-parsed line by line with the strict stdlib parser so the error names
the exact line. Both paths accept and refuse exactly the same inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from operator import itemgetter, methodcaller
from typing import Any

import numpy as np
import orjson
import pandas as pd

from builder.errors import ResultsError
from builder.strict import MAX_SAFE_INT, iter_jsonl

REQUIRED = ("item", "lang", "sample", "answer", "correct", "refused")
OPTIONAL_NUMERIC = ("output_tokens", "latency_s", "cost_usd")
MAX_ANSWER_CHARS = 4000
MAX_ITEM_ID_CHARS = 128
_LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?\Z")

_ABSENT = object()

# Declared extra-field types (from the benchmark config's `result_fields`).
ExtraType = str | tuple[str, ...]  # "bool" | "int" | "number" | "string" | allowed values


def parse_results(data: bytes, where: str, extras: Mapping[str, ExtraType] | None = None) -> pd.DataFrame:
    """Return one row per sample with columns REQUIRED + OPTIONAL_NUMERIC + extras."""
    extras = dict(extras or {})
    rows = _fast_rows(data)
    if rows is None:
        rows = _strict_rows(data, where, extras)
    frame = _to_frame(rows, where, extras, data)
    if frame is None:
        # The vectorised checks found a problem; the row-by-row pass names its line.
        _strict_rows(data, where, extras)
        raise ResultsError("results failed validation", where=where, reason="bad-results")  # pragma: no cover
    return frame


def _fast_rows(data: bytes) -> list[dict[str, Any]] | None:
    body = data[:-1] if data.endswith(b"\n") else data
    if not body:
        return None
    try:
        # One call for the whole file; a blank line becomes ",," and fails here.
        rows = orjson.loads(b"[" + body.replace(b"\n", b",") + b"]")
    except orjson.JSONDecodeError:
        return None
    if len(rows) != body.count(b"\n") + 1 or set(map(type, rows)) != {dict}:
        return None  # a line held more or less than one object
    # orjson keeps the last of duplicate keys silently, so count keys in the text: every
    # key is followed by exactly one ':' and any other ':' lies inside a string, so
    # count(':') >= keys in the text >= keys parsed, and equality proves there was no
    # duplicate. Inequality (e.g. an answer "a:b") only sends us to the strict path.
    if body.count(b":") != sum(map(len, rows)):
        return None
    return rows


def _strict_rows(data: bytes, where: str, extras: Mapping[str, ExtraType]) -> list[dict[str, Any]]:
    rows = []
    for line, obj in iter_jsonl(data, where):
        _check_row(obj, where, line, extras)
        rows.append(obj)
    if not rows:
        raise ResultsError("results file holds no samples", where=where, reason="empty-results")
    return rows


def _fail(msg: str, where: str, line: int, reason: str = "bad-result", hint: str | None = None) -> None:
    raise ResultsError(msg, where=where, line=line, reason=reason, hint=hint)


def _check_row(obj: Any, where: str, line: int, extras: Mapping[str, ExtraType]) -> None:
    if not isinstance(obj, dict):
        _fail("each line must be a JSON object", where, line)
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        _fail(f"missing field(s) {', '.join(missing)}", where, line, "missing-field")
    allowed = set(REQUIRED) | set(OPTIONAL_NUMERIC) | set(extras)
    unknown = sorted(set(obj) - allowed)
    if unknown:
        _fail(
            f"unknown field(s) {', '.join(map(repr, unknown))}",
            where,
            line,
            "unknown-field",
            hint="benchmark-specific fields must be declared in the benchmark's result_fields",
        )
    item, lang, sample, answer = obj["item"], obj["lang"], obj["sample"], obj["answer"]
    if not isinstance(item, str) or not item or len(item) > MAX_ITEM_ID_CHARS or not item.isascii() or not item.isprintable():
        _fail("item must be a printable ASCII id", where, line, "wrong-type")
    if not isinstance(lang, str) or not _LANG_RE.match(lang):
        _fail("lang must be a language tag like 'en' or 'ko'", where, line, "wrong-type")
    if type(sample) is not int or not 0 <= sample < 1024:
        _fail("sample must be an integer from 0 to 1023", where, line, "wrong-type")
    if answer is not None and (not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS):
        _fail(f"answer must be a string of at most {MAX_ANSWER_CHARS} characters, or null", where, line, "wrong-type")
    for key in ("correct", "refused"):
        if type(obj[key]) is not bool:
            _fail(f"{key} must be true or false", where, line, "wrong-type")
    for key in OPTIONAL_NUMERIC:
        value = obj.get(key)
        if value is None:
            continue
        if type(value) not in (int, float) or not 0 <= value <= MAX_SAFE_INT:
            _fail(f"{key} must be a non-negative number up to 2^53", where, line, "wrong-type")
    for key, kind in extras.items():
        if key in obj and not _extra_ok(obj[key], kind):
            _fail(f"{key} must be {_describe(kind)}", where, line, "wrong-type")


def _extra_ok(value: Any, kind: ExtraType) -> bool:
    if value is None:
        return True
    if isinstance(kind, tuple):
        return isinstance(value, str) and value in kind
    if kind == "bool":
        return type(value) is bool
    if kind == "int":
        return type(value) is int and abs(value) <= MAX_SAFE_INT
    if kind == "number":
        return type(value) in (int, float) and abs(value) <= MAX_SAFE_INT
    return isinstance(value, str) and len(value) <= MAX_ANSWER_CHARS


def _describe(kind: ExtraType) -> str:
    if isinstance(kind, tuple):
        return "one of " + ", ".join(map(repr, kind))
    return {"bool": "true or false", "int": "an integer", "number": "a number"}.get(kind, "a string")


def line_of_row(data: bytes, index: int) -> int:
    """The 1-based file line of the index-th sample (blank lines hold no sample)."""
    seen = -1
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            seen += 1
            if seen == index:
                return number
    return index + 1


def _to_frame(rows: list[dict[str, Any]], where: str, extras: Mapping[str, ExtraType], data: bytes) -> pd.DataFrame | None:
    """Build the frame column by column, checking each column's types in one pass.

    Returns None when any check fails, so the caller re-parses row by row for a precise
    error. Checking `set(map(type, column))` keeps the work in C for millions of rows.
    """
    if not rows:
        raise ResultsError("results file holds no samples", where=where, reason="empty-results")
    n = len(rows)
    try:
        cols: dict[str, Any] = {key: list(map(itemgetter(key), rows)) for key in REQUIRED}
    except KeyError:
        return None  # a required key is missing: the strict pass names the line
    # Optional columns are read with a sentinel default, which also counts where each key
    # is present; all keys present must then add up to every key of every row.
    optional: dict[str, list[Any]] = {}
    known = len(REQUIRED) * n
    for key in (*OPTIONAL_NUMERIC, *extras):
        values = list(map(methodcaller("get", key, _ABSENT), rows))
        absent = values.count(_ABSENT)
        known += n - absent
        optional[key] = values if absent == 0 else [None] * n if absent == n else [None if v is _ABSENT else v for v in values]
    if known != sum(map(len, rows)):
        return None  # some row has a key that is neither required nor declared
    if not set(map(type, cols["item"])) <= {str} or not set(map(type, cols["lang"])) <= {str}:
        return None
    if (set(map(type, cols["correct"])) | set(map(type, cols["refused"]))) != {bool}:
        return None
    if not set(map(type, cols["sample"])) <= {int} or not set(map(type, cols["answer"])) <= {str, type(None)}:
        return None
    # Distinct values are few (items, languages), so per-value checks stay cheap.
    if not all(0 < len(s) <= MAX_ITEM_ID_CHARS and s.isascii() and s.isprintable() for s in set(cols["item"])):
        return None
    if not all(_LANG_RE.match(s) for s in set(cols["lang"])):
        return None
    if max(map(len, filter(None, cols["answer"])), default=0) > MAX_ANSWER_CHARS:
        return None
    if not 0 <= min(cols["sample"]) <= max(cols["sample"]) < 1024:
        return None  # checked on Python ints: a 2^64 would overflow int64 below
    sample = np.fromiter(cols["sample"], dtype=np.int64, count=n)
    cols["sample"] = sample.astype(np.int16)
    cols["correct"] = np.fromiter(cols["correct"], dtype=bool, count=n)
    cols["refused"] = np.fromiter(cols["refused"], dtype=bool, count=n)
    for key in OPTIONAL_NUMERIC:
        values = optional[key]
        kinds = set(map(type, values))
        if not kinds <= {int, float, type(None)}:
            return None
        # fromiter is the fast path; np.array turns None into NaN for the mixed case.
        arr = np.fromiter(values, dtype=np.float64, count=n) if type(None) not in kinds else np.array(values, dtype=np.float64)
        if (arr < 0).any() or (arr > MAX_SAFE_INT).any():
            return None
        cols[key] = arr
    for key, kind in extras.items():
        values = optional[key]
        if not set(map(type, values)) <= {str, int, float, bool, type(None)}:
            return None
        if not all(_extra_ok(v, kind) for v in set(values)):
            return None
        cols[key] = values
    frame = pd.DataFrame(cols)
    idx = _first_duplicate(frame, _extra_keys(extras))
    if idx is not None:
        raise ResultsError(
            f"sample {frame['sample'].iat[idx]} of item {frame['item'].iat[idx]!r} ({frame['lang'].iat[idx]}) appears twice",
            where=where,
            line=line_of_row(data, idx),
            reason="duplicate-sample",
            hint="each (item, lang, sample) is reported once",
        )
    return frame


def _first_duplicate(frame: pd.DataFrame, extra_keys: list[str]) -> int | None:
    """Row index of the first repeated (item, lang, sample, extras…), or None."""
    key = np.zeros(len(frame), dtype=np.int64)
    for column in ("item", "lang", "sample", *extra_keys):
        codes, uniques = pd.factorize(frame[column].to_numpy(dtype=object), use_na_sentinel=False)
        key = key * (len(uniques) + 1) + codes
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    return int(order[repeated + 1].min()) if repeated.size else None


def _extra_keys(extras: Mapping[str, ExtraType]) -> list[str]:
    # Categorical extras (e.g. LiveMathematicianBench variant and sketch mode) distinguish
    # runs of the same item; free-form numbers (cost) do not.
    return [k for k, kind in extras.items() if isinstance(kind, tuple) or kind == "bool"]
