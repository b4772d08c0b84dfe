"""Byte-reproducible builds (issue 24, item 1): two builds of one commit with the same
identity, and two public builds, write the same bytes, on mkdocs and on Zensical.

Before the fix two authorised builds of the demo differed in data/index.json, the home
page's footer and the search index (all by the build's clock), and mkdocs dated the sitemap
and the gzip header of sitemap.xml.gz with its own clock. Each pair here is built in two
child processes an hour apart on the judging clock and with different PYTHONHASHSEED, so a
stamp taken from the clock, or an order taken from a set or dict of strings, would show.
One demo instance serves every pair; each pair builds only the site it compares.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from builder.demo.instance import write_demo

# Far from the real clock, so a date the generator took from its own clock would differ.
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
COMMITTED = NOW + timedelta(days=1, minutes=30)  # the commit every build here is of

_CHILD = """
import sys
from datetime import datetime
from pathlib import Path
from builder.pipeline.build import build, load_build_key, load_identities
root, out, identity, generator, now, key = sys.argv[1:]
report = build(Path(root), Path(out), identities=load_identities(Path(identity), None) if identity else [],
               now=datetime.fromisoformat(now), site_generator=generator, build_key=load_build_key(Path(key), None) if key else None)
print("stages:", " ".join(report.timings))
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repro") / "demo"
    write_demo(root, seed=0, now=NOW)  # a git repository, committed at NOW
    # A site_url makes mkdocs list every page in the sitemap, each with a <lastmod> date.
    with (root / "mkdocs.yml").open("a") as fh:
        fh.write("site_url: https://board.example.org/\n")
    stamp = f"{int(COMMITTED.timestamp())} +0000"
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "-C", str(root), "-c", "commit.gpgsign=false", "commit", "-qam", "site_url"], check=True, env=env)
    return root


def build_in_child(root: Path, out: Path, *, identity: bool, generator: str, clock: datetime, hash_seed: int) -> Path:
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "SEALBOARD_IDENTITY", "SEALBOARD_BUILD_KEY")}
    env["PYTHONHASHSEED"] = str(hash_seed)
    ident = str(root / "keys/demo/identity.txt") if identity else ""
    key = str(root / "keys/demo/build_key") if identity else ""  # authorised builds sign their attestation
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(out), ident, generator, clock.isoformat(), key],
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # The build summary's stages name the generator that ran (not "mkdocs" for Zensical's time).
    stages = proc.stdout.split("stages:", 1)[1].split()
    assert generator in stages and ({"mkdocs", "zensical"} - {generator}).isdisjoint(stages), stages
    return out


def tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def assert_identical(a: Path, b: Path) -> dict[str, bytes]:
    first, second = tree(a), tree(b)
    only = sorted(set(first) ^ set(second))
    differ = sorted(rel for rel in set(first) & set(second) if first[rel] != second[rel])
    assert not only and not differ, f"files in one build only: {only}; files whose bytes differ: {differ}"
    assert len(first) > 500  # the whole demo site, not an empty folder
    return first


def build_pair(demo: Path, tmp_path: Path, *, identity: bool, generator: str) -> dict[str, bytes]:
    a = build_in_child(demo, tmp_path / "a", identity=identity, generator=generator, clock=COMMITTED + timedelta(minutes=5), hash_seed=1)
    b = build_in_child(demo, tmp_path / "b", identity=identity, generator=generator, clock=COMMITTED + timedelta(hours=1, minutes=5), hash_seed=2)
    return assert_identical(a, b)


def assert_stamped_with_the_commit_time(files: dict[str, bytes], *, authorised: bool) -> None:
    index = orjson.loads(files["data/index.json"])
    assert index["authorised"] is authorised
    assert (index["built"], index["time_source"]) == ("2026-03-02T12:30:00Z", "commit")
    assert "dated 2026-03-02T12:30:00Z (the commit's time)" in files["index.html"].decode()


def test_two_authorised_mkdocs_builds_are_byte_identical(demo, tmp_path):
    files = build_pair(demo, tmp_path, identity=True, generator="mkdocs")
    assert_stamped_with_the_commit_time(files, authorised=True)
    # The signed attestation too (Ed25519 signs deterministically): statement, sums, signatures,
    # and the DSSE envelopes of the statement and its SLSA provenance.
    assert {"attestation/statement.json.sig", "attestation/SHA256SUMS.sig", "attestation/statement.intoto.jsonl",
            "attestation/provenance.intoto.jsonl"} <= files.keys()
    statement = orjson.loads(files["attestation/statement.json"])
    assert statement["predicateType"] == "https://board.example.org/data/#site-attestation-v1"  # the site's own URL
    assert {"mkdocs", "mkdocs-material", "Markdown"} <= statement["predicate"]["generator"]["packages"].keys()
    # mkdocs dates the sitemap and the gzip header by SOURCE_DATE_EPOCH, which the build sets.
    sitemap = files["sitemap.xml"].decode()
    assert sitemap.count("<lastmod>") > 100 and sitemap.count("<lastmod>") == sitemap.count("<lastmod>2026-03-02</lastmod>")
    # RFC 1952 MTIME: mkdocs takes the newest page date, midnight of the stamped day.
    assert int.from_bytes(files["sitemap.xml.gz"][4:8], "little") == int(datetime(2026, 3, 2, tzinfo=timezone.utc).timestamp())
    assert gzip.decompress(files["sitemap.xml.gz"]) == files["sitemap.xml"]


def test_two_public_builds_are_byte_identical(demo, tmp_path):
    files = build_pair(demo, tmp_path, identity=False, generator="mkdocs")
    assert_stamped_with_the_commit_time(files, authorised=False)
    # Unsigned: the statement is there (and identical), no signature.
    assert "attestation/statement.json" in files and "attestation/statement.json.sig" not in files


def test_two_authorised_zensical_builds_are_byte_identical(demo, tmp_path):
    if importlib.util.find_spec("zensical") is None:
        pytest.skip("Zensical is not installed: pip install 'sealboard[zensical]' (.ci/run does)")
    files = build_pair(demo, tmp_path, identity=True, generator="zensical")
    assert_stamped_with_the_commit_time(files, authorised=True)
    assert "attestation/provenance.intoto.jsonl" in files
    packages = orjson.loads(files["attestation/statement.json"])["predicate"]["generator"]["packages"]
    assert "zensical" in packages and "mkdocs" not in packages and "mkdocs-material" not in packages
