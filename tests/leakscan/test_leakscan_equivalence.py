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

import functools
import gzip
import html
import html.entities
import json
import re
import subprocess
import sys
import unicodedata
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.leakscan import normalise as leaknorm
from builder.leakscan import scan as leakscan
from builder.leakscan.scan import build_needles, normalise, output_forms

pytestmark = pytest.mark.slow  # property tests of the normaliser (~50 s)

# The definition of what is deleted, written out (the module derives it once, on first use).
INVISIBLE = (
    {chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf" and c >= 0x80}
    | set("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u3164\uffa0")
    | {chr(c) for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))}
    # Default_Ignorable_Code_Point reserved but unassigned here (issue 44): U+2065, U+FFF0-FFF8, U+E0000-E0FFF
    | {chr(c) for c in (0x2065, *range(0xFFF0, 0xFFF9), *range(0xE0000, 0xE1000))}
)
MARKS = {chr(c) for c in range(0x300, 0x30000) if unicodedata.category(chr(c)) in ("Mn", "Me")}


def reference_normalise(text: str) -> bytes:
    text = unicodedata.normalize("NFKD", text).casefold()
    text = "".join(ch for ch in text if ch not in INVISIBLE and unicodedata.category(ch) not in ("Mn", "Me"))
    text = unicodedata.normalize("NFC", "".join(ch if ch.isalnum() or ch == "_" else " " for ch in text))
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
            if (
                0xD800 <= code < 0xDC00
                and text[i + 6 : i + 8] == "\\u"
                and len(low) == 4
                and set(low) <= hexdigits
                and 0xDC00 <= int(low, 16) < 0xE000
            ):
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
    [
        "&amp;",
        "&lt;",
        "&nbsp;",
        "&nbsp",
        "&shy;",
        "&#173;",
        "&#xAD;",
        "&#x41;",
        "&#65;",
        "&#0000116;",
        "&notit;",
        "&bogus;",
        "&#xFF54;",
        "&#x1D400;",
        "&#00000000116;",
        "&#x00000000041",
        "&amp한",
        "&ab!;",
        "&#;",
    ]
    + ["\\u00ad", "\\u0041", "\\ud835\\udc00", "\\ud835", "\\udc00", "\\n", "\\\\", '\\"', "\\/", "\\t", "\\x", "\\\\u0041", "\\u00e9"]
    # Escapes Python's unicode_escape codec reads otherwise than JSON, runs of backslashes
    # (TeX in JSON), and Hangul as escapes and entities of syllables and of jamo.
    + [
        "\\\\\\u0041",
        "\\U0001F600",
        "\\x41",
        "\\101",
        "\\a",
        "\\v",
        "\\'",
        "\\N{DIGIT ONE}",
        "\\\n",
        "\\u005c",
        "\\u005Cn",
        "\\\\frac",
        "\\\\\\\\x",
    ]
    + ["\\uac00", "\\uAC01", "\\u1100\\u1161", "\\u11a8", "&#xAC00;", "&#4449;", "&#x11A8;", "\u3131\u314f", "\uffa1", "\u326e"]
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
    # The routes _fold_utf8 chooses between by density: per run (codec error handler, split
    # at ASCII characters), whole text, and in the UTF-8 bytes (dense text).
    by_runs = text.encode("ascii", leaknorm._FOLD).translate(leaknorm._TABLE)
    whole = leaknorm._fold(text).encode("utf-8", "replace").translate(leaknorm._TABLE)
    in_bytes = leaknorm._fold_dense(text.encode(), text).translate(leaknorm._TABLE)
    assert leaknorm._squeeze(by_runs) == leaknorm._squeeze(whole) == reference_normalise(text)
    assert leaknorm._squeeze(in_bytes) == reference_normalise(text)
    # The vector route (dense text: one byte in eight non-ASCII) gives the same or declines.
    assert leaknorm._fold_vector(text.encode()) in (None, reference_normalise(text))


