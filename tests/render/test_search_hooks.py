"""The search-index hook (render/search_index.py) in a real Material build: every page and
data file is the same with it as without, the generated pages' search entries come from
their source while Material indexes the others (the hook marks the generated pages
``search: exclude``, Material's own setting), and the index every page loads holds no
documents."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builder.render.generator import scrubbed_env
from builder.render.search_docs import DOCS_GLOBAL
from builder.render.site_tree import MKDOCS_HOOKS, NOT_IN_NAV
from tests.render.test_site_without_hooks import visible

pytestmark = pytest.mark.slow  # runs mkdocs

PAGES = {
    # An attribute Material's search plugin strips from the page.
    "index.md": '# Home\n\nWelcome to the board.\n\n<p data-search-exclude="yes">Not in search.</p>\n',
    "b/index.md": "# Overview\n\nSee [a model](models/m1.md) and [the data](../data/b/rows.json).\n\n## Boards\n\nOne board.\n",
    "b/models/m1.md": "# Model one\n\nSubmission `lab/m1`.\n\n## Provenance\n\n<table><tr><th>Family</th><td>Ones</td></tr></table>\n",
    "b/items/b-2014-a-01.md": '---\ntitle: "B · item b-2014-a-01"\nsearch:\n  exclude: true\n---\n\n# Item `b-2014-a-01`\n\n## Question\n\n<div>함수 $f(x)$ 에 대하여</div>\n',
    "labs/l1.md": "# Lab one\n",
}
DATA = {"data/b/rows.json": b'{"rows": []}\n'}
NAV = [{"Home": "index.md"}, {"Bench": [{"Overview": "b/index.md"}]}]


def build(tmp: Path, name: str, hooks: list[Path]) -> Path:
    site = tmp / name
    for rel, text in PAGES.items():
        (site / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / "docs" / rel).write_text(text, encoding="utf-8")
    for rel, data in DATA.items():
        (site / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / "docs" / rel).write_bytes(data)
    config = {"site_name": "T", "docs_dir": "docs", "use_directory_urls": False, "theme": {"name": "material", "font": False}, "nav": NAV,
              "not_in_nav": NOT_IN_NAV, "plugins": ["search"], "hooks": [str(h) for h in hooks]}  # fmt: skip
    (site / "mkdocs.yml").write_bytes(orjson.dumps(config))
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs.yml", "-d", "out"], cwd=site, env=scrubbed_env(), check=True
    )
    return site


def _hook(name: str) -> Path:
    return next(h for h in MKDOCS_HOOKS if h.stem == name)


def test_pages_and_data_are_the_same_with_and_without_the_hooks(tmp_path):
    plain = build(tmp_path, "plain", [MKDOCS_HOOKS[0]])
    hooked = build(tmp_path, "hooked", [MKDOCS_HOOKS[0], _hook("search_index")])
    pages = sorted(p.relative_to(plain / "out").as_posix() for p in (plain / "out").rglob("*.html"))
    assert pages == sorted(p.relative_to(hooked / "out").as_posix() for p in (hooked / "out").rglob("*.html"))
    for rel in pages:
        # Blank lines aside: a page whose meta the hook gave ``search`` gets fewer of them
        # from Material's templates (``{% if page.meta %}``); a browser shows none.
        assert visible((hooked / "out" / rel).read_bytes()) == visible((plain / "out" / rel).read_bytes()), rel
    for rel, data in DATA.items():
        assert (hooked / "out" / rel).read_bytes() == data == (plain / "out" / rel).read_bytes()


def test_the_search_index_every_page_loads_holds_no_documents(tmp_path):
    site = build(tmp_path, "hooked", [MKDOCS_HOOKS[0], _hook("search_index")])
    stub = orjson.loads((site / "out/search/search_index.json").read_bytes())
    assert stub["docs"] == [] and stub["config"]["lang"] == ["en", "ko"]
    assert (site / "out/search/search_index.js").read_bytes() == b"var __index = " + orjson.dumps(stub) + b"\n"
    text = (site / "out/search/search_docs.js").read_bytes()
    prefix = f"var {DOCS_GLOBAL} = ".encode()
    docs = orjson.loads(text[len(prefix) : -2])
    where = [d["location"] for d in docs]
    # Material's own entries for the pages in the nav, then Sealboard's for the generated ones
    # (the item page too, which its front matter kept out of Material's index).
    assert where[:2] == ["index.html", "b/index.html"] and "b/index.html#boards" in where
    assert sorted(where[-5:]) == [
        "b/items/b-2014-a-01.html",
        "b/items/b-2014-a-01.html#question",
        "b/models/m1.html",
        "b/models/m1.html#provenance",
        "labs/l1.html",
    ]
    assert {"location": "b/items/b-2014-a-01.html#question", "title": "Question", "text": "함수 $f(x)$ 에 대하여"} in docs
    assert next(d for d in docs if d["location"] == "b/items/b-2014-a-01.html")["title"] == "B · item b-2014-a-01"
