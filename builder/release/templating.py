"""The release pages' Jinja environment (release/templates/): Markdown out, nothing autoescaped,
so every value goes through ``e`` (html.escape) explicitly."""

from __future__ import annotations

import html
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

ENV = Environment(
    loader=PackageLoader("builder.release", "templates"),
    undefined=StrictUndefined,
    autoescape=False,  # Markdown output; every value goes through `e` explicitly
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def render(name: str, **context: Any) -> str:
    return ENV.get_template(name).render(e=lambda s: html.escape(str(s)) if s is not None else "", **context)