# Korean-heavy text as the vector route sees it: syllables, with every kind of character
# it must fold in place (punctuation, spaces, invisible ones between spaces or in runs,
# compatibility and conjoining jamo, full-width letters) or leave to the general route.
DENSE = st.lists(
    st.sampled_from(
        list("가나다한글힣" * 4)
        + list(" \u00a0\u00ad\u200b\u3000·—「」.,Ａｂ\u3131\u314f\u1100\u1161\u11a8\ud7a3\ud7a4\ud7b0ﬁ½e\u0301Σ\U0001f600")
    ),
    max_size=80,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(DENSE)
def test_vector_route_is_the_definition_on_dense_text(text: str) -> None:
    data = text.encode()
    folded = leaknorm._fold_vector(data)
    assert folded in (None, reference_normalise(text))
    if sum(b >= 0x80 for b in data) * 8 >= len(data) > 0 and "\U0001f600" not in text and "½" not in text:
        assert folded is not None  # taken: dense, within the BMP, nothing that grows when folded
    assert normalise(text) == reference_normalise(text)
    with mock.patch.object(leaknorm, "_PIECE", 3):  # cut at every space past three bytes
        assert leaknorm._fold_vector(data) == folded


def test_vector_route_is_the_definition_for_every_bmp_character() -> None:
    # Every character up to U+FFFF between syllables and between spaces, in one text (those
    # whose folded bytes are longer than they are go to the general route: checked apart).
    table = leaknorm._vector()
    chars = [chr(c) for c in range(0x80, 0x10000) if not 0xD800 <= c < 0xE000]
    grows = [c for c in chars if table.kind[ord(c)] == 2]
    text = "".join(f"가{c}나 {c} 다{c}{c} " for c in chars if table.kind[ord(c)] != 2)
    assert leaknorm._fold_vector(text.encode()) == reference_normalise(text)
    assert len(grows) < 1000 and "½" in grows
    for c in grows:
        assert leaknorm._fold_vector(f"가나{c}다".encode()) is None


@pytest.mark.parametrize(
    "data",
    [
        "가나다".encode() + b"\x80",  # a continuation byte after a whole character
        "가나다".encode() + "가".encode()[:2],  # a character cut short at the end
        "가나다".encode() + "가".encode()[:2] + b"a",
        "가나다".encode() + b"\xc0\x80",  # overlong forms
        "가나다".encode() + b"\xe0\x80\x80",
        "가나다".encode() + b"\xed\xa0\x80",  # a surrogate
        "가나다".encode() + b"\xff" + "가".encode(),
        "가나다".encode() + b"\xf0\x9f\x98",  # a 4-byte character cut short
    ],
)
def test_vector_route_refuses_what_is_not_utf8(data: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert leaknorm._fold_vector(data) is None
    assert output_forms(data, "page.html") == [normalise(data, binary=True)]  # scanned as a binary file


def test_dense_korean_output_takes_the_vector_route_and_finds_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Korean-heavy output of bench/bench_leakscan.py, in every encoding it writes, and
    # gzipped: a planted window of a Korean question is found, by the vector route.
    question = "다음 조건을 만족시키는 모든 자연수 n의 값의 합을 구하시오 단 최고차항의 계수가 1인 이차함수"
    needles = build_needles([("kcsat-ml item 30", "", [question])])
    window = " ".join(question.split()[3:11])
    filler = "한국어 문장이 길게 이어지는 페이지입니다\u00ad 여러 번\u200b 반복됩니다 · 「인용」 — 끝."
    taken: list[bool] = []
    route = leaknorm._fold_vector

    def spy(data: bytes) -> bytes | None:
        folded = route(data)
        taken.append(folded is not None)
        return folded

    monkeypatch.setattr(leaknorm, "_fold_vector", spy)
    spellings = {
        "syllables": window,
        "conjoining jamo": unicodedata.normalize("NFD", window),
        "compatibility jamo": window.replace("만", "\u3141\u314f\u3134").replace("시", "\u3145\u3163"),
        "soft hyphens and zero-width spaces": window.replace("족", "\u00ad족").replace(" ", " \u200b"),
    }
    for spelling, text in spellings.items():
        paragraph = f"{filler} {text} {filler}"
        for name, data in [
            ("page.html", f"<p>{html.escape(paragraph)}&nbsp;&middot; <code>x &lt; y</code></p>".encode()),
            ("search.json", json.dumps({"docs": [{"text": paragraph, "location": "p1"}]}).encode()),
            ("items.json", json.dumps([{"question": paragraph + '\n"인용"', "n": 1}], ensure_ascii=False).encode()),
            ("items.csv", f'1,"{paragraph}"\n'.encode()),
            ("items.csv.gz", gzip.compress(f'1,"{paragraph}"\n'.encode())),
            ("search.json.gz", gzip.compress(json.dumps({"docs": [{"text": paragraph}]}).encode())),
        ]:
            taken.clear()
            assert needles.scan_file(data, name) == "question text of kcsat-ml item 30", (spelling, name)
            assert taken and all(taken), (spelling, name)
            unplanted = data if name.endswith(".gz") else data.replace(text.encode(), b"")
            if not name.endswith(".gz") and unplanted != data:
                assert needles.scan_file(unplanted, name) is None


def test_deleted_characters_between_spaces_leave_one_space() -> None:
    # A NUL run (what is deleted) between two spaces would hide them from the squeeze.
    for text in [
        "가 \u00ad 나",
        "가 \u00ad\u200b\u00ad 나",
        "가\u00ad 나",
        "가 \u00ad나",
        " \u200b가",
        "가\u200b ",
        "ﬁ\u00ad 가 ",
        "가 \u00ad\u3000\u00ad 나",
    ]:
        assert leaknorm._fold_vector(text.encode()) == reference_normalise(text), text


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


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "a",
        "  a  b  ",
        "\u00ad",
        "가",
        "A\u0301",
        "x" * 5000 + "  " + "가" * 3000,
        "x " * 3000 + "가나다라" * 30 + "ＡＢ\u00ad" * 20,
    ],
)
def test_edges(text: str) -> None:
    assert normalise(text) == reference_normalise(text)
    assert output_forms(text.encode(), "x.json") == [reference_output(text)]
    assert output_forms(text.encode(), "x.html")[0] == reference_normalise(html.unescape(text))


