"""The demo instance, end to end: layout, authorised figures, and a sealed public build."""

from __future__ import annotations

import json
import stat
from datetime import datetime, timezone
from pathlib import Path

import ahocorasick_rs
import orjson
import pytest

from builder.pipeline.build import load_identities
from builder.trust.seal import unseal
from tests.conftest import DEMO_NOW as NOW


@pytest.fixture(scope="module")
def demo(demo_repo):
    """The session's demo instance (tests/conftest.py): read-only."""
    return demo_repo


@pytest.fixture(scope="module")
def authorised(demo_site):
    return demo_site.site, demo_site.report


def _output_text(site: Path) -> tuple[bytes, str]:
    raw = b"\n".join(p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file())
    text = raw.decode("utf-8", "replace")
    # JSON files may escape non-ASCII (\\uXXXX) and pages escape HTML: compare decoded too.
    decoded = json.loads(json.dumps(text))
    return raw, decoded


def test_demo_layout_and_throwaway_keys(demo):
    for path in ("mkdocs.yml", "site_src/index.md", "keys/registry/v0001.yaml", "keys/registry/v0002.yaml.sig", "leaderboards/soohak.yaml"):
        assert (demo / path).is_file(), path
    identity = demo / "keys/demo/identity.txt"
    assert stat.S_IMODE(identity.stat().st_mode) == 0o600
    # one embargo key per benchmark version, then one private results key per benchmark
    assert identity.read_text().count("AGE-SECRET-KEY-1") == 6
    labs = {p.name for p in (demo / "bundles/soohak").iterdir()} - {"_dataset"}
    for lab in labs:  # one private key per lab, named by its lab id
        assert (demo / "keys/demo" / lab).read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")
    manifest = json.loads((demo / "bundles/soohak/_dataset").glob("*/manifest.json").__next__().read_text())
    assert manifest["splits"] == {"mini": 702, "challenge": 340, "refusal": 99}


def test_demo_items_are_bilingual_with_canaries(demo):
    ids = load_identities(demo / "keys/demo/identity.txt", None)
    sealed = next((demo / "bundles/soohak/_dataset").glob("*/items.jsonl.age")).read_bytes()
    items = [orjson.loads(line) for line in unseal(sealed, ids, "items").splitlines()]
    assert len(items) == 1141
    assert all(set(it["question"]) == {"en", "ko"} for it in items)
    assert all(it["canary"] in it["question"]["en"] for it in items)
    assert {it["answer_type"] for it in items if it["split"] == "refusal"} == {"ill_posed"}
    assert len({it["msc"] for it in items if "msc" in it}) >= 8


def test_authorised_demo_reproduces_table_2(authorised):
    site, report = authorised
    assert report.rejections == []
    # SOOHAK Table 2 as stated in the paper's text (seed 000, §5): avg@3 in percent.
    stated = {
        ("mini", "lab-gpt/gpt-5-medium"): 72.22,
        ("mini", "lab-gemini/gemini-3-pro"): 71.70,
        ("mini", "lab-claude/claude-sonnet-4-5"): 40.88,
        ("challenge", "lab-gemini/gemini-3-pro"): 30.39,
        ("challenge", "lab-kimi/kimi-2-5"): 13.87,
        ("refusal", "lab-glm/glm-5"): 49.49,
        ("refusal", "lab-qwen/qwen3-235b-a22b-thinking-2507"): 2.69,
    }
    for (board, submission), value in stated.items():
        rows = orjson.loads((site / f"data/soohak/{board}.json").read_bytes())["rows"]
        row = next(r for r in rows if r["submission"] == submission)
        assert abs(100 * row["metrics"]["avg@3"]["value"] - value) <= 0.5, (board, submission, row["metrics"]["avg@3"])


def test_every_demo_page_says_the_data_is_synthetic(authorised):
    site, _ = authorised
    pages = list(site.rglob("*.html"))
    assert len(pages) > 30
    for page in pages:
        assert "synthetic" in page.read_text(), page


