"""mkdocs hook of the generated site config: theme templates render in Jinja's sandbox.

This is the first hook ``render/site_tree.py`` writes into the generated config; the others
(``fragment_reader.py``, ``search_index.py``, ``progress_hook.py``) only save time or report progress, in the environment it returns. mkdocs renders every theme template (Material's, Sealboard's override, an
instance's ``theme.custom_dir`` partials and ``extra_templates``) with a plain
``jinja2.Environment``, in which ``{{ lipsum.__globals__.os.environ }}`` or
``{{ config.__class__.__init__.__globals__ }}`` reach Python internals, the environment and
files. ``on_env`` may hand mkdocs another environment: this one is a
``SandboxedEnvironment`` with the same loader, filters, globals, tests and extensions, so
templates keep working while underscore attributes, unsafe callables and ``str.format``
tricks raise ``SecurityError`` (the build then fails, naming the template).

The child process that runs mkdocs holds nothing secret anyway (``render/generator.py``);
the sandbox is the second wall.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment
from jinja2.sandbox import SandboxedEnvironment


class ThemeSandbox(SandboxedEnvironment):
    """Jinja's sandbox, with its attribute verdict remembered per (type, name).

    ``SandboxedEnvironment.is_safe_attribute`` depends on the attribute's name and the
    object's type only (``is_internal_attribute`` is isinstance checks against function,
    method, type, code, frame, traceback and generator types), so remembering it per
    ``(type(obj), attr)`` decides exactly as Jinja does; Material's templates look up about
    850 attributes a page, and the check was 7% of the generator's time (bench/bench_site.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._verdicts: dict[tuple[type, str], bool] = {}

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        key = (type(obj), attr)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = super().is_safe_attribute(obj, attr, value)
        return verdict


def sandboxed(env: Environment, auto_reload: bool | None = None) -> SandboxedEnvironment:
    """A sandboxed copy of ``env``: same loader, filters, tests, globals and extensions."""
    box = ThemeSandbox(
        loader=env.loader,
        extensions=list(env.extensions),
        autoescape=env.autoescape,
        auto_reload=env.auto_reload if auto_reload is None else auto_reload,
        undefined=env.undefined,
        trim_blocks=env.trim_blocks,
        lstrip_blocks=env.lstrip_blocks,
        keep_trailing_newline=env.keep_trailing_newline,
    )
    box.filters.update(env.filters)
    box.tests.update(env.tests)
    box.globals.update(env.globals)
    box.policies.update(env.policies)
    return box


def on_env(env: Environment, config: Any, files: Any) -> SandboxedEnvironment:
    # A build reads each template once: without auto_reload, the 40 includes of a page do
    # not each stat the template's file (8% of the template time on the demo). The preview
    # (``mkdocs_plugin.py``) keeps mkdocs' setting.
    return sandboxed(env, auto_reload=False)
