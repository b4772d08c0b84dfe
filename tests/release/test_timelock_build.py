"""A time-locked release through the whole build: at its round it publishes with no
maintainer key used after scheduling and no secret, and the public build reproduces the
authorised one."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import orjson
import pytest

from builder.pipeline.build import build
from builder.release.admin import flip, sign_statement
from builder.release.statement import BEACON_SUFFIX, Publish, Scope, release_dir
from builder.timelock import ibe
from builder.timelock.beacon import beacon_json
from tests.factory import NOW, make_instance, results_for
from tests.release.support import T, distinct_items
from tests.release.test_release_build import independent_scan, output_bytes
from tests.timelock.beacon_server import make_chain


@pytest.mark.slow
def test_timelocked_release_publishes_with_no_maintainer_and_no_secret(tmp_path: Path) -> None:
    inst = make_instance(tmp_path / "inst", items=distinct_items())
    correct = {it["id"]: [True, i % 2 == 0, False] for i, it in enumerate(inst.items)}
    inst.add_submission("acme", "run-1", results_for(inst.items, correct))
    secret, chain = make_chain(genesis_ago_s=60 * 24 * 3600)
    # Scheduling: the last time a maintainer key or the identity is used.
    flip(inst.root, "soohak", T, Scope(), Publish(), NOW, name="r1", timelock=chain, identities=[inst.identity])
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    round_number = chain.round_at_or_after(T)
    at = chain.time_of(round_number) + timedelta(minutes=5)

    # Control: without the round's signature the public build opens nothing and says why.
    blind = build(inst.root, tmp_path / "blind", identities=[], now=at)
    assert [r.reason for r in blind.rejections] == ["beacon-unavailable"]
    assert not (tmp_path / "blind" / "data" / "soohak" / "items.jsonl").exists()
    assert independent_scan(tmp_path / "blind", inst.items) == set()

    # The round is signed; anyone commits its drand JSON (here: the test beacon's).
    (release_dir(inst.root, "soohak") / f"r1{BEACON_SUFFIX}").write_bytes(beacon_json(round_number, ibe.sign_round(secret, round_number)))
    public = build(inst.root, tmp_path / "public", identities=[], now=at)
    assert not public.authorised
    assert [r.reason for r in public.rejections] == []
    state = public.benchmarks[0]
    assert state.status == "released" and state.release is not None and state.release.state == "released"
    released = [orjson.loads(line) for line in (tmp_path / "public" / "data" / "soohak" / "items.jsonl").read_bytes().splitlines()]
    assert sorted(it["id"] for it in released) == sorted(it["id"] for it in inst.items)
    assert independent_scan(tmp_path / "public", inst.items) == {it["id"] for it in inst.items}  # item text on the pages

    # The "Verify this release" page names the round and the chain, for anyone to open it with stock tle.
    page = (inst.root / ".sealboard" / "staged" / "pages" / "verify-release.md").read_text()
    assert (
        f"the embargo identity time-locked to drand round {round_number} (≈ {chain.time_of(round_number):%Y-%m-%dT%H:%M:%SZ}) "
        f"of chain <code>{chain.hash}</code>" in page
    )

    # The maintainers' own authorised build at the same time publishes the same data.
    build(inst.root, tmp_path / "authorised", identities=[inst.identity], now=at)
    a, b = output_bytes(tmp_path / "authorised" / "data"), output_bytes(tmp_path / "public" / "data")
    assert a.keys() == b.keys()
    assert sorted(k for k in a if a[k] != b[k]) == ["index.json"]  # build facts only (authorised: false)
