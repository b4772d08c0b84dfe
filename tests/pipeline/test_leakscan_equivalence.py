"""The leak scan's fast paths give exactly what the plain definition gives.

The definition, written here the slow and obvious way (character by character, whole text):
JSON escapes decoded, then HTML entities (``html.unescape``), then NFKD, case folding,
invisible characters and combining marks deleted, every non-word character a space, one
space between words and at each end. The module reaches the same bytes by other routes
(ASCII through a byte table, non-ASCII runs folded one by one through a codec error handler
or the whole text at once, spaces squeezed by numpy, \\u escapes by a regular expression or
by the C codec); hypothesis draws text from an alphabet of the characters those routes
treat differently and checks that every route agrees with the definition, so a hit found
one way is found every way.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.pipeline import leakscan
from builder.pipeline.leakscan import build_needles, normalise, output_forms

INVISIBLE = set(leakscan._INVISIBLE)


def reference_normalise(text: str) -> bytes:
    text = unicodedata.normalize("NFKD", text).casefold()
    text = "".join(ch for ch in text if ch not in INVISIBLE and unicodedata.category(ch) not in ("Mn", "Me"))
    text = "".join(ch if ch.isalnum() or ch == "_" else " " for ch in text)
    return (" " + "".join(word + " " for word in text.split())).encode("utf-8", "replace")


def reference_json_unescape(text: str) -> str:
    """JSON string escapes, one character at a time; any other backslash stays itself."""
    out, i = [], 0
    short = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
    hexdigits = set("0123456789abcdefABCDEF")
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in short:
            out.append(short[text[i + 1]])
            i += 2
        elif ch == "\\" and text[i + 1 : i + 2] == "u" and len(text) >= i + 6 and set(text[i + 2 : i + 6]) <= hexdigits:
            code = int(text[i + 2 : i + 6], 16)
            low = text[i + 8 : i + 12]
            if 0xD800 <= code < 0xDC00 and text[i + 6 : i + 8] == "\\u" and len(low) == 4 and set(low) <= hexdigits and 0xDC00 <= int(low, 16) < 0xE000:
                out.append(chr(0x10000 + ((code - 0xD800) << 10) + int(low, 16) - 0xDC00))
                i += 12
            else:
                out.append("\ufffd" if 0xD800 <= code < 0xE000 else chr(code))
                i += 6
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def reference_output(text: str) -> bytes:
    return reference_normalise(html.unescape(reference_json_unescape(text)))


# What the routes treat differently: ASCII of every class, Korean syllables and their jamo,
# accents composed and combining, invisible characters (BMP and beyond), compatibility forms
# (full-width, ligatures, mathematical letters beyond U+FFFF), case folding that lower()
# gets wrong (final sigma, sharp s, Kelvin), spaces and punctuation of every script, and the
# pieces escapes and entities are made of.
ALPHABET = st.sampled_from(
    list("abcXYZ019_ -.,;:'\"<>/\\&#%u\n\t")
    + list("가나다한글\u1100\u1161\u11a8")
    + list("éÉe\u0301\u0323\u0345ñ")
    + list("\u00ad\u200b\u200c\u200d\u2060\ufeff\u202e\u2066\u3164\ufe0f\U000e0041\U000e0100\u034f")
    + list("ＡＢｃ１ﬁ\U0001d400\U0001d41a\u2460")
    + list("ΣσςßẞK\u0130")
    + list("\u00a0\u3000\u2009\u2014·…«」\U0001f600")
)
SNIPPETS = st.sampled_from(
    ["&amp;", "&lt;", "&nbsp;", "&nbsp", "&shy;", "&#173;", "&#xAD;", "&#x41;", "&#65;", "&#0000116;", "&notit;", "&bogus;", "&#xFF54;", "&#x1D400;", "&#00000000116;", "&#x00000000041", "&amp한", "&ab!;", "&#;"]
    + ["\\u00ad", "\\u0041", "\\ud835\\udc00", "\\ud835", "\\udc00", "\\n", "\\\\", '\\"', "\\/", "\\t", "\\x", "\\\\u0041", "\\u00e9"]
)
TEXT = st.lists(st.one_of(ALPHABET, SNIPPETS), max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_text_normalisation_is_the_definition(text: str) -> None:
    assert normalise(text) == reference_normalise(text)
    assert normalise(text.encode()) == reference_normalise(text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_folding_by_runs_and_whole_agree(text: str) -> None:
    # The two routes _fold_utf8 chooses between by density: per run (codec error handler,
    # split at ASCII characters) and whole text.
    by_runs = text.encode("ascii", leakscan._FOLD).translate(leakscan._TABLE)
    whole = leakscan._fold(text).encode("utf-8", "replace").translate(leakscan._TABLE)
    assert leakscan._squeeze(by_runs) == leakscan._squeeze(whole) == reference_normalise(text)


HAS_U_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}")


@settings(max_examples=400, deadline=None)
@given(TEXT, st.sampled_from(["x.json", "search.json.gz", "app.js", "page.html", "x.csv", "sitemap.xml.gz"]), st.booleans())
def test_output_normalisation_is_the_definition(text: str, name: str, padded: bool) -> None:
    # Padding with plain ASCII makes \u escapes sparse: the regular-expression route;
    # unpadded they are dense: the codec route.
    if padded:
        text = "pad " * 200 + text + " pad" * 200
    for data in (text.encode(), text.encode("ascii", "backslashreplace")):
        raw = gzip.compress(data) if name.endswith(".gz") else data
        written = data.decode()
        if name.removesuffix(".gz").endswith((".json", ".js")):
            expected = [reference_output(written)]
        else:  # a page or a CSV: backslashes as written (TeX), and decoded if JSON escapes are there
            expected = [reference_normalise(html.unescape(written))]
            if "\\" in written and HAS_U_ESCAPE.search(written):
                expected.append(reference_output(written))
        assert output_forms(raw, name)[: len(expected)] == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(ALPHABET, min_size=1, max_size=40).map("".join))
def test_ensure_ascii_json_of_any_text_scans_as_the_text(text: str) -> None:
    # json.dumps escapes every non-ASCII character (surrogate pairs beyond U+FFFF).
    data = json.dumps({"t": text})
    assert output_forms(data.encode(), "x.json") == [reference_output(data)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(ALPHABET, min_size=1, max_size=6), min_size=8, max_size=12))
def test_same_hits_by_every_route(words: list[str]) -> None:
    question = " ".join(words)
    needles = build_needles([("b item q", "", [question])])
    if needles.empty:
        return
    expected = needles.scan_bytes(reference_normalise("quoted: " + question))
    assert expected == "question text of b item q"
    assert needles.scan_text("quoted: " + question) == expected
    assert needles.scan_file(("quoted: " + html.escape(question)).encode(), "p.html") == expected
    assert needles.scan_file(json.dumps({"q": question}).encode(), "q.json") == expected
    assert needles.scan_file(gzip.compress(json.dumps({"q": question}, ensure_ascii=False).encode()), "q.json.gz") == expected


@pytest.mark.parametrize("text", ["", " ", "a", "  a  b  ", "\u00ad", "가", "A\u0301", "x" * 5000 + "  " + "가" * 3000, "x " * 3000 + "가나다라" * 30 + "ＡＢ\u00ad" * 20])
def test_edges(text: str) -> None:
    assert normalise(text) == reference_normalise(text)
    assert output_forms(text.encode(), "x.json") == [reference_output(text)]
    assert output_forms(text.encode(), "x.html")[0] == reference_normalise(html.unescape(text))


def test_word_blocks_listed_first_change_nothing() -> None:
    # _NONWORD_RE lists Hangul, kana and CJK ranges before \w for speed: the same set, checked
    # over every code point.
    plain = re.compile(r"[^\x00-\x7f\w]")
    fast = leakscan._NONWORD_RE
    assert "\uac00" in leakscan._WORD_BLOCKS
    assert [c for c in range(0x110000) if bool(fast.match(chr(c))) != bool(plain.match(chr(c)))] == []
