"""The transcripts file format (builder.bundles.transcripts): strict, bounded, streamed."""

from __future__ import annotations

import gzip

import pytest

from builder.bundles import transcripts as tr
from builder.errors import BuilderError


def test_lines_are_read_with_defaults_and_filtered():
    gz = gzip.compress(b'{"item": "a", "text": "t1"}\n{"item": "b", "lang": "ko", "sample": 2, "text": "t2"}\n')
    assert tr.read_transcripts(gz, "f", "en") == [
        {"item": "a", "lang": "en", "sample": 0, "text": "t1"},
        {"item": "b", "lang": "ko", "sample": 2, "text": "t2"},
    ]
    assert tr.read_transcripts(gz, "f", "en", keep=lambda i: i == "b") == [{"item": "b", "lang": "ko", "sample": 2, "text": "t2"}]


@pytest.mark.parametrize(
    ("data", "reason", "line"),
    [
        (b'{"item": "a", "text": "t"}\n{"item": "a"}\n', "missing-field", 2),
        (b'{"item": "a", "text": "t", "secret": 1}\n', "unknown-field", 1),
        (b'{"item": "a", "text": 3}\n', "bad-transcripts", 1),
        (b'{"item": "a", "text": "t", "sample": -1}\n', "bad-transcripts", 1),
        (b'\n\n{"item": "a", "text": "t",}\n', "invalid-json", 3),
    ],
)
def test_bad_lines_are_named_with_their_line(data, reason, line):
    with pytest.raises(BuilderError) as exc:
        tr.read_transcripts(gzip.compress(data), "f", "en")
    assert (exc.value.reason, exc.value.line) == (reason, line)


def test_not_gzip_is_refused():
    with pytest.raises(BuilderError) as exc:
        tr.read_transcripts(b'{"item": "a", "text": "t"}\n', "f", "en")
    assert exc.value.reason == "bad-transcripts"


def test_a_gzip_bomb_is_refused_without_inflating_it(monkeypatch):
    monkeypatch.setattr(tr, "MAX_DECOMPRESSED", 1 << 20)
    bomb = gzip.compress(b"\n" * (8 << 20))
    with pytest.raises(BuilderError) as exc:
        tr.read_transcripts(bomb, "f", "en")
    assert exc.value.reason == "transcripts-too-large"


def test_line_numbers_hold_across_decompressed_chunks(monkeypatch):
    monkeypatch.setattr(tr, "_CHUNK", 7)  # lines straddle every chunk
    good = b"".join(b'{"item": "i%d", "text": "some text %d"}\n' % (n, n) for n in range(40))
    rows = tr.read_transcripts(gzip.compress(good), "f", "en")
    assert [r["item"] for r in rows] == [f"i{n}" for n in range(40)]
    with pytest.raises(BuilderError) as exc:
        tr.read_transcripts(gzip.compress(good + b'{"item": "z"}\n' + good), "f", "en")
    assert (exc.value.reason, exc.value.line) == ("missing-field", 41)


LMB = {"sketch": "bool", "variant": ("standard", "substitution")}  # its categorical result fields


def test_categorical_result_fields_tell_one_samples_transcripts_apart():
    """LiveMathematicianBench runs each sample as variant × sketch: four transcripts of
    sample 0, told apart only by those fields (each kept on its row)."""
    lines = [
        b'{"item": "a", "sample": 0, "variant": "%s", "sketch": %s, "text": "t"}\n' % (v, s)
        for v in (b"standard", b"substitution")
        for s in (b"false", b"true")
    ]
    rows = tr.read_transcripts(gzip.compress(b"".join(lines)), "f", "en", conditions=LMB)
    assert [(r["variant"], r["sketch"]) for r in rows] == [
        ("standard", False),
        ("standard", True),
        ("substitution", False),
        ("substitution", True),
    ]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"item": "a", "text": "t", "variant": "other"}\n', "bad-transcripts"),  # not an allowed value
        (b'{"item": "a", "text": "t", "sketch": "yes"}\n', "bad-transcripts"),  # a bool, as in results.jsonl
        (b'{"item": "a", "text": "t", "budget": 4096}\n', "unknown-field"),  # not one of the benchmark's categorical fields
    ],
)
def test_a_bad_categorical_field_is_named(line, reason):
    with pytest.raises(BuilderError) as exc:
        tr.read_transcripts(gzip.compress(line), "f", "en", conditions=LMB)
    assert (exc.value.reason, exc.value.line) == (reason, 1)


def test_without_declared_fields_a_categorical_key_is_unknown():
    with pytest.raises(BuilderError) as exc:
        tr.read_transcripts(gzip.compress(b'{"item": "a", "text": "t", "variant": "standard"}\n'), "f", "en")
    assert exc.value.reason == "unknown-field"
