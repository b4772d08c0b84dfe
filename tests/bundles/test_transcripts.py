"""The transcripts file format (builder.bundles.transcripts): strict, bounded, streamed."""

from __future__ import annotations

import gzip

import pytest

from builder.bundles import transcripts as tr
from builder.errors import BuilderError


def test_lines_are_read_with_defaults_and_filtered():
    gz = gzip.compress(b'{"item": "a", "text": "t1"}\n{"item": "b", "lang": "ko", "sample": 2, "text": "t2"}\n')
    assert tr.read_transcripts(gz, "f", "en") == [
        {"item": "a", "lang": "en", "sample": 0, "text": "t1"}, {"item": "b", "lang": "ko", "sample": 2, "text": "t2"}]
    assert tr.read_transcripts(gz, "f", "en", keep=lambda i: i == "b") == [{"item": "b", "lang": "ko", "sample": 2, "text": "t2"}]


@pytest.mark.parametrize(("data", "reason", "line"), [
    (b'{"item": "a", "text": "t"}\n{"item": "a"}\n', "missing-field", 2),
    (b'{"item": "a", "text": "t", "secret": 1}\n', "unknown-field", 1),
    (b'{"item": "a", "text": 3}\n', "bad-transcripts", 1),
    (b'{"item": "a", "text": "t", "sample": -1}\n', "bad-transcripts", 1),
    (b'\n\n{"item": "a", "text": "t",}\n', "invalid-json", 3),
])
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
