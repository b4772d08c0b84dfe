"""One Markdown converter for every page (render/markdown_reuse.py): a real Material build
gives byte-identical pages with it as without it, with extensions that keep per-page state
(toc, footnotes, abbreviations) and Sealboard's raw-block stash, and builds one converter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builder.render.generator import scrubbed_env
from builder.render.site_tree import MKDOCS_HOOKS

pytestmark = pytest.mark.slow  # runs mkdocs

PAGES = {
    "index.md": "# Home\n\nA footnote[^1] and an HTML abbreviation.\n\n*[HTML]: HyperText Markup Language\n\n[^1]: The note.\n",
    "a.md": '# A\n\n## Same title\n\nText with a note[^1].\n\n[^1]: Another note.\n\n<div id="box">\n<p>raw</p>\n</div>\n\n[back](#box)\n',
    "b.md": "# B\n\n## Same title\n\nNo abbreviation here: HTML.\n\n<table><tr><td>cell</td></tr></table>\n",
    "c/d.md": "# D\n\n[link to a](../a.md#same-title) and [to b](../b.md)\n",
}


def build(tmp: Path, name: str, hooks: list[Path]) -> dict[str, bytes]:
    site = tmp / name
    for rel, text in PAGES.items():
        (site / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / "docs" / rel).write_text(text)
    config = {"site_name": "T", "docs_dir": "docs", "use_directory_urls": False, "theme": {"name": "material", "font": False}, "plugins": [],
              "markdown_extensions": ["footnotes", "abbr", "attr_list", "tables", {"toc": {"permalink": True}}],
              "hooks": [str(h) for h in hooks]}  # fmt: skip
    (site / "mkdocs.yml").write_bytes(orjson.dumps(config))
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "--strict", "-f", "mkdocs.yml", "-d", "out"],
        cwd=site,
        env=scrubbed_env(),
        check=True,
    )
    return {p.relative_to(site / "out").as_posix(): p.read_bytes() for p in (site / "out").rglob("*.html")}


def _hook(name: str) -> Path:
    return next(h for h in MKDOCS_HOOKS if h.stem == name)


def test_pages_are_the_same_with_one_converter(tmp_path):
    plain = build(tmp_path, "plain", [MKDOCS_HOOKS[0], _hook("raw_html_blocks")])
    reused = build(tmp_path, "reused", [MKDOCS_HOOKS[0], _hook("raw_html_blocks"), _hook("markdown_reuse")])
    assert sorted(plain) == sorted(reused) and len(plain) == len(PAGES) + 1
    for rel in plain:
        assert reused[rel] == plain[rel], rel
    # Per-page state did not leak: b's "HTML" is no abbreviation, each page has its own footnote.
    assert b"<abbr" in reused["index.html"] and b"<abbr" not in reused["b.html"]
    assert b"The note." in reused["index.html"] and b"The note." not in reused["a.html"]


def test_one_converter_is_built_and_reset(tmp_path):
    from mkdocs.structure import pages

    import builder.render.markdown_reuse as reuse

    saved = pages.markdown
    try:
        reuse.on_config(None)
        one = pages.markdown
        first = one.Markdown(extensions=(ext := ["toc"]), extension_configs=(cfg := {}))
        first.convert("# A\n")
        second = one.Markdown(extensions=ext, extension_configs=cfg)
        assert second is first and first.toc_tokens == [] and one.made == 1
        assert one.Markdown(extensions=["toc"], extension_configs=cfg) is not first and one.made == 2  # other extensions: a new one
        assert one.treeprocessors is __import__("markdown").treeprocessors  # the rest is markdown's own
    finally:
        pages.markdown = saved