def test_word_blocks_listed_first_change_nothing() -> None:
    # _NONWORD_RE lists Hangul, kana and CJK ranges before \w for speed: the same set, checked
    # over every code point.
    plain = re.compile(r"[^\x00-\x7f\w]")
    fast = leaknorm._plain().nonword
    assert "\uac00" in leaknorm._plain().word_blocks
    assert [c for c in range(0x110000) if bool(fast.match(chr(c))) != bool(plain.match(chr(c)))] == []


def test_deleted_characters_are_the_definition_over_all_of_unicode() -> None:
    plain = leaknorm._plain()
    assert set(plain.invisible) == INVISIBLE and set(plain.marks) == MARKS
    deleted = INVISIBLE | MARKS
    assert [c for c in range(0x110000) if (plain.drop.fullmatch(chr(c)) is not None or c in plain.drop_astral) != (chr(c) in deleted)] == []


def test_import_derives_no_table() -> None:
    # The tables cost 0.1 s of CPU: paid on the first fold of non-ASCII text, not by every
    # command that imports the build (bench/bench_leakscan.py prints the figures).
    code = "import builder.leakscan.scan, builder.leakscan.normalise as m; print(m._plain.cache_info().currsize, m._folds.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["0", "0"]
    code = "import builder.leakscan.scan, builder.leakscan.normalise as m; m.normalise(b'x'); print(m._plain.cache_info().currsize); m.normalise('가 é'); print(m._plain.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["0", "1"]


@functools.cache
def _all_folds() -> dict[str, str]:
    # Every code point but ASCII and surrogates, folded by the plain definition (one call,
    # "\x00" between: nothing reaches across it).
    chars = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    folded = leaknorm._fold_plain("\x00".join(chars)).split("\x00")
    assert len(folded) == len(chars)
    return dict(zip(chars, folded))


def test_character_table_is_the_definition_character_by_character() -> None:
    folds = _all_folds()
    assert {c: f for c, f in folds.items() if c <= "\uffff" and f != c} == leaknorm._folds().char_fold
    for c in ["가", "힣", "中", "é", "Σ", "ß", "\u00ad", "\u3131", "\U0001d400", "\U000e0041"]:
        assert leaknorm._fold_plain(c) == folds[c]
        assert folds[c].split() == reference_normalise(c).decode().split()
    assert "\uac00" not in leaknorm._folds().char_fold and "\ud7a3" not in leaknorm._folds().char_fold  # Hangul syllables stay


def test_nfc_of_folded_text_composes_hangul_jamo_and_nothing_else() -> None:
    # Why the byte route runs NFC only when Hangul vowel or final jamo are there: no
    # character that folded text can hold has a combining class (nothing to reorder), and
    # none is the second of a canonical pair (nothing to compose), Hangul's aside.
    can_hold = {ch for f in _all_folds().values() for ch in f if ch > "\x7f"}
    assert [ch for ch in can_hold if unicodedata.combining(ch)] == []
    seconds = set()
    for c in range(0x110000):
        parts = unicodedata.decomposition(chr(c)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            seconds.add(chr(int(parts[1], 16)))
    assert seconds & can_hold == set()
    vowels_and_finals = set(leaknorm._VT_JAMO)
    assert vowels_and_finals <= can_hold
    assert all(unicodedata.normalize("NFC", ch) == ch for ch in can_hold)
    assert unicodedata.normalize("NFC", "\u1100\u1161\u11a8") == "각"


@pytest.mark.parametrize("suffix", ["", ";", "x", ".", "1;", ";x", "=", "한", "&amp;", "A" * 40])
def test_narrowed_entity_pattern_decodes_as_html_unescape(suffix: str) -> None:
    # Names narrowed to letters and digits: every HTML5 name, with whatever can follow it.
    for name in [*html.entities.html5, "ampx", "notit", "e", "x1", "bogus"]:
        text = "a &" + name.rstrip(";") + suffix + " b"
        assert leakscan._unescape_entities(text.encode()) == html.unescape(text).encode(), text


@pytest.mark.parametrize(
    ("data", "reads_as_json"),
    [
        (b"", True),
        (b'"\\uac00 \\n \\" \\\\ \\t \\b \\f \\r"', True),
        (b"\\\\frac \\\\le", True),  # TeX in JSON: escaped backslashes, then letters
        (b"\\\\\\u0041", True),
        (b"\\/", False),  # invalid to the codec
        (b"\\\\\\x41", False),
        (b"\\101", False),
        (b"\\U0001F600", False),
        (b"x\\", False),  # a backslash at the end
        (b"x\\\\", True),
    ],
)
def test_codec_route_is_taken_only_where_python_reads_escapes_as_json(data: bytes, reads_as_json: bool) -> None:
    assert leakscan._codec_reads_as_json(data) is reads_as_json
