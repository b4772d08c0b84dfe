"""mkdocs hook of the generated site config: raw HTML blocks reach the page without being
parsed tag by tag.

Generated pages are Markdown prose around large raw HTML blocks (tables, facts, item text;
``render/templates/``). Python-Markdown hands such a block to the page verbatim, but first
its ``HtmlBlockPreprocessor`` runs ``html.parser`` over every tag to find where the block
ends, and mkdocs runs a second ``html.parser`` pass over the same text to collect anchor ids:
together two thirds of the generator's time on the demo (bench/bench_site.py --profile).

This hook adds a Markdown preprocessor that runs just before those two. It stores a block in
Markdown's own ``htmlStash`` (the very call ``HtmlBlockPreprocessor`` makes, so Markdown's
postprocessor restores it byte for byte) only where it can tell cheaply and exactly where
the block ends, and leaves everything else to Markdown:

- the blocks fill a blank-line-separated chunk: its first line starts in column 0 with a
  block-level start tag, each block ends with the end tag that closes it at the end of a
  line, the next starts the following line with a block-level start tag, and the last ends
  the chunk;
- every ``<`` in it starts a plain start or end tag (no comment, no ``<`` inside an
  attribute value, no ``script``/``style``/``textarea``/``title`` whose content the
  parser reads differently), so a regular expression finds the same tags ``html.parser``
  would, and a replay of ``HTMLExtractor``'s tag stack ends exactly at the chunk's end;
- no chunk before it could have left Markdown inside a raw block (once one might have,
  the rest of the page is left to Markdown);
- Markdown's own ``HtmlBlockPreprocessor`` is in use (``md_in_html`` replaces it, and
  reads ``markdown`` attributes inside blocks: with it, nothing is stashed here).

The ids of stashed blocks are added to the page's anchors (``on_page_content``), so mkdocs'
anchor validation sees what its own scan would have seen. Templates still render in Jinja's
sandbox (``jinja_sandbox.py``); this hook only changes which code finds a block's end.
"""

from __future__ import annotations

import functools
import html
import re
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import HtmlBlockPreprocessor, Preprocessor

# One plain tag: a start tag with well-formed attributes (quoted values may hold anything
# but "<"), or an end tag. Stricter than html.parser: what it accepts, html.parser reads
# as the same tag; anything else makes the chunk fall back to Markdown.
# An attribute value: quoted (anything but "<" and the quote) or bare; and one attribute.
_VALUE = r"""(?:"[^"<]*"|'[^'<]*'|[^\s"'=<>`]+)"""
_ATTRIBUTE = rf"""\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:\s*=\s*{_VALUE})?"""
_TAG = re.compile(
    rf"""<(?:(?P<start>[a-zA-Z][a-zA-Z0-9]*)(?P<attrs>(?:{_ATTRIBUTE})*)\s*(?P<close>/?)|/(?P<end>[a-zA-Z][a-zA-Z0-9]*)\s*)>"""
)
# A tag as above, or any other "<" (which makes a region uncertain).
_TOKEN = re.compile(_TAG.pattern + "|<")
# _TAG with two groups only, a start tag's name and attributes (empty for an end tag): one
# findall in C both counts a region's tags and hands over the attributes that may hold ids.
_TAG_PARTS = re.compile(rf"""<(?:([a-zA-Z][a-zA-Z0-9]*)((?:{_ATTRIBUTE})*)\s*/?|/[a-zA-Z][a-zA-Z0-9]*\s*)>""")
# One attribute of a start tag's attributes as _TAG matched them (consecutive, so never a match inside a value).
_ATTR = re.compile(r"""\s+(?P<name>[a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'=<>`]+)))?""")
# Elements whose content html.parser reads as text, not tags (which ones depends on the
# Python version): their content must hold no "<" at all, so every reading agrees. And
# html.parser may read everything after <plaintext> as text.
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"})
_OPAQUE = frozenset({"plaintext"})
_RAW_TEXT_START = re.compile(rf"<(?:{'|'.join(sorted(_RAW_TEXT | _OPAQUE))})(?=[\s/>])", re.IGNORECASE)
_EMPTY = frozenset({"hr"})  # HTMLExtractor's one block tag that never has content
# A line Markdown could start a raw block on: up to three spaces, then "<".
_MAY_START_RAW = re.compile(r"^ {0,3}<", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ ]*\n")  # the end of a paragraph
_BLANK_LINES = re.compile(r"\n(?:[ ]*\n)+")  # from a paragraph's end to the next one's start


