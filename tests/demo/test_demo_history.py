"""`sealboard demo` has a past (builder.demo.deploys): two earlier deploys, each recorded
whole as the build key signed it, listed on the Snapshots page and in the changelog, whose
links all open a page of the site."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from builder.attest.record import folders
from builder.attest.snapshots import snapshots
from builder.demo.deploys import EARLIER

HREF = re.compile(r'href="([^"#]*)(?:#[^"]*)?"')


def _local_links(page: Path) -> list[str]:
    out = []
    for href in HREF.findall(page.read_text(encoding="utf-8")):
        if href and not urlsplit(href).scheme and not href.startswith("//"):
            out.append(href)
    return out


def _missing(site: Path, page: Path) -> list[str]:
    return [h for h in _local_links(page) if not (page.parent / unquote(urlsplit(h).path)).resolve().exists()]


def test_the_demo_records_its_earlier_deploys_whole(demo_repo: Path) -> None:
    snaps = snapshots(demo_repo)
    assert len(snaps) == len(EARLIER) == len(folders(demo_repo))
    assert [s.problem for s in snaps] == [None] * len(EARLIER)  # verified against the registry's build key, every board copy
    for snap in snaps:
        assert {b.id for b in snap.benchmarks} == {"kcsat-ml", "livemathematicianbench", "soohak"}
        assert all(b.boards for b in snap.benchmarks)
    # The later deploy ranks more submissions than the first: each its own boards, none "same as".
    first, second = ({len(b.boards[0]["rows"]) for b in s.benchmarks if b.id == "kcsat-ml"} for s in snaps)
    assert max(first) < max(second)


def test_snapshots_page_lists_every_deploy_and_the_changelog_links_resolve(demo_site) -> None:
    site = demo_site.site
    index, changelog = site / "snapshots.html", site / "changelog.html"
    names = [p.name for p in folders(demo_site.root)]
    assert len(names) == len(EARLIER)
    links = _local_links(index)
    for name in names:
        pages = [h for h in links if f"snapshots/{name}/" in h]
        assert len(pages) == 3, f"snapshots.html links {pages} for deploy {name}"  # one per benchmark
        assert [h for h in _local_links(changelog) if f"snapshots/{name}/" in h], f"the changelog links no snapshot of {name}"
    assert _missing(site, index) == []
    assert _missing(site, changelog) == []
    # A snapshot page shows the deploy's boards: rows with a rank, not an empty page.
    page = next(h for h in links if f"snapshots/{names[-1]}/kcsat-ml" in h)
    assert "<table" in (site / unquote(page)).read_text(encoding="utf-8")
