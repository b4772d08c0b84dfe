"""Released items' transcripts quoting an embargoed item, disguised (issue 44, class 6).

After a partial release a lab's opted-in transcripts of released items are published on the
items' pages. Each case quotes an embargoed item's question so that a reader recovers it:
invisible characters between its letters, base64, in the free-text ``lang`` field, or split
word by word over several transcripts. Each is refused with ``embargoed-text`` naming the
transcripts file, and no page shows it; the other labs' transcripts and the control publish.
"""

from __future__ import annotations

import base64
import gzip
from typing import Any

import orjson
import pytest

from tests.factory import results_for

LEAK = "embargoed-text"
WHERE = "bundles/soohak/acme/quoting/transcripts.jsonl.gz.age"


def _gz(rows: list[dict[str, Any]]) -> bytes:
    return gzip.compress(b"".join(orjson.dumps(r) + b"\n" for r in rows), mtime=0)


def _rows(mini: list[dict[str, Any]], window: list[str], case: str) -> list[dict[str, Any]]:
    plain = [{"item": it["id"], "lang": "en", "sample": 0, "text": f"MARK-{it['id']} answers 4"} for it in mini]
    excerpt = " ".join(window)
    if case == "invisible-separators-between-letters":
        plain[0]["text"] = "recall: " + "\u2063".join(excerpt)
    elif case == "zero-width-joiners-and-word-joiners":
        plain[0]["text"] = "recall: " + "".join(c + ("\u200d" if i % 2 else "\u2060") for i, c in enumerate(excerpt))
    elif case == "base64-wrapped":
        encoded = base64.b64encode(excerpt.encode()).decode()
        plain[0]["text"] = "blob:\n" + "\n".join(encoded[i : i + 24] for i in range(0, len(encoded), 24))
    elif case == "question-in-lang":
        plain[0]["lang"] = excerpt
    elif case == "word-by-word-over-samples":
        item = mini[0]["id"]
        plain = [r for r in plain if r["item"] != item]
        plain += [{"item": item, "lang": "en", "sample": i, "text": f"step {i}: {w}"} for i, w in enumerate(window)]
    elif case == "round-robin-over-items":
        for i, w in enumerate(window):
            plain[i % len(plain)]["text"] += f" {w}"
        # three items: item 0 holds words 0, 3, 6; item 1 words 1, 4, 7; item 2 words 2, 5
    return plain


CASES = [
    "invisible-separators-between-letters",
    "zero-width-joiners-and-word-joiners",
    "base64-wrapped",
    "question-in-lang",
    "word-by-word-over-samples",
    "round-robin-over-items",
    "control",
]


@pytest.mark.parametrize("case", CASES)
def test_released_transcripts_quoting_an_embargoed_item(tmp_path, case: str) -> None:
    from builder.pipeline.build import build
    from builder.release.statement import Scope
    from tests.release.support import AFTER, released_instance

    inst = released_instance(tmp_path / "inst", scope=Scope(splits=("mini",)))
    mini = [it for it in inst.items if it["split"] == "mini"][:3]
    hidden = next(it for it in inst.items if it["split"] == "challenge")
    window = hidden["question"]["en"].split()[1:9]
    if case == "control":
        window = "as in the statement the answer is four".split()
    rows = _rows(mini, window, case)
    inst.add_submission("acme", "quoting", results_for(inst.items), publish_transcripts=True, transcripts=_gz(rows))
    inst.add_submission(
        "beta", "honest", results_for(inst.items), publish_transcripts=True, transcripts=_gz(_rows(mini, ["nothing"], "control"))
    )
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    data = tmp_path / "site" / "data" / "soohak" / "transcripts"
    assert (data / "beta" / "honest.jsonl").is_file()  # the other lab's transcripts publish
    if case == "control":
        assert report.rejections == [] and (data / "acme" / "quoting.jsonl").is_file()
        return
    [r] = report.rejections
    assert (r.reason, r.where) == (LEAK, WHERE)
    assert "quotes embargoed item text" in r.message and hidden["id"] not in r.message
    assert not (data / "acme" / "quoting.jsonl").exists()
    page = (tmp_path / "site" / "soohak" / "items" / f"{mini[0]['id']}.html").read_text()
    assert 'href="#t-m-beta.honest"' in page and 'href="#t-m-acme.quoting"' not in page
