"""Byte-reproducible builds (issue 24, item 1): two builds of one commit with the same
identity, and two public builds, write the same bytes, on mkdocs and on Zensical.

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
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from tests.shared_demo import DEMO_CLOCK, DEMO_COMMITTED, DEMO_SITE_URL, build_in_child, demo_copy


@pytest.fixture(scope="module")
def twins(demo_repo, tmp_path_factory):
    """A second copy of the shared demo's commit: each twin build runs there (its own staged tree)."""
    return demo_copy(demo_repo, tmp_path_factory.mktemp("repro") / "demo")


def tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def assert_identical(a: Path, b: Path) -> dict[str, bytes]:
    first, second = tree(a), tree(b)
    only = sorted(set(first) ^ set(second))
    differ = sorted(rel for rel in set(first) & set(second) if first[rel] != second[rel])
    assert not only and not differ, f"files in one build only: {only}; files whose bytes differ: {differ}"
    assert len(first) > 500  # the whole demo site, not an empty folder
    return first


def build_twin(first: Path, twins: Path, tmp_path: Path, *, identity: bool, generator: str, kind: str) -> dict[str, bytes]:
    """Build `first`'s commit again in a fresh interpreter, an hour later on the judging clock
    and with another PYTHONHASHSEED, and compare every byte with `first`."""
    second = build_in_child(
        twins, tmp_path / "b", identity=identity, generator=generator, clock=DEMO_CLOCK + timedelta(hours=1), hash_seed=2, kind=kind
    )
    return assert_identical(first, second)


STAMP = f"{DEMO_COMMITTED:%Y-%m-%dT%H:%M:%SZ}"


def assert_stamped_with_the_commit_time(files: dict[str, bytes], *, authorised: bool) -> None:
    index = orjson.loads(files["data/index.json"])
    assert index["authorised"] is authorised
    assert (index["built"], index["time_source"]) == (STAMP, "commit")
    assert f"dated {STAMP} (the commit's time)" in files["index.html"].decode()


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


def test_two_public_builds_are_byte_identical(demo_public, twins, tmp_path):
    files = build_twin(demo_public.site, twins, tmp_path, identity=False, generator="mkdocs", kind="public-mkdocs")
    assert_stamped_with_the_commit_time(files, authorised=False)
    # Unsigned: the statement is there (and identical), no signature.
    assert "attestation/statement.json" in files and "attestation/statement.json.sig" not in files


def test_two_authorised_zensical_builds_are_byte_identical(demo_zensical, twins, tmp_path):
    files = build_twin(demo_zensical, twins, tmp_path, identity=True, generator="zensical", kind="authorised-zensical")
    assert_stamped_with_the_commit_time(files, authorised=True)
    assert "attestation/provenance.intoto.jsonl" in files
    packages = orjson.loads(files["attestation/statement.json"])["predicate"]["generator"]["packages"]
    assert "zensical" in packages and "mkdocs" not in packages and "mkdocs-material" not in packages
