"""The ``sealboard`` mkdocs plugin: adds the staged pages and data to the site.

``sealboard build`` stages generated pages and data under ``.sealboard/staged/``; this
plugin adds them (and Sealboard's default pages, theme override and assets) to whatever
``site_src/`` holds, so ``mkdocs build`` and ``mkdocs serve`` both show the last build.
A hand-written page in ``site_src/`` with the same path wins over a default page.

It also makes the site work wherever it is opened: ``use_directory_urls`` off (pages are
``x.html`` files, so opening ``site/index.html`` from disk navigates to files, and the
generated tables' relative ``.html`` links are right), system fonts instead of Google
Fonts (no request to another host), a 404 page with relative links unless ``site_url``
says where the site lives, and plotly.js only on pages that chart (``sealboard_plotly``
in the page's front matter; one file, cached across pages).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

TEMPLATE = Path(__file__).parent / "site_template"
SUMMARY_MARKER = "<!-- sealboard:benchmarks -->"


def _plotly_js() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


class SealboardPlugin(BasePlugin):
    def _staged(self, config: MkDocsConfig) -> Path:
        return Path(config.config_file_path).parent / ".sealboard" / "staged"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        staged = self._staged(config)
        meta_path = staged / "meta.json"
        self.meta: dict[str, Any] = orjson.loads(meta_path.read_bytes()) if meta_path.is_file() else {}
        # Our overrides sit after the instance's custom_dir, so an instance can override them.
        position = 1 if config.theme.custom_dir else 0
        config.theme.dirs.insert(position, str(TEMPLATE / "overrides"))
        config.extra["sealboard_banner"] = self.meta.get("banner")
        config.use_directory_urls = False
        config.theme["font"] = False
        config.extra["sealboard_noindex"] = bool(self.meta.get("noindex"))
        config.extra_css.append("assets/sealboard.css")
        config.extra_javascript.append("assets/tablesort.min.js")
        config.extra_javascript.append("assets/sealboard.js")
        if not config.nav and self.meta.get("nav"):
            config.nav = self.meta["nav"]
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        staged = self._staged(config)

        def add(src_uri: str, path: Path) -> None:
            if files.get_file_from_path(src_uri) is None:
                files.append(File.generated(config, src_uri, abs_src_path=str(path)))

        for path in sorted((TEMPLATE / "docs").rglob("*.md")):
            add(path.relative_to(TEMPLATE / "docs").as_posix(), path)
        for path in sorted((TEMPLATE / "assets").iterdir()):
            add(f"assets/{path.name}", path)
        add("assets/plotly.min.js", _plotly_js())
        for sub, prefix in (("pages", ""), ("data", "data/")):
            base = staged / sub
            if base.is_dir():
                for path in sorted(p for p in base.rglob("*") if p.is_file()):
                    add(prefix + path.relative_to(base).as_posix(), path)
        return files

    def on_template_context(self, context: dict[str, Any], template_name: str, config: MkDocsConfig) -> dict[str, Any]:
        # mkdocs gives error pages root-absolute links ("/assets/…") when site_url is unset,
        # which break under a sub-path (GitHub Pages project sites).
        if template_name == "404.html" and not config.site_url:
            context["base_url"] = "."
        return context

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if SUMMARY_MARKER in markdown:
            summary = self.meta.get("home_summary") or "_No build yet: run `sealboard build`._"
            markdown = markdown.replace(SUMMARY_MARKER, summary)
        return markdown
