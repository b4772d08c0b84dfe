"""Disguised and scattered item text in lab fields and transcripts (issue 22, "The leak scan").

Each case is a properly signed bundle whose displayed fields carry an embargoed question's
window (or canary) so that a reader recovers it: look-alike letters (Unicode TR39
confusables), spaced letters, reversed word order, base64, percent-encoding, an excerpt
split across two fields, alternate words interleaved across two bundles of one lab. Each is
refused with ``embargoed-text`` naming the bundle(s); the other lab's bundle publishes.
Controls: the same kinds of text without item text publish.
"""

from __future__ import annotations

import base64
import gzip
import urllib.parse
from typing import Any

import orjson
import pytest

from hostile.support import ACME, BETA, ITEMS, Instance, assert_rejected, edit_manifest, manifest_obj, run, where_of
from tests.factory import results_for

pytestmark = pytest.mark.slow  # builds released sites

LEAK = "embargoed-text"
CANARY = ITEMS[0]["canary"]
WORDS = ITEMS[2]["question"]["en"].split()
# Latin letters and their Cyrillic look-alikes (TR39 confusables).
_CYRILLIC = str.maketrans("aceopxyiACEOPXTHKMB", "асеорхуіАСЕОРХТНКМВ")


def excerpt(start: int, n: int = 8) -> str:
    return " ".join(WORDS[start : start + n])


def set_fields(values: dict[str, Any]):  # type: ignore[no-untyped-def]
    def mutate(obj: dict[str, Any]) -> None:
        for path, value in values.items():
            *parents, last = path.split(".")
            target = obj
            for p in parents:
                target = target[p]
            target[last] = value

    return mutate


CASES = {
    "question-cyrillic-look-alikes": {"config.notes": excerpt(0).translate(_CYRILLIC)},
    "question-cyrillic-in-model-name": {"model.name": excerpt(2).translate(_CYRILLIC)},
    "question-letter-spacing": {"config.notes": "  ".join(" ".join(w) for w in WORDS[1:9])},
    "question-reversed-word-order": {"config.notes": " ".join(reversed(WORDS[1:9]))},
    "question-base64": {"config.notes": "see " + base64.b64encode(excerpt(0).encode()).decode()},
    "question-base64-url-safe-of-cyrillic": {"config.notes": base64.urlsafe_b64encode(excerpt(1).translate(_CYRILLIC).encode()).decode()},
    "question-percent-encoded": {"config.notes": urllib.parse.quote(excerpt(0))},
    "question-percent-encoded-base64": {"config.notes": urllib.parse.quote(base64.b64encode(excerpt(3).encode()).decode())},
    "canary-cyrillic": {"config.notes": CANARY.translate(_CYRILLIC)},
    "canary-base64": {"config.notes": base64.b64encode(CANARY.encode()).decode()},
    "question-split-across-notes-and-judge": {"config.notes": excerpt(0, 4), "judge": excerpt(4, 4)},
    "question-split-judge-first-then-model-name": {"judge": excerpt(1, 4), "model.name": excerpt(5, 4)},
}


@pytest.mark.parametrize("values", CASES.values(), ids=CASES.keys())
def test_disguised_item_text_rejects_only_that_bundle(inst: Instance, values: dict[str, Any]) -> None:
    edit_manifest(inst.bundles[BETA], set_fields(values), inst.lab_keys["beta"])
    report = run(inst)
    assert_rejected(report, (where_of(BETA, "manifest.json"), LEAK), publishes=[ACME])
    (rej,) = report.rejections
    assert ITEMS[2]["id"] not in rej.message and CANARY.lower() not in rej.message.lower()


def _second_beta_bundle(inst: Instance, notes: str) -> str:
    # Its own results (a copy of run-2's would be refused as a duplicate).
    inst.add_submission("beta", "run-3", results_for(ITEMS, {it["id"]: [False, True, True] for it in ITEMS[1::2]}, langs=("en", "ko")))
    bundle = inst.root / "bundles" / "soohak" / "beta" / "run-3"
    edit_manifest(bundle, set_fields({"config.notes": notes}), inst.lab_keys["beta"])
    return "beta/run-3"


