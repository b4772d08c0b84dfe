"""Time-locked releases: scheduled with the identity, opened by anyone after the beacon round.

The chain is one the test makes (a BLS key of its own), so the test can sign any round; the
drand relay is a loopback server (tests/timelock/beacon_server.py). Each refusal is a named
case asserting its exact reason, beside the control that opens.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.config import load_configs
from builder.errors import BuilderError, ParseError
from builder.release.admin import flip, sign_statement
from builder.release.identity import identity_path, published_identities
from builder.release.statement import BEACON_SUFFIX, Publish, Scope, parse_statement, release_dir, statement_text
from builder.release.status import release_states
from builder.release.timelock import open_timelock
from builder.timelock import ibe, tle
from builder.timelock.beacon import beacon_json
from builder.timelock.chain import Chain
from builder.trust.registry import load_registry
from builder.trust.seal import generate_identity, identity_file_text
from tests.factory import NOW, Instance, make_instance
from tests.release.support import BEFORE, T
from tests.timelock.beacon_server import LoopbackBeacon, make_chain, serve


@dataclass
class Locked:
    inst: Instance
    secret: int
    chain: Chain
    name: str = "r1"

    @property
    def directory(self) -> Path:
        return release_dir(self.inst.root, "soohak")

    @property
    def round(self) -> int:
        return self.chain.round_at_or_after(T)

    @property
    def due(self) -> datetime:
        return self.chain.time_of(self.round)

    def statement(self):  # noqa: ANN201 (a Statement)
        path = self.directory / f"{self.name}.yaml"
        return parse_statement(path.read_bytes(), str(path.relative_to(self.inst.root)), self.name)

    def commit_beacon(self, signature: bytes | None = None) -> Path:
        path = self.directory / f"{self.name}{BEACON_SUFFIX}"
        path.write_bytes(beacon_json(self.round, signature or ibe.sign_round(self.secret, self.round)))
        return path

    def opened(self, clock: datetime, relay: str | None = None) -> tuple[list, list[BuilderError]]:
        root = self.inst.root
        configs = load_configs(root)
        states = release_states(root, configs, load_registry(root, NOW), clock, now=NOW)
        return published_identities(root, configs, states, relay)


@pytest.fixture
def locked(tmp_path: Path) -> Locked:
    inst = make_instance(tmp_path / "inst")
    secret, chain = make_chain(genesis_ago_s=60 * 24 * 3600)
    flip(inst.root, "soohak", T, Scope(), Publish(), NOW, name="r1", timelock=chain, identities=[inst.identity])
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    return Locked(inst, secret, chain)


@pytest.fixture
def relay(locked: Locked) -> Iterator[LoopbackBeacon]:
    with serve(LoopbackBeacon(locked.secret, locked.chain, future_rounds=True)) as beacon:
        yield beacon


def embargo_recipient(inst: Instance) -> str:
    return load_configs(inst.root)[0].embargo_recipient


def _reasons(problems: list[BuilderError]) -> list[str]:
    return [p.reason for p in problems]


# --- scheduling ---------------------------------------------------------------------------


def test_flip_binds_chain_round_ciphertext_and_recipient(locked: Locked) -> None:
    st = locked.statement()
    tl = st.timelock
    assert tl is not None and tl.chain == locked.chain and tl.round == locked.round
    assert locked.due >= T > locked.chain.time_of(locked.round - 1)  # the first round at or after not_before
    data = (locked.directory / "r1.tle").read_bytes()
    assert tl.ciphertext == "r1.tle" and tl.ciphertext_sha256 == hashlib.sha256(data).hexdigest()
    assert tl.recipient == embargo_recipient(locked.inst)
    assert tle.read_stanza(data, "r1.tle").round == locked.round  # the stock tle stanza
    # the identity's secret is nowhere in clear beside the statement
    secret = locked.inst.identity.select(tl.recipient).reveal_secret().split()[-1]
    assert all(secret not in p.read_text() for p in locked.directory.iterdir())


def test_flip_timelock_needs_the_embargo_identity_and_a_full_release(tmp_path: Path) -> None:
    inst = make_instance(tmp_path / "inst")
    _, chain = make_chain()
    with pytest.raises(BuilderError) as wrong:
        flip(inst.root, "soohak", T, Scope(), Publish(), NOW, timelock=chain, identities=[generate_identity()])
    assert wrong.value.reason == "wrong-identity"
    with pytest.raises(BuilderError) as narrow:
        flip(inst.root, "soohak", T, Scope(), Publish(transcripts=False), NOW, timelock=chain, identities=[inst.identity])
    assert narrow.value.reason == "bad-timelock"
    assert not list(release_dir(inst.root, "soohak").glob("*"))  # nothing written on refusal


def test_status_shows_the_round_and_its_time(locked: Locked) -> None:
    result = CliRunner().invoke(main, ["release", "status", "--root", str(locked.inst.root), "--as-of", "2027-01-01T00:00:00Z"])
    assert result.exit_code == 0, result.output
    assert f"time-locked to round {locked.round} (≈ {locked.due:%Y-%m-%d %H:%M:%S} UTC)" in result.output
    as_json = CliRunner().invoke(main, ["release", "status", "--root", str(locked.inst.root), "--json"])
    assert as_json.exit_code == 0, as_json.output
    tl = orjson.loads(as_json.output)["soohak"]["statements"][0]["timelock"]
    assert (tl["round"], tl["chain_hash"], tl["due"]) == (locked.round, locked.chain.hash, f"{locked.due:%Y-%m-%dT%H:%M:%SZ}")


# --- opening ------------------------------------------------------------------------------


def test_control_opens_after_the_round_with_the_committed_beacon(locked: Locked) -> None:
    locked.commit_beacon()
    found, problems = locked.opened(locked.due + timedelta(seconds=1))
    assert problems == []
    assert [i.recipients for i in found] == [(embargo_recipient(locked.inst),)]


def test_nothing_opens_before_the_release(locked: Locked) -> None:
    locked.commit_beacon()  # even with the round's signature at hand (a beacon cannot sign early)
    assert locked.opened(BEFORE) == ([], [])  # not in force: nothing tried, nothing published


def test_round_not_reached(locked: Locked) -> None:
    locked.commit_beacon()
    with pytest.raises(BuilderError) as refused:
        open_timelock(locked.inst.root, load_configs(locked.inst.root)[0], locked.statement(), locked.due - timedelta(seconds=1))
    assert refused.value.reason == "round-not-reached"
    open_timelock(locked.inst.root, load_configs(locked.inst.root)[0], locked.statement(), locked.due)  # control: at the round


def test_beacon_signature_of_another_key_is_refused(locked: Locked) -> None:
    locked.commit_beacon(ibe.sign_round(locked.secret + 1, locked.round))
    found, problems = locked.opened(locked.due)
    assert found == [] and _reasons(problems) == ["beacon-signature-invalid"]


def test_beacon_signature_of_another_round_is_refused(locked: Locked) -> None:
    locked.commit_beacon(ibe.sign_round(locked.secret, locked.round + 1))
    assert _reasons(locked.opened(locked.due)[1]) == ["beacon-signature-invalid"]


def test_missing_beacon_without_relay(locked: Locked) -> None:
    assert _reasons(locked.opened(locked.due)[1]) == ["beacon-unavailable"]


def test_ciphertext_swapped_after_signing(locked: Locked) -> None:
    locked.commit_beacon()
    path = locked.directory / "r1.tle"
    # a fresh, well-formed time-lock of another identity to the same round: only the digest tells
    path.write_bytes(
        tle.encrypt(identity_file_text(generate_identity()).encode(), locked.chain.public_key_bytes, locked.chain.hash, locked.round)
    )
    assert _reasons(locked.opened(locked.due)[1]) == ["timelock-digest-mismatch"]


def test_ciphertext_missing(locked: Locked) -> None:
    locked.commit_beacon()
    (locked.directory / "r1.tle").unlink()
    assert _reasons(locked.opened(locked.due)[1]) == ["timelock-ciphertext-missing"]


def test_identity_that_opens_another_recipient(locked: Locked) -> None:
    """Maintainers signed a statement naming the embargo recipient over a ciphertext of another identity."""
    inst, chain = locked.inst, locked.chain
    (locked.directory / "r1.yaml").unlink()
    (locked.directory / "r1.yaml.sig").unlink()
    data = tle.encrypt(identity_file_text(generate_identity()).encode(), chain.public_key_bytes, chain.hash, locked.round)
    (locked.directory / "r1.tle").write_bytes(data)
    from builder.release.statement import Timelock

    tl = Timelock(chain, locked.round, "r1.tle", hashlib.sha256(data).hexdigest(), embargo_recipient(inst))
    digest = hashlib.sha256((inst.root / "bundles/soohak/_dataset/test-1/manifest.json").read_bytes()).hexdigest()
    (locked.directory / "r1.yaml").write_text(statement_text("soohak", "test-1", digest, 1, T, Scope(), Publish(), tl))
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    locked.commit_beacon()
    assert _reasons(locked.opened(locked.due)[1]) == ["timelock-wrong-recipient"]


# --- the relay ----------------------------------------------------------------------------


def test_relay_control_and_a_forged_answer(locked: Locked, relay: LoopbackBeacon) -> None:
    found, problems = locked.opened(locked.due, relay.url)
    assert problems == [] and len(found) == 1
    assert f"/{locked.chain.hash}/public/{locked.round}" in relay.requests
    relay.forged[locked.round] = beacon_json(locked.round, ibe.sign_round(locked.secret + 7, locked.round))
    assert _reasons(locked.opened(locked.due, relay.url)[1]) == ["beacon-signature-invalid"]


def test_open_timelock_command_commits_beacon_and_identity(tmp_path: Path) -> None:
    """A release due an hour ago (the command judges at the real clock), opened by anyone."""
    inst = make_instance(tmp_path / "inst")
    secret, chain = make_chain()
    due = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
    flip(inst.root, "soohak", due, Scope(), Publish(), NOW, name="r1", timelock=chain, identities=[inst.identity])
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    with serve(LoopbackBeacon(secret, chain)) as beacon:
        result = CliRunner().invoke(main, ["release", "open-timelock", "soohak", "--root", str(inst.root), "--beacon-relay", beacon.url])
    assert result.exit_code == 0, result.output
    published = identity_path(inst.root, "soohak", "test-1").read_text()
    assert published.split()[-1] == inst.identity.select(embargo_recipient(inst)).reveal_secret().split()[-1]
    beacon_file = release_dir(inst.root, "soohak") / f"r1{BEACON_SUFFIX}"
    assert beacon_file.is_file()
    # offline from here on: the committed round opens it again, no relay
    configs = load_configs(inst.root)
    identity_path(inst.root, "soohak", "test-1").unlink()
    states = release_states(inst.root, configs, load_registry(inst.root, NOW), datetime.now(timezone.utc), now=NOW)
    found, problems = published_identities(inst.root, configs, states)
    assert problems == [] and [i.recipients for i in found] == [(embargo_recipient(inst),)]


def test_open_timelock_command_before_release_is_refused(locked: Locked, relay: LoopbackBeacon) -> None:
    # T (2027-01-15) is after the real clock: the statement is not in force, nothing opens or is written
    result = CliRunner().invoke(main, ["release", "open-timelock", "soohak", "--root", str(locked.inst.root), "--beacon-relay", relay.url])
    assert result.exit_code != 0
    assert not identity_path(locked.inst.root, "soohak", "test-1").exists()
    assert not (locked.directory / f"r1{BEACON_SUFFIX}").exists()


# --- the statement format -----------------------------------------------------------------


def test_statement_with_a_round_before_not_before_is_refused(locked: Locked) -> None:
    text = (locked.directory / "r1.yaml").read_text().replace(f"round: {locked.round}", f"round: {locked.round - 1}")
    with pytest.raises(ParseError) as early:
        parse_statement(text.encode(), "r1.yaml", "r1")
    assert early.value.reason == "bad-timelock" and "before not_before" in early.value.message


def test_statement_timelock_on_a_narrow_release_is_refused(locked: Locked) -> None:
    text = (locked.directory / "r1.yaml").read_text().replace("transcripts: true", "transcripts: false")
    with pytest.raises(ParseError) as narrow:
        parse_statement(text.encode(), "r1.yaml", "r1")
    assert narrow.value.reason == "bad-timelock"


def test_stray_companion_files_are_reported(locked: Locked) -> None:
    (locked.directory / "ghost.tle").write_bytes(b"x")
    (locked.directory / f"ghost{BEACON_SUFFIX}").write_bytes(b"{}")
    from builder.release.statement import read_statements

    bad = [f for f in read_statements(locked.inst.root, "soohak") if f.error is not None]
    assert sorted(f.name for f in bad) == ["ghost.beacon.json", "ghost.tle"]


def test_release_verify_repo_opens_the_timelock_and_checks_the_dataset(locked: Locked) -> None:
    from builder.release.check import verify_repo

    at = locked.due + timedelta(seconds=1)
    assert any("beacon-unavailable" in line or "is missing" in line for line in verify_repo(locked.inst.root, at))  # not yet
    locked.commit_beacon()
    lines = verify_repo(locked.inst.root, at)
    assert not [line for line in lines if line.startswith("problem:")], lines
    assert any(line.startswith("soohak: the published identity opens dataset test-1; all ") for line in lines), lines
