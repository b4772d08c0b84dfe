"""The release pages' Jinja environment (release/templates/): Sealboard's page environment
(builder.render.page_templates), so every value goes through ``e``
(``builder.render.escaping.page_text``) explicitly."""

from __future__ import annotations

from typing import Any

from builder.render.escaping import page_text
from builder.render.page_templates import page_environment

ENV = page_environment("builder.release")


def render(name: str, **context: Any) -> str:
    return ENV.get_template(name).render(e=page_text, **context)
