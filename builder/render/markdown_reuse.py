"""mkdocs hook of the generated site config: one Markdown converter for every page, reset
between pages, instead of a new one per page.

mkdocs' ``Page.render`` builds a fresh ``markdown.Markdown`` for each page: the extensions
are loaded and every processor registry rebuilt, 5% of the generator's time on the demo
(bench/bench_site.py --profile). Python-Markdown's own way to convert many documents is one
instance and ``reset()`` between them (which clears the stash and references and resets
each extension that keeps state, such as ``toc`` and ``footnotes``). ``Page.render`` stays
mkdocs' own: it looks ``Markdown`` up in the ``markdown`` module it imported, which this
hook replaces, for ``mkdocs.structure.pages`` only, with a stand-in that hands back the
one instance, reset, while the extensions and their configs are the config's same objects.
The per-page processors mkdocs then registers replace the previous page's (a registry
keeps one item per name). Pages are byte-identical with and without it (tests/render/
test_markdown_reuse.py).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import markdown
from mkdocs.structure import pages


class _OneMarkdown(ModuleType):
    """Stands for the ``markdown`` module inside ``mkdocs.structure.pages``."""

    def __init__(self) -> None:
        super().__init__("markdown")
        self._md: markdown.Markdown | None = None
        self._key: tuple[int, int] | None = None
        self.made = 0  # instances built (tests count them)

    def __getattr__(self, name: str) -> Any:
        return getattr(markdown, name)

    def Markdown(self, *, extensions: Any = (), extension_configs: Any = None) -> markdown.Markdown:  # noqa: N802 - markdown's name
        key = (id(extensions), id(extension_configs))
        if self._md is None or key != self._key:
            self._md = markdown.Markdown(extensions=extensions, extension_configs=extension_configs or {})
            self._key = key
            self.made += 1
        else:
            self._md.reset()
        return self._md


def on_config(config: Any) -> Any:
    if not isinstance(pages.markdown, _OneMarkdown):
        pages.markdown = _OneMarkdown()
    return config
