"""The plain docs tree the site generator builds, and its generated config.

``render_site`` writes the generated pages and data under ``.sealboard/staged/pages`` and
``data``; ``assemble`` then stages everything the generator reads, so that neither mkdocs
nor Zensical needs a Sealboard plugin:

    .sealboard/staged/docs/        Sealboard's default pages, then site_src/ (a hand-written
                                   page wins over a default one), then every generated page,
                                   data/ and assets/ (hard links where possible)
    .sealboard/staged/overrides/   Sealboard's theme override, then the instance's
                                   theme.custom_dir (a folder of site_src/; it may not
                                   replace main.html: the site guard refuses that)
    .sealboard/staged/mkdocs.yml   written by ``write_config`` from the instance's mkdocs.yml

The generated config takes the instance's presentation settings (the site guard has
checked them against its allow-list before the build read any bundle) and fixes what the
site's contract needs: pages are ``x.html`` files (it opens from disk and under any
sub-path), system fonts, Sealboard's CSS and JS, the build's nav, banner and ``noindex``,
and ``not_in_nav`` for the generated pages kept out of the nav (model, lab, item and snapshot pages),
so a preview prints no per-page lines. For mkdocs it adds hooks: the first sandboxes Jinja
(``jinja_sandbox.py``), the others only save time or report progress, every page and data
file the same without them (``fragment_reader.py``, ``search_index.py``, ``progress_hook.py``);
Zensical runs no hooks, and renders templates with minijinja, which has no access to Python
objects at all. The generated pages' HTML (``fragments.py``) is written straight into the
theme folder's ``fragments/``, where no instance file may go (the site guard refuses a
``custom_dir`` that has one, and ``assemble`` places none there), so it is always Sealboard's.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import orjson

from builder.render.fragments import FOLDER, fragment_file
from builder.render.hangul_font import flag_page, hangul_in, write_font
from builder.render.site_guard import MKDOCS_CONFIG, SITE_SRC, custom_dir_of
from builder.strict import loads_yaml

TEMPLATE = Path(__file__).parent / "site_template"
SANDBOX_HOOK = Path(__file__).parent / "jinja_sandbox.py"
# The generated config's mkdocs hooks, in order: the sandbox first (the others work in its
# environment); the pages' HTML fragments read rather than compiled as templates
# (fragment_reader.py); the search index
# (generated pages indexed from their source, documents loaded when search opens, the lunr
# fixes); the pages-done counts the build's progress reads. Every page and data file is the
# same without them (tests/render/test_site_without_hooks.py): they only save time or talk.
MKDOCS_HOOKS = (
    SANDBOX_HOOK,
    *(Path(__file__).parent / f"{name}.py" for name in ("fragment_reader", "search_index", "progress_hook")),
)
SUMMARY_MARKER = "<!-- sealboard:benchmarks -->"
NO_BUILD_SUMMARY = "_No build yet: run `sealboard build`._"
DOCS, OVERRIDES, CONFIG = "docs", "overrides", "mkdocs.yml"
# Generated pages that stay out of the nav (render/site.py, release/pages.py): gitignore-style.
NOT_IN_NAV = "/*/models/\n/labs/\n/*/items/\n/snapshots/\n"
# Instance keys the generated config sets itself (the site guard allows them in mkdocs.yml).
FIXED_KEYS = frozenset({"docs_dir", "site_dir", "use_directory_urls", "not_in_nav"})
OWN_CSS = ["assets/sealboard.css", "assets/items.css"]
OWN_JS = ["assets/tablesort.min.js", "assets/sealboard.js", "assets/items.js"]
# In the page head, before Material's bundle (extra.polyfills): the wrapper that loads the
# search documents when search is opened, and runs the worker from disk (search_worker.py).
OWN_HEAD_JS = ["assets/sealboard-search.js"]


VENDOR = Path(__file__).parent / "vendor"


def plotly_js() -> Path:
    """plotly.js's cartesian bundle (1.5 MB, not the full 4.8 MB): vendor/README.md."""
    return VENDOR / "plotly-cartesian.min.js"


def instance_config(root: Path) -> dict[str, Any]:
    """The instance's mkdocs.yml, parsed strictly (the site guard has already vetted it)."""
    parsed = loads_yaml((root / MKDOCS_CONFIG).read_bytes(), MKDOCS_CONFIG)
    return parsed if isinstance(parsed, dict) else {}


def site_address(root: Path) -> str | None:
    """mkdocs.yml's ``site_url`` (the site's public address), if it sets one."""
    if not (root / MKDOCS_CONFIG).is_file():
        return None
    url = instance_config(root).get("site_url")
    return url if isinstance(url, str) and url.strip() else None


