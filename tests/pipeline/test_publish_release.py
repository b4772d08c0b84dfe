"""The leak scan under a partial release: windows shared with released text stop counting,
everything else about an embargoed item keeps guarding it."""

from __future__ import annotations

from builder.leakscan.scan import build_needles, normalise
from builder.pipeline.publish import without_public

TEMPLATE = "Which of the following statements about the main theorem is correct under hypothesis"


def test_released_text_does_not_trip_the_scan_for_a_sibling_item():
    released = f"Released zebra quokka narwhal item. {TEMPLATE} alpha."
    embargoed = f"Embargoed walrus lemming ocelot item. {TEMPLATE} omega."
    needles = build_needles([("item e1", "CANARY-e1-0001", [embargoed])])
    assert needles.scan_bytes(normalise(released)) == "question text of item e1"  # the shared template
    kept = without_public(needles, [released])
    assert kept.scan_bytes(normalise(released)) is None
    # the embargoed item's own windows and its canary still guard it
    assert kept.scan_bytes(normalise(embargoed)) == "question text of item e1"
    assert kept.scan_bytes(normalise("see CANARY-e1-0001")) == "canary of item e1"
    # even if all its text were public, the canary keeps guarding it
    assert without_public(needles, [embargoed]).labels == ("canary of item e1",)
