"""mkdocs hook of the generated site config: the search index, with Sealboard's generated
pages indexed from their own source, loaded only when a visitor opens search.

Material's search plugin parses every page's HTML with ``html.parser`` to cut it into
sections (a fifth of the generator's time on the demo, nearly all of it on the generated
boards and model pages). The generated pages (every file of the staged ``pages/``: boards,
benchmark, model, lab and item pages…) are Sealboard's own Markdown around raw HTML
blocks (``render/templates/``, ``release/templates/``), so this hook indexes them from
that source instead: their sections are the page's headings, paired in order with the
ids of the page's table of contents, and a section's text is its source with the tags
stripped, cut at ``SECTION_CHARS``. Material's search UI renders a document's title and
text as HTML, so every document (Material's own too) is written through
``escaping.search_document_html``: lab text escaped once, never markup. Material still indexes the hand-written pages. Item
pages, which Material was told to skip (they were too many for an index every page
loaded), are indexed too, so an item id finds its page.

The index itself (``on_post_build``, after Material's plugin wrote it) is written in
Material's format (``{"config": …, "docs": […]}``) in two parts:

- ``search/search_index.json`` and ``search/search_index.js`` (what Material loads at
  start-up, over HTTP and from disk): the config only, with no documents;
- ``search/search_docs.js``: the documents, as a script, which ``assets/sealboard-search.js``
  loads when search is opened and hands to Material's search worker (a script loads from
  ``file://`` too, where ``fetch`` does not);
- ``search/search_worker.js``: the worker itself as a script, for search from ``file://``
  (``search_worker.py``), where it runs from a ``blob:`` URL.

The config gets the lunr languages of the scripts the documents use: Korean text in a
KCSAT-ML question is otherwise trimmed away by the English pipeline (lunr's trimmer keeps
ASCII word characters only). Material's separator stays: an item id such as
``kcsat-2014-a-01`` is split at its hyphens in the index and in the query alike, and the
item page, whose title holds every part, ranks first.

Material's search worker bundles lunr 2.3.9, whose token set (the automaton a query's terms
are matched against) merges nodes it takes for equal by a string of each node's edge labels
and child ids written without a separator: with digits among the labels (``2014``, digests),
edges ``1→234`` and ``1→2, 3→4`` read alike, and the merged set holds terms the index does
not (lunr.js issues 503, 314). A query reaching one ("a", "kcsat-2014-a-01") makes lunr throw
and Material answer "No matching documents"; which queries do depends on every word of the
index, so it came and went from build to build. ``on_post_build`` appends ``TOKEN_SET_FIX``
to the worker: the same string with a separator after each child id, read before the worker
builds its index. It also unbrackets lunr-languages' Korean word characters
(``KO_WORD_CHARACTERS``): ``lunr.multiLanguage("en", "ko")`` pastes each language's
characters into one class, and Korean's own brackets broke it, so the trimmer trimmed
nothing and a word written ``"laptop`` or ``(Riemann`` could not be found.

After indexing a page, Material's plugin strips ``data-search-*`` attributes from its HTML
with a regular expression that starts with an optional space, so it is tried at every
character of every page; ``on_pre_build`` gives the plugin a stand-in for ``re`` whose
``sub`` returns the text itself when that pattern cannot match (no ``data-search-`` in it),
which is what ``re.sub`` returns then; everything else is ``re``'s own.
"""

from __future__ import annotations

import html
import os
import re
import sys
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from types import ModuleType
from typing import Any

import orjson
from mkdocs.plugins import event_priority