def test_alternate_words_interleaved_across_two_bundles(inst: Instance) -> None:
    edit_manifest(inst.bundles[BETA], set_fields({"config.notes": " ".join(WORDS[0:16:2])}), inst.lab_keys["beta"])
    other = _second_beta_bundle(inst, " ".join(WORDS[1:16:2]))
    report = run(inst)
    assert_rejected(report, (where_of(BETA, "manifest.json"), LEAK), (where_of(other, "manifest.json"), LEAK), publishes=[ACME])
    assert all("read together" in r.message for r in report.rejections)


def test_control_two_bundles_of_one_lab_with_ordinary_notes_publish(inst: Instance) -> None:
    edit_manifest(
        inst.bundles[BETA], set_fields({"config.notes": "greedy decoding, the number of samples is three"}), inst.lab_keys["beta"]
    )
    other = _second_beta_bundle(inst, "compute budget 32k tokens; widgets of the mini family configuration as in the paper")
    report = run(inst)
    assert report.rejections == []
    assert other in set(report.benchmarks[0].results["submission"])


CONTROLS = {
    "words-of-the-question-sorted": {"config.notes": " ".join(sorted(WORDS[0:8]))},
    "a-base64-digest-and-a-percent-url": {
        "config.notes": "weights sha256 " + base64.b64encode(bytes(range(32))).decode() + " at https://example.org/a%20b?q=%7E"
    },
    "spaced-letters-of-other-text": {"config.notes": "t h i s  r u n  u s e s  g r e e d y  d e c o d i n g"},
    "cyrillic-model-name": {"model.name": "Модель Один"},
    "half-a-window-per-field": {"config.notes": excerpt(0, 3), "judge": "judge-1 " + excerpt(5, 3)},
}


@pytest.mark.parametrize("values", CONTROLS.values(), ids=CONTROLS.keys())
def test_control_ordinary_text_publishes(inst: Instance, values: dict[str, Any]) -> None:
    edit_manifest(inst.bundles[BETA], set_fields(values), inst.lab_keys["beta"])
    report = run(inst)
    assert report.rejections == [], [(r.where, r.reason, r.message) for r in report.rejections]
    assert manifest_obj(inst.bundles[BETA])["config"]  # the edit was made


# --- transcripts on item pages ------------------------------------------------------------------


def _transcripts(items: list[dict[str, Any]], quote: dict[str, str]) -> bytes:
    lines = [
        orjson.dumps({"item": it["id"], "lang": "en", "sample": 0, "text": quote.get(it["id"], f"MARK-{it['id']} answers 4")}) + b"\n"
        for it in items
    ]
    return gzip.compress(b"".join(lines), mtime=0)


@pytest.mark.parametrize("disguise", ["cyrillic", "control"])
def test_released_transcript_quoting_an_embargoed_question_in_look_alikes(tmp_path, disguise: str) -> None:
    from builder.pipeline.build import build
    from builder.release.statement import Scope
    from tests.release.support import AFTER, released_instance

    inst = released_instance(tmp_path / "inst", scope=Scope(splits=("mini",)))
    mini = [it for it in inst.items if it["split"] == "mini"]
    hidden = next(it for it in inst.items if it["split"] == "challenge")
    words = hidden["question"]["en"].split()
    quoted = " ".join(words[1:9]).translate(_CYRILLIC) if disguise == "cyrillic" else "as in the statement, the answer is 4"
    inst.add_submission(
        "acme",
        "quoting",
        results_for(inst.items),
        publish_transcripts=True,
        transcripts=_transcripts(mini, {mini[0]["id"]: f"recall: {quoted}"}),
    )
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    published = (tmp_path / "site" / "data" / "soohak" / "transcripts").exists()
    if disguise == "control":
        assert report.rejections == [] and published
        return
    [r] = report.rejections
    assert (r.reason, r.where) == (LEAK, "bundles/soohak/acme/quoting/transcripts.jsonl.gz.age")
    assert not published
    page = (tmp_path / "site" / "soohak" / "items" / f"{mini[0]['id']}.html").read_text()
    assert quoted not in page and "MARK-" not in page
