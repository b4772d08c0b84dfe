"""The ``sealboard`` mkdocs plugin: a thin preview shim for ``mkdocs serve -f mkdocs.yml``.

The build does not need it: ``sealboard build`` stages a complete docs tree and a generated
config (``render/site_tree.py``) and runs the generator on those. This plugin only points
an instance's own mkdocs.yml at that tree, so ``mkdocs serve`` (or ``mkdocs build``)
previews the last build: docs from ``.sealboard/staged/docs`` (hand-written pages as they
were at that build: rebuild to see an edit), the staged theme override first, and the
generated config's nav, banner, ``noindex``, assets, system fonts, ``x.html`` pages and
``not_in_nav`` (so the preview prints no per-page lines). Templates render in Jinja's
sandbox here too (``jinja_sandbox.py``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import orjson
from jinja2 import Environment
from mkdocs.config.config_options import PathSpec
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin

from builder.render.jinja_sandbox import sandboxed
from builder.render.site_tree import CONFIG, DOCS, NOT_IN_NAV, OVERRIDES

log = logging.getLogger("mkdocs.plugins.sealboard")


class SealboardPlugin(BasePlugin):
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        staged = Path(config.config_file_path).parent / ".sealboard" / "staged"
        generated_path = staged / CONFIG
        if not generated_path.is_file() or not (staged / DOCS).is_dir():
            log.warning("no staged site yet: run 'sealboard build' first; previewing site_src/ alone")
            return config
        generated: dict[str, Any] = orjson.loads(generated_path.read_bytes())
        config.docs_dir = str(staged / DOCS)
        config.theme.dirs.insert(0, str(staged / OVERRIDES))
        config.theme["font"] = False
        config.use_directory_urls = False
        config.extra.update({k: v for k, v in generated.get("extra", {}).items() if k.startswith("sealboard_")})
        for key in ("extra_css", "extra_javascript"):
            have = [str(x) for x in getattr(config, key)]
            getattr(config, key).extend(x for x in generated.get(key, []) if isinstance(x, str) and x not in have)
        if not config.nav and generated.get("nav"):
            config.nav = generated["nav"]
        config.not_in_nav = PathSpec().run_validation(NOT_IN_NAV)
        return config

    def on_env(self, env: Environment, config: MkDocsConfig, files: Any) -> Environment:
        return sandboxed(env)
