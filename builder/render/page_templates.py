"""The Jinja environment Sealboard's own page templates render in (render/templates/,
release/templates/): Markdown out, nothing autoescaped, so every value goes through ``e``
explicitly (``render.escaping.page_text``: what HTML, Markdown or YAML would read as syntax,
as character references); ``x.key`` on a plain dict is its item, found without an exception.

Jinja's ``x.key`` tries ``getattr(x, "key")`` first and only then ``x["key"]``. The pages'
values are plain dicts (one per board row, item, submission), so every lookup raised and
caught an AttributeError first: 1.6 million of them on the demo, a fifth of the render
stage (bench/bench_site.py's demo build under cProfile). A plain dict has no attributes
but its class's, so for any other name the item is the only thing ``getattr`` could have
found: the result is the same, the exception is gone.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from builder.render.fragments import fragment

# What getattr finds on a plain dict (its class's methods): these keep Jinja's own lookup.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class PageEnvironment(Environment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def page_environment(package: str) -> Environment:
    """The environment for ``<package>/templates``."""
    env = PageEnvironment(
        loader=PackageLoader(package, "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown output; every value goes through `e` explicitly
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["fragment"] = fragment  # generated HTML kept out of Markdown (render/fragments.py)
    return env
