"""Releases through the whole build: nothing before the time, exactly the scope at it,
rehearsals marked and refused for deployment, a no-identity rebuild after a full release."""

from __future__ import annotations

import csv
import io
import re
import shutil
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.config import load_configs
from builder.errors import BuilderError, ReleaseError
from builder.pipeline.build import build
from builder.release.apply import apply_release
from builder.release.check import verify_site
from builder.release.identity import identity_path, publish_identity
from builder.release.statement import Scope
from builder.release.status import release_states
from builder.trust.registry import load_registry
from builder.trust.seal import generate_identity, load_identity
from tests.release.support import AFTER, BEFORE, T, released_instance

pytestmark = pytest.mark.slow  # builds released and embargoed sites


def output_bytes(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


CANARY_RE = re.compile(r"CANARY-[A-Za-z0-9-]+")


def independent_scan(site: Path, items: list[dict], every: int = 1) -> set[str]:
    """Ids of items whose canary, or question text (first 60 characters; every `every`-th
    item), appears in any output file — raw, HTML-unescaped or JSON-unescaped — independent
    of the builder's leak scan. Each reading of each file is searched on its own, all the
    question prefixes at once (Aho-Corasick): one string of every reading joined, searched once
    per prefix, took ~30 CPU-s on the demo's site."""
    import gzip
    import html

    import ahocorasick_rs

    prefixes: dict[str, set[str]] = {}  # prefix -> the items it begins
    for it in items[::every]:
        for q in it["question"].values():
            prefixes.setdefault(q[:60], set()).add(it["id"])
    found = prefixes.pop("", set())  # an empty question is in any text
    # UTF-8 finds a pattern only at character boundaries; "surrogatepass" keeps the lone
    # surrogates the JSON reading can hold (a pair's two escapes are read one by one).
    automaton = ahocorasick_rs.BytesAhoCorasick([q.encode("utf-8", "surrogatepass") for q in sorted(prefixes)])
    canaries: dict[str, set[str]] = {}
    for it in items:
        canaries.setdefault(CANARY_RE.search(it["canary"]).group(0), set()).add(it["id"])
    for path, data in output_bytes(site).items():
        if path.endswith(".gz"):
            data = gzip.decompress(data)
        text = data.decode("utf-8", "replace")
        readings = [text, html.unescape(text)]
        if "\\u" in text:  # JSON escapes of non-ASCII text
            readings.append(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text))
        for reading in readings:
            found.update(*(canaries[c] for c in CANARY_RE.findall(reading) if c in canaries))  # exact tokens
            raw = reading.encode("utf-8", "surrogatepass")
            found.update(
                *(
                    prefixes[raw[a:b].decode("utf-8", "surrogatepass")]
                    for _, a, b in automaton.find_matches_as_indexes(raw, overlapping=True)
                )
            )
    return found


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    return released_instance(tmp_path_factory.mktemp("full") / "inst")


@pytest.fixture(scope="module")
def released_site(full, tmp_path_factory):
    """``full``'s authorised site after its release, for the tests that only read it."""
    site = tmp_path_factory.mktemp("released") / "site"
    build(full.root, site, identities=[full.identity], now=AFTER)
    return site


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    return released_instance(tmp_path_factory.mktemp("part") / "inst", scope=Scope(splits=("mini",)))


def test_before_not_before_nothing_is_released(full, tmp_path):
    for identities, name in (([full.identity], "authorised"), ([], "public")):
        report = build(full.root, tmp_path / name, identities=identities, now=BEFORE)
        state = report.benchmarks[0]
        assert state.status == ("embargoed" if identities else "sealed")
        assert state.release.state == "scheduled"
        site = tmp_path / name
        assert not (site / "data" / "soohak" / "items.jsonl").exists()
        assert not (site / "data" / "soohak" / "matrix.csv").exists()
        assert not (site / "soohak" / "items").exists()
        assert independent_scan(site, full.items) == set()


