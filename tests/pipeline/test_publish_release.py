"""The leak scan under a partial release: windows shared with released text stop counting,
everything else about an embargoed item keeps guarding it."""

from __future__ import annotations

from builder.pipeline.publish import build_needles, scan_text, without_public

TEMPLATE = "Which of the following statements about the main theorem is correct under hypothesis"


def test_released_text_does_not_trip_the_scan_for_a_sibling_item():
    released = f"Released zebra quokka narwhal item. {TEMPLATE} alpha."
    embargoed = f"Embargoed walrus lemming ocelot item. {TEMPLATE} omega."
    needles = build_needles([("item e1", "CANARY-e1-0001", [embargoed])])
    assert scan_text(released, needles) == "question text of item e1"  # the shared template
    kept = without_public(needles, [released])
    assert scan_text(released, kept) is None
    # the embargoed item's own first window and its canary still guard it
    assert scan_text(embargoed, kept) == "question text of item e1"
    assert scan_text("see CANARY-e1-0001", kept) == "canary of item e1"
