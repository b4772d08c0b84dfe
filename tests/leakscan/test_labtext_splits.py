"""Lab text read together: an excerpt split word by word over several texts (issue 44)."""

from __future__ import annotations

from builder.leakscan.fold import words
from builder.leakscan.labtext import Piece, lab_needles, scan_sequence, scan_together
from builder.leakscan.scan import build_needles

QUESTION = "Estimate how many distinct ways a wandering gardener plants tulips beside crooked fences annually"
NEEDLES = build_needles([("soohak item q1", "", [QUESTION])])
FOLDED = lab_needles(NEEDLES.patterns, NEEDLES.labels)
WORDS = QUESTION.lower().split()[:8]


def test_three_texts_dealt_round_robin_are_read_word_by_word() -> None:
    dealt = [WORDS[i::3] for i in range(3)]
    assert scan_sequence(dealt, FOLDED) == "question text of soohak item q1"
    assert scan_sequence([WORDS[:3], WORDS[3:6], WORDS[6:]], FOLDED) == "question text of soohak item q1"


def test_three_of_many_fields_in_any_order_are_found() -> None:
    dealt = [tuple(WORDS[i::3]) for i in range(3)]
    fields = [Piece("lab/run-1", f"other{i}", (f"filler{i}", "text")) for i in range(6)]
    # the three dealt fields among others, in an order other than the reading order
    pieces = [
        fields[0],
        Piece("lab/run-1", "z", dealt[2]),
        *fields[1:4],
        Piece("lab/run-1", "a", dealt[0]),
        fields[4],
        Piece("lab/run-1", "m", dealt[1]),
        fields[5],
    ]
    assert scan_together(pieces, FOLDED) == ("question text of soohak item q1", ("lab/run-1",))


def test_one_field_over_three_bundles_word_by_word() -> None:
    pieces = [Piece(f"lab/run-{i}", "config.notes", tuple(WORDS[i::3])) for i in range(3)]
    found = scan_together(pieces, FOLDED)
    assert found is not None and set(found[1]) == {"lab/run-0", "lab/run-1", "lab/run-2"}


def test_control_ordinary_fields_are_not_read_as_item_text() -> None:
    pieces = [Piece("lab/run-1", f"f{i}", tuple(f"we ran greedy decoding seed {i}".split())) for i in range(12)]
    assert scan_together(pieces, FOLDED) is None


def test_readings_scanned_in_one_pass_stay_apart() -> None:
    """LabNeedles.any reads its readings in one pass of the automaton: a needle cut between
    two readings is in neither, and the label is that of the first reading holding one (a
    canary in the second, question text in the third: the canary)."""
    whole = "".join(WORDS).encode()
    assert FOLDED.any([whole]) == "question text of soohak item q1"  # the control
    assert FOLDED.any([whole[:20], whole[20:]]) is None
    assert FOLDED.any([b"", whole[:-1], whole[1:]]) is None
    both = build_needles([("soohak item c1", "CANARY-c1-0001", [QUESTION])])
    folded = lab_needles(both.patterns, both.labels)
    canary = "".join(words("CANARY-c1-0001")).encode()
    assert folded.any([b"nothing", canary, whole]) == "canary of soohak item c1"
    assert folded.any([b"nothing", whole, canary]) == "question text of soohak item c1"
