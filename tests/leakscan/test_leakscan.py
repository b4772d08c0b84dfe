"""The leak scan's normaliser and matcher, on the disguises an attacker would try."""

from __future__ import annotations

import gzip
import html
import json
import unicodedata

import orjson
import pytest

from builder.leakscan.scan import build_needles, normalise

LONG = (
    "Let n be the smallest positive integer such that every coloring of the edges of the complete graph "
    "on n vertices with three colors contains a monochromatic triangle whose vertices are labeled by "
    "consecutive integers modulo seven and whose perimeter exceeds the diameter of the circumscribed "
    "circle of the regular heptagon inscribed in the unit disc centered at the origin of the plane."
)
WORDS = LONG.split()
CANARY = "SOOHAK-CANARY-4f1e-b7a2-9c3d"
NEEDLES = build_needles([("soohak item x1", CANARY, [LONG, "문제: 정수 해의 개수를 구하시오 단 조건은 다음과 같다"])])


@pytest.mark.parametrize("start", range(0, len(WORDS) - 7))
def test_every_window_is_found(start):
    assert NEEDLES.scan_text("we quote: " + " ".join(WORDS[start : start + 8]) + ".") == "question text of soohak item x1"


def test_a_51_word_excerpt_is_found_anywhere():
    assert NEEDLES.scan_text("x " + " ".join(WORDS[3:54]) + " y") is not None


DISGUISES = {
    "soft-hyphen": lambda t: t.replace("e", "\u00ade"),
    "zero-width-space": lambda t: "\u200b".join(t),
    "zero-width-joiners": lambda t: t.replace(" ", " \u200d\u200c"),
    "bidi-override": lambda t: "\u202e" + t + "\u202c",
    "bidi-isolates": lambda t: t.replace(" ", "\u2066 \u2069"),
    "word-joiner": lambda t: t.replace("i", "i\u2060"),
    "bom": lambda t: t.replace(" ", "\ufeff "),
    "variation-selector": lambda t: t.replace("o", "o\ufe0f"),
    "hangul-filler": lambda t: t.replace("a", "a\u3164"),
    "full-width": lambda t: t.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)}),
    "upper-case": str.upper,
    "no-break-spaces": lambda t: t.replace(" ", "\u00a0"),
    "ideographic-spaces": lambda t: t.replace(" ", "\u3000"),
    "em-dashes": lambda t: t.replace(" ", "\u2014"),
    "markup": lambda t: "<b>" + t.replace(" ", "</b> <i>") + "</i>",
    "new-lines": lambda t: t.replace(" ", "\n"),
}


@pytest.mark.parametrize("name", DISGUISES)
def test_disguised_text_is_found_as_text_and_in_every_output_format(name):
    excerpt = " ".join(WORDS[20:30])
    text = DISGUISES[name](excerpt)
    assert NEEDLES.scan_text(text) is not None, name
    if name == "markup":
        return  # inline markup counts in lab text (Markdown renders it), not in the site's own output
    assert NEEDLES.scan_file(html.escape(text).encode(), "page.html") is not None
    assert NEEDLES.scan_file(html.escape(text).encode("ascii", "xmlcharrefreplace"), "page.html") is not None
    assert NEEDLES.scan_file(orjson.dumps({"notes": text}), "board.json") is not None
    assert (
        NEEDLES.scan_file(orjson.dumps({"notes": text}).decode().encode("ascii", "backslashreplace").replace(b"\\x", b"\\u00"), "x.json")
        is not None
    )
    assert NEEDLES.scan_file(gzip.compress(text.encode()), "search.json.gz") is not None


@pytest.mark.parametrize("disguise", ["soft-hyphen", "zero-width-space", "full-width", "bidi-override", "upper-case"])
def test_canary_is_found_in_disguise(disguise):
    assert NEEDLES.scan_text("model " + DISGUISES[disguise](CANARY)) == "canary of soohak item x1"


def test_hangul_question_window_is_found():
    assert NEEDLES.scan_text("참고 문제:\u200b 정수 해의 개수를 구하시오  단 조건은 다음과") is not None


