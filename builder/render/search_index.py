"""mkdocs hook of the generated site config: the search index, with Sealboard's generated
pages indexed from their own source (``search_docs.py``), loaded only when a visitor opens
search.

Only mkdocs events and Material's documented settings: a generated page gets
``search: {exclude: true}`` in its meta (``on_page_markdown``), so Material's plugin skips
it, and this hook adds its entries from the page's Markdown and HTML fragments instead
(``on_page_context``); after Material wrote its index (``on_post_build``), the index is
split into the config every page loads and the documents search loads when opened.

A benchmark's own pages rank first for their own name (``search_docs.PAGE_BOOST``). The
lunr fixes and the worker script for search from disk are not this hook's: the site stage
applies them to whatever the generator wrote (``search_worker.finish``), hooks or not.

Without this hook (Zensical, or mkdocs without Sealboard's hooks) Material indexes every
page from its HTML and loads the whole index at start-up: slower, and the generated pages'
tables (HTML fragments the theme adds after Material indexed the page) are not searched.
"""

from __future__ import annotations

import os
from typing import Any

import orjson
from mkdocs.plugins import event_priority

from builder.render.fragments import expand
from builder.render.search_docs import BENCHMARK_PAGE, UNINDEXED, page_entries, split_index
from builder.render.site_tree import OVERRIDES, is_generated

_ENTRIES: list[dict[str, Any]] = []
_SOURCES: dict[str, str] = {}  # a generated page's Markdown with its fragments, by page URL
_BOOSTED: set[str] = set()  # the URLs of benchmarks' own pages (search_docs.PAGE_BOOST)


def generated(page: Any, config: Any) -> bool:
    """Whether Sealboard wrote this page: its docs file is the staged ``pages/`` file itself
    (``site_tree.assemble`` links it there), or it lies where generated pages go."""
    staged = os.path.join(os.path.dirname(config.config_file_path), "pages", page.file.src_uri)
    try:
        return os.path.samefile(staged, page.file.abs_src_path) or is_generated(page.file.src_uri)
    except OSError:
        return is_generated(page.file.src_uri)


def on_pre_build(config: Any) -> None:
    _ENTRIES.clear()
    _SOURCES.clear()
    _BOOSTED.clear()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if generated(page, config):
        page.meta["search"] = {"exclude": True}  # Material's setting: this hook indexes the page
        if not page.file.src_uri.startswith(UNINDEXED):
            folder = os.path.join(os.path.dirname(config.config_file_path), OVERRIDES)
            _SOURCES[page.url] = expand(markdown, page.meta.get("sealboard_fragments"), folder)
    return markdown


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    source = _SOURCES.pop(page.url, None)
    if source is not None:
        _ENTRIES.extend(page_entries(page.url, str(page.meta.get("title") or page.title), source, page.toc))
    if BENCHMARK_PAGE.fullmatch(page.url) and not page.file.src_uri.startswith(("labs/", *UNINDEXED)):
        _BOOSTED.add(page.url)
    return context


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
