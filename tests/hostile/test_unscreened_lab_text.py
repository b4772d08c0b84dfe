"""Issue 26: the build without the identity publishes no lab text it could not screen.

The public build holds only salted commitments of the items, so it cannot tell whether a
lab's notes quote an embargoed item. A signed lab writes an embargoed SOOHAK item's canary
and the first 200 characters of its question into its notes: the public build publishes
neither (every output byte, the search index included) and says on the model page that the
notes are withheld until screened; the authorised build, which screens, refuses that bundle
as ``embargoed-text`` and still publishes another lab's clean notes.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builder.pipeline.build import build
from hostile.support import edit_manifest, set_field
from tests.factory import NOW, make_instance, results_for

CLEAN = "Evaluated with greedy decoding and a 4096-token budget."


def _all_output_bytes(site: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file())


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    inst = make_instance(tmp_path_factory.mktemp("unscreened") / "inst")
    acme = inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, True, False] for it in inst.items[::2]}))
    beta = inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    item = inst.items[0]
    canary, excerpt = item["canary"], item["question"]["en"][:200]
    edit_manifest(acme, set_field("config.notes", CLEAN), inst.lab_keys["acme"])
    edit_manifest(beta, set_field("config.notes", f"Checked against {canary}. {excerpt}"), inst.lab_keys["beta"])
    return inst, canary, excerpt


def test_public_build_publishes_no_unscreened_lab_text(planted, tmp_path):
    inst, canary, excerpt = planted
    site = tmp_path / "public"
    report = build(inst.root, site, identities=[], now=NOW)
    assert report.rejections == []  # nothing to screen against: both bundles are listed
    assert (site / "search/search_index.json").is_file() and (site / "search/search_docs.js").is_file()
    output = _all_output_bytes(site)
    assert canary.encode() not in output
    assert excerpt.encode() not in output and excerpt[40:120].encode() not in output
    assert CLEAN.encode() not in output  # unscreened, even when innocent
    rows = {r["submission"]: r for r in orjson.loads((site / "data/soohak/submissions.json").read_bytes())["rows"]}
    for key in ("acme/run-1", "beta/run-1"):
        assert rows[key]["notes"] is None
        assert rows[key]["withheld"] == {"fields": ["notes"], "reason": "withheld until screened"}
        assert rows[key]["model"] and rows[key]["signature"]["status"] == "verified"  # structured fields stay
    page = (site / "soohak/models/beta/run-1.html").read_text()
    assert "withheld until screened" in page and "Lab text withheld until screened" in page


def test_authorised_build_refuses_the_leak_and_publishes_clean_notes(planted, tmp_path):
    inst, canary, excerpt = planted
    site = tmp_path / "authorised"
    report = build(inst.root, site, identities=[inst.identity], now=NOW)
    assert [(r.where, r.reason) for r in report.rejections] == [("bundles/soohak/beta/run-1/manifest.json", "embargoed-text")]
    output = _all_output_bytes(site)
    assert canary.encode() not in output and excerpt.encode() not in output
    (row,) = orjson.loads((site / "data/soohak/submissions.json").read_bytes())["rows"]
    assert row["notes"] == CLEAN and "withheld" not in row
    assert CLEAN in (site / "soohak/models/acme/run-1.html").read_text()
    # Search indexes the start of the model page's provenance (render/search_index.py cuts a
    # section at SECTION_CHARS), which the notes, its last row, do not reach; the leak is
    # nowhere in the index (_all_output_bytes reads search/ too).
    docs = (site / "search/search_docs.js").read_bytes()
    assert b"acme/run-1" in docs and canary.encode() not in docs
