"""Opted-in transcripts of released items: published as data and on item pages (escaped,
cut, collapsed), never of an item outside the scope, never of a submission that kept them
private, and never when they quote an embargoed item."""

from __future__ import annotations

import gzip
import json

import orjson
import pytest

from builder.bundles.create import sign_bundle
from builder.pipeline.build import build
from builder.release.statement import Scope
from builder.release.transcripts import PAGE_CHARS
from tests.factory import results_for
from tests.release.support import AFTER, released_instance
from tests.release.test_release_build import output_bytes

pytestmark = pytest.mark.slow  # builds sites

LONG = "x" * (PAGE_CHARS + 123)


def _transcripts(items, mark: str, extra: dict | None = None) -> bytes:
    lines = []
    for it in items:
        text = (extra or {}).get(it["id"], f"{mark}-{it['id']} thinks <script>alert(1)</script> & answers")
        lines.append(orjson.dumps({"item": it["id"], "lang": "en", "sample": 0, "text": text}) + b"\n")
    return gzip.compress(b"".join(lines), mtime=0)


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    """Only the mini split is released, with transcripts. acme/open publishes transcripts of
    every item (one of them long); beta/closed keeps its transcripts private."""
    inst = released_instance(tmp_path_factory.mktemp("tr") / "inst", scope=Scope(splits=("mini",)))
    mini = [it for it in inst.items if it["split"] == "mini"]
    inst.add_submission(
        "acme",
        "open",
        results_for(inst.items),
        publish_transcripts=True,
        transcripts=_transcripts(inst.items, "OPENMARK", {mini[1]["id"]: LONG}),
    )
    inst.add_submission(
        "beta", "closed", results_for(inst.items), publish_transcripts=False, transcripts=_transcripts(inst.items, "CLOSEDMARK")
    )
    inst.mini = mini
    return inst


@pytest.fixture(scope="module")
def site(partial, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    report = build(partial.root, out, identities=[partial.identity], now=AFTER)
    assert report.rejections == [] and report.benchmarks[0].status == "partly released"
    return out


def _everything(site) -> str:
    return "\n".join(data.decode("utf-8", "replace") for data in output_bytes(site).values())


def test_opted_in_transcripts_of_released_items_are_published(partial, site):
    rows = [orjson.loads(line) for line in (site / "data/soohak/transcripts/acme/open.jsonl").read_bytes().splitlines()]
    assert [r["item"] for r in rows] == sorted(it["id"] for it in partial.mini)
    assert rows[1]["text"] == LONG  # whole in the data file
    assert sorted(p.relative_to(site).as_posix() for p in (site / "data/soohak/transcripts").rglob("*")) == [
        "data/soohak/transcripts/acme",
        "data/soohak/transcripts/acme/open.jsonl",
    ]


def test_no_out_of_scope_or_private_transcript_appears_anywhere(partial, site):
    text = _everything(site)
    out_of_scope = [it["id"] for it in partial.items if it["split"] != "mini"]
    for iid in out_of_scope:
        assert f"OPENMARK-{iid}" not in text, iid
    assert "CLOSEDMARK" not in text
    for it in partial.mini[:1] + partial.mini[2:]:  # mini[1]'s transcript is the long one
        assert f"OPENMARK-{it['id']}" in text


def test_item_page_shows_transcripts_escaped_cut_and_collapsed(partial, site):
    first, second = partial.mini[0]["id"], partial.mini[1]["id"]
    page = (site / "soohak/items" / f"{first}.html").read_text()
    # The first transcript of a submission carries the anchor its verdict row links to.
    assert '<details class="sb-transcript" id="t-m-acme.open"><summary>Model One (acme) · en · sample 0</summary>' in page
    assert '<a href="#t-m-acme.open">transcripts</a>' in page
    assert "<details open" not in page
    assert f"OPENMARK-{first} thinks &lt;script&gt;alert(1)&lt;/script&gt; &amp; answers" in page
    assert "<script>alert(1)" not in page
    assert 'href="../../data/soohak/transcripts/acme/open.jsonl"' in page
    long_page = (site / "soohak/items" / f"{second}.html").read_text()
    assert "x" * PAGE_CHARS in long_page and "x" * (PAGE_CHARS + 1) not in long_page
    assert "… 123 more character(s)" in long_page


def test_a_transcript_quoting_an_embargoed_item_is_not_published(tmp_path):
    inst = released_instance(tmp_path / "inst", scope=Scope(splits=("mini",)))
    mini = [it for it in inst.items if it["split"] == "mini"]
    hidden = next(it for it in inst.items if it["split"] == "challenge")
    inst.add_submission(
        "acme",
        "quoting",
        results_for(inst.items),
        publish_transcripts=True,
        transcripts=_transcripts(mini, "QUOTEMARK", {mini[0]["id"]: f"recall {hidden['canary']}"}),
    )
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    [r] = report.rejections
    assert (r.reason, r.where) == ("embargoed-text", "bundles/soohak/acme/quoting/transcripts.jsonl.gz.age")
    assert "acme/quoting" in set(report.benchmarks[0].results["submission"])  # still on the boards
    assert not (tmp_path / "site/data/soohak/transcripts").exists()
    assert "QUOTEMARK" not in _everything(tmp_path / "site")
    assert "A line naming a transcripts file withholds only those transcripts" in (tmp_path / "site" / "rejected.html").read_text()


def test_private_transcripts_that_open_with_the_embargo_key_reject_the_bundle(tmp_path):
    inst = released_instance(tmp_path / "inst")
    path = inst.add_submission(
        "acme", "leaky", results_for(inst.items), publish_transcripts=True, transcripts=_transcripts(inst.items, "M")
    )
    # the lab's tooling then flips the flag without resealing: sealed to the embargo key, marked private
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["publish_on_release"]["transcripts"] = False
    from builder.bundles.manifest import dump_manifest

    (path / "manifest.json").write_bytes(dump_manifest(manifest))
    sign_bundle(path, inst.lab_keys["acme"])
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER, render=False)
    [r] = report.rejections
    assert (r.reason, r.where) == ("private-opens-with-embargo-key", "bundles/soohak/acme/leaky/transcripts.jsonl.gz.age")
    assert "publish_on_release.transcripts is false but transcripts.jsonl.gz.age opens with the embargo key of soohak" in r.message
    assert "acme/leaky" not in set(report.benchmarks[0].results["submission"])
