"""Generated HTML kept out of Markdown (render/fragments.py): a page's blocks become theme
files and markers, no fragment holds template syntax, and the fragment reader hook reads
only the theme's fragments folder."""

from __future__ import annotations

import json

import pytest

from builder.render.escaping import page_text, script_json
from builder.render.fragment_reader import reader
from builder.render.fragments import MARKER, SEPARATOR, TEMPLATE, expand, fragment_path, inert, join_fragments, split_page
from builder.render.page_templates import page_environment

PAGE = """---
title: "A page"
---

# A page

Prose with *emphasis*.

{% call fragment() %}
<table><tr><td>{{ e(cell) }}</td></tr></table>
{% endcall %}

## Next

{% call fragment() %}
<script type="application/json">{{ data }}</script>
{% endcall %}
"""


def render(**values: object) -> str:
    env = page_environment("builder.render")
    return env.from_string(PAGE).render(e=page_text, **values)


def test_a_page_keeps_its_prose_and_names_the_template():
    page, found = split_page(render(cell="x", data="{}"), "b/models/l/r")
    assert page.startswith(f'---\ntemplate: {TEMPLATE}\nsealboard_fragments: {{path: "b/models/l/r", count: 2}}\ntitle:')
    assert "Prose with *emphasis*." in page and "## Next" in page and "<table" not in page
    assert MARKER.format(n=1) in page and MARKER.format(n=2) in page
    assert found == ["<table><tr><td>x</td></tr></table>", '<script type="application/json">{}</script>']
    assert fragment_path("b/models/l/r") == "fragments/b/models/l/r.html"  # one file a page


def test_a_page_without_fragments_is_unchanged():
    text = "# Plain\n\n<p>small</p>\n"
    assert split_page(text, "x") == (text, [])


@pytest.mark.parametrize("lab_text", ["{{ 7 * 7 }}", "{% include 'x' %}", "{# c #}", "{{{{"])
def test_no_fragment_holds_template_syntax(lab_text):
    """Lab text in a cell (escaped by e) and in a script's JSON (script_json): the theme's
    template engine would run ``{{ … }}``; the JSON still parses to the same value."""
    data = script_json(json.dumps({"model": lab_text}))
    _, found = split_page(render(cell=lab_text, data=data), "p")
    for block in found:
        assert not any(s in block for s in ("{{", "{%", "{#")), block
    raw = found[1].removeprefix('<script type="application/json">').removesuffix("</script>")
    assert json.loads(raw) == {"model": lab_text}
    assert inert("a {{ b }} {% c %} {# d #} {x}") == "a &#123;{ b }} &#123;% c %} &#123;# d #} {x}"


def test_expand_puts_each_fragment_back(tmp_path):
    page, found = split_page(render(cell="x", data="{}"), "b/p")
    (tmp_path / fragment_path("b/p")).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / fragment_path("b/p")).write_text(join_fragments(found))
    text = expand(page, {"path": "b/p", "count": 2}, str(tmp_path))
    assert found[0] in text and found[1] in text and "sealboard:fragment" not in text
    # Each block in its own marker's place, in order, and the separator nowhere.
    assert text.index(found[0]) < text.index("## Next") < text.index(found[1]) and SEPARATOR not in text


def test_the_reader_reads_the_fragments_folder_only(tmp_path):
    (tmp_path / "fragments/b").mkdir(parents=True)
    (tmp_path / "fragments/b/1.html").write_text("<p>ok</p>")
    (tmp_path / "main.html").write_text("theme")
    read = reader(str(tmp_path))
    assert read("fragments/b/1.html") == "<p>ok</p>"  # control
    for name in ("main.html", "fragments/../main.html", "/etc/passwd", "fragments/../../x"):
        with pytest.raises(ValueError, match="not a fragment of a generated page"):
            read(name)