def test_unauthorised_demo_build_leaks_nothing(demo, demo_public):
    site, report = demo_public.site, demo_public.report
    # KCSAT-ML is released in full and its identity published: it builds with no secret.
    assert {s.config.id: s.status for s in report.benchmarks} == {"soohak": "sealed", "livemathematicianbench": "sealed", "kcsat-ml": "released"}
    raw, decoded = _output_text(site)
    ids = load_identities(demo / "keys/demo/identity.txt", None)
    owners: list[str] = []  # the item each needle comes from
    in_raw: list[bytes] = []
    in_decoded: list[str] = []
    for sealed in sorted(demo.glob("bundles/*/_dataset/*/items.jsonl.age")):
        if "kcsat-ml" in sealed.parts:
            continue
        for line in unseal(sealed.read_bytes(), ids, "items").splitlines():
            item = orjson.loads(line)
            for text in [item["canary"], *item["question"].values()]:
                owners.append(item["id"])
                in_raw.append(text.encode())
                in_decoded.append(text)
    # One automaton pass over each form of the output (a substring test per needle over the
    # whole site took minutes): any occurrence of any needle yields at least one match.
    found = ahocorasick_rs.BytesAhoCorasick(in_raw).find_matches_as_indexes(raw)
    found += ahocorasick_rs.AhoCorasick(in_decoded).find_matches_as_indexes(decoded)
    assert not found, sorted({owners[needle] for needle, _, _ in found})
    assert b"AGE-SECRET-KEY" not in raw
    index = orjson.loads((site / "data/index.json").read_bytes())
    assert index["authorised"] is False
    assert all(b["boards"] == [] for b in index["benchmarks"] if b["id"] != "kcsat-ml")


# --- the demo's three release states (builder/demo/releases.py) -------------------------


def _dataset_items(demo, bench):
    ids = load_identities(demo / "keys/demo/identity.txt", None)
    sealed = next((demo / "bundles" / bench / "_dataset").glob("*/items.jsonl.age")).read_bytes()
    return [orjson.loads(line) for line in unseal(sealed, ids, "items").splitlines()]


def test_release_status_shows_all_three_states(demo):
    from click.testing import CliRunner

    from builder.cli import main
    from builder.demo.releases import soohak_release_time

    r = CliRunner().invoke(main, ["release", "status", "--root", str(demo)])
    lines = r.output.splitlines()
    assert "kcsat-ml 1.0: released" in lines
    assert "livemathematicianbench 2026.04: partly released: editions up to 2025-12" in lines
    when = soohak_release_time(NOW)
    soohak = next(line for line in lines if line.startswith("soohak 1.0:"))
    assert soohak.startswith(f"soohak 1.0: scheduled: not before {when:%Y-%m-%d %H:%M} UTC, in "), soohak
    days = (when - datetime.now(timezone.utc)).days  # judged at the real clock
    assert f" {days} d " in soohak or f" {days + 1} d " in soohak, soohak
    r = CliRunner().invoke(main, ["release", "status", "soohak", "--root", str(demo), "--as-of", f"{when:%Y-%m-%dT%H:%M:%SZ}"])
    assert r.output.startswith("soohak 1.0: released")


def test_published_kcsat_identity_opens_exactly_what_was_opted_in(demo):
    """The real age CLI, with the identity KCSAT-ML's full release published, on every .age
    file of the demo: it opens KCSAT-ML's dataset and the results and transcripts its labs
    opted in, and nothing else (no private file, nothing of the other benchmarks)."""
    import subprocess

    from builder.demo.optin import PRIVATE_RESULTS, TRANSCRIPTS
    from builder.release.identity import identity_path

    published = identity_path(demo, "kcsat-ml", "1.0")
    opened, refused = set(), set()
    files = sorted(demo.rglob("*.age"))
    for path in files:
        run = subprocess.run(["age", "-d", "-i", str(published), "-o", "/dev/null", str(path)], capture_output=True)
        (opened if run.returncode == 0 else refused).add(str(path.relative_to(demo)))
        assert run.returncode == 0 or b"no identity matched any of the recipients" in run.stderr, path
    kcsat = {p.parent.relative_to(demo / "bundles/kcsat-ml").as_posix() for p in demo.glob("bundles/kcsat-ml/*/*/manifest.json")}
    subs = kcsat - {k for k in kcsat if k.startswith("_dataset/")}
    expected = {f"bundles/kcsat-ml/{k}/items.jsonl.age" for k in kcsat - subs}
    expected |= {f"bundles/kcsat-ml/{k}/results.jsonl.age" for k in subs - PRIVATE_RESULTS["kcsat-ml"]}
    expected |= {f"bundles/kcsat-ml/{k}/transcripts.jsonl.gz.age" for k, public in TRANSCRIPTS["kcsat-ml"].items() if public}
    assert opened == expected
    assert len(opened) == 1 + 101 + 1 and len(refused) == len(files) - len(opened)
    # every file kept private is among the refused, in every benchmark
    for bench, keys in PRIVATE_RESULTS.items():
        assert {f"bundles/{bench}/{k}/results.jsonl.age" for k in keys} <= refused
    for bench, transcripts in TRANSCRIPTS.items():
        assert {f"bundles/{bench}/{k}/transcripts.jsonl.gz.age" for k, public in transcripts.items() if not public} <= refused