def test_innocent_text_is_not_a_leak():
    assert NEEDLES.scan_text(" ".join(WORDS[:7])) is None  # seven words: below the window
    assert NEEDLES.scan_text("the smallest positive integer such that the number of widgets exceeds the rest") is None
    assert NEEDLES.scan_file(b"<td>0.734</td><td>1 2 3 4 5 6 7 8 9</td>", "x.html") is None


def test_number_windows_are_not_needles():
    needles = build_needles([("b item n", "", ["1 2 3 4 5 6 7 8 9 10 and x y z"])])
    assert needles.scan_text("1 2 3 4 5 6 7 8 9 10") is None


def test_normalisation_is_the_same_for_text_and_bytes():
    text = "Ｆｕｌｌ\u00ad-width, <b>bold</b> — and\u200b zero\u2060width É"
    assert normalise(text) == normalise(text.encode())
    assert normalise(text) == b" full width b bold b and zerowidth e "


# --- the site's own output: every reading of a file a reader or a browser could give ---------

TEX = r"Let \frac{a}{b} be \theta times \nabla f where \right\| \bar{x} \tan \beta exceeds \rho over \binom{n}{k} and \neq zero"
GREEK = "ΕΣΤΩ ΟΤΙ Ο ΑΡΙΘΜΟΣ ΤΩΝ ΛΥΣΕΩΝ ΤΗΣ ΕΞΙΣΩΣΗΣ ΕΙΝΑΙ ΠΕΠΕΡΑΣΜΕΝΟΣ ΚΑΙ ΘΕΤΙΚΟΣ"
GERMAN = "Die Straße der Fußgänger misst genau dreißig Meter und die Größe bleibt gleich"
OTHERS = build_needles([("b item tex", "", [TEX]), ("b item el", "", [GREEK.lower()]), ("b item de", "", [GERMAN])])
BOLD = {c: 0x1D41A + c - 0x61 for c in range(0x61, 0x7B)}  # a-z as MATHEMATICAL BOLD SMALL letters


