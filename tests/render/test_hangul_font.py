"""The Hangul web font (builder/render/hangul_font.py): cut to exactly the Hangul the staged
pages hold, linked only by pages holding Hangul, deterministic; and in Chromium, Hangul on a
KCSAT-ML item page is drawn with the shipped font while a page without Korean never loads it
(CI installs fonts-noto-cjk, so only the platform-font check tells the shipped font apart)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from builder.render.hangul_font import CSS, FAMILY, FLAG, FONT, OFL, hangul_in, subset_font
from builder.render.site_tree import assemble

HANGUL_PAGE = "# 문항\n\n정답은 (B)입니다. 한글 ㄱ\n"
LATIN_PAGE = "# Items\n\nNo Korean here.\n"


def _cmap(data: bytes) -> set[int]:
    return set(TTFont(io.BytesIO(data)).getBestCmap())


def _family(data: bytes) -> str:
    return str(TTFont(io.BytesIO(data))["name"].getDebugName(1))


@pytest.fixture
def staged(tmp_path: Path) -> Path:
    root, staged = tmp_path / "inst", tmp_path / "staged"
    root.mkdir()
    (staged / "pages" / "bench" / "items").mkdir(parents=True)
    (staged / "pages" / "bench" / "items" / "k.md").write_text("---\ntitle: K\n---\n\n" + HANGUL_PAGE, encoding="utf-8")
    (staged / "pages" / "bench" / "plain.md").write_text(LATIN_PAGE, encoding="utf-8")
    (staged / "pages" / "bench" / "bare.md").write_text("한국어 " + LATIN_PAGE, encoding="utf-8")
    assemble(root, staged, None)
    return staged / "docs"


def test_the_font_holds_exactly_the_hangul_of_the_staged_pages(staged: Path) -> None:
    pages = [p for p in staged.rglob("*.md")]
    expected = set().union(*(hangul_in(p.read_text(encoding="utf-8")) for p in pages))
    # The default pages (bundle-format.md) quote Korean answers too: their Hangul is in the cut.
    assert hangul_in(HANGUL_PAGE) <= expected and ord("한") in expected and ord("ㄱ") in expected
    font = (staged / FONT).read_bytes()
    assert _cmap(font) == expected
    assert _family(font) == FAMILY
    assert (staged / OFL).read_text(encoding="utf-8").startswith("Copyright 2014-2021 Adobe")
    assert "SIL OPEN FONT LICENSE Version 1.1" in (staged / OFL).read_text(encoding="utf-8")
    assert f'font-family: "{FAMILY}"' in (staged / CSS).read_text(encoding="utf-8")


def test_only_pages_holding_hangul_are_flagged(staged: Path) -> None:
    flagged = {p.relative_to(staged).as_posix() for p in staged.rglob("*.md") if f"\n{FLAG}: true\n" in p.read_text(encoding="utf-8")}
    holding = {p.relative_to(staged).as_posix() for p in staged.rglob("*.md") if hangul_in(p.read_text(encoding="utf-8"))}
    assert flagged == holding
    assert {"bench/items/k.md", "bench/bare.md"} <= flagged and "bench/plain.md" not in flagged
    # Front matter kept (one block, the page's title still in it), or made for a page without one.
    assert (staged / "bench/items/k.md").read_text(encoding="utf-8").startswith(f"---\n{FLAG}: true\ntitle: K\n---\n")
    assert (staged / "bench/bare.md").read_text(encoding="utf-8").startswith(f"---\n{FLAG}: true\n---\n한국어")


def test_no_hangul_no_font(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.render import site_tree

    monkeypatch.setattr(site_tree, "TEMPLATE", tmp_path / "no-template")  # no default page quoting Korean
    staged = tmp_path / "staged"
    (staged / "pages").mkdir(parents=True)
    (staged / "pages" / "plain.md").write_text(LATIN_PAGE, encoding="utf-8")
    (tmp_path / "inst").mkdir()
    assemble(tmp_path / "inst", staged, None)
    assert not (staged / "docs" / FONT).exists() and not (staged / "docs" / CSS).exists()
    assert FLAG not in (staged / "docs" / "plain.md").read_text(encoding="utf-8")


def test_the_cut_is_deterministic_and_small() -> None:
    cps = hangul_in(HANGUL_PAGE)
    one, two = subset_font(cps), subset_font(sorted(cps, reverse=True))
    assert one == two
    assert _cmap(one) == cps
    assert len(one) < 20_000  # a handful of syllables: a few KB, not the 734 KB source


HANGUL_JS = re.compile("[\uac00-\ud7a3]")


def _korean_item_page(site: Path) -> str:
    for page in sorted((site / "kcsat-ml" / "items").glob("*.html")):
        if HANGUL_JS.search(page.read_text(encoding="utf-8")):
            return page.relative_to(site).as_posix()
    raise AssertionError("no KCSAT-ML item page of the demo holds Korean text")


PROBE = """(async () => {
  await document.fonts.ready;
  const re = /[\\uac00-\\ud7a3]/;
  const walker = document.createTreeWalker(document.querySelector('.md-content') || document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (re.test(node.data)) { node.parentElement.id = 'sb-hangul-probe'; break; }
  }
  return {probe: !!document.getElementById('sb-hangul-probe'),
          faces: [...document.fonts].map(f => [f.family.replace(/"/g, ''), f.status])};
})()"""


def _platform_fonts(browser, page) -> list[dict]:
    doc = browser.send("DOM.getDocument", {"depth": 0}, session=page.session)
    node = browser.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "#sb-hangul-probe"}, session=page.session)
    return browser.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]}, session=page.session)["fonts"]


@pytest.mark.browser
@pytest.mark.slow
def test_chromium_draws_korean_with_the_shipped_font(served_demo, browser) -> None:
    site, base = served_demo
    page = browser.page(1440, 900)
    try:
        for domain in ("DOM", "CSS"):
            browser.send(f"{domain}.enable", session=page.session)
        rel = _korean_item_page(site)
        page.goto(base + rel)
        found = page.eval(PROBE)
        assert found["probe"], f"{rel}: no element with Hangul text"
        assert [FAMILY, "loaded"] in found["faces"], f"{rel}: the Hangul font did not load: {found['faces']}"
        fonts = _platform_fonts(browser, page)
        shipped = [f for f in fonts if f["familyName"] == FAMILY]
        assert shipped and shipped[0]["isCustomFont"] and shipped[0]["glyphCount"] > 0, (
            f"{rel}: Hangul drawn with {fonts}, not the shipped {FAMILY}"
        )
        assert any(u.endswith(FONT) for u in page.requests()), page.requests()
        weight = len((site / FONT).read_bytes())
        assert weight < 60_000, f"the Hangul font is {weight} bytes"

        # A board page without Korean: no stylesheet link, no font request.
        page.goto(base + "soohak/index.html")
        assert not (site / "soohak/index.html").read_text(encoding="utf-8").count("hangul.css")
        assert not [u for u in page.requests() if "hangul" in u], page.requests()
        assert page.eval("[...document.fonts].some(f => f.family.includes('Sealboard'))") is False
    finally:
        page.close()


def test_a_page_whose_hangul_is_only_in_its_fragments_is_found(tmp_path):
    """A KCSAT-ML item's question sits in its table, a fragment (render/fragments.py), not in
    the page's Markdown: its Hangul still flags the page and joins the font's cut."""
    from builder.render.fragments import CLOSE, OPEN, fragment_path, join_fragments, split_page
    from builder.render.site_tree import _fragments_hangul

    page, blocks = split_page(f"# Item\n\n{OPEN}<table><td>수학 영역</td></table>{CLOSE}\n", "kcsat-ml/items/x")
    assert blocks, "the table became a fragment"
    (tmp_path / fragment_path("kcsat-ml/items/x")).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / fragment_path("kcsat-ml/items/x")).write_text(join_fragments(blocks), encoding="utf-8")
    assert not hangul_in(page)
    assert _fragments_hangul(page, tmp_path) == {ord(c) for c in "수학영역"}
    assert _fragments_hangul("# No fragments\n", tmp_path) == set()
