"""Lab text that trips the leak scan rejects that bundle (named), never the whole site.

Each case is a properly signed bundle whose displayed fields carry an item's canary or
question text, disguised as an attacker would (invisible characters, compatibility forms,
an excerpt from the middle of the question); the exact reason is ``embargoed-text``.
"""

from __future__ import annotations

from typing import Any

import pytest

from hostile.support import (
    ACME,
    BETA,
    ITEMS,
    assert_rejected,
    edit_manifest,
    outcome,
    published,
    reseal,
    rows_bytes,
    run,
    set_field,
    where_of,
)

CANARY = ITEMS[0]["canary"]
WORDS = ITEMS[2]["question"]["en"].split()


def excerpt(start: int, n: int = 8, glue: str = " ") -> str:
    return glue.join(WORDS[start : start + n])


LEAK, HIDDEN = "embargoed-text", "bad-display-name"
# (field, value, reason): disguises with invisible or compatibility characters are refused
# at parse time (display-field cleaning) before the leak scan sees them; the scan's own
# normaliser is tested on the same disguises in tests/leakscan/test_leakscan.py.
CASES = {
    "canary-in-model-name": ("model.name", f"Model {CANARY}", LEAK),
    "canary-in-family": ("model.family", f"Fam {CANARY}", LEAK),
    "canary-in-model-id": ("model.id", f"m-{CANARY}", LEAK),
    "canary-in-notes": ("config.notes", f"see {CANARY}", LEAK),
    "canary-in-reasoning-effort": ("config.reasoning_effort", CANARY, LEAK),
    "canary-in-harness": ("harness.name", f"h {CANARY}", LEAK),
    "canary-in-harness-version": ("harness.version", CANARY, LEAK),
    "canary-in-judge": ("judge", f"judge {CANARY}", LEAK),
    "canary-lower-case": ("config.notes", CANARY.lower(), LEAK),
    "canary-dots-for-dashes": ("config.notes", CANARY.replace("-", "."), LEAK),
    "canary-soft-hyphens": ("config.notes", "\u00ad".join(CANARY), HIDDEN),
    "question-in-notes": ("config.notes", excerpt(0), LEAK),
    "question-window-from-the-middle": ("config.notes", "Ours: " + excerpt(3) + " (abridged)", LEAK),
    "question-last-window": ("config.notes", excerpt(len(WORDS) - 8), LEAK),
    "question-across-lines": ("config.notes", excerpt(1, glue="\n"), LEAK),
    "question-zero-width-between-letters": ("config.notes", "\u200b".join(excerpt(1)), HIDDEN),
    "question-bidi-and-word-joiners": ("config.notes", "\u202e" + excerpt(2, glue="\u2060 ") + "\u202c", HIDDEN),
    "question-full-width": ("config.notes", excerpt(0).translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)}), HIDDEN),
    "question-nbsp-and-thin-spaces": ("config.notes", excerpt(4, glue="\u2009"), HIDDEN),
    "question-upper-case-html-entities": ("config.notes", excerpt(0).upper().replace(" ", "&nbsp;"), LEAK),
    "question-in-model-name": ("model.name", excerpt(2), LEAK),
}


@pytest.mark.parametrize("field,value,reason", CASES.values(), ids=CASES.keys())
def test_lab_text_with_item_text_rejects_only_that_bundle(inst, field: str, value: str, reason: str) -> None:
    edit_manifest(inst.bundles[BETA], set_field(field, value), inst.lab_keys["beta"])
    report = run(inst)
    # A manifest refused at parse still holds the text in the checkout: the checkout's
    # per-bundle scan names it too (builder.pipeline.checkout.refuse_leaking_bundles).
    reasons = {reason, LEAK}
    assert_rejected(report, *((where_of(BETA, "manifest.json"), r) for r in reasons), publishes=[ACME])
    for rej in report.rejections:
        assert CANARY.lower() not in rej.message.lower() and WORDS[3] not in rej.message
        assert ITEMS[0]["id"] not in rej.message and ITEMS[2]["id"] not in rej.message  # the item is not named


def test_an_innocent_note_is_not_a_leak(inst) -> None:
    # Seven of the question's words are below the window; common words are everywhere.
    edit_manifest(inst.bundles[BETA], set_field("config.notes", excerpt(0, 7) + " and the number of widgets"), inst.lab_keys["beta"])
    assert run(inst).rejections == []


def test_rejection_message_quoting_a_canary_is_withheld(inst) -> None:
    # An item id the dataset lacks is quoted by the results parser: here it is a canary.
    rows = [dict(r) for r in rows_from_valid()]
    rows[0]["item"] = CANARY
    reseal(inst, BETA, rows_bytes(rows))
    report = run(inst)
    (rej,) = report.rejections
    assert rej.reason == "unknown-item" and rej.where.startswith(where_of(BETA))
    assert CANARY.lower() not in (rej.message + (rej.hint or "")).lower() and "withheld" in rej.message
    assert {ACME} <= published(report)


def rows_from_valid() -> list[dict[str, Any]]:
    from hostile.support import BETA_ROWS

    return BETA_ROWS


def test_without_the_identity_item_text_is_unknowable(inst) -> None:
    # The unauthorised build cannot read items (only ids and salted commitments are
    # public), so it has no needle; the bundle is listed and the authorised build refuses it.
    edit_manifest(inst.bundles[BETA], set_field("config.notes", CANARY), inst.lab_keys["beta"])
    assert run(inst, identities=[]).rejections == []
    assert outcome(run(inst)) == {(where_of(BETA, "manifest.json"), "embargoed-text")}
