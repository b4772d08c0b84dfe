"""The search index's parts (builder/render/search_docs.py), without a browser.

A generated page's entries come from its own source: one per heading, located by the ids of
the page's table of contents, text without tags or link targets; a section listing rows of
other pages is indexed by its heading only. The index is split into a config-only part
(what every page loads) and the documents (loaded when search is opened), and gets the lunr
language of the scripts its text uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson
from hypothesis import given
from hypothesis import strategies as st

from builder.render.search_docs import (
    _HEADING,
    BENCHMARK_PAGE,
    DOCS_GLOBAL,
    LISTING_ROWS,
    PAGE_BOOST,
    SECTION_CHARS,
    _headings,
    languages,
    page_entries,
    plain,
    split_index,
)


@dataclass
class Anchor:  # what mkdocs' table of contents holds: id, title, children
    id: str
    title: str
    children: list["Anchor"] = field(default_factory=list)


PAGE = (
    """# Item `kcsat-2014-a-01`

[← all items](../items.md) · [items.jsonl](../../data/kcsat-ml/items.jsonl)

<div class="sb-facts"><table><tr><th>Points</th><td>2</td></tr></table></div>

## Question

<div class="sb-item-text" data-lang="ko">함수 $f(x)$ 에 대하여 &amp; 구하는 값을 답하시오.</div>

## Results

<table>
"""
    + "".join(f'<tr><td><a href="../models/lab/m{i}.html">Model {i}</a></td></tr>\n' for i in range(LISTING_ROWS + 1))
    + "</table>\n"
)

TOC = [Anchor("item-kcsat-2014-a-01", "Item kcsat-2014-a-01", [Anchor("question", "Question"), Anchor("results", "Results")])]


def test_a_generated_page_has_one_entry_per_heading_from_its_source():
    entries = page_entries("kcsat-ml/items/kcsat-2014-a-01.html", "KCSAT-ML · item kcsat-2014-a-01", PAGE, TOC)
    assert [e["location"] for e in entries] == [
        "kcsat-ml/items/kcsat-2014-a-01.html",
        "kcsat-ml/items/kcsat-2014-a-01.html#question",
        "kcsat-ml/items/kcsat-2014-a-01.html#results",
    ]
    assert entries[0]["title"] == "KCSAT-ML · item kcsat-2014-a-01"
    assert entries[0]["text"] == "← all items · items.jsonl Points 2"
    # A document is HTML (Material's search UI renders it): the page's "&amp;" is text "&", escaped once.
    assert entries[1] == {"location": "kcsat-ml/items/kcsat-2014-a-01.html#question", "title": "Question",
                          "text": "함수 $f(x)$ 에 대하여 &amp; 구하는 값을 답하시오."}  # fmt: skip
    assert entries[2]["text"] == ""  # a listing of other pages: its heading only


def test_a_table_of_facts_is_indexed_however_many_rows_it_has():
    # A model page's provenance: rows of facts that link nowhere (the lab's notes among them).
    facts = "".join(f"<tr><th>Fact {i}</th><td>value {i}</td></tr>\n" for i in range(LISTING_ROWS + 4))
    page = f"# Model\n\nintro\n\n## Provenance\n\n<table>\n{facts}</table>\n"
    entries = page_entries("m.html", "Model", page, [Anchor("model", "Model", [Anchor("provenance", "Provenance")])])
    assert entries[1]["text"].startswith("Fact 0 value 0 Fact 1 value 1")


def test_headings_that_do_not_pair_with_the_toc_make_one_entry():
    entries = page_entries("x.html", "X", "# X\n\nsome *text*\n\n## A\n\nmore\n", [Anchor("x", "X")])
    assert entries == [{"location": "x.html", "title": "X", "text": "# X some *text* ## A more"}]


def test_long_text_is_cut_at_a_word():
    text = page_entries("x.html", "X", "# X\n\n" + "word " * 1000, [Anchor("x", "X")])[0]["text"]
    assert len(text) <= SECTION_CHARS + 2 and text.endswith(" …") and "wor …" not in text


def test_plain_drops_tags_link_targets_and_markup():
    assert plain('**Bold** [a link](https://x.invalid/) <span class="x">t&lt;</span> `code`{: .c}') == "Bold a link t< code"


def test_languages_follow_the_scripts_of_the_text():
    assert languages(["en"], [{"title": "Item", "text": "함수 f 에 대하여"}]) == ["en", "ko"]
    assert languages(["en"], [{"title": "Item", "text": "α + β = γ, x ∈ ℝ"}]) == ["en"]  # Greek letters in formulas
    assert languages(["en", "ko"], [{"title": "Item", "text": "함수"}]) == ["en", "ko"]


def test_the_index_is_split_into_config_and_documents():
    material = {
        "config": {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": ["stopWordFilter"]},
        "docs": [{"location": "index.html", "title": "Home", "text": "hi"}],
    }
    ours = [{"location": "kcsat-ml/items/a.html", "title": "Item a", "text": "함수"}]
    stub, stub_js, docs_js = split_index(material, ours)
    config = {"lang": ["en", "ko"], "separator": r"[\s\-]+", "pipeline": ["stopWordFilter"]}
    assert orjson.loads(stub) == {"config": config, "docs": []}
    assert stub_js == b"var __index = " + stub + b"\n"  # what Material's bundle reads on file:// pages
    prefix = f"var {DOCS_GLOBAL} = ".encode()
    assert docs_js.startswith(prefix) and docs_js.endswith(b";\n")
    assert orjson.loads(docs_js[len(prefix) : -2]) == material["docs"] + ours


def test_a_benchmarks_own_pages_are_boosted_and_their_sections_are_not():
    material = {"config": {"lang": ["en"]}, "docs": [{"location": "index.html", "title": "Home", "text": "hi"}]}
    ours = [
        {"location": "soohak/mini.html", "title": "SOOHAK-Mini — SOOHAK", "text": "board"},
        {"location": "soohak/mini.html#standings", "title": "Standings", "text": ""},
        {"location": "soohak/models/lab/gpt-5-mini.html", "title": "GPT-5-Mini (Minimal)", "text": ""},
    ]
    _, _, docs_js = split_index(material, ours, {"soohak/mini.html"})
    docs = orjson.loads(docs_js[len(f"var {DOCS_GLOBAL} = ") : -2])
    assert {d["location"]: d.get("boost") for d in docs} == {
        "index.html": None,
        "soohak/mini.html": PAGE_BOOST,
        "soohak/mini.html#standings": None,
        "soohak/models/lab/gpt-5-mini.html": None,
    }
    # Which pages: a benchmark's page and its boards, one folder down; not a model or an item.
    assert BENCHMARK_PAGE.fullmatch("soohak/mini.html") and BENCHMARK_PAGE.fullmatch("kcsat-ml/index.html")
    assert not BENCHMARK_PAGE.fullmatch("soohak/models/lab/gpt-5-mini.html") and not BENCHMARK_PAGE.fullmatch("index.html")


@given(st.text(alphabet="#\n \ta\r", max_size=60))
def test_headings_are_what_the_multiline_heading_pattern_finds(markdown):
    """The fast heading scan (a literal newline first) finds exactly the ATX headings that
    ``^`` with MULTILINE finds: at the start, after any newline, never across lines."""
    assert _headings(markdown) == [(m.start(), m.end()) for m in _HEADING.finditer(markdown)]
