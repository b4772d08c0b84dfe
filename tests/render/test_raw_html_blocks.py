"""The raw-HTML stash (render/raw_html_blocks.py): Markdown's output is the same with it as
without it, whatever the page holds; the fast path is taken only where the block's end is
certain."""

from __future__ import annotations

import re

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.render.raw_html_blocks import RawBlockExtension, _replayed_region_end, _unnested_region_end, raw_region_end

pytestmark = pytest.mark.slow  # property tests (~30 s)

EXTENSIONS = ["admonition", "attr_list", "def_list", "tables", "toc"]


def convert(text: str, fast: bool, extensions: list[str] = EXTENSIONS) -> tuple[str, RawBlockExtension]:
    ext = RawBlockExtension()
    md = markdown.Markdown(extensions=[*extensions, ext] if fast else extensions, extension_configs={"toc": {"permalink": True}})
    return md.convert(text), ext


def same(a: str, b: str) -> bool:
    return re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b)


TABLE = '<table class="sb-board">\n<thead><tr><th>Model</th><th>Value</th></tr></thead>\n<tbody>\n<tr><td>A<td>1<tr><td>B<td>2</tbody>\n</table>'

# name -> (Markdown source, whether the stash takes the block at the text's start)
CASES = {
    "table with omitted end tags": (f"# T\n\n{TABLE}\n\nAfter *it*.\n", False),
    "block first": (f"{TABLE}\n\nAfter *it*.\n", True),
    "blank lines inside a block": ('<div class="q" style="white-space: pre-wrap">one\n\n*two*\n\nthree</div>\n\nText _here_.\n', True),
    "two blocks on consecutive lines": ("<p>a *b*</p>\n<table><tr><td>1</td></tr></table>\n\n*x*\n", True),
    "text on the line after a block": ("<div>a</div>\n*not raw*\n\nmore\n", False),
    "text after the end tag on its line": ("<div>a</div> *tail*\n\nmore\n", False),
    "comment inside": ("<div><!-- c -->a</div>\n\n*x*\n", False),
    "less-than in text": ("<div>a < b</div>\n\n*x*\n", False),
    "less-than in an attribute": ('<div title="a<b">a</div>\n\n*x*\n', False),
    "greater-than in an attribute": ('<div title="a>b">*a*</div>\n\n*x*\n', True),
    "unclosed block": ("<div>a\n\n*x*\n", False),
    "implicit close by an outer end tag": ("<div><table><tr><td><div>x</table></div>\n\n*y*\n", True),
    "inner end tag closing the block early": ("<div><span></div></span>\n\n*y*\n", False),
    "inline tag first": ("<span>a</span>\n\n*x*\n", False),
    "indented": ("  <div>a</div>\n\n*x*\n", False),
    "hr": ("<hr>\n\n*x*\n", False),
    "script holding a less-than": ('<div><script type="application/json">{"a": "<b>"}</script></div>\n\n*x*\n', False),
    "script holding an end tag": ("<div><div><script>x = '</div>'</script></div>\n\n*x*\n\n</div>\n\n*y*\n", False),
    "script without one": ('<div class="sb-chart"><script type="application/json">{"a": 1}</script></div>\n\n*x*\n', True),
    "self-closing and void tags": ('<div><br><img src="x.png"/><input type=checkbox></div>\n\n*x*\n', True),
    "upper-case tags": ("<DIV>a</Div>\n\n*x*\n", True),
    "entities": ("<p>&lt;b&gt; &amp; &#60;</p>\n\n*x*\n", True),
    "processing instruction": ("<div><?php x ?></div>\n\n*x*\n", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_markdowns_own(name):
    text, taken = CASES[name]
    plain, _ = convert(text, fast=False)
    fast, _ = convert(text, fast=True)
    assert fast == plain  # byte for byte: the page's HTML must not change
    assert (raw_region_end(text, 0, markdown.Markdown(), set()) >= 0) is taken


def test_a_raw_block_after_an_uncertain_one_is_left_to_markdown():
    # The first block is never closed: Markdown stays in raw mode over the blank line, so the
    # "block" after it is part of it, and nothing after an uncertain paragraph is stashed.
    text = f"<div>open\n\n{TABLE}\n\n*x*\n"
    plain, _ = convert(text, fast=False)
    fast, _ = convert(text, fast=True)
    assert same(plain, fast)
    md = markdown.Markdown(extensions=[RawBlockExtension()])
    md.convert(text)
    assert md.htmlStash.html_counter == 1  # Markdown's own single block, not ours


def test_stashed_blocks_are_markdowns_stash_entries():
    text = f"{TABLE}\n\n## Heading\n\n{TABLE}\n"
    md = markdown.Markdown(extensions=[RawBlockExtension()])
    lines = md.preprocessors["sealboard_raw_blocks"].run(text.split("\n"))
    own = markdown.Markdown()
    own.preprocessors["html_block"].run(text.split("\n"))
    # Byte for byte what html_block stores: the first keeps its line end (a blank line follows).
    assert md.htmlStash.rawHtmlBlocks == own.htmlStash.rawHtmlBlocks == [TABLE + "\n", TABLE]
    assert "<" not in "\n".join(lines).replace("## Heading", "")


def test_anchor_ids_of_stashed_blocks_are_collected():
    text = """<div id="top" title='x id="fake"'><a name="a&amp;b">x</a><span name="no">y</span></div>\n\n*x*\n"""
    _, ext = convert(text, fast=True)
    assert ext.ids == {"top", "a&b"}


def test_md_in_html_leaves_every_block_to_markdown():
    text = '<div markdown="1">\n*emphasis*\n</div>\n\n*x*\n'
    plain, _ = convert(text, fast=False, extensions=[*EXTENSIONS, "md_in_html"])
    fast, ext = convert(text, fast=True, extensions=[*EXTENSIONS, "md_in_html"])
    assert plain == fast and "<em>emphasis</em>" in fast


def test_fenced_code_is_not_taken_for_html():
    text = "```\n<div>code</div>\n```\n\n*x*\n"
    plain, _ = convert(text, fast=False, extensions=[*EXTENSIONS, "fenced_code"])
    fast, _ = convert(text, fast=True, extensions=[*EXTENSIONS, "fenced_code"])
    assert plain == fast and "&lt;div&gt;code&lt;/div&gt;" in fast


# Pieces of generated pages and of what a hand-written page may hold: nesting, omitted and
# stray end tags, ids, upper case, comments, a lone "<", raw-text elements, blank lines.
PIECES = [
    "<div>",
    "</div>",
    '<div class="w" id="d1">',
    "<DIV>",
    "</DIV >",
    "<div/>",
    "<table>",
    "</table>",
    "<tr>",
    "</tr>",
    '<td class="n">',
    "</td>",
    "<tbody>",
    "</tbody>",
    "<p>",
    "</p>",
    "<span>",
    "</span>",
    '<a href="x.html" name="n&amp;1">',
    "</a>",
    "<code>",
    "</code>",
    "<br>",
    "<hr>",
    '<img src="i.png"/>',
    '<details id="t-1">',
    "</details>",
    "<summary>",
    "</summary>",
    "<script>",
    "</script>",
    "<!-- c -->",
    " a < b ",
    'x id="no" ',
    "text",
    " *em* ",
    "\n",
    "\n\n",
    "  ",
]


CLEAN = [p for p in PIECES if p not in ("<!-- c -->", " a < b ", "<script>", "</script>", "\\n\\n")]


@settings(max_examples=800, deadline=None)
@given(
    st.sampled_from(["div", "table", "p", "details", "span", "DIV"]),
    st.lists(st.one_of(st.sampled_from(CLEAN), st.sampled_from(PIECES)), max_size=24),
    st.sampled_from(["", " tail", "\n<p>next</p>", "\n<div>a\n\nb</div>", "\ntext", "\n  "]),
)
def test_the_unnested_answer_is_the_replays_wherever_it_gives_one(name, pieces, tail):
    text = f"<{name}>" + "".join(pieces) + f"</{name}>" + tail + "\n\n*after*\n"
    md = markdown.Markdown()
    quick = _unnested_region_end(text, 0, md)
    replayed_ids: set[str] = set()
    replayed = _replayed_region_end(text, 0, md, replayed_ids)
    if quick is not None:
        assert quick == replayed
        ids: set[str] = set()
        assert raw_region_end(text, 0, md, ids) == replayed and ids == replayed_ids
    plain, _ = convert(text, fast=False)
    fast, _ = convert(text, fast=True)
    assert fast == plain


def test_the_item_tables_are_decided_without_a_replay():
    rows = "".join(f'<tr id="m-{i}"><td><a href="m{i}.html">M{i}</a><td>{i}<td><code>{i}</code>' for i in range(300))
    text = f'<div class="sb-table-wrap">\n<table class="sb-items">\n<tbody>\n{rows}</tbody>\n</table>\n</div>\n\n*x*\n'
    ids: set[str] = set()
    assert _unnested_region_end(text, 0, markdown.Markdown()) == text.index("</div>") + len("</div>")
    raw_region_end(text, 0, markdown.Markdown(), ids)
    assert ids == {f"m-{i}" for i in range(300)}
