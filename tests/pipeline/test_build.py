"""The whole pipeline on small real instances: rejection isolation, sealed builds, leak scan."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import BuilderError, LeakError
from builder.pipeline.build import build
from tests.factory import NOW, forge_submission, make_instance, results_for

pytestmark = pytest.mark.slow  # builds sites


def _all_output_bytes(site: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file())


@pytest.fixture(scope="module")
def base_instance(tmp_path_factory):
    inst = make_instance(tmp_path_factory.mktemp("base") / "inst")
    correct = {it["id"]: [True, True, False] for it in inst.items[::2]}
    inst.add_submission("acme", "run-1", results_for(inst.items, correct))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    return inst


@pytest.fixture
def inst(base_instance, tmp_path):
    """A private copy of the module's instance, safe to tamper with."""
    import copy
    import shutil

    root = tmp_path / "inst"
    shutil.copytree(base_instance.root, root)
    clone = copy.copy(base_instance)
    clone.root = root
    clone.bundles = {k: root / v.relative_to(base_instance.root) for k, v in base_instance.bundles.items()}
    return clone


FLIPS = [(name, pos) for name in ("manifest.json", "manifest.json.sig", "results.jsonl.age") for pos in ("first", "middle", "last")]
# What a one-byte change may legitimately be reported as, per file.
EXPECTED = {
    "manifest.json": {"bad-signature", "invalid-json", "invalid-utf8", "misplaced", "unknown-field", "missing-field"},
    "manifest.json.sig": {
        "bad-armor",
        "bad-signature",
        "bad-magic",
        "truncated",
        "trailing-bytes",
        "bad-hash-alg",
        "wrong-namespace",
        "bad-version",
    },
    "results.jsonl.age": {"digest-mismatch"},
}


# A lab for each flip, with one bundle each: one build refuses all nine, each for its own byte,
# and still publishes beta's (a build for each flip cost ~1 CPU-s more apiece).
FLIP_LABS = {flip: f"flip{i}" for i, flip in enumerate(FLIPS)}


