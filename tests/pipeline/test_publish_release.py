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


def test_an_item_a_new_version_keeps_from_a_released_one_is_public_the_rest_guards():
    """builder.pipeline.earlier_versions: 1.0 released (its items on the site) and 1.1 under
    embargo keeping one of them. The kept item's text and canary are public; 1.1's new item
    keeps guarding, text and canary."""
    from types import SimpleNamespace

    from builder.pipeline.publish import needles_for

    kept_text = f"Kept zebra quokka narwhal item. {TEMPLATE} alpha."
    new_text = "A brand new walrus lemming ocelot question about the modular curve of level eleven."
    released = SimpleNamespace(
        status="released",
        config=SimpleNamespace(id="soohak@1.0"),
        embargoed_text=(),
        released_items=({"id": "k1", "canary": "CANARY-k1-0001", "question": {"en": kept_text}},),
    )
    current = SimpleNamespace(
        status="embargoed",
        config=SimpleNamespace(id="soohak"),
        released_items=(),
        embargoed_text=(("k1", "CANARY-k1-0001", (kept_text,)), ("n1", "CANARY-n1-0002", (new_text,))),
    )
    needles = needles_for([current, released])
    assert needles.scan_bytes(normalise(f"{kept_text} CANARY-k1-0001")) is None
    assert needles.scan_bytes(normalise(new_text)) == "question text of soohak item n1"
    assert needles.scan_bytes(normalise("see CANARY-n1-0002")) == "canary of soohak item n1"
    # without the released version, the kept item is guarded like any other
    alone = needles_for([current])
    assert alone.scan_bytes(normalise("see CANARY-k1-0001")) == "canary of soohak item k1"