def _opens_block(m: re.Match[str], md: Markdown) -> bool:
    """Whether tag ``m`` starts a raw block HTMLExtractor keeps on a stack (not ``hr``, not ``<x/>``)."""
    tag = m["start"]
    return tag is not None and not m["close"] and tag.lower() not in _EMPTY and md.is_block_level(tag.lower())


def _blank(text: str, start: int, end: int) -> bool:
    return not text[start:end].strip(" ")


def raw_region_end(text: str, pos: int, md: Markdown, ids: set[str]) -> int:
    """Where the raw HTML blocks starting at line start ``pos`` of ``text`` end, if Markdown
    would stash them whole: the end of the line that closes the last block, followed by a
    blank line or the end of the text; each block after the first starts the line after
    the previous one ends. -1 if anything is less certain. Collects the anchor ids."""
    tags: list[tuple[str, str]] = []
    end = _unnested_region_end(text, pos, md, tags)
    if end is None:
        return _replayed_region_end(text, pos, md, ids)
    for tag, attrs in tags:  # every "<" in the region is a plain tag: these are all of them
        if attrs and ("ID" in (up := attrs.upper()) or "NAME" in up):
            ids.update(_ids(tag.lower(), attrs))
    return end


def _unnested_region_end(text: str, pos: int, md: Markdown, tags: list[tuple[str, str]] | None = None) -> int | None:
    """``raw_region_end`` without a replay of the tag stack, where its answer is certain
    from a few searches in C; None where it is not (the replay then decides).

    HTMLExtractor's stack of a raw block empties only when an end tag pops its first
    element, and an end tag pops down to the topmost element of its name. So where block
    ``<B ...>`` holds no other start tag named B, no end tag before the first ``</B>`` can
    empty it, and that one does. The item and model tables hold thousands of cells with
    omitted end tags, whose replay was a tenth of the whole site stage (bench_site.py
    --profile); their blocks never nest their own outer tag.

    ``tags`` gets each tag of the region as (name, attributes); both are empty for an end tag."""
    block = pos
    while True:
        first = _TAG.match(text, block)
        if first is None or not _opens_block(first, md):
            return None
        name = first["start"].lower()
        close = _end_tag(name).search(text, first.end())
        if close is None or _start_tag(name).search(text, first.end(), close.start()):
            return None  # never closed, or nested: only the replay can tell
        # Every "<" up to the close is a plain tag (one "<" each), none reads as raw text.
        found = _TAG_PARTS.findall(text, block, close.end())
        if text.count("<", block, close.end()) != len(found):
            return None
        if _RAW_TEXT_START.search(text, block, close.end()):
            return None
        if tags is not None:
            tags += found
        line_end = text.find("\n", close.end())
        if line_end < 0:
            line_end = len(text)
        if not _blank(text, close.end(), line_end):
            return None  # text after the end tag on its line
        if line_end < len(text):
            after = text.find("\n", line_end + 1)
            if not _blank(text, line_end + 1, len(text) if after < 0 else after):
                block = line_end + 1  # the next block must start this line
                continue
        return line_end


@functools.cache
def _start_tag(name: str) -> re.Pattern[str]:
    return re.compile(rf"<{name}(?=[\s/>])", re.IGNORECASE)


@functools.cache
def _end_tag(name: str) -> re.Pattern[str]:
    return re.compile(rf"</{name}\s*>", re.IGNORECASE)