@pytest.fixture(scope="module")
def flipped(tmp_path_factory):
    base = tmp_path_factory.mktemp("flipped")
    inst = make_instance(base / "inst", labs=("beta", *FLIP_LABS.values()))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    correct = {it["id"]: [True, True, False] for it in inst.items[::2]}
    for (name, pos), lab in FLIP_LABS.items():
        target = inst.add_submission(lab, "run-1", results_for(inst.items, correct)) / name
        data = bytearray(target.read_bytes())
        index = {"first": 0, "middle": len(data) // 2, "last": len(data) - 2}[pos]
        data[index] ^= 0x01
        target.write_bytes(bytes(data))
    report = build(inst.root, base / "site", identities=[inst.identity], now=NOW)
    return report, base / "site"


@pytest.mark.parametrize("name,pos", FLIPS, ids=[f"{n}-{p}" for n, p in FLIPS])
def test_one_flipped_byte_rejects_only_that_bundle(flipped, name, pos):
    report, site = flipped
    folder = f"bundles/soohak/{FLIP_LABS[name, pos]}/run-1"

    assert len(report.rejections) == len(FLIPS), report.rejections  # one a flipped bundle, no more
    mine = [r for r in report.rejections if r.where == folder or r.where.startswith(folder + "/")]
    assert len(mine) == 1, report.rejections  # this bundle's, once
    rejection = mine[0]
    assert name in rejection.where or name == "manifest.json" and rejection.where.endswith("manifest.json.sig"), rejection
    assert rejection.reason in EXPECTED[name], rejection
    mini = orjson.loads((site / "data/soohak/mini.json").read_bytes())
    assert [r["submission"] for r in mini["rows"]] == ["beta/run-1"]
    # Its own row of the rejected page names the file and the reason (a row a rejection).
    [row] = [line for line in (site / "rejected.html").read_text().splitlines() if f"<code>{rejection.where}</code>" in line]
    assert f"<code>{rejection.reason}</code>" in row and folder in row, row


def test_authorised_build_publishes_boards_from_data(inst, tmp_path):
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert report.rejections == []
    site = tmp_path / "site"
    index = orjson.loads((site / "data/index.json").read_bytes())
    assert index["authorised"] is True
    soohak = index["benchmarks"][0]
    assert soohak["status"] == "embargoed"
    boards = {b["board"] for b in soohak["boards"]}
    assert {"mini", "challenge", "refusal", "composite"} <= boards
    for board in boards:
        assert (site / f"data/soohak/{board}.json").is_file() and (site / f"data/soohak/{board}.csv").is_file()
        assert (site / f"soohak/{board}.html").is_file()
    mini = orjson.loads((site / "data/soohak/mini.json").read_bytes())
    beta = next(r for r in mini["rows"] if r["submission"] == "beta/run-1")
    # beta answered every sample correctly: avg@3 = pass@3 = 1 over the 6 Mini items.
    assert beta["metrics"]["avg@3"]["value"] == 1.0 and beta["metrics"]["avg@3"]["n"] == 6
    page = (site / "soohak/mini.html").read_text()
    assert "100.0" in page  # the page shows the number the data file holds


def test_unauthorised_build_is_complete_and_sealed(inst, tmp_path):
    report = build(inst.root, tmp_path / "site", identities=[], now=NOW)
    site = tmp_path / "site"
    index = orjson.loads((site / "data/index.json").read_bytes())
    assert index["authorised"] is False and index["benchmarks"][0]["status"] == "sealed"
    assert index["benchmarks"][0]["boards"] == []
    subs = orjson.loads((site / "data/soohak/submissions.json").read_bytes())
    assert {r["submission"] for r in subs["rows"]} == {"acme/run-1", "beta/run-1"}
    assert all(r["signature"]["status"] == "verified" for r in subs["rows"])
    assert "Scores are sealed" in (site / "soohak/index.html").read_text()
    output = _all_output_bytes(site)
    for item in inst.items:
        assert item["canary"].encode() not in output
        for text in item["question"].values():
            assert text.encode() not in output
    assert report.rejections == []


def test_lab_text_leak_rejects_that_bundle_and_the_site_publishes(inst, tmp_path):
    # A lab names its model after an item canary: that bundle is left out, named; the rest publish.
    leaky = dict(__import__("tests.factory", fromlist=["MODEL"]).MODEL, name=f"Model {inst.items[0]['canary']}")
    inst.add_submission("acme", "leaky", results_for(inst.items), model=leaky)
    out = tmp_path / "site"
    report = build(inst.root, out, identities=[inst.identity], now=NOW)
    assert [(r.where, r.reason) for r in report.rejections] == [("bundles/soohak/acme/leaky/manifest.json", "embargoed-text")]
    assert "model" in report.rejections[0].message and "canary" in report.rejections[0].message
    output = _all_output_bytes(out)
    assert inst.items[0]["canary"].encode() not in output and b"acme/run-1" in output


def test_leak_in_the_sites_own_output_fails_build_and_removes_output(inst, tmp_path):
    # A hand-written page quotes an item (with a soft hyphen inside): the site's own doing.
    words = inst.items[1]["question"]["en"].split()
    (inst.root / "site_src" / "notes.md").write_text(
        "# Notes\n\n" + " ".join(words[:4]) + " " + words[4][:2] + "\u00ad" + words[4][2:] + " " + " ".join(words[5:10]) + "\n"
    )
    out = tmp_path / "site"
    with pytest.raises(LeakError) as err:
        build(inst.root, out, identities=[inst.identity], now=NOW)
    assert err.value.reason == "leak" and "question text of soohak item" in str(err.value)
    assert not out.exists()
    assert not any(p.name.startswith(".sealboard-site-") for p in tmp_path.iterdir())
    assert not (inst.root / ".sealboard" / "staged").exists()


def test_strict_build_fails_on_any_rejection(inst, tmp_path):
    (inst.bundles["acme/run-1"] / "extra.txt").write_text("hello")
    with pytest.raises(BuilderError) as err:
        build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, strict=True)
    assert err.value.reason == "rejected" and "is not sealed (not an age file)" in str(err.value)
    assert not (tmp_path / "site").exists()