def _png_text_chunk(text: bytes) -> bytes:
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\xff\xfe" + b"\x00\x00\x00\x40tEXtComment\x00" + text + b"\xff\xd8\x00\x00IEND\xaeB`\x82"


OUTPUT_DISGUISES = {
    "json-ensure-ascii-math-bold-surrogate-pairs": lambda t: (json.dumps({"x": t.lower().translate(BOLD)}).encode(), "board.json"),
    "json-escaped-soft-hyphens": lambda t: (json.dumps({"x": t.replace("e", "\u00ade")}).encode(), "board.json"),
    "json-escaped-zero-width-in-gzip": lambda t: (gzip.compress(json.dumps({"x": "\u200b".join(t)}).encode()), "search.json.gz"),
    "html-shy-entities": lambda t: (t.replace("e", "&shy;e").encode(), "page.html"),
    "html-numeric-soft-hyphens": lambda t: (t.replace("e", "&#173;e").replace("o", "&#xAD;o").encode(), "page.html"),
    "html-every-letter-a-numeric-entity": lambda t: ("".join(f"&#{ord(c)};" for c in t).encode(), "page.html"),
    "html-entities-with-leading-zeros": lambda t: (t.replace("t", "&#0000116;").encode(), "page.html"),
    "html-legacy-nbsp-without-semicolon": lambda t: (t.replace(" ", "&nbsp").encode(), "page.html"),
    "html-full-width-entities": lambda t: ("".join(f"&#x{ord(c) + 0xFEE0:X};" if "!" <= c <= "~" else c for c in t).encode(), "page.html"),
    "script-json-with-newline-escapes": lambda t: (
        b"<p>x</p><script>var d = " + json.dumps(t.replace(" ", "\n")).encode() + b";</script>",
        "page.html",
    ),
    "png-text-chunk-binary-bytes-between-words": lambda t: (_png_text_chunk(t.replace(" ", "\xff").encode("latin-1")), "logo.png"),
    "csv-upper-case-quoted": lambda t: (f'1,"{t.upper()}",2\n'.encode(), "items.csv"),
}


@pytest.mark.parametrize("name", OUTPUT_DISGUISES)
def test_disguised_text_in_output_files_is_found(name):
    data, filename = OUTPUT_DISGUISES[name](" ".join(WORDS[20:30]))
    assert NEEDLES.scan_file(data, filename) == "question text of soohak item x1", name


def test_korean_in_decomposed_jamo_and_escaped_json_is_found():
    text = "참고 문제: 정수 해의 개수를 구하시오 단 조건은 다음과"
    nfd = unicodedata.normalize("NFD", text)
    assert nfd != text
    assert NEEDLES.scan_file(nfd.encode(), "page.html") == "question text of soohak item x1"
    assert NEEDLES.scan_file(json.dumps({"q": nfd}).encode(), "search_index.json") == "question text of soohak item x1"


def test_tex_is_read_as_written_in_pages_and_decoded_in_json():
    # "\frac", "\theta", "\nabla", "\right", "\bar", "\beta", "\rho", "\binom", "\neq" begin with
    # JSON's short escapes; a page or a CSV shows them as written, so they are read so there.
    window = " ".join(TEX.split()[4:14])
    assert OTHERS.scan_file(html.escape(window).encode(), "item.html") == "question text of b item tex"
    assert OTHERS.scan_file(window.encode(), "items.csv") == "question text of b item tex"
    assert OTHERS.scan_file(orjson.dumps({"q": window}), "items.json") == "question text of b item tex"
    assert OTHERS.scan_file(json.dumps({"q": window}).encode(), "items.json") == "question text of b item tex"


def test_case_folding_beyond_lower():
    # lower() spells a final sigma apart ("ς" at a word's end) and keeps "ß"; case folding
    # does neither, so upper-case Greek and "STRASSE" match the needles.
    assert OTHERS.scan_file(GREEK.encode(), "page.html") == "question text of b item el"
    assert OTHERS.scan_file(GERMAN.upper().encode(), "page.html") == "question text of b item de"
    assert OTHERS.scan_text(GERMAN.replace("ß", "ss")) == "question text of b item de"


def test_escaped_backslash_is_not_an_escape():
    # JSON "\\u0041" is a backslash and the text "u0041", not "A": no false hit, no lost word.
    needles = build_needles([("b item u", "", ["alpha beta gamma delta u0041 epsilon zeta theta"])])
    assert needles.scan_file(b'{"q": "alpha beta gamma delta \\\\u0041 epsilon zeta theta"}', "x.json") == "question text of b item u"


KOREAN = "참고 문제: 정수 해의 개수를 구하시오 단 조건은 다음과"


@pytest.mark.parametrize(
    "spelling",
    [
        lambda t: unicodedata.normalize("NFD", t),  # conjoining jamo
        lambda t: unicodedata.normalize("NFC", t),
        # syllables written as compatibility jamo where they decompose to them ("가" as "ㄱㅏ")
        lambda t: t.replace("구", "\u3131\u315c"),
        lambda t: "\u200b".join(unicodedata.normalize("NFD", t)),  # jamo with zero-width spaces between
    ],
)
def test_korean_matches_however_its_syllables_are_written(spelling):
    text = spelling(KOREAN)
    for data, name in [
        (text.encode(), "page.html"),
        (text.encode("ascii", "xmlcharrefreplace"), "page.html"),  # every syllable or jamo an entity
        (json.dumps({"q": text}).encode(), "search_index.json"),  # every one a \uXXXX escape
        (orjson.dumps({"q": text}), "items.json"),
        (gzip.compress(f'1,"{text}"'.encode()), "items.csv.gz"),
    ]:
        assert NEEDLES.scan_file(data, name) == "question text of soohak item x1", (name, data[:40])


def test_korean_needles_written_in_jamo_match_syllables():
    needles = build_needles([("b item k", "", [unicodedata.normalize("NFD", KOREAN)])])
    assert needles.scan_file(KOREAN.encode(), "page.html") == "question text of b item k"
    assert needles.scan_file(json.dumps({"q": KOREAN}).encode(), "x.json") == "question text of b item k"


def test_korean_is_compared_as_syllables():
    # Three bytes a syllable, as in UTF-8, not the two or three jamo NFKD makes of it.
    assert normalise("정수 해의") == " 정수 해의 ".encode()
    assert normalise(unicodedata.normalize("NFD", "정수 해의")) == " 정수 해의 ".encode()
    assert normalise("ㄱㅏ") == " 가 ".encode()  # compatibility jamo compose, as NFKD made them conjoining