def _place(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)  # the staged tree is rebuilt whole each time: a link is never edited
    except OSError:
        shutil.copyfile(src, dst)


def _files(base: Path, skip: Path | None = None) -> list[tuple[str, Path]]:
    if not base.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        if skip is not None:
            dirnames[:] = [d for d in dirnames if Path(dirpath, d) != skip]
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath, name)
            out.append((path.relative_to(base).as_posix(), path))
    return out


def assemble(root: Path, staged: Path, home_summary: str | None) -> int:
    """Stage docs/ and overrides/ under ``staged`` (beside pages/ and data/); return the
    number of Markdown pages (the generator's page total)."""
    docs, overrides = staged / DOCS, staged / OVERRIDES
    config = instance_config(root) if (root / MKDOCS_CONFIG).is_file() else {}
    custom = custom_dir_of(config)
    custom_path = root / custom if custom else None
    tree: dict[str, Path] = {}
    for rel, path in _files(TEMPLATE / "docs"):
        tree[rel] = path
    for rel, path in _files(root / SITE_SRC, skip=custom_path):
        tree[rel] = path  # a hand-written page wins over a default one
    for rel, path in _files(TEMPLATE / "assets"):
        tree[f"assets/{rel}"] = path
    tree["assets/plotly.min.js"] = plotly_js()
    tree["assets/plotly-LICENSE.txt"] = VENDOR / "plotly-LICENSE.txt"
    for rel, path in _files(staged / "pages"):
        tree[rel] = path
    for rel, path in _files(staged / "data"):
        tree[f"data/{rel}"] = path
    index = tree.get("index.md")
    hangul: set[int] = set()  # every page's Hangul: the web font is cut to it (hangul_font.py)
    for rel, path in tree.items():
        if not rel.endswith(".md"):
            _place(path, docs / rel)
            continue
        original = path.read_text(encoding="utf-8", errors="surrogateescape")
        text = original
        if rel == "index.md" and index is not None and SUMMARY_MARKER in text:
            text = text.replace(SUMMARY_MARKER, home_summary or NO_BUILD_SUMMARY)
        found = hangul_in(text) | _fragments_hangul(text, overrides)
        if found:  # the page links the Hangul web font (overrides/main.html)
            hangul |= found
            text = flag_page(text)
        if text == original:
            _place(path, docs / rel)
            continue
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8", errors="surrogateescape")
    write_font(docs, hangul)
    for rel, path in _files(TEMPLATE / "overrides"):
        _place(path, overrides / rel)
    if custom_path is not None:
        for rel, path in _files(custom_path):
            if rel.split("/", 1)[0] != FOLDER:  # the pages' generated HTML (fragments.py): never an instance's
                _place(path, overrides / rel)
    overrides.mkdir(exist_ok=True)
    return sum(1 for rel in tree if rel.endswith(".md"))


def _uses_md_in_html(docs: Path) -> bool:
    """Whether a page asks md_in_html for Markdown inside HTML (a ``markdown`` attribute)."""
    for rel, path in _files(docs, skip=docs / "data"):
        if rel.endswith(".md") and not is_generated(rel) and b" markdown=" in path.read_bytes():
            return True
    return False


def is_generated(rel: str) -> bool:
    """A generated page's path (render/site.py, release/pages.py: model, lab, item and snapshot
    pages; they never use md_in_html, and search_index.py indexes them from their source)."""
    return "/models/" in rel or "/items/" in rel or rel.startswith(("labs/", "snapshots/"))


def _markdown_extensions(value: Any, docs: Path) -> Any:
    """The instance's extensions, without md_in_html when no page uses it: its HTML parser
    reads every tag of every page's raw HTML blocks (half of Python-Markdown's time on an
    item page), and without a ``markdown`` attribute it changes nothing."""
    if not isinstance(value, list) or _uses_md_in_html(docs):
        return value
    return [x for x in value if x != "md_in_html" and not (isinstance(x, dict) and "md_in_html" in x)]


def _follow_os(palette: Any) -> Any:
    """An instance's light/dark pair as Material's three toggles: the OS setting first
    (``media: "(prefers-color-scheme)"``, followed on every visit), then light, then dark.
    With two ``media`` entries only, Material follows the OS on a first visit and keeps
    that choice. An instance's own ``media``, a single scheme or another shape is kept."""
    if not (isinstance(palette, list) and len(palette) == 2 and all(isinstance(p, dict) and "media" not in p for p in palette)):
        return palette
    light, dark = sorted(palette, key=lambda p: p.get("scheme") == "slate")
    colours = {k: v for k, v in light.items() if k in ("primary", "accent")}
    return [
        {"media": "(prefers-color-scheme)", **colours, "toggle": {"icon": "material/brightness-auto", "name": "Switch to light mode"}},
        dict(light, media="(prefers-color-scheme: light)", toggle=dict(light.get("toggle") or {}, name="Switch to dark mode")),
        dict(dark, media="(prefers-color-scheme: dark)", toggle=dict(dark.get("toggle") or {}, name="Follow the system setting")),
    ]