def test_at_not_before_the_scope_appears_and_nothing_else(partial, tmp_path):
    report = build(partial.root, tmp_path / "site", identities=[partial.identity], now=T)
    state = report.benchmarks[0]
    assert state.status == "partly released"
    mini = {it["id"] for it in partial.items if it["split"] == "mini"}
    site = tmp_path / "site"
    published = [orjson.loads(line) for line in (site / "data/soohak/items.jsonl").read_bytes().splitlines()]
    assert {it["id"] for it in published} == mini
    assert independent_scan(site, partial.items) == mini  # released items visible, no other
    matrix = list(csv.DictReader(io.StringIO((site / "data/soohak/matrix.csv").read_text())))
    assert {r["item"] for r in matrix} == mini
    # the builder's own leak scan still guards everything outside the scope
    assert {e[0] for e in state.embargoed_text} == {it["id"] for it in partial.items} - mini
    # a partial release keeps embargo suppression of small cells
    assert verify_site(site)[0].startswith("soohak: partly released: 6 item(s) match")

    # The boards stay right, released split or not. By hand from released_instance, in each
    # split of 6 items: acme gets 2 samples of the even-numbered items and 1 of the odd (9 of
    # 18; every item solved once), beta all 3 samples of every third item (6 of 18; 2 items).
    def board(out: Path, name: str) -> dict:
        return {
            r["submission"]: {k: (v["value"], v["n"]) for k, v in r["metrics"].items()}
            for r in orjson.loads((out / f"data/soohak/{name}.json").read_bytes())["rows"]
        }

    by_hand = {
        "acme/run-1": {"avg@3": (0.5, 6), "pass@3": (1.0, 6)},
        "beta/run-1": {"avg@3": (pytest.approx(1 / 3), 6), "pass@3": (pytest.approx(1 / 3), 6)},
    }
    assert board(site, "mini") == by_hand  # released
    assert board(site, "challenge") == by_hand  # embargoed
    # and the embargoed split's board is the one the embargoed build (before not_before) shows.
    build(partial.root, tmp_path / "before", identities=[partial.identity], now=BEFORE)
    assert board(site, "challenge") == board(tmp_path / "before", "challenge")


def test_unauthorised_build_of_partial_release_publishes_nothing(partial, tmp_path):
    build(partial.root, tmp_path / "site", identities=[], now=AFTER)
    assert independent_scan(tmp_path / "site", partial.items) == set()
    assert not (tmp_path / "site" / "data" / "soohak" / "items.jsonl").exists()


def test_full_release_then_no_identity_rebuild_is_byte_identical(full, tmp_path):
    root = tmp_path / "inst"
    shutil.copytree(full.root, root)
    build(root, tmp_path / "authorised", identities=[full.identity], now=AFTER)
    configs = load_configs(root)
    states = release_states(root, configs, load_registry(root, AFTER), AFTER)
    # an identity file holding other keys too: only this version's key is published
    other = generate_identity()
    both = load_identity(full.identity.reveal_secret() + other.reveal_secret())
    path = publish_identity(root, configs[0], states["soohak"], [both])
    assert load_identity(path.read_text()).recipients == (full.identity.recipient,)
    report = build(root, tmp_path / "public", identities=[], now=AFTER)
    assert not report.authorised and report.benchmarks[0].status == "released"
    a, b = output_bytes(tmp_path / "authorised" / "data"), output_bytes(tmp_path / "public" / "data")
    assert a.keys() == b.keys()
    differ = sorted(k for k in a if a[k] != b[k])
    assert differ == ["index.json"]  # build facts only (authorised: false, time)
    boards = [k for k in a if k.startswith("soohak/") and k.endswith(".json")]
    assert len(boards) > 5


def test_publish_identity_refused_before_release(full, tmp_path):
    root = tmp_path / "inst"
    shutil.copytree(full.root, root)
    configs = load_configs(root)
    states = release_states(root, configs, load_registry(root, BEFORE), BEFORE)
    with pytest.raises(ReleaseError) as exc:
        publish_identity(root, configs[0], states["soohak"], [full.identity])
    assert exc.value.reason == "not-released"


