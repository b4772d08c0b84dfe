"""Interop with stock tlock-js (npm), both ways, through a drand beacon on loopback.

tlock-js fetches the chain info and the round from the test beacon with drand-client, which
verifies the beacon's signature itself: the test beacon is checked by a stock client too.
CI installs tlock-js (.ci/run); elsewhere the tests skip unless SEALBOARD_TLOCK_JS names its
node_modules directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.timelock import tle
from builder.timelock.beacon import fetch_beacon, verified_signature
from tests.peers import IN_CI
from tests.timelock.beacon_server import LoopbackBeacon, make_chain, serve

PEER = Path(__file__).with_name("tlock_js_peer.cjs")
TLOCK_JS_VERSION = "0.9.0"


def tlock_js_modules() -> Path:
    configured = os.environ.get("SEALBOARD_TLOCK_JS")
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sealboard" / f"tlock-js-{TLOCK_JS_VERSION}" / "node_modules"
    modules = Path(configured) if configured else default
    if shutil.which("node") is None or not (modules / "tlock-js" / "index.js").is_file():
        msg = f"tlock-js not found in {modules} (.ci/run installs it; or set SEALBOARD_TLOCK_JS to a node_modules directory)"
        if IN_CI:
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return modules


@pytest.fixture
def beacon() -> Iterator[LoopbackBeacon]:
    secret, chain = make_chain()
    with serve(LoopbackBeacon(secret, chain)) as running:
        yield running


def _tlock_js(modules: Path, beacon: LoopbackBeacon, mode: str, round_number: int, source: Path, target: Path) -> None:
    args = [
        "node",
        str(PEER),
        str(modules),
        mode,
        beacon.url,
        beacon.chain.hash,
        beacon.chain.public_key,
        str(round_number),
        str(source),
        str(target),
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"tlock-js {mode} failed: {done.stderr[-2000:]}"


def test_sealboard_writes_tlock_js_reads(beacon: LoopbackBeacon, tmp_path: Path) -> None:
    modules = tlock_js_modules()
    round_number = beacon.current_round() - 10  # passed: tlock-js refuses a round before its time
    plain = b"AGE-SECRET-KEY-1 stands in for the embargo identity\n"
    (tmp_path / "ours.tle").write_bytes(tle.encrypt(plain, beacon.chain.public_key_bytes, beacon.chain.hash, round_number))
    _tlock_js(modules, beacon, "decrypt", round_number, tmp_path / "ours.tle", tmp_path / "opened")
    assert (tmp_path / "opened").read_bytes() == plain
    assert f"/public/{round_number}" in beacon.requests


def test_tlock_js_writes_sealboard_reads(beacon: LoopbackBeacon, tmp_path: Path) -> None:
    modules = tlock_js_modules()
    round_number = beacon.current_round() - 5
    plain = b"written by stock tlock-js\n" * 40
    (tmp_path / "plain").write_bytes(plain)
    _tlock_js(modules, beacon, "encrypt", round_number, tmp_path / "plain", tmp_path / "theirs.tle")
    data = (tmp_path / "theirs.tle").read_bytes()
    stanza = tle.read_stanza(data, "theirs.tle")
    assert (stanza.round, stanza.chain_hash) == (round_number, beacon.chain.hash)
    signature = verified_signature(fetch_beacon(beacon.url, beacon.chain, round_number), beacon.chain, round_number, "relay")
    assert tle.decrypt(data, signature, "theirs.tle") == plain
