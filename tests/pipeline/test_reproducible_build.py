"""Byte-reproducible builds (issue 24, item 1): two builds of one commit with the same
identity, and two public builds, write the same bytes, on mkdocs and on Zensical.

The authorised mkdocs pair (what a board deploys, signed) is built over the whole demo; the
public and Zensical pairs over a small committed instance with a released benchmark
(`released_repo`), so that the whole demo is generated once per kind in a run (issue 39).

Before the fix two authorised builds of the demo differed in data/index.json, the home
page's footer and the search index (all by the build's clock), and mkdocs dated the sitemap
and the gzip header of sitemap.xml.gz with its own clock. The first of each pair is the
session's shared build (tests/conftest.py: in this process, or for Zensical a child with
PYTHONHASHSEED=1); the second is built in a child process an hour later on the judging clock
with PYTHONHASHSEED=2, so a stamp taken from the clock, or an order taken from a set or dict
of strings, would show. The demo is committed days before the machine's clock (and a day
after its judging time), so a date taken from the machine's clock shows too.
"""

from __future__ import annotations

import gzip
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from builder.config import load_configs
from builder.demo.instance import BUILD_KEY
from builder.demo.repository import commit_demo
from builder.release.identity import publish_identity
from builder.release.status import release_states
from builder.trust.registry import load_registry
from builder.trust.registry_admin import set_build_key, sign_registry
from builder.trust.sshkeys import generate_ed25519
from tests.release.support import AFTER, released_instance
from tests.shared_demo import DEMO_CLOCK, DEMO_COMMITTED, DEMO_SITE_URL, build_in_child, demo_copy

SMALL_COMMITTED = AFTER - timedelta(minutes=30)  # after the release time: the public site shows it released


@pytest.fixture(scope="module")
def twins(demo_repo, tmp_path_factory):
    """A second copy of the shared demo's commit: each twin build runs there (its own staged tree)."""
    return demo_copy(demo_repo, tmp_path_factory.mktemp("repro") / "demo")


@pytest.fixture(scope="module")
def released_repo(tmp_path_factory) -> Path:
    """A small instance (two labs, SOOHAK released in full) committed with a site_url and a
    build key, laid out as the demo's keys are (build_in_child reads keys/demo/)."""
    root = tmp_path_factory.mktemp("repro-small") / "board"
    inst = released_instance(root)
    keys = root / "keys" / "demo"
    keys.mkdir(parents=True)
    private, public = generate_ed25519("build@test")
    (keys / BUILD_KEY).write_bytes(private)
    (keys / BUILD_KEY).chmod(0o600)
    # make_instance keeps the identity file (embargo key, private results key) beside the root.
    shutil.copy2(root.parent / f"{root.name}-keys" / "identity.txt", keys / "identity.txt")
    set_build_key(root, public)
    for m in ("m1", "m2"):
        sign_registry(root, inst.maintainer_keys[m])
    # Released in full: the embargo key is published, so the public build shows every result.
    configs = load_configs(root)
    states = release_states(root, configs, load_registry(root, SMALL_COMMITTED), SMALL_COMMITTED)
    publish_identity(root, configs[0], states["soohak"], [inst.identity])
    with (root / "mkdocs.yml").open("a", encoding="utf-8") as fh:
        fh.write(f"site_url: {DEMO_SITE_URL}\n")
    (root / ".gitignore").write_text("keys/demo/\n.sealboard/\nsite/\n")
    commit_demo(root, SMALL_COMMITTED, "A small released instance")
    return root


def tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def assert_identical(a: Path, b: Path, *, at_least: int = 500) -> dict[str, bytes]:
    first, second = tree(a), tree(b)
    only = sorted(set(first) ^ set(second))
    differ = sorted(rel for rel in set(first) & set(second) if first[rel] != second[rel])
    assert not only and not differ, f"files in one build only: {only}; files whose bytes differ: {differ}"
    assert len(first) > at_least  # a whole site, not an empty folder
    return first


def build_twin(first: Path, twins: Path, tmp_path: Path, *, identity: bool, generator: str, kind: str) -> dict[str, bytes]:
    """Build `first`'s commit again in a fresh interpreter, an hour later on the judging clock
    and with another PYTHONHASHSEED, and compare every byte with `first`."""
    second = build_in_child(
        twins, tmp_path / "b", identity=identity, generator=generator, clock=DEMO_CLOCK + timedelta(hours=1), hash_seed=2, kind=kind
    )
    return assert_identical(first, second)


