"""results.jsonl: the limits checked before parsing, and what the fast path refuses to vouch for.

The fast path may only ever say "I cannot tell" (None), never accept what the strict path
refuses; tests/hostile/test_fuzz.py checks that on generated files. These cases pin down
each gap of Arrow's reader the byte proofs and column checks close, by name.
"""

from __future__ import annotations

import json

import orjson
import pytest

from builder.bundles.results import (
    MAX_ROW_BYTES,
    ResultsLimits,
    _columns_ok,
    _fast_table,
    _schema,
    _strict_table,
    parse_results,
    parse_table,
)
from builder.errors import ResultsError

ROW = {"item": "m000", "lang": "en", "sample": 0, "answer": "12", "correct": True, "refused": False}
LINE = orjson.dumps(ROW) + b"\n"
LMB_EXTRAS = {"variant": ("standard", "substitution"), "sketch": "bool"}


def rows(n: int) -> bytes:
    return b"".join(orjson.dumps(dict(ROW, sample=i)) + b"\n" for i in range(n))


# --- limits ---------------------------------------------------------------------------------------


def test_limits_multiply_the_benchmark_shape():
    soohak = ResultsLimits.for_benchmark(1141, 2, 3, {})
    assert soohak.max_rows == 6846 and soohak.shape == "1,141 items × 2 language(s) × 3 sample(s)"
    assert soohak.max_bytes == 6846 * MAX_ROW_BYTES
    # Each categorical field may also be absent: (2 variants + none) × (true, false, none).
    lmb = ResultsLimits.for_benchmark(360, 1, 1, {**LMB_EXTRAS, "budget": "int", "note": "string"})
    assert lmb.max_rows == 360 * 9 and lmb.shape.endswith("× 9 field combinations")


def test_sealed_size_is_checked_against_the_byte_cap():
    limits = ResultsLimits(max_rows=10, shape="10 rows")
    limits.check_sealed_size(10 * MAX_ROW_BYTES, "r.age")
    with pytest.raises(ResultsError) as err:
        limits.check_sealed_size(10 * MAX_ROW_BYTES + 1, "r.age")
    assert err.value.reason == "results-too-large" and "at most 327,680 bytes" in str(err.value)


@pytest.mark.parametrize(
    "data, ok",
    [
        (rows(10), True),
        (rows(10).rstrip(b"\n"), True),  # no final newline
        (rows(11), False),
        (b"\n".join(rows(10).splitlines(keepends=True)), True),  # 19 lines, 9 of them blank
        (rows(10) + b"\n" * 10, True),
        (rows(10) + b"\n" * 11, False),  # more blank lines than rows
        (b"{}\n" * 1_000_000, False),
    ],
)
def test_lines_are_counted_before_parsing(data: bytes, ok: bool):
    limits = ResultsLimits(max_rows=10, shape="10 rows")
    if ok:
        limits.check_lines(data, "r")
    else:
        with pytest.raises(ResultsError) as err:
            limits.check_lines(data, "r")
        assert err.value.reason == "too-many-rows"


def test_parse_results_applies_the_line_limit():
    with pytest.raises(ResultsError) as err:
        parse_results(rows(3), "r", limits=ResultsLimits(max_rows=2, shape="2 rows"))
    assert err.value.reason == "too-many-rows"
    assert len(parse_results(rows(2), "r", limits=ResultsLimits(max_rows=2, shape="2 rows"))) == 2


# --- the fast path's gaps -----------------------------------------------------------------------------


def vouched(data: bytes, extras=None) -> bool:
    extras = extras or {}
    table = _fast_table(data, _schema(extras))
    return table is not None and _columns_ok(table, extras)


def test_fast_path_vouches_for_compact_and_spaced_files():
    assert vouched(rows(5))
    assert vouched(b"".join(json.dumps(dict(ROW, sample=i)).encode() + b"\n" for i in range(5)))
    assert vouched(orjson.dumps(dict(ROW, variant="standard", sketch=None)) + b"\n", LMB_EXTRAS)


@pytest.mark.parametrize(
    "name, data",
    [
        # Arrow's reader accepts these; the strict parser refuses or reads them otherwise.
        ("bom", b"\xef\xbb\xbf" + LINE),
        ("blank line", LINE + b"\n" + LINE),
        ("indented line", LINE + b"  " + LINE),
        ("two objects on a line", LINE.rstrip(b"\n") + b" " + LINE + b"\n"),
        ("answer absent (Arrow reads null)", orjson.dumps({k: v for k, v in ROW.items() if k != "answer"}) + b"\n"),
        ("null answer, key written with escapes", LINE.replace(b'"answer":"12"', b'"\\u0061nswer":null')),
        ("null answer with a space", LINE.replace(b'"answer":"12"', b'"answer": null')),
        ("NaN", LINE.replace(b"}", b',"latency_s":NaN}')),
        ("Infinity", LINE.replace(b"}", b',"cost_usd":Infinity}')),
        ("2^53 + 1 rounded to a double", LINE.replace(b"}", b',"output_tokens":9007199254740993}')),
        ("invalid UTF-8 in a string", LINE.replace(b'"12"', b'"1\xff"')),
        ("null item", LINE.replace(b'"m000"', b"null")),
        ("int extra -2^63 (abs wraps)", LINE.replace(b"}", b',"budget":-9223372036854775808}')),
        # …and these it refuses by itself.
        ("duplicate key", LINE.replace(b"}", b',"correct":false}')),
        ("unknown field", LINE.replace(b"}", b',"model":"x"}')),
        ("sample 1.0", LINE.replace(b'"sample":0', b'"sample":1.0')),
        ("correct 1", LINE.replace(b'"correct":true', b'"correct":1')),
        ("lone surrogate", LINE.replace(b'"12"', b'"\\ud800"')),
    ],
)
def test_fast_path_leaves_to_the_strict_path(name: str, data: bytes):
    assert not vouched(data, {"budget": "int"}), name


def test_fast_path_reads_an_escaped_answer_key_as_the_strict_path_does():
    # A non-null answer proves its key is there, however it is spelled; a second spelling
    # of the same key is a duplicate, which Arrow refuses like the strict path.
    data = LINE.replace(b'"answer"', b'"\\u0061nswer"')
    assert vouched(data)
    assert parse_table(data, "r", {}).equals(_strict_table(data, "r", {}, _schema({})))
    assert not vouched(LINE.replace(b"}", b',"\\u0061nswer":"13"}'))


@pytest.mark.parametrize("size", [0, 1, (1 << 18) - 1, 1 << 18, (1 << 18) + 1, 3 * (1 << 18) + 5])
def test_newlines_are_counted_like_bytes_count_across_chunk_edges(size):
    from builder.bundles.results import _count_newlines

    data = bytes((i * 7919) % 11 for i in range(size))  # a newline (10) every few bytes, at irregular places
    assert _count_newlines(data) == data.count(b"\n")
    if size:
        edge = b"\n" + bytes(size - 1)  # only at the very start, then only at the very end
        assert _count_newlines(edge) == 1 and _count_newlines(edge[::-1]) == 1
