"""The demo's three release states: LMB rolling, KCSAT-ML full, SOOHAK scheduled (2 of 3)."""

from __future__ import annotations

from datetime import datetime, timezone

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.demo.instance import write_demo
from builder.demo.releases import LMB_RELEASED_THROUGH, soohak_release_time
from builder.errors import BuilderError
from builder.pipeline.build import build, load_identities
from builder.release.identity import identity_path
from builder.trust.seal import load_identity, unseal
from tests.release.test_release_build import independent_scan

NOW = datetime.now(timezone.utc).replace(microsecond=0)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("reldemo") / "demo"
    write_demo(root, seed=0, now=NOW)
    return root


def _items(demo, bench):
    ids = load_identities(demo / "keys/demo/identity.txt", None)
    sealed = next((demo / "bundles" / bench / "_dataset").glob("*/items.jsonl.age")).read_bytes()
    return [orjson.loads(line) for line in unseal(sealed, ids, "items").splitlines()]


def test_release_status_shows_all_three_states(demo):
    r = CliRunner().invoke(main, ["release", "status", "--root", str(demo)])
    lines = r.output.splitlines()
    assert "kcsat-ml 1.0: released" in lines
    assert "livemathematicianbench 2026.04: partly released: editions up to 2025-12" in lines
    soohak = next(line for line in lines if line.startswith("soohak 1.0:"))
    when = soohak_release_time(NOW)
    assert soohak.startswith(f"soohak 1.0: scheduled: not before {when:%Y-%m-%d %H:%M} UTC, in 29 d") or soohak.startswith(
        f"soohak 1.0: scheduled: not before {when:%Y-%m-%d %H:%M} UTC, in 30 d")
    assert "[2 of 2 signatures]" in r.output
    r = CliRunner().invoke(main, ["release", "status", "soohak", "--root", str(demo), "--as-of", f"{when:%Y-%m-%dT%H:%M:%SZ}"])
    assert r.output.startswith("soohak 1.0: released")


def test_published_identity_opens_kcsat_only(demo):
    published = load_identity(identity_path(demo, "kcsat-ml", "1.0").read_text())
    for bench in ("soohak", "livemathematicianbench"):
        sealed = next((demo / "bundles" / bench / "_dataset").glob("*/items.jsonl.age")).read_bytes()
        with pytest.raises(BuilderError):
            unseal(sealed, [published], bench)
    sealed = next((demo / "bundles" / "kcsat-ml" / "_dataset").glob("*/items.jsonl.age")).read_bytes()
    assert unseal(sealed, [published], "kcsat")


def test_authorised_demo_publishes_exactly_the_released_scope(demo, tmp_path):
    ids = load_identities(demo / "keys/demo/identity.txt", None)
    site = tmp_path / "site"
    report = build(demo, site, identities=ids, now=NOW)
    assert {s.config.id: s.status for s in report.benchmarks} == {"soohak": "embargoed", "livemathematicianbench": "partly released", "kcsat-ml": "released"}
    lmb = _items(demo, "livemathematicianbench")
    released = {it["id"] for it in lmb if it["edition"] <= LMB_RELEASED_THROUGH}
    published = [orjson.loads(line) for line in (site / "data/livemathematicianbench/items.jsonl").read_bytes().splitlines()]
    assert {it["id"] for it in published} == released and 0 < len(released) < len(lmb)
    # independent scan: no LMB item outside the scope and no SOOHAK item anywhere
    assert independent_scan(site, [it for it in lmb if it["id"] not in released]) == set()
    assert independent_scan(site, _items(demo, "soohak")) == set()
    kcsat = _items(demo, "kcsat-ml")
    assert len(list((site / "kcsat-ml" / "items").glob("*/index.html"))) == len(kcsat)
    index = orjson.loads((site / "data/index.json").read_bytes())
    assert index["rehearsal"] is False
