"""mkdocs hook of the generated site config: the site nav (and the tabs) are rendered once
per folder for the pages that are not in the nav.

Material renders the whole nav (``partials/nav.html``) into every page: on the demo, a
third of the generator's template time, and most pages (model, lab and item pages) are
kept out of the nav (``not_in_nav``, ``render/site_tree.py``). For such a page the nav's
HTML depends on nothing but the folder the page is in: no nav item is active (mkdocs marks
a page's nav ancestors active, and it has none), ``nav-item.html``'s comparisons with the
page (``page in nav_item.pages``, ``nav_item == page``) are false, and every link is made
relative to the page's folder by the ``url`` filter. So the first such page of a folder
renders it and the others reuse that HTML; a page in the nav always renders its own
(its active item and its table of contents differ).

The tabs (``partials/tabs.html``) are cached the same way: they too depend on the page only
through active flags and relative links. This holds for Material's own templates, so the
cache is used only when the nav, the tabs and every partial they include are Material's:
an instance that overrides one of them in ``theme.custom_dir`` (which might read the page)
gets every page rendered in full. The templates still render in the environment
``jinja_sandbox.py`` returned (Jinja's sandbox); only their result is reused.

This is the one replacement of a third-party internal Sealboard keeps (a compiled
template's ``root_render_func``): it saves more than a tenth of the whole demo build's CPU
(ARCHITECTURE.md, "Site generator hooks"). It depends on Jinja's compiled templates and on
Material's nav partials, so it runs only with the versions it was measured and tested on
(``tested_versions.py``); with any other it says so and every page renders its nav in full.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jinja2 import Environment
from jinja2.runtime import Context

from builder.render.tested_versions import untested

log = logging.getLogger("mkdocs.hooks.sealboard")

# The nav and the tabs above it (``navigation.tabs``): neither reads the page but through its
# nav items' active flags, comparisons with the page and the ``url`` filter.
NAV_TEMPLATES = ("partials/nav.html", "partials/tabs.html")
# What those two include or import (toc.html only for the page's own nav item).
NAV_PARTIALS = ("partials/nav-item.html", "partials/tabs-item.html", "partials/logo.html", "partials/source.html", "partials/toc.html")


def _folder(url: str) -> str:
    """What mkdocs' ``url`` filter makes links relative to (``utils.get_relative_url``)."""
    folder, _, name = url.rpartition("/")
    return folder if "." in name else url


def cached_render(render: Callable[[Context], Iterator[str]]) -> Callable[[Context], Iterator[str]]:
    """``render`` (a template's root render function), reusing its output for pages out of the nav."""
    by_folder: dict[tuple[int, str], str] = {}
    in_nav: dict[int, frozenset[int]] = {}

    def render_nav(context: Context) -> Iterator[str]:
        page, nav = context.get("page"), context.get("nav")
        if page is None or nav is None or getattr(page, "url", None) is None:
            yield from render(context)
            return
        pages = in_nav.get(id(nav))
        if pages is None:
            pages = in_nav[id(nav)] = frozenset(id(p) for p in nav.pages)
        if id(page) in pages:
            yield from render(context)
            return
        key = (id(nav), _folder(page.url))
        out = by_folder.get(key)
        if out is None:
            out = by_folder[key] = "".join(render(context))
        yield out

    return render_nav


def _materials_own(env: Environment, name: str) -> bool:
    import material

    own = Path(material.__file__).resolve().parent / "templates"
    filename = env.get_template(name).filename
    return filename is not None and Path(filename).resolve().is_relative_to(own)


def on_env(env: Environment, config: Any, files: Any) -> Environment:
    if other := untested("mkdocs-material", "Jinja2"):
        log.warning("the nav cache (builder/render/nav_cache.py) is off with %s: every page renders its nav in full", ", ".join(other))
        return env
    if not all(_materials_own(env, name) for name in NAV_TEMPLATES + NAV_PARTIALS):
        return env  # an override might read the page: render every page's nav in full
    for name in NAV_TEMPLATES:
        template = env.get_template(name)
        template.root_render_func = cached_render(template.root_render_func)
    return env
