"""The release pages' Jinja environment (release/templates/): Sealboard's page environment
(builder.render.page_templates), so every value goes through ``e`` (html.escape) explicitly."""

from __future__ import annotations

import html
from typing import Any

from builder.render.page_templates import page_environment

ENV = page_environment("builder.release")


def render(name: str, **context: Any) -> str:
    return ENV.get_template(name).render(e=lambda s: html.escape(str(s)) if s is not None else "", **context)
