"""Parse a decrypted ``results.jsonl`` strictly and fast, into a pandas frame.

One line per sample. Two paths accept and refuse exactly the same inputs (the hypothesis
tests in tests/hostile/test_fuzz.py compare them on generated files):

- Fast: pyarrow's JSON reader parses the whole file in C++ straight into typed Arrow
  columns against an explicit schema. By itself it refuses duplicate keys, fields outside
  the schema, values of the wrong JSON type (no coercion: ``1.0`` is not an integer, ``1``
  is not ``true``), lone surrogates and raw control characters in strings. The few things
  it lets through are closed with byte counts and vectorised column checks (see
  :func:`_fast_table` and :func:`_columns_ok`).
- Strict: a file the fast path cannot vouch for is re-parsed line by line with
  :mod:`builder.strict`, which names the line and the reason, or accepts the file (say, a
  key spelled with escapes) and yields the same Arrow table the fast path would have.

Before either path, :class:`ResultsLimits` bounds the work by the benchmark's shape: the
sealed size is checked before decryption and the line count before parsing, so a file of
a hundred million ``{}`` lines is refused without building anything per row.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from builder.errors import ResultsError
from builder.strict import MAX_SAFE_INT, iter_jsonl

REQUIRED = ("item", "lang", "sample", "answer", "correct", "refused")
OPTIONAL_NUMERIC = ("output_tokens", "latency_s", "cost_usd")
MAX_ANSWER_CHARS = 4000
MAX_ITEM_ID_CHARS = 128
MAX_SAMPLE = 1023
_LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?\Z")

# Bytes a results row may take on average. The longest valid row is an answer of 4,000
# characters written as \uXXXX escapes (24,000 bytes) plus its fields; 32 KiB covers it,
# so the byte cap only ever refuses files that could not hold their row count anyway.
MAX_ROW_BYTES = 32 << 10

# Declared extra-field types (from the benchmark config's `result_fields`).
ExtraType = str | tuple[str, ...]  # "bool" | "int" | "number" | "string" | allowed values

_BASE_SCHEMA = [
    ("item", pa.string()),
    ("lang", pa.string()),
    ("sample", pa.int64()),
    ("answer", pa.string()),
    ("correct", pa.bool_()),
    ("refused", pa.bool_()),
    *((key, pa.float64()) for key in OPTIONAL_NUMERIC),
]
_EXTRA_ARROW = {"bool": pa.bool_(), "int": pa.int64(), "number": pa.float64()}
# `correct` may be null: a lab without the gold answers leaves the verdict to the build's
# regrade (builder.pipeline.ungraded refuses a null on a row the build does not regrade).
_NOT_NULL = ("item", "lang", "sample", "refused")


@dataclass(frozen=True)
class ResultsLimits:
    """The most rows (and so bytes) one bundle's results can hold for a benchmark.

    ``max_rows`` is items × languages × samples × combinations of the categorical result
    fields: a complete submission has exactly that many rows per combination it reports,
    and any row beyond it is a duplicate or an unknown item. ``shape`` says how it was
    computed, for the refusal message.
    """

    max_rows: int
    shape: str

    @property
    def max_bytes(self) -> int:
        return self.max_rows * MAX_ROW_BYTES

    @classmethod
    def for_benchmark(cls, items: int, languages: int, samples: int, extras: Mapping[str, ExtraType]) -> ResultsLimits:
        # Each categorical field may also be absent (null), hence the +1.
        combos = prod(
            len(kind) + 1 if isinstance(kind, tuple) else 3 for kind in extras.values() if isinstance(kind, tuple) or kind == "bool"
        )
        shape = f"{items:,} items × {languages} language(s) × {samples} sample(s)" + (
            f" × {combos} field combinations" if combos > 1 else ""
        )
        return cls(max_rows=max(1, items * languages * samples * combos), shape=shape)

    def check_sealed_size(self, size: int, where: str) -> None:
        """Before decryption: the plaintext is never longer than its age file."""
        if size > self.max_bytes:
            raise ResultsError(
                f"is {size:,} bytes sealed; results of this benchmark are at most {self.max_bytes:,} bytes"
                f" ({self.max_rows:,} rows: {self.shape}, at most {MAX_ROW_BYTES // 1024} KiB a row)",
                where=where,
                reason="results-too-large",
                hint="one line per (item, language, sample); answers of at most 4,000 characters",
            )

    def check_lines(self, data: bytes, where: str) -> None:
        """Before parsing: count lines (one memchr pass), not objects.

        Blank lines hold no sample, so only when there are more lines than rows are they
        told apart, one line at a time with an early stop: at most 2 × max_rows + 1 lines
        are looked at, whatever the file holds.
        """
        if _count_newlines(data) + (not data.endswith(b"\n")) <= self.max_rows:
            return
        rows = blank = 0
        for line in io.BytesIO(data):
            if line.strip():
                rows += 1
            else:
                blank += 1
            if rows > self.max_rows or blank > self.max_rows:
                what = f"more than {self.max_rows:,} {'rows' if rows > self.max_rows else 'blank lines'}"
                raise ResultsError(
                    f"holds {what}; results of this benchmark have at most {self.max_rows:,} rows ({self.shape})",
                    where=where,
                    reason="too-many-rows",
                    hint="one line per (item, language, sample), no blank lines, no repeats",
                )


_NEWLINE_CHUNK = 1 << 18


def _count_newlines(data: bytes) -> int:
    """``data.count(b"\\n")`` in a fifth of the time (numpy compares 256 KiB at a time, so
    the temporary stays small whatever the file's size)."""
    view = np.frombuffer(data, dtype=np.uint8)
    return sum(int(np.count_nonzero(view[i : i + _NEWLINE_CHUNK] == 10)) for i in range(0, len(view), _NEWLINE_CHUNK))


def parse_results(
    data: bytes, where: str, extras: Mapping[str, ExtraType] | None = None, limits: ResultsLimits | None = None
) -> pd.DataFrame:
    """Return one row per sample with columns REQUIRED + OPTIONAL_NUMERIC + extras."""
    return to_frame(parse_table(data, where, extras, limits))


def parse_table(
    data: bytes,
    where: str,
    extras: Mapping[str, ExtraType] | None = None,
    limits: ResultsLimits | None = None,
    *,
    duplicates: bool = True,
) -> pa.Table:
    """The checked Arrow table of :func:`parse_results` (the build converts it itself).

    ``duplicates=False`` leaves the repeated-sample check to the caller
    (:func:`refuse_duplicates`), which may hold the ids' codes already.
    """
    extras = dict(extras or {})
    if limits is not None:
        limits.check_lines(data, where)
    schema = _schema(extras)
    table = _fast_table(data, schema)
    if table is None or not _columns_ok(table, extras, ascii_source=data.isascii()):
        # The row-by-row pass names the line of any problem, or vouches for the file.
        table = _strict_table(data, where, extras, schema)
    if duplicates:
        refuse_duplicates(table, where, extras, data)
    return table


def _schema(extras: Mapping[str, ExtraType]) -> pa.Schema:
    fields = list(_BASE_SCHEMA)
    for key, kind in extras.items():
        fields.append((key, pa.string() if isinstance(kind, tuple) else _EXTRA_ARROW.get(kind, pa.string())))
    return pa.schema(fields)


def _fast_table(data: bytes, schema: pa.Schema) -> pa.Table | None:
    """Arrow's parse of ``data``, or None when it does not prove one valid object a line.

    Raw newlines cannot occur inside JSON strings, so every b"\\n" ends a line. Arrow skips
    blank lines and accepts a BOM and several objects on one line; the strict path skips
    or refuses those. Requiring every line to start with "{" and one row per line rules
    them all out: each line then holds at least one object, and there are as many rows as
    lines.
    """
    body = data[:-1] if data.endswith(b"\n") else data
    if not body.startswith(b"{") or body.endswith(b"\n"):
        return None
    text = np.frombuffer(body, dtype=np.uint8)
    breaks = np.flatnonzero(text == ord("\n"))  # one pass, twice as fast as body.count(b"\n{")
    lines = breaks.size + 1
    if not (text[breaks + 1] == ord("{")).all():
        return None
    try:
        table = pa_json.read_json(
            pa.py_buffer(data),
            # One block: a row never straddles blocks, whatever its length. Bundles are
            # parsed one per worker, so the reader needs no threads of its own.
            read_options=pa_json.ReadOptions(use_threads=False, block_size=len(data) + 1),
            parse_options=pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error", newlines_in_values=False),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows != lines:
        return None
    # Arrow reads an absent "answer" as null, which is allowed: a row with a null answer
    # must show the key in its text. b'"answer":null' can only be that key, spelled exactly
    # so, with that value (the quote after the name is followed by a colon, so it closes a
    # key; a key with more before the name is unknown, and Arrow refused that; Arrow refused
    # a key given twice and anything but a value after the colon). A row with a non-null
    # answer has the key. So it suffices that every null row's line holds the pattern: the
    # few such lines are searched, or, when they are many, the pattern counted in the whole
    # text. Another spelling (a space before null, escapes) only costs the fast path.
    answers = table.column("answer")
    nulls = answers.null_count
    if nulls > lines // 8:
        return table if body.count(b'"answer":null') == nulls else None
    if nulls:
        rows = np.flatnonzero(answers.is_null().to_numpy(zero_copy_only=False))
        starts, ends = np.append(-1, breaks)[rows] + 1, np.append(breaks, len(body))[rows]
        if any(body.find(b'"answer":null', start, end) < 0 for start, end in zip(starts.tolist(), ends.tolist())):
            return None
    return table


def _finite_within(values: pa.ChunkedArray, low: float) -> bool:
    """No NaN or infinity, and ``low <= x < 2^53`` for every non-null ``x``.

    Two kernels instead of a mask per condition: min_max skips NaN but the sum does not, and
    a sum of finite values each under 2^53 cannot overflow. 2^53 itself is refused: it may
    have been rounded from 2^53 + 1 (the strict path decides).
    """
    lo, hi = pc.min_max(values).values()
    if not lo.is_valid:
        return True  # every value null
    return low <= lo.as_py() and hi.as_py() < float(MAX_SAFE_INT) and math.isfinite(pc.sum(values).as_py())


def _columns_ok(table: pa.Table, extras: Mapping[str, ExtraType], ascii_source: bool = False) -> bool:
    """The strict path's value checks (`_check_row`), one vectorised pass per column.

    ``ascii_source``: the file was pure ASCII, so every string Arrow decoded from it is valid
    UTF-8 (an escaped lone surrogate is refused by Arrow itself) and needs no validation.
    False sends the file to the strict path, which names the line and the reason.
    """
    col = table.column
    if any(col(name).null_count for name in _NOT_NULL + ("correct",)):
        # Absent or null: "missing-field" or "wrong-type", the strict path decides; a null
        # `correct` is valid, but Arrow reads an absent key as null too, and only the strict
        # path tells the two apart.
        return False
    if not ascii_source and not _utf8_ok(table):
        return False
    # Distinct ids are few: check them joined (ASCII and printable hold for the whole
    # exactly when they hold for every part) and their lengths in Arrow.
    items = pc.unique(col("item"))
    low, high = pc.min_max(pc.utf8_length(items)).values()
    joined = "".join(items.to_pylist())
    if not (0 < low.as_py() and high.as_py() <= MAX_ITEM_ID_CHARS and joined.isascii() and joined.isprintable()):
        return False
    if not all(_LANG_RE.match(s) for s in pc.unique(col("lang")).to_pylist()):
        return False
    low, high = pc.min_max(col("sample")).values()
    if not 0 <= low.as_py() <= high.as_py() <= MAX_SAMPLE:
        return False
    if (pc.max(pc.utf8_length(col("answer"))).as_py() or 0) > MAX_ANSWER_CHARS:
        return False
    for name in OPTIONAL_NUMERIC:
        # Arrow accepts NaN and Infinity; 2^53 itself may have been rounded from 2^53 + 1.
        if not _finite_within(col(name), 0.0):
            return False
    return all(_extra_column_ok(col(name), kind) for name, kind in extras.items())


def _utf8_ok(table: pa.Table) -> bool:
    """Every string column valid UTF-8 (Arrow's reader passes invalid UTF-8 through)."""
    strings = [name for name, typ in zip(table.column_names, table.schema.types) if typ == pa.string()]
    try:
        for name in strings:
            for chunk in table.column(name).chunks:
                chunk.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _extra_column_ok(values: pa.ChunkedArray, kind: ExtraType) -> bool:
    """A declared result field's column within its kind (:func:`_extra_ok`, vectorised)."""
    if isinstance(kind, tuple):
        return set(pc.unique(values).drop_null().to_pylist()) <= set(kind)
    if kind == "int":
        low, high = pc.min_max(values).values()  # not abs(): it wraps -2^63 to itself
        return not low.is_valid or -MAX_SAFE_INT <= low.as_py() <= high.as_py() <= MAX_SAFE_INT
    if kind == "number":
        return _finite_within(values, math.nextafter(-float(MAX_SAFE_INT), 0.0))  # |x| < 2^53
    return kind == "bool" or (pc.max(pc.utf8_length(values)).as_py() or 0) <= MAX_ANSWER_CHARS


def _strict_table(data: bytes, where: str, extras: Mapping[str, ExtraType], schema: pa.Schema) -> pa.Table:
    # Values go straight into columns; no per-row dict outlives its line.
    columns: dict[str, list[Any]] = {name: [] for name in schema.names}
    for line, obj in iter_jsonl(data, where):
        _check_row(obj, where, line, extras)
        for name, values in columns.items():
            values.append(obj.get(name))
    if not columns["item"]:
        raise ResultsError("results file holds no samples", where=where, reason="empty-results")
    return pa.table({name: pa.array(values, type=schema.field(name).type) for name, values in columns.items()}, schema=schema)


def _fail(msg: str, where: str, line: int, reason: str = "bad-result", hint: str | None = None) -> None:
    raise ResultsError(msg, where=where, line=line, reason=reason, hint=hint)


def _check_row(obj: Any, where: str, line: int, extras: Mapping[str, ExtraType]) -> None:
    _check_keys(obj, where, line, extras)
    _check_values(obj, where, line, extras)


def _check_keys(obj: Any, where: str, line: int, extras: Mapping[str, ExtraType]) -> None:
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


def _check_values(obj: dict[str, Any], where: str, line: int, extras: Mapping[str, ExtraType]) -> None:
    item, lang, sample, answer = obj["item"], obj["lang"], obj["sample"], obj["answer"]
    if not isinstance(item, str) or not item or len(item) > MAX_ITEM_ID_CHARS or not item.isascii() or not item.isprintable():
        _fail("item must be a printable ASCII id", where, line, "wrong-type")
    if not isinstance(lang, str) or not _LANG_RE.match(lang):
        _fail("lang must be a language tag like 'en' or 'ko'", where, line, "wrong-type")
    if type(sample) is not int or not 0 <= sample <= MAX_SAMPLE:
        _fail(f"sample must be an integer from 0 to {MAX_SAMPLE}", where, line, "wrong-type")
    if answer is not None and (not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS):
        _fail(f"answer must be a string of at most {MAX_ANSWER_CHARS} characters, or null", where, line, "wrong-type")
    if obj["correct"] is not None and type(obj["correct"]) is not bool:
        _fail("correct must be true, false, or null (ungraded: the build's regrade decides)", where, line, "wrong-type")
    if type(obj["refused"]) is not bool:
        _fail("refused must be true or false", where, line, "wrong-type")
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
    seen, start, number = -1, 0, 1
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if data[start:end].strip():
            seen += 1
            if seen == index:
                return number
        start, number = end + 1, number + 1
    return index + 1


def refuse_duplicates(
    table: pa.Table, where: str, extras: Mapping[str, ExtraType] | None, data: bytes, codes: Mapping[str, np.ndarray] | None = None
) -> None:
    """Refuse a repeated (item, lang, sample, categorical extras…), naming its line.

    ``codes``: integer codes of some key columns already at hand, equal exactly where the
    values are equal (the build's item and language lookups); the others are encoded here.
    """
    idx = _first_duplicate(table, _extra_keys(extras or {}), codes or {})
    if idx is not None:
        row = table.slice(idx, 1).to_pylist()[0]
        raise ResultsError(
            f"sample {row['sample']} of item {row['item']!r} ({row['lang']}) appears twice",
            where=where,
            line=line_of_row(data, idx),
            reason="duplicate-sample",
            hint="each (item, lang, sample) is reported once",
        )


_STR = pd.StringDtype("pyarrow", na_value=np.nan)  # what pyarrow's to_pandas gives a string column


def to_frame(table: pa.Table) -> pd.DataFrame:
    """``table.to_pandas()``, with ``sample`` in 16 bits (see :func:`frame_columns`)."""
    return pd.DataFrame(frame_columns(table), copy=False)


def frame_columns(table: pa.Table) -> dict[str, Any]:
    """The columns of ``table.to_pandas()``, converted one at a time in about half the
    time (no pandas metadata round trip); strings stay Arrow-backed, ``sample`` fits 16 bits."""
    columns: dict[str, Any] = {}
    for name, column in zip(table.column_names, table.columns):
        if pa.types.is_string(column.type):
            columns[name] = pd.array(column, dtype=_STR)
        elif name == "sample":
            columns[name] = column.to_numpy().astype(np.int16)  # 0…1023, never null
        elif column.null_count == 0 or pa.types.is_floating(column.type):
            columns[name] = column.to_numpy()  # floats: null is NaN, as in to_pandas
        else:
            columns[name] = column.to_pandas()  # ints and bools with nulls: float and object
    return columns


def _codes(column: pa.ChunkedArray) -> np.ndarray:
    """Small integer codes, equal exactly where the values are equal (null is its own code)."""
    if pa.types.is_integer(column.type):
        return column.fill_null(-1).to_numpy()
    encoded = pc.dictionary_encode(column).combine_chunks()
    return encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _first_duplicate(table: pa.Table, extra_keys: list[str], known: Mapping[str, np.ndarray]) -> int | None:
    """Row index of the first repeated (item, lang, sample, extras…), or None."""
    keys = [known[name] if name in known else _codes(table.column(name)) for name in ("item", "lang", "sample", *extra_keys)]
    # Usually there is none: one sort of a single int64 key per row says so. Codes are
    # >= -1 (null), so shifted by one each fits in a mixed radix of its largest value + 2.
    widths = [int(k.max(initial=0)) + 2 for k in keys]
    if prod(widths) < 2**62:
        combined = np.zeros(len(keys[0]), dtype=np.int64)
        for k, width in zip(keys, widths):
            combined = combined * width + (k + 1)
        combined.sort()
        if not (combined[1:] == combined[:-1]).any():
            return None
    order = np.lexsort(keys[::-1])  # stable: equal keys keep their file order
    ordered = np.stack([k[order] for k in keys])
    repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).all(axis=0))
    return int(order[repeated + 1].min()) if repeated.size else None


def categorical(extras: Mapping[str, ExtraType]) -> dict[str, ExtraType]:
    """Categorical extras (e.g. LiveMathematicianBench variant and sketch mode) distinguish
    runs of the same item and sample (transcripts name them too); free-form numbers (cost) do not."""
    return {k: kind for k, kind in extras.items() if isinstance(kind, tuple) or kind == "bool"}


def _extra_keys(extras: Mapping[str, ExtraType]) -> list[str]:
    return list(categorical(extras))
