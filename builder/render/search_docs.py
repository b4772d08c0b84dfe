"""The search documents of Sealboard's generated pages, from their own source (the search
hook, ``render/search_index.py``, calls these; nothing here touches mkdocs or Material).

Material's search plugin parses every page's HTML with ``html.parser`` to cut it into
sections (a fifth of the generator's time on the demo, nearly all of it on the generated
pages). The generated pages are Sealboard's own Markdown plus HTML fragments
(``render/fragments.py``), so they are indexed from that source instead: their sections are
the page's headings, paired in order with the ids of the page's table of contents, and a
section's text is its source with the tags stripped, cut at ``SECTION_CHARS``. Material's
search UI renders a document's title and text as HTML, so every document (Material's own
too) is written through ``escaping.search_document_html``: lab text escaped once, never
markup.

The index is written in Material's format (``{"config": …, "docs": […]}``) in two parts:
``search/search_index.json`` and ``.js`` (what Material loads at start-up, over HTTP and
from disk) hold the config only; ``search/search_docs.js`` holds the documents, as a
script, which ``assets/sealboard-search.js`` loads when search is opened. The config gets
the lunr languages of the scripts the documents use: Korean text in a KCSAT-ML question is
otherwise trimmed away by the English pipeline. Material's separator stays: an item id such
as ``kcsat-2014-a-01`` is split at its hyphens in the index and in the query alike.
"""

from __future__ import annotations

import html
import re
from collections.abc import Set as AbstractSet
from typing import Any

import orjson

from builder.render.escaping import search_document_html, search_html

SECTION_CHARS = 400
# Scripts whose words lunr can index with a language of Material's bundle (no segmenter
# needed: words are separated by spaces), and that language.
# A word of three letters or more: Greek letters in formulas are not Greek text.
SCRIPT_LANGS = (("ko", re.compile(r"[\uac00-\ud7a3]{2}")), ("ru", re.compile(r"[\u0400-\u04ff]{3}")))
# A section whose table rows link to other pages (the models on an item page, the boards on a
# model page) or that holds many transcripts is a listing: indexed by its heading only, or every
# name would match every page listing it. A table of facts (a model page's provenance, the
# lab's notes among them) is indexed: its rows do not link.
LISTING_ROWS = 8
# Pages left out of the index: a snapshot (release/snapshot_pages.py) repeats every model name
# of a past deploy's boards; a search for a model should find its page, not each dated copy.
UNINDEXED = ("snapshots/",)
DOCS_GLOBAL = "__sealboard_search_docs"
# A benchmark's own pages (its page, its boards: ``<benchmark>/<page>.html``) rank first for
# their own name: lunr multiplies a document's scores by its ``boost`` (Material's worker passes
# a document's ``boost`` on). Without it "mini" listed 14 pages of "GPT-5-Mini (Minimal)"
# models, whose titles match twice ("mini", "minimal"), before the SOOHAK-Mini board. Measured
# on the demo: 2 is too little for "mini"; at 20 a board whose text lists item ids
# (kcsat-ml/core.html) outranked the item pages for their own ids (test_search_browser.py
# checks both).
BENCHMARK_PAGE = re.compile(r"[^/]+/[^/]+\.html")
PAGE_BOOST = 4