def test_identity_committed_early_is_ignored_and_reported(full, tmp_path):
    root = tmp_path / "inst"
    shutil.copytree(full.root, root)
    path = identity_path(root, "soohak", "test-1")
    path.parent.mkdir(parents=True)
    path.write_text(full.identity.reveal_secret())
    report = build(root, tmp_path / "site", identities=[], now=BEFORE)
    assert report.benchmarks[0].status == "sealed"
    assert [r.reason for r in report.rejections] == ["identity-before-release"]


def test_rehearsal_pages_carry_banner_and_noindex(full, tmp_path):
    build(full.root, tmp_path / "normal", identities=[full.identity], now=BEFORE)
    build(full.root, tmp_path / "rehearsal", identities=[full.identity], now=BEFORE, as_of=T)
    pages = [p for p in (tmp_path / "rehearsal").rglob("*.html")]
    assert len(pages) > 20
    for page in pages:
        text = page.read_text()
        assert '<meta name="robots" content="noindex">' in text, page
        assert "Rehearsal: this site shows what would be public at 2027-01-15 09:00 UTC" in text, page
    for page in (tmp_path / "normal").rglob("*.html"):
        text = page.read_text()
        assert '<meta name="robots" content="noindex">' not in text and "Rehearsal: this site shows" not in text, page
    # the rehearsal shows the release; the deploy check refuses it
    assert (tmp_path / "rehearsal" / "data" / "soohak" / "items.jsonl").is_file()
    with pytest.raises(ReleaseError) as exc:
        verify_site(tmp_path / "rehearsal")
    assert exc.value.reason == "rehearsal"
    r = CliRunner().invoke(main, ["release", "verify", "--site", str(tmp_path / "rehearsal")])
    assert r.exit_code == 1 and "a rehearsal is never deployed" in r.output
    assert verify_site(tmp_path / "normal") == ["soohak: embargoed (nothing released to check)"]


def test_rehearsal_is_authorised_only(full, tmp_path):
    with pytest.raises(BuilderError) as exc:
        build(full.root, tmp_path / "x", identities=[], now=BEFORE, as_of=T)
    assert exc.value.reason == "rehearsal-unauthorised"


def test_commitment_mismatch_blocks_the_release_and_names_the_item(full, tmp_path):
    report = build(full.root, tmp_path / "site", identities=[full.identity], now=AFTER, render=False)
    state = report.benchmarks[0]
    items = [dict(it) for it in state.released_items]
    items[3] = dict(items[3], answer={"en": "999", "ko": "999"})
    # apply to the state as it was before the release was applied
    before = replace(state, status="embargoed", released_items=(), embargoed_text=())
    blocked = apply_release(before, items, state.release)
    assert blocked.status == "embargoed" and blocked.released_items == ()
    assert blocked.release.blocked.startswith(f"commitment-mismatch: item {items[3]['id']!r} does not match")
    assert blocked.release.summary().startswith("embargoed: release blocked: commitment-mismatch")


def test_verify_site_names_a_tampered_item(released_site, tmp_path):
    shutil.copytree(released_site, tmp_path / "site")
    path = tmp_path / "site" / "data" / "soohak" / "items.jsonl"
    lines = path.read_bytes().splitlines()
    item = orjson.loads(lines[2])
    item["answer"]["en"] = "0"
    lines[2] = orjson.dumps(item, option=orjson.OPT_SORT_KEYS)
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ReleaseError) as exc:
        verify_site(tmp_path / "site")
    assert exc.value.reason == "commitment-mismatch" and repr(item["id"]) in exc.value.message