from builder.render import search_worker
from builder.render.escaping import search_document_html, search_html
from builder.render.site_tree import is_generated

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
# A benchmark's own pages (its page, its boards: ``<benchmark>/<page>.html``) rank first for their own name: lunr
# multiplies a document's scores by its ``boost`` (Material's worker passes a document's
# ``boost`` on). Without it "mini" listed 14 pages of "GPT-5-Mini (Minimal)" models, whose
# titles match twice ("mini", "minimal"), before the SOOHAK-Mini board. Measured on the demo:
# 2 is too little for "mini"; at 20 a board whose text lists item ids (kcsat-ml/core.html)
# outranked the item pages for their own ids (test_search_browser.py checks both).
BENCHMARK_PAGE = re.compile(r"[^/]+/[^/]+\.html")
PAGE_BOOST = 4
DOCS_GLOBAL = "__sealboard_search_docs"
# lunr's TokenSet.prototype.toString (lunr.js 2.3.9, lib/token_set.js) with a "," after each
# child id: a label is one character and an id is digits, so the string now reads one way only.
TOKEN_SET_FIX = (
    "\n;/* Sealboard (builder/render/search_index.py): lunr's token-set key, unambiguous. */\n"
    "self.lunr.TokenSet.prototype.toString = function () {\n"
    "  if (this._str) return this._str;\n"
    '  var str = this.final ? "1" : "0", labels = Object.keys(this.edges).sort();\n'
    '  for (var i = 0; i < labels.length; i++) str += labels[i] + this.edges[labels[i]].id + ",";\n'
    "  return str;\n"
    "};\n"
)
# lunr-languages' Korean word characters, written as a class where every other language
# writes bare ranges (the form lunr.multiLanguage expects), and the same without brackets.
KO_WORD_CHARACTERS = ('e.ko.wordCharacters="[A-Za-z\uac00-\ud7a3]"', 'e.ko.wordCharacters="A-Za-z\uac00-\ud7a3"')
LUNR = os.path.join("assets", "javascripts")

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
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
    headings = list(_HEADING.finditer(markdown))
    ids = _toc_ids(toc)
    if len(headings) != len(ids) or not headings:
        return [{"location": url, "title": _title(title), "text": search_html(_cut(plain(markdown)))}]
    out = []
    first = headings[0]
    # The first heading is the page's h1: its section is the page itself.
    ends = [h.start() for h in headings[1:]] + [len(markdown)]
    out.append({"location": url, "title": _title(title), "text": _text(markdown[first.end() : ends[0]])})
    for h, end, (anchor, heading) in zip(headings[1:], ends[1:], ids[1:]):
        out.append({"location": f"{url}#{anchor}", "title": _title(heading), "text": _text(markdown[h.end() : end])})
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


_ENTRIES: list[dict[str, Any]] = []
_BOOSTED: set[str] = set()


_GENERATED: dict[str, bool] = {}


def generated(page: Any, config: Any) -> bool:
    """Whether Sealboard wrote this page: its docs file is the staged ``pages/`` file itself
    (``site_tree.assemble`` links it there), or it lies where generated pages go."""
    uri = page.file.src_uri
    if uri not in _GENERATED:
        staged = os.path.join(os.path.dirname(config.config_file_path), "pages", uri)
        try:
            ours = os.path.samefile(staged, page.file.abs_src_path)
        except OSError:
            ours = False
        _GENERATED[uri] = ours or is_generated(uri)
    return _GENERATED[uri]


# What Material's search plugin strips from every page's HTML after indexing it
# (``SearchPlugin.on_page_context``). The pattern starts with an optional ``\s``, so the
# regular expression engine tries a match at every position of the page: 5% of the
# generator's time on the demo, although no page of a Sealboard site has such an attribute.
MATERIAL_SEARCH_ATTRIBUTES = r"\s?data-search-\w+=\"[^\"]+\""


class _ReSkippingAbsentAttributes(ModuleType):
    """Stands for the ``re`` module inside Material's search plugin: ``re.sub`` of
    ``MATERIAL_SEARCH_ATTRIBUTES`` over a text without ``data-search-``, which every match
    must contain, returns the text itself (what ``re.sub`` returns when nothing matches);
    everything else is ``re``'s own."""

    def __init__(self) -> None:
        super().__init__("re")

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    def sub(self, pattern: Any, repl: Any, string: str, count: int = 0, flags: int = 0) -> str:
        if pattern == MATERIAL_SEARCH_ATTRIBUTES and count == 0 and flags == 0 and "data-search-" not in string:
            return string
        return re.sub(pattern, repl, string, count=count, flags=flags)


