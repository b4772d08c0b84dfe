"""A release scope that covers no item is not "partly released" (issue 44, class 8).

An editions scope on a benchmark whose items have no edition releases nothing. The build
refused it with the items; with no secret (``release status``, ``release verify --root``,
the public build) it was reported "partly released". The dataset manifest now counts its
items per edition month (public: no item text), so the statement is ``empty-scope`` there
too. Controls: an editions scope that covers items is partly released; a manifest written
before the field existed is judged by the build, with the items, as before.
"""

from __future__ import annotations

import hashlib
import json

from builder.config import load_configs
from builder.release.admin import flip, sign_statement
from builder.release.check import verify_repo
from builder.release.statement import Publish, Scope, release_dir, statement_text
from builder.release.status import EMBARGOED, PARTLY, release_states
from builder.trust.registry import load_registry
from tests.factory import make_instance, results_for
from tests.release.support import AFTER, NOW, T, distinct_items

MANIFEST = "bundles/soohak/_dataset/test-1/manifest.json"


def _instance(tmp_path, items):  # type: ignore[no-untyped-def]
    inst = make_instance(tmp_path / "inst", items=items)
    inst.add_submission("acme", "run-1", results_for(inst.items))
    flip(inst.root, "soohak", T, Scope(editions_through="2026-01"), Publish(), NOW, name="r1")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    return inst


def _state(inst):  # type: ignore[no-untyped-def]
    configs = load_configs(inst.root)
    return release_states(inst.root, configs, load_registry(inst.root, AFTER), AFTER)["soohak"]


def test_editions_scope_on_items_without_editions_is_empty_scope_with_no_secret(tmp_path) -> None:
    inst = _instance(tmp_path, distinct_items())
    state = _state(inst)
    assert state.state == EMBARGOED
    assert (state.verdicts[0].state, state.verdicts[0].reason) == ("invalid", "empty-scope")
    assert "covers no item of dataset test-1" in state.verdicts[0].message
    lines = verify_repo(inst.root, AFTER)
    assert not any("partly released" in line for line in lines), lines


def test_control_editions_scope_covering_items_is_partly_released(tmp_path) -> None:
    items = distinct_items()
    for i, it in enumerate(items):
        it["edition"] = "2025-12" if i % 2 else "2026-03"
    inst = _instance(tmp_path, items)
    assert json.loads((inst.root / MANIFEST).read_text())["editions"] == {
        "2025-12": len(items) // 2,
        "2026-03": len(items) - len(items) // 2,
    }
    assert _state(inst).state == PARTLY


def test_control_a_manifest_without_the_editions_field_is_left_to_the_build(tmp_path) -> None:
    inst = _instance(tmp_path, distinct_items())
    path = inst.root / MANIFEST
    manifest = json.loads(path.read_text())
    del manifest["editions"]
    path.write_text(json.dumps(manifest))
    # re-pin the statement to the older-format manifest (the digest it names)
    st = release_dir(inst.root, "soohak") / "r1.yaml"
    text = statement_text(
        "soohak", "test-1", hashlib.sha256(path.read_bytes()).hexdigest(), 1, T, Scope(editions_through="2026-01"), Publish()
    )
    st.write_text(text)
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    verdict = _state(inst).verdicts[0]
    assert (verdict.state, verdict.reason) == ("effective", None), (verdict.state, verdict.reason, verdict.message)
