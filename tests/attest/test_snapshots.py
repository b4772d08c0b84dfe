"""Snapshots (issue 25): each recorded deploy's boards, as they stood, on the site.

The package fixture's demo has one recorded deploy: the signed build of its embargoed
commit. Its snapshot pages show the recorded board copies; the changelog links them; a
record that does not verify (an edited copy, a key the registry does not list, a folder
renamed) is listed with its reason and shows nothing, and never hides the good ones.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import orjson

from builder.attest.record import folder_name
from builder.attest.snapshots import snapshots
from builder.attest.statement import canonical, parse
from builder.pipeline.build import build, load_build_key
from builder.release.pages import site_release_pages
from builder.render.pages import fmt_rank
from builder.trust.registry_format import parse_time
from builder.trust.sshsig import NS_SITE, sign
from tests.shared_demo import demo_copy


def _copy(root: Path, tmp_path: Path) -> Path:
    return demo_copy(root, tmp_path / "repo")  # sealed files and git objects linked, the rest copied


def _resign(root: Path, source: str, *, later: timedelta, edit=None, key: Path | None = None) -> str:
    """A new record made from ``source``'s: built ``later``, a board changed by ``edit``
    (name -> new bytes), signed with ``key`` (the demo's build key by default), in the folder
    its statement names. Returns the folder name."""
    folder = root / "attestations" / source
    st = orjson.loads((folder / "statement.json").read_bytes())
    st["predicate"]["built"] = (parse_time(st["predicate"]["built"], "t", "built") + later).strftime("%Y-%m-%dT%H:%M:%SZ")
    boards = {p.relative_to(folder / "boards").as_posix(): p.read_bytes() for p in (folder / "boards").rglob("*.json")}
    for name, data in (edit or {}).items():
        boards[name] = data
        for s in st["subject"]:
            if s["name"] == "data/" + name:
                s["digest"]["sha256"] = hashlib.sha256(data).hexdigest()
    statement = canonical(st)
    name = folder_name(parse(statement, "test"))
    target = root / "attestations" / name
    for rel, data in boards.items():
        (target / "boards" / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / "boards" / rel).write_bytes(data)
    (target / "statement.json").write_bytes(statement)
    (target / "index.json").write_bytes((folder / "index.json").read_bytes())
    (target / "statement.json.sig").write_text(sign(load_build_key(key or root / "keys/demo/build_key", None), statement, NS_SITE))
    return name


def _pages(root: Path, tmp_path: Path) -> dict[str, str]:
    return site_release_pages(build(root, tmp_path / "unused", render=False))


def test_the_recorded_deploy_is_a_snapshot_of_every_board_as_it_stood(history, tmp_path):
    pages = _pages(history.root, tmp_path)
    name = history.recorded.name
    index = pages["snapshots.md"]
    for bench in ("kcsat-ml", "livemathematicianbench", "soohak"):
        assert f'href="snapshots/{name}/{bench}.html"' in index, index
        assert f"snapshots/{name}/{bench}.md" in pages
    assert "(embargoed)" in index and "not shown" not in index
    page = pages[f"snapshots/{name}/kcsat-ml.md"]
    assert "when the benchmark was **embargoed**" in page and f"attestations/{name}/" in page
    # Every recorded board is there, and its rows are the recorded rows, in rank order, with
    # the ranked metric's value, interval and n as the board page formats them.
    recorded = orjson.loads((history.root / "attestations" / name / "boards/kcsat-ml/full.json").read_bytes())
    assert f"## {recorded['title']}" in page
    section = page[page.index(f"## {recorded['title']}") :]
    section = section[: section.index("</table>")]
    models = re.findall(r'<th scope="row" class="sb-model">([^<]*)</th>', section)
    ranked = sorted(recorded["rows"], key=lambda r: r["rank"] if r.get("rank") is not None else 10**9)
    assert len(models) == len(ranked) + len(recorded.get("reference_rows", []))
    assert models[0] == ranked[0]["model"].replace("&", "&amp;")
    top = ranked[0]["metrics"][recorded["rank_by"]]
    first_row = section[section.index("<tbody>") :].split("</tr>")[0]
    assert fmt_rank(ranked[0]) in first_row
    assert f"{100 * top['value']:.1f}" in first_row and f">{top['n']}</span>" in first_row
    # The changelog lists the deploy, dated by its signed build time, linking its snapshots.
    built = orjson.loads((history.root / "attestations" / name / "statement.json").read_bytes())["predicate"]["built"]
    changelog = pages["changelog.md"]
    line = next(line for line in changelog.splitlines() if f'<a href="snapshots/{name}/kcsat-ml.html">kcsat-ml</a> (embargoed)' in line)
    assert line.startswith(f"| {built[:10]} | all | deploy recorded; its boards as they stood: "), line


def test_unchanged_boards_point_at_the_deploy_that_first_showed_them(history, tmp_path):
    root = _copy(history.root, tmp_path)
    first = history.recorded.name
    full = root / "attestations" / first / "boards/kcsat-ml/full.json"
    data = orjson.loads(full.read_bytes())
    data["rows"] = data["rows"][:-1]  # a board of kcsat-ml changed; the other benchmarks' did not
    second = _resign(root, first, later=timedelta(hours=6), edit={"kcsat-ml/full.json": orjson.dumps(data)})
    snaps = {s.name: s for s in snapshots(root)}
    assert list(snaps) == [first, second] and all(s.shown for s in snaps.values())
    kept = {b.id: b.same_as for b in snaps[second].benchmarks}
    assert kept == {"kcsat-ml": None, "livemathematicianbench": first, "soohak": first}
    pages = _pages(root, tmp_path)
    assert f"snapshots/{second}/kcsat-ml.md" in pages and f"snapshots/{second}/soohak.md" not in pages
    index = pages["snapshots.md"]
    row = next(r for r in index.split("<tr>") if f"{second}/kcsat-ml" in r)
    assert f'href="snapshots/{first}/soohak.html"' in row
    assert index.index(f"{second}/kcsat-ml") < index.index(f"{first}/kcsat-ml")  # newest first


def test_a_record_that_does_not_verify_shows_nothing_and_hides_nothing(history, tmp_path):
    root = _copy(history.root, tmp_path)
    good = history.recorded.name
    # An edited board copy, its statement not re-signed.
    edited = _resign(root, good, later=timedelta(hours=1))
    board = root / "attestations" / edited / "boards/kcsat-ml/full.json"
    board.write_bytes(board.read_bytes().replace(b'"rank": 1', b'"rank": 3', 1))
    # A statement signed by a key the registry does not list.
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True)
    forged = _resign(root, good, later=timedelta(hours=2), key=stranger)
    # A genuine record copied under another folder name (another date).
    renamed = "20300101T000000Z-000000000000"
    shutil.copytree(root / "attestations" / good, root / "attestations" / renamed)
    snaps = {s.name: s for s in snapshots(root)}
    assert snaps[good].shown and len(snaps[good].benchmarks) == 3
    assert snaps[edited].problem.startswith("attestation-file-changed:") and "data/kcsat-ml/full.json" in snaps[edited].problem
    assert snaps[forged].problem.startswith("attestation-key-not-registered:")
    assert (
        snaps[renamed].problem
        == f"attestation-misfiled: attestations/{renamed}: holds the signed statement of deploy {good}, not of the deploy its name says"
    )
    assert not any(s.benchmarks for s in snaps.values() if not s.shown)
    pages = _pages(root, tmp_path)
    assert not any(name in p for name in (edited, forged, renamed) for p in pages if p.startswith("snapshots/"))
    index = pages["snapshots.md"]
    assert index.count("<strong>not shown</strong>") == 3 and f'href="snapshots/{good}/kcsat-ml.html"' in index
    assert edited not in pages["changelog.md"] and forged not in pages["changelog.md"]


def test_an_unreadable_record_is_listed_with_its_reason(history, tmp_path):
    root = _copy(history.root, tmp_path)
    bad = root / "attestations" / "20261201T000000Z-aaaaaaaaaaaa"
    bad.mkdir()
    (bad / "statement.json").write_bytes(b"{not json")
    snaps = {s.name: s for s in snapshots(root)}
    assert snaps[bad.name].problem and "statement.json" in snaps[bad.name].problem
    assert snaps[history.recorded.name].shown
    assert "<strong>not shown</strong>" in _pages(root, tmp_path)["snapshots.md"]
