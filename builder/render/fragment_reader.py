"""mkdocs hook of the generated site config: a generated page's HTML fragments are read,
not compiled.

``sealboard-fragments.html`` puts each fragment (``fragments.py``) in its page with
``{% include %}``, which both generators honour: the site is right without this hook. But
an include makes Jinja lex, parse and compile each fragment file as a template (item and
model pages hold tens of kilobytes of table), a third of the generator's time on the demo.
Where this hook runs, the theme's environment has a ``sealboard_fragment`` global
(``Environment.globals``, Jinja's documented way to add one) that returns the file's text,
and the template calls it instead of including; the text is the same, so is the page.
Only files under the theme's ``fragments/`` folder are read.
"""

from __future__ import annotations

import os
from typing import Any

from jinja2 import Environment

from builder.render.fragments import FOLDER
from builder.render.site_tree import OVERRIDES


def reader(theme: str) -> Any:
    root = os.path.realpath(os.path.join(theme, FOLDER)) + os.sep

    def sealboard_fragment(name: str) -> str:
        path = os.path.realpath(os.path.join(theme, name))
        if not path.startswith(root):
            raise ValueError(f"not a fragment of a generated page: {name!r}")
        with open(path, encoding="utf-8") as f:
            return f.read()

    return sealboard_fragment


def on_env(env: Environment, config: Any, files: Any) -> Environment:
    env.globals["sealboard_fragment"] = reader(os.path.join(os.path.dirname(config.config_file_path), OVERRIDES))
    return env
