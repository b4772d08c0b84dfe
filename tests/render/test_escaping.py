"""The one escaping rule for lab text (builder/render/escaping.py), without a browser.

``page_text`` is what every generated page writes lab text with: the text must come out of
the page's YAML front matter, Python-Markdown (the demo's extensions for fidelity, every
extension the site guard allows for safety) and HTML as exactly the text, never a tag, a
link, an attribute or a YAML escape. ``search_document_html`` is what every search document
goes through: text escaped once and bare formatting tags only. Controls: ordinary names read
as themselves.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
import yaml

from builder.render.escaping import SEARCH_TAGS, page_text, search_document_html, search_html
from builder.render.site_guard import ALLOWED_EXTENSIONS

# Markup a lab could write in a displayed field, one route per line: HTML, an event handler
# after a broken-out attribute, a javascript: link (Markdown and wiki syntax), Markdown's
# attribute lists (Python-Markdown's and the legacy one), YAML's backslash escapes, a critic
# mark, a code span, emphasis, a table cell break and HTML's own character references.
HOSTILE = [
    "<img src=x onerror=window.__pwned=1>",
    "<script>window.__pwned=1</script>",
    '"><svg onload=window.__pwned=1>',
    "'><svg onload=window.__pwned=1>",
    "[click](javascript:window.__pwned=1)",
    "![x](javascript:window.__pwned=1)",
    "<javascript:window.__pwned=1>",
    "[[javascript:window.__pwned=1]]",
    "Model {: onclick=window.__pwned=1 }",
    "Model {@onclick=window.__pwned=1}",
    "\\x3cimg src=x onerror=window.__pwned=1\\x3e",
    "\\u003csvg onload=window.__pwned=1\\u003e",
    "{++<b>x</b>++}",
    "`<b>code</b>` *em* _em_ **strong** | cell",
    "&lt;img src=x onerror=window.__pwned=1&gt; &#60;b&#62;",
]
PLAIN = ["Model One", "GPT-4o (2024-08-06)", "수학 모델 7B", "o3-mini · high", "Llama 3.1 405B Instruct"]
DEMO_EXTENSIONS = ["admonition", "attr_list", "def_list", "md_in_html", "tables", "toc"]
# Every extension the site guard lets an instance enable, that loads without settings.
EVERY_EXTENSION = sorted(ALLOWED_EXTENSIONS - {"meta", "legacy_em", "codehilite"})


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text, of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(fragment: str) -> _Elements:
    p = _Elements()
    p.feed(fragment)
    p.close()
    return p


def _contexts(value: str) -> dict[str, str]:
    """The Markdown contexts a generated page writes lab text in (templates' own shapes)."""
    t = page_text(value)
    return {
        "heading": f"# {t}\n",
        "paragraph": f"By {t} (acme).\n",
        "raw block": f'<table class="sb-board"><tr><th scope="row" class="sb-model"><a href="m.html">{t}</a></th><td title="{t}">{t}</td></tr></table>\n',
        "attribute": f'<select><option value="{t}">{t}</option></select>\n',
    }


def _render(source: str, extensions: list[str]) -> str:
    return markdown.Markdown(extensions=extensions).convert(source)


def _active(tags: list[tuple[str, dict[str, str | None]]]) -> list[tuple[str, str, str | None]]:
    """Anything a browser could run: an event handler, a javascript: URL, a script, an image, an svg."""
    out = []
    for tag, attrs in tags:
        if tag in ("script", "img", "svg", "iframe", "object", "embed"):
            out.append((tag, "", None))
        for name, value in attrs.items():
            if name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                out.append((tag, name, value))
    return out


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("extensions", [DEMO_EXTENSIONS, EVERY_EXTENSION], ids=["demo-extensions", "every-allowed-extension"])
def test_lab_markup_in_a_page_is_inert_in_every_markdown_context(value: str, extensions: list[str]) -> None:
    for context, source in _contexts(value).items():
        page = _parse(_render(source, extensions))
        assert _active(page.tags) == [], (context, source)
        assert all(tag in ("h1", "p", "a", "table", "tr", "th", "td", "select", "option", "tbody") for tag, _ in page.tags), (
            context,
            page.tags,
        )


@pytest.mark.parametrize("value", HOSTILE + PLAIN)
def test_lab_text_reads_as_itself_in_every_markdown_context(value: str) -> None:
    for context, source in _contexts(value).items():
        page = _parse(_render(source, DEMO_EXTENSIONS))
        assert value in "".join(page.text) or context == "attribute", (context, "".join(page.text))
        for tag, attrs in page.tags:
            for name in ("title", "value"):
                if name in attrs:
                    assert attrs[name] == value, (context, tag, attrs)


@pytest.mark.parametrize("value", HOSTILE + PLAIN)
def test_a_front_matter_title_holds_the_text_escaped_once(value: str) -> None:
    # The templates' shape: title: "{{ e(name) }} — {{ e(bench) }}" (a YAML double-quoted scalar).
    title = yaml.safe_load(f'title: "{page_text(value)} — SOOHAK"\n')["title"]
    assert "\\" not in title and "<" not in title  # no YAML escape ran; no tag for Material's header
    assert html.unescape(title) == f"{value} — SOOHAK"


def test_ordinary_names_are_written_as_they_are() -> None:
    for value in PLAIN:
        assert page_text(value) == value
    assert page_text(None) == ""


@pytest.mark.parametrize("value", HOSTILE + PLAIN)
def test_a_search_document_holds_text_never_markup(value: str) -> None:
    # As page_entries writes a section (text, escaped once), and as a raw document could hold it.
    for document in (search_html(value), value, f"<p>{value}</p>", f"<p class=x onclick=y>{value}<code>c</code></p>"):
        safe = search_document_html(document)
        tags = _parse(safe).tags
        assert all(tag in SEARCH_TAGS and attrs == {} for tag, attrs in tags), (document, safe)
        assert search_document_html(safe) == safe  # escaped once: a second pass changes nothing
    assert html.unescape(search_document_html(search_html(value))) == value  # the text itself


def test_material_s_own_escaped_documents_are_unchanged() -> None:
    material = "<p>Use <code>bundles/&lt;benchmark&gt;/</code> &amp; more</p><ul><li>one</li></ul>"
    assert search_document_html(material) == material


# The site's own scripts (the vendored one, tablesort, holds no data).
OWN_SCRIPTS = ("sealboard.js", "items.js", "sealboard-search.js")
ASSETS = Path(__file__).resolve().parents[2] / "builder" / "render" / "site_template" / "assets"
HTML_SINKS = re.compile(r"\.(innerHTML|outerHTML)\s*[+]?=|insertAdjacentHTML|document\.write|createContextualFragment|\.html\(")


@pytest.mark.parametrize("name", OWN_SCRIPTS)
def test_the_site_s_scripts_put_data_in_as_text(name: str) -> None:
    source = (ASSETS / name).read_text(encoding="utf-8")
    assert "textContent" in source or name == "sealboard-search.js"  # control: the scripts do write text
    assert not HTML_SINKS.search(source), HTML_SINKS.search(source)
