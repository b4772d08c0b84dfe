"""The lab-text fold's fast paths, pinned to their plain definitions (issue 44: the checkout
scan reads a repository's whole history through the fold)."""

from __future__ import annotations

import base64
import gzip

import pytest

from builder.leakscan.fold import _base64_runs, _translate, decoded, raw_table, skeleton_table
from builder.leakscan.gunzip import gunzip

EVERY_CHARACTER = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


@pytest.mark.parametrize("which", ["skeleton", "raw"])
def test_translate_by_runs_is_str_translate(which: str) -> None:
    table = skeleton_table() if which == "skeleton" else raw_table()
    for text in (EVERY_CHARACTER, EVERY_CHARACTER[::-1], "l0ok 1ike Cyrillic а е о 10 01"):
        assert _translate(text, which) == text.translate(table)


def test_base64_wrapped_over_lines_is_decoded_as_one_run() -> None:
    secret = "the least positive integer whose digits sum to forty"
    encoded = base64.b64encode(secret.encode()).decode()
    wrapped = "\n".join(encoded[i : i + 20] for i in range(0, len(encoded), 20))
    assert secret in decoded(wrapped)
    assert secret in decoded(" ".join(encoded[i : i + 12] for i in range(0, len(encoded), 12)))


def test_prose_costs_no_base64_decoding() -> None:
    assert _base64_runs("Compute the number of lattice paths from the origin to the point") == []


def test_gunzip_is_bounded_and_reads_every_member() -> None:
    assert gunzip(gzip.compress(b"one ") + gzip.compress(b"two")) == b"one two"
    assert len(gunzip(gzip.compress(b"0" * (1 << 20)), limit=1000)) == 1000
    assert gunzip(b"not gzip") == b"not gzip"