def test_cli_build_takes_identity_from_environment(inst, tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(
        main, ["build", "--root", str(inst.root), "--out", str(out)], env={"SEALBOARD_IDENTITY": inst.identity.reveal_secret()}
    )
    assert result.exit_code == 0, result.output
    assert "soohak: embargoed, 2 submission(s)" in result.output
    assert "AGE-SECRET-KEY" not in result.output
    assert orjson.loads((out / "data/index.json").read_bytes())["authorised"] is True


def test_cli_build_with_foreign_identity_is_a_clear_error(inst, tmp_path):
    from builder.trust.seal import generate_identity, identity_file_text

    other = tmp_path / "other.txt"
    other.write_text(identity_file_text(generate_identity()))
    result = CliRunner().invoke(main, ["build", "--root", str(inst.root), "--out", str(tmp_path / "site"), "--identity", str(other)])
    assert result.exit_code == 1
    assert "matches no benchmark's embargo_recipient" in result.output
    assert "AGE-SECRET-KEY" not in result.output


def test_refuses_to_replace_a_directory_that_is_not_a_site(inst, tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("do not delete")
    with pytest.raises(BuilderError) as err:
        build(inst.root, out, identities=[inst.identity], now=NOW)
    assert "not a Sealboard site" in str(err.value)
    assert (out / "thesis.tex").read_text() == "do not delete"
    assert not any(p.name.startswith(".sealboard-site-") for p in tmp_path.iterdir())


def test_parallel_unseal_matches_sequential(base_instance, tmp_path, monkeypatch):
    """Worker processes (and verification threads) give the same frames and the same
    rejections, in the same order, as one process."""
    import shutil

    root = tmp_path / "inst"
    shutil.copytree(base_instance.root, root)
    inst = __import__("copy").copy(base_instance)
    inst.root, inst.bundles = root, {}
    for i in range(9):
        # (i % 3 == 1: no run is all correct, which would be a clone of beta/run-1's results)
        correct = {it["id"]: [i % 2 == 0, i % 3 == 1, True] for it in inst.items[i:]}
        inst.add_submission("acme" if i % 2 else "beta", f"p-{i}", results_for(inst.items, correct))
    bad = results_for(inst.items)
    bad[3]["item"] = "no-such-item"
    forge_submission(inst, "acme", "p-bad", bad)  # create would refuse the unknown item
    sealed = inst.bundles["acme/p-5"] / "results.jsonl.age"  # verification (in threads) refuses this one
    data = bytearray(sealed.read_bytes())
    data[-1] ^= 1
    sealed.write_bytes(bytes(data))

    outcomes = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("SEALBOARD_WORKERS", workers)
        report = build(root, tmp_path / f"site-{workers}", identities=[inst.identity], now=NOW, render=False)
        state = report.benchmarks[0]
        frame = state.results.sort_values(["submission", "item", "lang", "sample"]).reset_index(drop=True)
        outcomes[workers] = (frame, [(r.where, r.reason, r.message) for r in report.rejections], [b.to_dict() for b in state.boards])
    assert (
        outcomes["1"][1]
        == outcomes["2"][1]
        == [
            ("bundles/soohak/acme/p-5/results.jsonl.age", "digest-mismatch", outcomes["1"][1][0][2]),
            ("bundles/soohak/acme/p-bad/results.jsonl.age", "unknown-item", outcomes["1"][1][1][2]),
        ]
    )
    assert "line 4" in outcomes["1"][1][1][2] or ":4:" in outcomes["1"][1][1][2]
    import pandas.testing

    pandas.testing.assert_frame_equal(outcomes["1"][0], outcomes["2"][0])
    assert outcomes["1"][2] == outcomes["2"][2]


def test_rejection_messages_cannot_inject_markup(inst, tmp_path):
    # A lab-controlled field name travels into the rejection message and the page.
    rows = results_for(inst.items)
    rows[0]["[x](javascript:alert(1))<script>"] = 1
    target = inst.bundles["acme/run-1"]
    import shutil

    shutil.rmtree(target)
    inst.add_submission("acme", "run-1", results_for(inst.items))  # a valid bundle to overwrite
    import hashlib

    from builder.bundles.create import sign_bundle
    from builder.bundles.manifest import RESULTS

    sealed = __import__("builder.trust.seal", fromlist=["seal"]).seal(
        b"".join(orjson.dumps(r) + b"\n" for r in rows), [inst.identity.recipient]
    )
    (target / RESULTS).write_bytes(sealed)
    manifest = orjson.loads((target / "manifest.json").read_bytes())
    manifest["files"][0].update(sha256=hashlib.sha256(sealed).hexdigest(), bytes=len(sealed))
    (target / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n")
    sign_bundle(target, inst.lab_keys["acme"])

    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert [r.reason for r in report.rejections] == ["unknown-field"]
    page = (tmp_path / "site/rejected.html").read_text()
    assert "javascript:alert" in page  # shown as text…
    assert 'href="javascript:' not in page  # …never as a link
    assert "alert(1))<script>" not in page and "alert(1))&lt;script&gt;" in page  # …nor as a tag