def on_pre_build(config: Any) -> None:
    """Material's plugin skips the generated pages (this hook indexes them). Its index's
    method is wrapped rather than each page's ``search: exclude`` set: Material's templates
    read ``page.meta``, and the pages must stay byte for byte what they were."""
    _ENTRIES.clear()
    _BOOSTED.clear()
    material = sys.modules.get("material.plugins.search.plugin")
    if material is not None and not isinstance(getattr(material, "re", None), _ReSkippingAbsentAttributes):
        material.re = _ReSkippingAbsentAttributes()  # type: ignore[attr-defined]
    plugin = config.plugins.get("material/search") or config.plugins.get("search")
    index = getattr(plugin, "search_index", None)
    if index is None or getattr(index.add_entry_from_context, "sealboard", False):
        return
    add = index.add_entry_from_context

    def add_entry_from_context(page: Any) -> None:
        if not generated(page, config):
            add(page)

    add_entry_from_context.sealboard = True  # type: ignore[attr-defined]
    index.add_entry_from_context = add_entry_from_context


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    if generated(page, config) and page.markdown is not None and not page.file.src_uri.startswith(UNINDEXED):
        _ENTRIES.extend(page_entries(page.url, str(page.meta.get("title") or page.title), page.markdown, page.toc))
    if BENCHMARK_PAGE.fullmatch(page.url) and not page.file.src_uri.startswith(("labs/", *UNINDEXED)):
        _BOOSTED.add(page.url)
    return context


def boosted(doc: dict[str, Any], urls: AbstractSet[str]) -> dict[str, Any]:
    """``doc`` with ``PAGE_BOOST`` when it is the whole of a page in ``urls`` (not one of its sections)."""
    return {**doc, "boost": PAGE_BOOST} if doc.get("location") in urls else doc


@event_priority(-50)  # after Material's search plugin (0) wrote its index
def on_post_build(config: Any) -> None:
    folder = os.path.join(config.site_dir, "search")
    path = os.path.join(folder, "search_index.json")
    if not os.path.isfile(path):
        _ENTRIES.clear()
        return  # no search plugin: no index
    with open(path, "rb") as f:
        index = orjson.loads(f.read())
    stub, stub_js, docs_js = split_index(index, _ENTRIES, _BOOSTED)
    _ENTRIES.clear()
    _BOOSTED.clear()
    for name, data in (("search_index.json", stub), ("search_index.js", stub_js), ("search_docs.js", docs_js)):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    patch_lunr(os.path.join(config.site_dir, LUNR))
    # After patch_lunr: the worker run from disk is the patched one.
    search_worker.write_worker_script(config.site_dir, list(orjson.loads(stub)["config"]["lang"]))


def patch_lunr(folder: str) -> None:
    """Apply TOKEN_SET_FIX to Material's search worker(s) and KO_WORD_CHARACTERS to
    lunr-languages' Korean under ``folder`` (the site's ``assets/javascripts``), once. A file
    that no longer holds what a patch changes (another Material) is left as it is; the
    browser tests (tests/render/test_search_browser.py) check the demo's files have both."""
    workers = os.path.join(folder, "workers")
    for name in sorted(os.listdir(workers)) if os.path.isdir(workers) else []:
        if name.startswith("search.") and name.endswith(".js"):
            _patch(os.path.join(workers, name), _with_token_set_fix)
    bracketed, bare = KO_WORD_CHARACTERS
    _patch(os.path.join(folder, "lunr", "min", "lunr.ko.min.js"), lambda s: s.replace(bracketed, bare))


def _with_token_set_fix(worker: str) -> str:
    """The worker with TOKEN_SET_FIX at its end, where it publishes ``self.lunr`` (the fix
    runs after that, before any message builds an index) and has no fix yet."""
    if "self.lunr=" not in worker.replace(" ", "") or TOKEN_SET_FIX in worker:
        return worker
    return worker + TOKEN_SET_FIX


def _patch(path: str, change: Callable[[str], str]) -> None:
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as f:
        source = f.read()
    changed = change(source)
    if changed != source:
        with open(path, "w", encoding="utf-8") as f:
            f.write(changed)
