"""A full release publishes the embargo identity and nothing else opens with it: results
and transcripts a lab keeps private are sealed to the private results key (never
published). A no-secret rebuild is exactly the authorised build without those bundles."""

from __future__ import annotations

import gzip
import shutil
import subprocess

import orjson
import pytest

from builder.config import load_configs
from builder.pipeline.build import build
from builder.release.identity import publish_identity
from builder.release.status import release_states
from builder.trust.registry import load_registry
from tests.factory import results_for
from tests.release.support import AFTER, released_instance
from tests.release.test_release_build import output_bytes

pytestmark = pytest.mark.slow  # builds sites

TRANSCRIPT = gzip.compress(b'{"item": "m000", "lang": "en", "sample": 0, "text": "private reasoning"}\n')


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """acme/run-1 and beta/run-1 publish their results; beta/private keeps results and
    transcripts private; acme/open-transcripts publishes both. Released in full, identity published."""
    inst = released_instance(tmp_path_factory.mktemp("priv") / "inst")
    correct = {it["id"]: [True, False, True] for it in inst.items[::2]}
    inst.add_submission("beta", "private", results_for(inst.items, correct), publish_results=False, transcripts=TRANSCRIPT)
    inst.add_submission("acme", "open-transcripts", results_for(inst.items), publish_transcripts=True, transcripts=TRANSCRIPT)
    configs = load_configs(inst.root)
    states = release_states(inst.root, configs, load_registry(inst.root, AFTER), AFTER)
    inst.published = publish_identity(inst.root, configs[0], states["soohak"], [inst.identity])
    return inst


def test_the_published_identity_opens_exactly_what_was_opted_in(released):
    """The real age CLI, with the published identity file, on every .age file of the repository."""
    opened, refused = set(), set()
    for path in sorted(released.root.rglob("*.age")):
        rel = str(path.relative_to(released.root))
        run = subprocess.run(["age", "-d", "-i", str(released.published), str(path)], capture_output=True)
        (opened if run.returncode == 0 else refused).add(rel)
        if run.returncode:
            assert b"no identity matched any of the recipients" in run.stderr, rel
    dataset = next(str(p.relative_to(released.root)) for p in released.root.glob("bundles/soohak/_dataset/*/items.jsonl.age"))
    assert opened == {
        dataset,
        "bundles/soohak/acme/run-1/results.jsonl.age",
        "bundles/soohak/beta/run-1/results.jsonl.age",
        "bundles/soohak/acme/open-transcripts/results.jsonl.age",
        "bundles/soohak/acme/open-transcripts/transcripts.jsonl.gz.age",
    }
    assert refused == {"bundles/soohak/beta/private/results.jsonl.age", "bundles/soohak/beta/private/transcripts.jsonl.gz.age"}
    assert released.published.read_text().count("AGE-SECRET-KEY-1") == 1


def test_no_secret_rebuild_is_the_authorised_build_without_private_bundles(released, tmp_path):
    report = build(released.root, tmp_path / "authorised", identities=[released.identity], now=AFTER)
    assert report.rejections == []
    assert "beta/private" in set(report.benchmarks[0].results["submission"])  # still scored
    public = build(released.root, tmp_path / "public", identities=[], now=AFTER)
    assert public.benchmarks[0].status == "released" and not public.authorised
    assert [(r.reason, r.where) for r in public.rejections] == [("sealed-private", "bundles/soohak/beta/private/results.jsonl.age")]
    # The same repository without the private bundle, built authorised: byte for byte the
    # no-secret build (index.json holds build facts: authorised, time).
    root = tmp_path / "inst"
    shutil.copytree(released.root, root)
    shutil.rmtree(root / "bundles/soohak/beta/private")
    build(root, tmp_path / "reproducible", identities=[released.identity], now=AFTER)
    a, b = output_bytes(tmp_path / "reproducible" / "data"), output_bytes(tmp_path / "public" / "data")
    assert a.keys() == b.keys()
    assert sorted(k for k in a if a[k] != b[k]) == ["index.json", "rejected.json"]
    assert b"private reasoning" in b["soohak/transcripts/acme/open-transcripts.jsonl"]  # opted-in transcripts too
    assert not any("beta/private" in k for k in b)
    # rejected.json (and the Rejected page) lists the private submission, with why
    [left_out] = orjson.loads(b["rejected.json"])["rejected"]
    assert (left_out["reason"], left_out["lab"]) == ("sealed-private", "beta")
    assert "not reproducible without it" in left_out["message"]
    page = (tmp_path / "public" / "rejected.html").read_text()
    assert "Lines with reason <code>sealed-private</code> passed every check" in page
    assert "passed every check" not in (tmp_path / "authorised" / "rejected.html").read_text()
    # the authorised site differs exactly by the private submission's rows, never its items
    matrix = (tmp_path / "authorised" / "data" / "soohak" / "matrix.csv").read_text()
    assert "beta/private" not in matrix and "acme/open-transcripts" in matrix


def test_a_submission_keeping_its_results_private_is_paired_with_no_one(released, tmp_path):
    """paired.json (the compare page's item correlations) rests on the published per-item
    results only: beta/private, scored and on the boards, is in no board's pairable set,
    and the compare page embeds no ρ for it."""
    build(released.root, tmp_path / "site", identities=[released.identity], now=AFTER)
    paired = orjson.loads((tmp_path / "site/data/soohak/paired.json").read_bytes())
    assert paired["boards"], paired
    for board, p in paired["boards"].items():
        assert "beta/private" not in p["submissions"], board
        assert {"acme/run-1", "beta/run-1"} <= set(p["submissions"]), board
        assert len(p["rho"]) == len(p["submissions"]) * (len(p["submissions"]) - 1) // 2
    mini = orjson.loads((tmp_path / "site/data/soohak/mini.json").read_bytes())
    assert "beta/private" in {r["submission"] for r in mini["rows"]}  # on the board, unpaired
    page = (tmp_path / "site/soohak/compare.html").read_text()
    assert "paired, n =" in page and "not paired" in page