# An ATX heading: at the text's start, or after a newline. The second form begins with a
# literal, which ``re`` scans for quickly; the first, "^" with MULTILINE, is tried at every
# character of a generated page's 30 kB (0.17 -> 0.02 CPU-s over the demo's pages).
_ATX = r"(#{1,6})[ \t]+(.+?)[ \t#]*$"
_HEADING = re.compile("^" + _ATX, re.MULTILINE)
_LATER_HEADING = re.compile(r"\n" + _ATX, re.MULTILINE)
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_TAG = re.compile(r"<[^>]*>")
_MARKUP = re.compile(r"\*\*|`|\{[:#.][^}\n]*\}|^[ \t]*(?:[-*+>]|\d+\.)[ \t]+|^[ \t]*\|?[-:| \t]+\|[-:| \t]*$|\|", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def plain(source: str) -> str:
    """A section's text: its Markdown and HTML source without links' targets, tags or markup."""
    text = _MARKUP.sub("", _TAG.sub(" ", _LINK.sub(r"\1", source)))
    return _SPACE.sub(" ", html.unescape(text)).strip()


def _text(source: str) -> str:
    """A section's search text: its plain text, cut, escaped once (a search document is HTML)."""
    linked_rows = sum("<a " in row for row in source.split("<tr")[1:])
    if linked_rows + source.count("<details") > LISTING_ROWS:
        return ""
    return search_html(_cut(plain(source)))


def _title(source: str) -> str:
    """A heading's or page title's search title: its text (the page wrote it escaped), escaped once."""
    return search_html(html.unescape(_TAG.sub("", source)).strip())


def _cut(text: str) -> str:
    return text if len(text) <= SECTION_CHARS else text[:SECTION_CHARS].rsplit(" ", 1)[0] + " …"


def _headings(markdown: str) -> list[tuple[int, int]]:
    """(start, end) of each ATX heading line: what ``_HEADING.finditer`` finds."""
    first = _HEADING.match(markdown)
    later = [(m.start(1), m.end()) for m in _LATER_HEADING.finditer(markdown)]
    return [(first.start(), first.end()), *later] if first else later


def _toc_ids(toc: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for item in toc:
        out.append((item.id, item.title))
        out.extend(_toc_ids(item.children))
    return out


def page_entries(url: str, title: str, markdown: str, toc: Any) -> list[dict[str, str]]:
    """Material's search entries for one generated page: the part before its second heading
    under the page's title, then one per heading (``url#id``). If the headings and the table
    of contents do not pair up one to one, one entry for the whole page."""
    headings = _headings(markdown)
    ids = _toc_ids(toc)
    if len(headings) != len(ids) or not headings:
        return [{"location": url, "title": _title(title), "text": search_html(_cut(plain(markdown)))}]
    out = []
    # The first heading is the page's h1: its section is the page itself.
    ends = [start for start, _ in headings[1:]] + [len(markdown)]
    out.append({"location": url, "title": _title(title), "text": _text(markdown[headings[0][1] : ends[0]])})
    for (_, end_of_heading), end, (anchor, heading) in zip(headings[1:], ends[1:], ids[1:]):
        out.append({"location": f"{url}#{anchor}", "title": _title(heading), "text": _text(markdown[end_of_heading:end])})
    return out


def languages(configured: list[str], docs: list[dict[str, Any]]) -> list[str]:
    """``configured`` plus the language of every script in SCRIPT_LANGS the documents use."""
    langs = list(configured)
    for lang, script in SCRIPT_LANGS:
        if lang not in langs and any(script.search(d.get("text", "")) or script.search(d.get("title", "")) for d in docs):
            langs.append(lang)
    return langs


def safe_document(doc: dict[str, Any]) -> dict[str, Any]:
    """A search document whose title and text the search UI can render as HTML: whoever wrote
    it (Material's indexer, or ``page_entries``), text escaped once and bare formatting tags
    only (``escaping.search_document_html``)."""
    return {k: search_document_html(v) if k in ("title", "text") and isinstance(v, str) else v for k, v in doc.items()}


def boosted(doc: dict[str, Any], urls: AbstractSet[str]) -> dict[str, Any]:
    """``doc`` with ``PAGE_BOOST`` when it is the whole of a page in ``urls`` (not one of its sections)."""
    return {**doc, "boost": PAGE_BOOST} if doc.get("location") in urls else doc


def split_index(
    index: dict[str, Any], generated: list[dict[str, Any]], boost: AbstractSet[str] = frozenset()
) -> tuple[bytes, bytes, bytes]:
    """search_index.json, search_index.js and search_docs.js from Material's index and the
    generated entries; the documents of the whole pages in ``boost`` get ``PAGE_BOOST``."""
    docs = [boosted(safe_document(d), boost) for d in list(index.get("docs") or []) + generated]
    config = dict(index.get("config") or {})
    config["lang"] = languages(list(config.get("lang") or ["en"]), docs)
    stub = orjson.dumps({"config": config, "docs": []})
    return stub, b"var __index = " + stub + b"\n", b"var " + DOCS_GLOBAL.encode() + b" = " + orjson.dumps(docs) + b";\n"
