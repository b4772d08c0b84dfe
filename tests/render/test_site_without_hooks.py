"""The site is right without Sealboard's mkdocs hooks (issue 40): the generator run with none
of them, as Zensical runs it, publishes the same pages (what a visitor sees) and the same
data files; the hooks only make it faster (the nav cache, the search index loaded when
search opens) or quieter (progress). A small released instance with transcripts, so item,
grid, model and board pages all carry generated HTML fragments (render/fragments.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import orjson
import pytest

from builder.pipeline.build import build
from builder.release.statement import Scope
from builder.render.fragments import MARKER, OPEN
from builder.render.site import StagedSite
from builder.report.records import STAGED
from tests.factory import results_for
from tests.release.support import AFTER, released_instance
from tests.release.test_transcripts import _transcripts

# What only the hooks write: the search documents loaded when search opens (search_index.py).
HOOKS_ONLY = {"search/search_docs.js", "search/search_index.js"}
# Files both write differently by design: the search index (split with the hooks), the
# lunr fixes in Material's worker (lunr_fix.py), the sitemap's gzip header time.
DIFFERENT = {"search/search_index.json", "sitemap.xml.gz"}


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The normal build's site and the same staged tree built with no hook."""
    inst = released_instance(tmp_path_factory.mktemp("nohooks") / "inst", scope=Scope(splits=("mini",)))
    inst.add_submission(
        "acme", "open", results_for(inst.items, {it["id"]: [True, False, True] for it in inst.items}),
        publish_transcripts=True, transcripts=_transcripts(inst.items, "OPENMARK"),
    )  # fmt: skip
    out = inst.root.parent / "site"
    report = build(inst.root, out, identities=[inst.identity], now=AFTER)
    assert report.rejections == []
    staged = StagedSite(root=inst.root, staged=inst.root / STAGED, out=inst.root.parent / "plain" / "site")
    plain = dataclasses.replace(staged, hooks=False).build()
    assert not orjson.loads((inst.root / STAGED / "mkdocs.yml").read_bytes()).get("hooks")
    return out, plain


def files(site: Path) -> dict[str, Path]:
    return {p.relative_to(site).as_posix(): p for p in site.rglob("*") if p.is_file()}


def visible(page: bytes) -> list[str]:
    """A page's lines but blank ones (Material's templates leave more or fewer blank lines
    when a page's meta is empty or not; a browser shows none of them)."""
    return [line for line in page.decode().splitlines() if line.strip()]


def test_pages_and_data_are_the_same_without_the_hooks(sites):
    hooked, plain = files(sites[0]), files(sites[1])
    # The published site also holds the build's attestation (publish, after the generator).
    assert set(hooked) - set(plain) - HOOKS_ONLY == {p for p in hooked if p.startswith("attestation/")}
    assert set(plain) <= set(hooked)
    pages = [rel for rel in plain if rel.endswith(".html")]
    assert any("/items/" in rel for rel in pages) and any("/models/" in rel for rel in pages)
    for rel in pages:
        assert visible(hooked[rel].read_bytes()) == visible(plain[rel].read_bytes()), rel
    data = [rel for rel in plain if rel.startswith("data/")]
    assert data
    for rel in data:
        assert hooked[rel].read_bytes() == plain[rel].read_bytes(), rel


def test_generated_html_reaches_the_pages_through_the_theme(sites):
    """The tables are in the page (put there by the theme template from their fragment
    files) and no marker is left, with or without the hooks."""
    for site in sites:
        item = next(p for p in site.rglob("*.html") if "/items/" in p.as_posix())
        text = item.read_text(encoding="utf-8")
        assert 'class="sb-items sb-item-verdicts"' in text and "OPENMARK" in text
        for page in site.rglob("*.html"):
            body = page.read_text(encoding="utf-8")
            assert OPEN not in body and not re.search(re.escape(MARKER).replace(r"\{n\}", r"\d+"), body), page


def test_search_finds_every_page_without_the_hooks(sites):
    """Material indexes every page itself when no hook does (slower, and from the page's
    Markdown only): each page the hooked index holds is in the plain one."""
    hooked, plain = sites
    prefix = b"var __sealboard_search_docs = "
    docs_js = (hooked / "search/search_docs.js").read_bytes()
    with_hooks = {d["location"].split("#")[0] for d in orjson.loads(docs_js[len(prefix) : -2])}
    without = {d["location"].split("#")[0] for d in orjson.loads((plain / "search/search_index.json").read_bytes())["docs"]}
    assert with_hooks and with_hooks - {u for u in with_hooks if u.startswith("snapshots/")} <= without
