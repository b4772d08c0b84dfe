"""The nav cache (render/nav_cache.py): a real Material build gives the same pages with it as
without it, pages in the nav keep their own active item, and an instance override that
reads the page turns the cache off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest

from builder.render.generator import scrubbed_env
from builder.render.nav_cache import cached_render
from builder.render.site_tree import MKDOCS_HOOKS, NOT_IN_NAV

pytestmark = pytest.mark.slow  # runs mkdocs

PAGES = {
    "index.md": "# Home\n",
    "b/index.md": "# Overview\n\nSee [a model](models/m1.md).\n",
    "b/board.md": "# Board\n\n## Section\n",
    "b/models/m1.md": "# Model one\n",
    "b/models/m2.md": "# Model two\n",
    "labs/l1.md": "# Lab one\n",
    "labs/l2.md": "# Lab two\n",
}
NAV = [{"Home": "index.md"}, {"Bench": [{"Overview": "b/index.md"}, {"Board": "b/board.md"}]}]


def build(tmp: Path, name: str, hooks: list[Path], override: str | None = None) -> dict[str, str]:
    site = tmp / name
    docs = site / "docs"
    for rel, text in PAGES.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text)
    theme: dict[str, object] = {"name": "material", "features": ["navigation.tabs"], "font": False}
    if override is not None:
        (site / "overrides/partials").mkdir(parents=True)
        (site / "overrides/partials/nav.html").write_text(override)
        theme["custom_dir"] = "overrides"
    config = {"site_name": "T", "docs_dir": "docs", "use_directory_urls": False, "theme": theme, "nav": NAV,
              "not_in_nav": NOT_IN_NAV, "plugins": [], "hooks": [str(h) for h in hooks]}  # fmt: skip
    (site / "mkdocs.yml").write_bytes(orjson.dumps(config))
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs.yml", "-d", "out"], cwd=site, env=scrubbed_env(), check=True
    )
    return {p.relative_to(site / "out").as_posix(): p.read_text() for p in (site / "out").rglob("*.html")}


def test_pages_are_the_same_with_and_without_the_cache(tmp_path):
    sandbox, nav_cache = MKDOCS_HOOKS[0], MKDOCS_HOOKS[1]
    plain = build(tmp_path, "plain", [sandbox])
    cached = build(tmp_path, "cached", [sandbox, nav_cache])
    assert sorted(plain) == sorted(cached) and len(plain) == len(PAGES) + 1
    for rel in plain:
        assert cached[rel] == plain[rel], rel
    # The in-nav page still marks itself active; the model pages link the nav relative to their folder.
    assert "md-tabs__item--active" in cached["b/board.html"] and "md-nav__item--active" in cached["b/board.html"]
    assert "--active" not in cached["b/models/m1.html"] and "--active" not in cached["labs/l1.html"]
    assert 'href="../board.html"' in cached["b/models/m2.html"] and 'href="../b/board.html"' in cached["labs/l2.html"]


def test_an_override_that_reads_the_page_turns_the_cache_off(tmp_path):
    override = '<nav class="own">{{ page.title }}</nav>'
    pages = build(tmp_path, "override", [MKDOCS_HOOKS[0], MKDOCS_HOOKS[1]], override=override)
    assert '<nav class="own">Model one</nav>' in pages["b/models/m1.html"]
    assert '<nav class="own">Model two</nav>' in pages["b/models/m2.html"]


def test_one_render_per_folder_for_pages_out_of_the_nav():
    calls: list[str] = []

    def render(context):
        calls.append(context["page"].url)
        yield f"nav for {context['page'].url}"

    in_nav = SimpleNamespace(url="b/board.html")
    nav = SimpleNamespace(pages=[in_nav])
    cached = cached_render(render)
    pages = [SimpleNamespace(url=u) for u in ("b/models/m1.html", "b/models/m2.html", "labs/l1.html", "b/models/m3.html")]
    out = ["".join(cached({"page": p, "nav": nav})) for p in [*pages, in_nav, in_nav]]
    assert calls == ["b/models/m1.html", "labs/l1.html", "b/board.html", "b/board.html"]
    assert out[1] == out[3] == "nav for b/models/m1.html" and out[2] == "nav for labs/l1.html"