def _top_names(docs: Path) -> list[str]:
    """The site's top folders and pages (``404.html`` finds the site's root from them)."""
    if not docs.is_dir():
        return []
    return sorted(n.removesuffix(".md") + ".html" if n.endswith(".md") else n for n in os.listdir(docs))


# Material features that render text as HTML. ``content.tooltips`` puts an element's ``title``
# into the page with ``innerHTML``, and Material itself copies a truncated page or nav title
# (a model's or a lab's name: lab text) into a ``title``: hovering the header of a model
# named ``<img onerror=…>`` ran it. Left out of every generated config, whatever the
# instance asks (render/escaping.py: the one escaping rule); browsers show titles as text.
HTML_RENDERING_FEATURES = frozenset({"content.tooltips"})


def _features(value: Any) -> Any:
    return [f for f in value if f not in HTML_RENDERING_FEATURES] if isinstance(value, list) else value


def _without_sealboard(plugins: Any) -> Any:
    """The instance's plugins but the preview shim (mkdocs_plugin.py), in either of mkdocs' forms."""
    if isinstance(plugins, dict):  # mkdocs also takes a mapping name -> options
        return {k: v for k, v in plugins.items() if k != "sealboard"}
    return [p for p in plugins if p != "sealboard" and not (isinstance(p, dict) and "sealboard" in p)]


def generated_config(root: Path, staged: Path, generator: str, site_dir: str, *, hooks: bool = True) -> dict[str, Any]:
    """The config the generator runs with: the instance's settings plus what Sealboard fixes
    (``hooks=False``: none of Sealboard's mkdocs hooks, as Zensical runs it)."""
    instance = instance_config(root)
    meta_path = staged / "meta.json"
    meta: dict[str, Any] = orjson.loads(meta_path.read_bytes()) if meta_path.is_file() else {}
    config = {k: v for k, v in instance.items() if k not in FIXED_KEYS}
    theme = dict(instance.get("theme") or {}) if isinstance(instance.get("theme"), dict) else {"name": instance.get("theme", "material")}
    theme["custom_dir"] = OVERRIDES
    theme["font"] = False  # system fonts: no request to Google Fonts
    if "palette" in theme:
        theme["palette"] = _follow_os(theme["palette"])
    if "features" in theme:
        theme["features"] = _features(theme["features"])
    extra = dict(instance.get("extra") or {})
    extra["sealboard_top"] = _top_names(staged / DOCS)
    extra["sealboard_banner"] = meta.get("banner")
    extra["sealboard_noindex"] = bool(meta.get("noindex"))
    extra["polyfills"] = list(extra.get("polyfills") or []) + OWN_HEAD_JS
    plugins = _without_sealboard(instance.get("plugins") or [])
    config.update(
        {
            "docs_dir": DOCS,
            "site_dir": site_dir,
            "use_directory_urls": False,
            "theme": theme,
            "extra": extra,
            "plugins": plugins,
            "extra_css": list(instance.get("extra_css") or []) + OWN_CSS,
            "extra_javascript": list(instance.get("extra_javascript") or []) + OWN_JS,
            "not_in_nav": NOT_IN_NAV,
        }
    )
    if "markdown_extensions" in instance:
        config["markdown_extensions"] = _markdown_extensions(instance["markdown_extensions"], staged / DOCS)
    if not instance.get("nav") and meta.get("nav"):
        config["nav"] = meta["nav"]
    if generator == "mkdocs" and hooks:
        config["hooks"] = [str(h) for h in MKDOCS_HOOKS]
    return config


def write_config(root: Path, staged: Path, generator: str, site_dir: str, *, hooks: bool = True) -> Path:
    """Write the generated config (JSON, which both generators' YAML readers accept)."""
    path = staged / CONFIG
    path.write_bytes(orjson.dumps(generated_config(root, staged, generator, site_dir, hooks=hooks), option=orjson.OPT_INDENT_2))
    return path


def _fragments_hangul(page: str, theme: Path) -> set[int]:
    """The Hangul of the HTML fragments a generated page shows (render/fragments.py): a
    KCSAT-ML item's question is in its table, not in the page's Markdown."""
    rel = fragment_file(page)
    if rel is None or not (theme / rel).is_file():
        return set()
    return hangul_in((theme / rel).read_text(encoding="utf-8"))
