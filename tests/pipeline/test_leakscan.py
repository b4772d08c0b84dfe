"""The leak scan's normaliser and matcher, on the disguises an attacker would try."""

from __future__ import annotations

import gzip
import html

import orjson
import pytest

from builder.pipeline.leakscan import build_needles, normalise

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
    assert NEEDLES.scan_file(orjson.dumps({"notes": text}).decode().encode("ascii", "backslashreplace").replace(b"\\x", b"\\u00"), "x.json") is not None
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
