"""Item text split word by word over a bundle's fields, or base64 wrapped over lines
(issue 44, class 6). Each is refused with ``embargoed-text`` naming the bundle; the other
lab's bundle publishes. Control: three fields of ordinary words publish."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from hostile.support import ACME, BETA, ITEMS, Instance, assert_rejected, edit_manifest, run, where_of

LEAK = "embargoed-text"
WORDS = ITEMS[2]["question"]["en"].split()[1:10]
FIELDS = ("config.notes", "judge", "harness.name")


def _set(values: dict[str, str]):  # type: ignore[no-untyped-def]
    def mutate(obj: dict[str, Any]) -> None:
        for path, value in values.items():
            *parents, last = path.split(".")
            target = obj
            for p in parents:
                target = target[p]
            target[last] = value

    return mutate


def _round_robin(words: list[str]) -> dict[str, str]:
    return {f: " ".join(words[i :: len(FIELDS)]) for i, f in enumerate(FIELDS)}


ENCODED = base64.b64encode(" ".join(WORDS).encode()).decode()
CASES = {
    "word-by-word-round-robin-over-three-fields": _round_robin(WORDS),
    "base64-wrapped-over-lines": {"config.notes": "\n".join(ENCODED[i : i + 16] for i in range(0, len(ENCODED), 16))},
}


@pytest.mark.parametrize("values", CASES.values(), ids=CASES.keys())
def test_split_item_text_rejects_only_that_bundle(inst: Instance, values: dict[str, str]) -> None:
    edit_manifest(inst.bundles[BETA], _set(values), inst.lab_keys["beta"])
    report = run(inst)
    assert_rejected(report, (where_of(BETA, "manifest.json"), LEAK), publishes=[ACME])


def test_control_three_fields_of_ordinary_words_publish(inst: Instance) -> None:
    edit_manifest(
        inst.bundles[BETA], _set(_round_robin("we ran greedy decoding with a fixed seed on every item".split())), inst.lab_keys["beta"]
    )
    report = run(inst)
    assert report.rejections == [], [(r.where, r.reason, r.message) for r in report.rejections]