def _replayed_region_end(text: str, pos: int, md: Markdown, ids: set[str]) -> int:
    """``raw_region_end`` by a replay of HTMLExtractor's tag stack, tag by tag."""
    stack: list[str] = []
    found: list[str] = []
    next_block = pos  # where the next block must start, when the stack is empty
    raw_text = None  # the element whose end tag must be the next "<"
    for m in _TOKEN.finditer(text, pos):
        start, attrs, close, end = m.groups()
        if start is None and end is None:
            return -1  # a comment, a "<" in text or an attribute: leave it to html.parser
        if raw_text is not None:
            if end is None or end.lower() != raw_text:
                return -1
            raw_text = None
        if not stack and (m.start() != next_block or not _opens_block(m, md)):
            return -1  # a new block must start the next line with a block-level start tag
        if start is not None:
            tag = start.lower()
            if attrs and ("ID" in (up := attrs.upper()) or "NAME" in up):
                found.extend(_ids(tag, attrs))  # only where an id or name attribute may be
            if not close and tag not in _EMPTY:
                if tag in _OPAQUE:
                    return -1
                if tag in _RAW_TEXT:
                    raw_text = tag
                stack.append(tag)
            continue
        tag = end.lower()
        if tag in stack:
            while stack.pop() != tag:
                pass
        if stack:
            continue
        # HTMLExtractor ends a raw block here: only spaces may follow on its line.
        line_end = text.find("\n", m.end())
        if line_end < 0:
            line_end = len(text)
        if not _blank(text, m.end(), line_end):
            return -1
        if line_end < len(text):
            after = text.find("\n", line_end + 1)
            if not _blank(text, line_end + 1, len(text) if after < 0 else after):
                next_block = line_end + 1
                continue
        ids.update(found)
        return line_end
    return -1  # a block never closed


def _ids(tag: str, attrs: str) -> list[str]:
    """The anchor ids html.parser would report for a start tag (``id``; ``name`` on ``a``)."""
    out = []
    for a in _ATTR.finditer(attrs):
        name = a["name"].lower()
        if name == "id" or (name == "name" and tag == "a"):
            value = a["dq"] if a["dq"] is not None else a["sq"] if a["sq"] is not None else a["bare"]
            if value is not None:
                out.append(html.unescape(value))
    return out


class RawBlockStash(Preprocessor):
    """Stash the raw HTML blocks whose end is certain (see the module's docstring)."""

    def __init__(self, md: Markdown, ids: set[str]) -> None:
        super().__init__(md)
        self.ids = ids

    def run(self, lines: list[str]) -> list[str]:
        if type(self.md.preprocessors["html_block"]) is not HtmlBlockPreprocessor:
            return lines  # md_in_html (or another extension) decides what a block is
        text = "\n".join(lines)
        out: list[str] = []
        pos, done = 0, 0  # the current line's start; the end of what is already in ``out``
        certain = True  # nothing before ``pos`` can have left Markdown inside a raw block
        while certain and pos < len(text):
            # ``pos`` starts a paragraph: the text's start or the line after a blank line.
            end = raw_region_end(text, pos, self.md, self.ids) if text.startswith("<", pos) else -1
            if end >= 0:
                out.append(text[done:pos])
                # HTMLExtractor keeps the end of the block's last line when a blank line
                # follows it (its blank_line_re: two line ends after the end tag).
                kept = "\n" if end < len(text) and text.find("\n", end + 1) >= 0 else ""
                out.append(self.md.htmlStash.store(text[pos:end] + kept))
                done = end
            else:
                # A paragraph left to Markdown: up to the next blank line.
                blank = _BLANK_LINE.search(text, pos)
                end = len(text) if blank is None else blank.start()
                para = text[pos:end]
                if _MAY_START_RAW.search(para) or "<!" in para or "<?" in para:
                    certain = False
            # Skip to the next paragraph's first line.
            nxt = _BLANK_LINES.match(text, end)
            if nxt is None:
                break
            pos = nxt.end()
        out.append(text[done:])
        return "".join(out).split("\n")


class RawBlockExtension(Extension):
    """Registers ``RawBlockStash`` before mkdocs' anchor scan (21) and Markdown's html_block (20)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()  # anchor ids of the page being converted

    def extendMarkdown(self, md: Markdown) -> None:
        self.ids = set()  # a new Markdown instance per page (mkdocs' Page.render)...
        md.registerExtension(self)  # ...or one reset between pages (markdown_reuse.py)
        md.preprocessors.register(RawBlockStash(md, self.ids), "sealboard_raw_blocks", 22)

    def reset(self) -> None:
        self.ids.clear()


_EXTENSION = RawBlockExtension()


def on_config(config: Any) -> Any:
    config.markdown_extensions.append(_EXTENSION)
    return config


def on_page_content(html_text: str, page: Any, config: Any, files: Any) -> str:
    if page.present_anchor_ids is not None:
        page.present_anchor_ids |= _EXTENSION.ids
    return html_text
