"""Every displayed field a lab writes is cleaned as model names are: NFKC, no control,
bidi or zero-width characters, bounded length; refused at manifest parse time with
``bad-display-name``, rejecting only that bundle."""

from __future__ import annotations

import pytest

from hostile.support import ACME, BETA, assert_rejected, edit_manifest, run, set_field, where_of

FIELDS = ["model.name", "model.family", "config.reasoning_effort", "harness.name", "harness.version", "judge", "config.notes"]
VALUES = {
    "bidi-override": "high\u202e hgih",
    "bidi-isolate": "a\u2067b",
    "zero-width-space": "hi\u200bgh",
    "zero-width-joiner": "hi\u200dgh",
    "soft-hyphen": "hi\u00adgh",
    "bom": "\ufeffhigh",
    "escape-sequence": "high\x1b[31m",
    "carriage-return": "high\rlow",
    "full-width": "ｈｉｇｈ",
    "private-use": "high\ue000",
    "unbounded": "x" * 5000,
}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("name", VALUES)
def test_displayed_field_is_cleaned(inst, field: str, name: str) -> None:
    edit_manifest(inst.bundles[BETA], set_field(field, VALUES[name]), inst.lab_keys["beta"])
    report = run(inst)
    assert_rejected(report, (where_of(BETA, "manifest.json"), "bad-display-name"), publishes=[ACME])
    assert field in report.rejections[0].message


def test_notes_keep_line_breaks_and_the_others_keep_plain_text(inst) -> None:
    edit_manifest(inst.bundles[BETA], set_field("config.notes", "Line one.\n\nLine  two: 수학 — ok."), inst.lab_keys["beta"])
    edit_manifest(inst.bundles[ACME], set_field("config.reasoning_effort", "xhigh (budget 32k)"), inst.lab_keys["acme"])
    assert run(inst).rejections == []


@pytest.mark.parametrize("field", ["config.reasoning_effort", "judge"])
def test_nullable_fields_stay_nullable(inst, field: str) -> None:
    edit_manifest(inst.bundles[BETA], set_field(field, None), inst.lab_keys["beta"])
    assert run(inst).rejections == []