def test_board_recomputed_from_the_published_matrix(released_site):
    """SOOHAK-Mini avg@3 and pass@3 per submission, by hand from matrix.csv (§3.4.5)."""
    data = released_site / "data" / "soohak"
    items = {o["id"]: o for o in map(orjson.loads, (data / "items.jsonl").read_bytes().splitlines())}
    rows = list(csv.DictReader(io.StringIO((data / "matrix.csv").read_text())))
    board = orjson.loads((data / "mini.json").read_bytes())
    assert board["rows"]
    for row in board["rows"]:
        per_item: dict[str, list[bool]] = {}
        for r in rows:
            if r["submission"] == row["submission"] and items[r["item"]]["split"] == "mini":
                # regrade as Sealboard does for integer answers: the answer (a JSON string
                # literal in the CSV) equals the gold; the published verdict says the same
                same = orjson.loads(r["answer"]) == items[r["item"]]["answer"]["en"]
                assert (r["graded_by"], r["regrade_correct"], r["correct"]) == ("regrade", str(same), str(same))
                per_item.setdefault(r["item"], []).append(same)
        avg = sum(sum(v) / len(v) for v in per_item.values()) / len(per_item)
        pass_k = sum(any(v) for v in per_item.values()) / len(per_item)
        assert row["metrics"]["avg@3"]["value"] == pytest.approx(avg)
        assert row["metrics"]["pass@3"]["value"] == pytest.approx(pass_k)
        assert row["metrics"]["avg@3"]["n"] == len(per_item) == 6


@pytest.mark.skipif(not all(shutil.which(t) for t in ("jq", "xxd", "sha256sum", "bash")), reason="needs jq, xxd, sha256sum")
def test_verify_page_shell_steps_work(full, tmp_path):
    """The 'Verify this release' page's sha256sum/jq loop, run as written, on a built site."""
    import subprocess

    root = tmp_path / "inst"
    shutil.copytree(full.root, root)
    build(root, root / "site", identities=[full.identity], now=AFTER)
    page = (root / ".sealboard" / "staged" / "pages" / "verify-release.md").read_text()
    script = page.split("## 1.", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0].replace("B=kcsat-ml", "B=soohak")

    def run() -> str:
        return subprocess.run(["bash", "-c", script], cwd=root / "site", capture_output=True, text=True, check=True).stdout

    assert run() == ""
    path = root / "site" / "data" / "soohak" / "items.jsonl"
    lines = path.read_bytes().splitlines()
    item = orjson.loads(lines[0])
    item["question"]["en"] += " (edited)"
    path.write_bytes(b"\n".join([orjson.dumps(item, option=orjson.OPT_SORT_KEYS), *lines[1:]]) + b"\n")
    assert run() == f"MISMATCH {item['id']}\n"


def test_release_of_aggregates_only_publishes_no_item(tmp_path):
    from builder.release.admin import flip, sign_statement
    from builder.release.statement import Publish
    from tests.factory import NOW, make_instance
    from tests.release.support import distinct_items

    inst = make_instance(tmp_path / "inst", items=distinct_items())
    flip(inst.root, "soohak", T, Scope(), Publish(items=False, results=False, transcripts=False), NOW, name="r1")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    assert report.benchmarks[0].status == "released"
    assert not (tmp_path / "site" / "data" / "soohak" / "items.jsonl").exists()
    assert independent_scan(tmp_path / "site", inst.items) == set()
    assert verify_site(tmp_path / "site") == ["soohak: released (aggregates only: no items published)"]


class _Cells(HTMLParser):
    """Every table of a page as rows of (tag, text) cells, and whether it has a <thead>."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"thead": False, "rows": [], "label": dict(attrs).get("aria-label")})
        elif tag == "thead" and self.tables:
            self.tables[-1]["thead"] = True
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td") and self.tables:
            self._cell = [tag, ""]
            self.tables[-1]["rows"][-1].append(self._cell)

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data


def test_item_page_facts_table_has_no_empty_header_row(released_site):
    parser = _Cells()
    parser.feed((released_site / "soohak/items/m000.html").read_text())
    for table in parser.tables:  # no header cell anywhere that says nothing
        assert all(text.strip() for row in table["rows"] for tag, text in row if tag == "th"), table
    [facts] = [t for t in parser.tables if t["label"] == "Facts about this item"]
    assert not facts["thead"]
    # m000: acme 2 of 3 samples correct, beta 3 of 3 (tests/release/support.py).
    assert [[(tag, text.strip()) for tag, text in row] for row in facts["rows"]] == [
        [("th", "Split"), ("td", "mini")],
        [("th", "Subfield"), ("td", "05")],
        [("th", "Type"), ("td", "graduate (answer: integer)")],
        [("th", "Empirical solve rate"), ("td", "83.3% over 6 sample(s) of 2 opted-in submission(s)")],
    ]
