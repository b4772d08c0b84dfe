"""One escaping rule for lab text at every sink: text stays text until the sink writes it,
and each sink writes it escaped exactly once, for the language that sink's reader parses.

A lab writes the model's id, name and family, the run's notes, reasoning effort, harness and
judge names, its answers and transcripts; the registry holds its display name. Each reaches:

- **a generated page** (``page_text``): the page's source is read by YAML (its front
  matter's double-quoted ``title:``), by Python-Markdown and its extensions (a model's name
  is an ``# h1``: ``[x](javascript:…)`` made a link there and a trailing ``{: onclick=… }``
  an attribute, through ``attr_list``), then by the browser as HTML (raw blocks, attribute
  values, Material's header and ``<title>``). Every character any of them gives a meaning
  is written as an HTML character reference: none of the three acts on one (YAML sees no
  backslash escape, Markdown no link, emphasis, code span or attribute list), and the
  browser shows it as the character;
- **a search document** (``search_html`` for text, ``search_document_html`` for what
  Material wrote): Material's search UI puts a document's title and text into the page as
  HTML (its result list is built with ``innerHTML``). The documents hold text escaped once,
  and only the bare formatting tags Material's own indexer keeps;
- **data a script renders** (charts, the compare page, the item grid): JSON in a
  ``<script type="application/json">`` (``script_json``: HTML's specials as JSON escapes,
  so nothing closes the element), drawn with ``textContent`` and, for Plotly's labels,
  ``text()`` in ``assets/sealboard.js``; no site script assigns ``innerHTML``;
- **a tooltip**: Material's ``content.tooltips`` puts an element's ``title`` into the page
  with ``innerHTML``, so lab text is never written into a ``title`` attribute (page or
  script); titles hold Sealboard's and the config's words only.

tests/render/test_lab_markup_browser.py plants markup in every lab field of one instance and
checks, in Chromium, that none of it runs on any kind of page, through search or a share URL.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

# HTML's five (as html.escape writes them, so ordinary text reads the same as before), then
# what YAML's double-quoted scalars (backslash escapes) and Markdown with the extensions a
# site may enable (links, images, footnotes, code spans, emphasis, attribute lists, tables)
# read as syntax inside a line.
_PAGE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"} | {c: f"&#{ord(c)};" for c in "\\`*_[]{}|"})
_PAGE_SYNTAX = re.compile("[" + re.escape("".join(map(chr, _PAGE))) + "]")  # the characters _PAGE replaces


def page_text(value: Any) -> str:
    """``value`` as text in a generated page's source: raw HTML block, attribute value,
    Markdown line or double-quoted front matter alike ("" for None)."""
    if value is None:
        return ""
    text = str(value)
    # Most values hold none of these characters (on the demo's item pages 4,337 of 272,222):
    # a regex search finds that in a fifth of translate's time (0.26 -> 0.07 CPU-s there).
    return text.translate(_PAGE) if _PAGE_SYNTAX.search(text) else text


def search_html(text: str) -> str:
    """Plain text as the HTML of a search document's title or text."""
    return html.escape(text, quote=False)


_TEMPLATE_OPEN = re.compile(r"\{(?=[{%#])")


def script_json(data: bytes | str) -> str:
    """JSON text as the content of a ``<script type="application/json">``: ``<``, ``>`` and
    ``&`` as JSON's ``\\u`` escapes (the same value to ``JSON.parse``), so no ``</script>``
    or comment can end the element early."""
    text = data.decode() if isinstance(data, bytes) else data
    text = text.rstrip("\n").replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    # ``{{``, ``{%``, ``{#`` occur only inside a JSON string: there ``\u007b`` is the same ``{``,
    # and the theme's template engine sees no syntax (render/fragments.py).
    return _TEMPLATE_OPEN.sub(r"\\u007b", text)


# The tags Material's search indexer keeps in a document's text (its Parser.keep), bare.
SEARCH_TAGS = frozenset({"p", "code", "pre", "li", "ol", "ul", "sub", "sup"})
_SKIPPED = frozenset({"script", "style", "object", "template"})


class _SearchHTML(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in _SKIPPED:
            self.skipping += 1
        elif tag in SEARCH_TAGS and not self.skipping:
            self.out.append(f"<{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in SEARCH_TAGS and not self.skipping:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(search_html(data))


def search_document_html(value: str) -> str:
    """A search document's title or text as the search UI may render it: text escaped once,
    the bare tags of SEARCH_TAGS, nothing else (no other tag, no attribute, no comment).
    Text Material escaped, or this module did, comes out as it went in."""
    if not any(c in value for c in "<>&"):
        return value
    parser = _SearchHTML()
    parser.feed(value)
    parser.close()
    return "".join(parser.out)
