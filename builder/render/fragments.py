"""Generated HTML reaches a page without going through Markdown.

A generated page is Markdown prose (headings, lists, notes) around generated HTML: tables,
grids, chart containers, transcripts. Python-Markdown would read every tag of that HTML to
find where each block ends, and so would mkdocs' anchor scan: two thirds of the
generator's time on the demo. So the page templates wrap each such block in
``{% call fragment() %}…{% endcall %}``, and ``split_page`` (at the one place pages are
written, ``render/site.py``) takes the blocks out of the page and leaves a marker comment,
``<!-- sealboard:fragment n -->``, in place of each. A page's blocks go into one file of the
staged theme folder (``overrides/fragments/<page>.html``, ``SEPARATOR`` between them: one
file a page, not one a block, which on the demo is 900 files written, read and later deleted
instead of 4,800). The page's front matter names the theme template
``sealboard-fragments.html`` (``template:``, honoured by mkdocs and Zensical alike), which
splits the file and puts each block in place of its marker. No hook of ours is involved:
the site is the same with or without them.

A fragment file is read by the theme's template engine (Jinja for mkdocs, minijinja for
Zensical), so it must hold no template syntax: ``{{``, ``{%`` and ``{#`` become
``&#123;{`` and so on (the same characters in HTML). Lab text is escaped by ``e`` before
it gets here (``{`` as ``&#123;``), and JSON in a ``<script>`` has its ``{{`` escaped by
``escaping.script_json``; this is the one check that covers every fragment.
"""

from __future__ import annotations

import os
import re
from typing import Any

import orjson

TEMPLATE = "sealboard-fragments.html"
FOLDER = "fragments"  # under the staged theme folder (site_tree.OVERRIDES)
# What the page templates' ``fragment`` macro puts around a block. Lab text cannot write
# them: ``e`` escapes every ``<``.
OPEN, CLOSE = "<!--sealboard-fragment[-->", "<!--]sealboard-fragment-->"
MARKER = "<!-- sealboard:fragment {n} -->"
# Between a page's blocks in its fragments file (sealboard-fragments.html splits on it). Lab
# text cannot write it (``e`` escapes every ``<``), nor can a block: a block is what lay
# between OPEN and CLOSE, and the page templates write this nowhere.
SEPARATOR = "<!--sealboard-fragment-->"
_TEMPLATE_SYNTAX = re.compile(r"\{(?=[{%#])")


def fragment(caller: object) -> str:
    """The page templates' ``{% call fragment() %}``: the block, delimited for ``split_page``."""
    return OPEN + str(caller()).strip("\n") + CLOSE  # type: ignore[operator]


def inert(html: str) -> str:
    """``html`` with no template syntax left (``{`` before ``{``, ``%`` or ``#`` as ``&#123;``)."""
    return _TEMPLATE_SYNTAX.sub("&#123;", html)


def split_page(page: str, name: str) -> tuple[str, list[str]]:
    """The page with its fragments replaced by markers and ``template:`` in its front matter,
    and the fragments (``name``: the page's path under pages/, without ``.md``)."""
    # Each block is OPEN, then up to the first CLOSE after it, found with str.find: what
    # ``re.sub(OPEN + "(.*?)" + CLOSE, re.DOTALL)`` matched, without the lazy group's step a
    # character (0.38 -> 0.04 CPU-s over the demo's 987 pages).
    found: list[str] = []
    parts: list[str] = []
    at = 0
    while (start := page.find(OPEN, at)) != -1 and (end := page.find(CLOSE, start + len(OPEN))) != -1:
        found.append(inert(page[start + len(OPEN) : end]))
        parts += (page[at:start], MARKER.format(n=len(found)))
        at = end + len(CLOSE)
    if not found:
        return page, []
    text = "".join(parts) + page[at:]
    meta = f"template: {TEMPLATE}\nsealboard_fragments: {{path: {orjson.dumps(name).decode()}, count: {len(found)}}}\n"
    if text.startswith("---\n"):
        text = "---\n" + meta + text[4:]
    else:
        text = "---\n" + meta + "---\n\n" + text
    return text, found


def fragment_path(name: str) -> str:
    """Where the fragments of page ``name`` go, under the staged theme folder."""
    return f"{FOLDER}/{name}.html"


def join_fragments(found: list[str]) -> str:
    """The text of a page's fragments file: its blocks (``split_page``) in order."""
    return SEPARATOR.join(found)


# The front-matter line split_page writes, read back where only the staged page is at hand.
_META = re.compile(r'^sealboard_fragments: \{path: ("(?:[^"\\]|\\.)*"), count: (\d+)\}$', re.MULTILINE)


def fragment_file(page: str) -> str | None:
    """The theme-relative file of the fragments ``page`` (as ``split_page`` wrote it) shows,
    or None for a page without any."""
    meta = _META.search(page.split("\n---", 1)[0])
    return fragment_path(orjson.loads(meta.group(1))) if meta is not None else None


def expand(markdown: str, spec: Any, theme: str) -> str:
    """``markdown`` with each marker replaced by its fragment as ``split_page`` wrote it under
    the theme folder ``theme`` (what the page shows; ``spec`` is the page's
    ``sealboard_fragments`` meta). The search hook indexes the page from this."""
    if not isinstance(spec, dict) or not int(spec.get("count", 0)):
        return markdown
    with open(os.path.join(theme, fragment_path(str(spec.get("path")))), encoding="utf-8") as f:
        blocks = f.read().split(SEPARATOR)
    for n, block in enumerate(blocks[: int(spec.get("count", 0))], 1):
        markdown = markdown.replace(MARKER.format(n=n), block, 1)
    return markdown