def assert_stamped_with_the_commit_time(files: dict[str, bytes], *, authorised: bool, committed: datetime = DEMO_COMMITTED) -> None:
    stamp = f"{committed:%Y-%m-%dT%H:%M:%SZ}"
    index = orjson.loads(files["data/index.json"])
    assert index["authorised"] is authorised
    assert (index["built"], index["time_source"]) == (stamp, "commit")
    assert f"dated {stamp} (the commit's time)" in files["index.html"].decode()


def test_two_authorised_mkdocs_builds_are_byte_identical(demo_site, twins, tmp_path):
    files = build_twin(demo_site.site, twins, tmp_path, identity=True, generator="mkdocs", kind="authorised-mkdocs")
    assert_stamped_with_the_commit_time(files, authorised=True)
    # The signed attestation too (Ed25519 signs deterministically): statement, sums, signatures,
    # and the DSSE envelopes of the statement and its SLSA provenance.
    assert {
        "attestation/statement.json.sig",
        "attestation/SHA256SUMS.sig",
        "attestation/statement.intoto.jsonl",
        "attestation/provenance.intoto.jsonl",
    } <= files.keys()
    statement = orjson.loads(files["attestation/statement.json"])
    assert statement["predicateType"] == f"{DEMO_SITE_URL}data/#site-attestation-v1"  # the site's own URL
    assert {"mkdocs", "mkdocs-material", "Markdown"} <= statement["predicate"]["generator"]["packages"].keys()
    # mkdocs dates the sitemap and the gzip header by SOURCE_DATE_EPOCH, which the build sets.
    sitemap = files["sitemap.xml"].decode()
    day = f"{DEMO_COMMITTED:%Y-%m-%d}"
    assert sitemap.count("<lastmod>") > 100 and sitemap.count("<lastmod>") == sitemap.count(f"<lastmod>{day}</lastmod>")
    # RFC 1952 MTIME: mkdocs takes the newest page date, midnight of the stamped day.
    midnight = datetime(DEMO_COMMITTED.year, DEMO_COMMITTED.month, DEMO_COMMITTED.day, tzinfo=timezone.utc)
    assert int.from_bytes(files["sitemap.xml.gz"][4:8], "little") == int(midnight.timestamp())
    assert gzip.decompress(files["sitemap.xml.gz"]) == files["sitemap.xml"]


def small_pair(released_repo: Path, tmp_path: Path, *, identity: bool, generator: str) -> dict[str, bytes]:
    """Two builds of the small released instance's commit, each in a fresh interpreter on a copy
    of its own, an hour apart on the judging clock and with different PYTHONHASHSEEDs."""
    sites = [
        build_in_child(
            demo_copy(released_repo, tmp_path / f"repo{seed}"),
            tmp_path / f"site{seed}",
            identity=identity,
            generator=generator,
            clock=AFTER + timedelta(hours=seed - 1),
            hash_seed=seed,
        )
        for seed in (1, 2)
    ]
    return assert_identical(*sites, at_least=40)


def test_two_public_builds_are_byte_identical(released_repo, tmp_path):
    files = small_pair(released_repo, tmp_path, identity=False, generator="mkdocs")
    assert_stamped_with_the_commit_time(files, authorised=False, committed=SMALL_COMMITTED)
    # Unsigned: the statement is there (and identical), no signature.
    assert "attestation/statement.json" in files and "attestation/statement.json.sig" not in files
    # Released: the public build publishes the per-item results it could not show under embargo.
    assert "data/soohak/items.jsonl" in files
    assert orjson.loads(files["data/index.json"])["benchmarks"][0]["status"] == "released"


def test_two_authorised_zensical_builds_are_byte_identical(released_repo, tmp_path):
    files = small_pair(released_repo, tmp_path, identity=True, generator="zensical")
    assert_stamped_with_the_commit_time(files, authorised=True, committed=SMALL_COMMITTED)
    assert {"attestation/statement.json.sig", "attestation/provenance.intoto.jsonl"} <= files.keys()
    packages = orjson.loads(files["attestation/statement.json"])["predicate"]["generator"]["packages"]
    assert "zensical" in packages and "mkdocs" not in packages and "mkdocs-material" not in packages
