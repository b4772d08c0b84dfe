"""Every character a reader does not see is folded out (issue 44, class 6): Unicode format
characters, the invisible ones filed elsewhere, and the code points reserved as
default-ignorable that this Python's Unicode data leaves unassigned (a newer browser renders
them as nothing). Between the letters of a question they must not hide it from the plain
scan (the site's own output) nor from the lab-text scan (transcripts)."""

from __future__ import annotations

import pytest

from builder.leakscan.labtext import lab_needles, scan_alone
from builder.leakscan.normalise import normalise
from builder.leakscan.scan import build_needles

QUESTION = "Estimate how many distinct ways a wandering gardener plants tulips beside crooked fences annually"
NEEDLES = build_needles([("soohak item q1", "", [QUESTION])])
EXCERPT = " ".join(QUESTION.split()[1:9])
INVISIBLE = {
    "invisible-separator": "\u2063", "zero-width-space": "\u200b", "word-joiner": "\u2060", "soft-hyphen": "\u00ad",
    "variation-selector-16": "\ufe0f", "variation-selector-256": "\U000e01ef", "tag-letter": "\U000e0041",
    "combining-grapheme-joiner": "\u034f", "hangul-filler": "\u3164", "mongolian-vowel-separator": "\u180e",
    "musical-format": "\U0001d173", "unassigned-u2065": "\u2065", "unassigned-ufff0": "\ufff0", "unassigned-tag-e0002": "\U000e0002",
}  # fmt: skip


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_invisible_characters_between_letters_hide_nothing(char: str) -> None:
    disguised = char.join(EXCERPT)
    assert normalise(disguised) == normalise(EXCERPT)
    assert NEEDLES.scan_text("recall: " + disguised) == "question text of soohak item q1"
    assert scan_alone("recall: " + disguised, lab_needles(NEEDLES.patterns, NEEDLES.labels)) == "question text of soohak item q1"


def test_control_visible_separators_stay_separators() -> None:
    assert normalise("a\u00a0b\u2009c") == b" a b c "