def test_authorised_demo_publishes_exactly_the_released_scope(demo, authorised):
    from builder.demo.releases import LMB_RELEASED_THROUGH
    from tests.release.test_release_build import independent_scan

    site, report = authorised
    assert {s.config.id: s.status for s in report.benchmarks} == {"soohak": "embargoed", "livemathematicianbench": "partly released", "kcsat-ml": "released"}
    lmb = _dataset_items(demo, "livemathematicianbench")
    released = {it["id"] for it in lmb if it["edition"] <= LMB_RELEASED_THROUGH}
    published = [orjson.loads(line) for line in (site / "data/livemathematicianbench/items.jsonl").read_bytes().splitlines()]
    assert {it["id"] for it in published} == released and 0 < len(released) < len(lmb)
    # independent scan: no LMB item outside the scope and no SOOHAK item anywhere
    assert independent_scan(site, [it for it in lmb if it["id"] not in released], every=5) == set()
    assert independent_scan(site, _dataset_items(demo, "soohak"), every=25) == set()
    assert len(list((site / "kcsat-ml" / "items").glob("*.html"))) == len(_dataset_items(demo, "kcsat-ml"))
    # opted-in transcripts of released items only (builder.demo.optin): one per benchmark released
    published = sorted(p.relative_to(site / "data").as_posix() for p in (site / "data").glob("*/transcripts/*/*.jsonl"))
    assert published == ["kcsat-ml/transcripts/lab-solar/solar-10-7b-instruct-v1-0-default-base.jsonl",
                         "livemathematicianbench/transcripts/lab-gpt/gpt-5-4.jsonl"]
    lines = [orjson.loads(line) for line in (site / "data" / published[1]).read_bytes().splitlines()]
    assert {r["item"] for r in lines} == released
    assert orjson.loads((site / "data/index.json").read_bytes())["rehearsal"] is False


def test_data_page_script_recomputes_a_released_board(demo, authorised):
    """The Data page's recompute script, extracted from the page as published and run as
    written in the site's directory, gives the released board's accuracy for every
    opted-in submission (KCSAT-ML is released in the demo)."""
    import re
    import subprocess
    import sys

    site, _ = authorised
    page = (demo / ".sealboard/staged/pages/data.md").read_text(encoding="utf-8")
    script = re.search(r"<!-- sealboard:recompute -->\n```python\n(.*?)```", page, re.S).group(1)
    assert 'BENCH, BOARD = "kcsat-ml", "full"' in script
    out = subprocess.run([sys.executable, "-c", script], cwd=site, capture_output=True, text=True, timeout=300, check=True).stdout
    lines = [line.rsplit(" ", 2) for line in out.splitlines()]
    board = json.loads((site / "data/kcsat-ml/full.json").read_text())
    published = {r["submission"]: r["metrics"]["accuracy"]["value"] for r in board["rows"]}
    matrix_subs = {line.split(",", 1)[0] for line in (site / "data/kcsat-ml/matrix.csv").read_text().splitlines()[1:]}
    assert {sub for sub, _, _ in lines} == matrix_subs and len(lines) >= 2
    for sub, mine, theirs in lines:
        assert float(mine) == published[sub] == float(theirs), sub
