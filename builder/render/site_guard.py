"""What the site may be built from: refuse mkdocs config or site sources that could read
files outside the site (design, security invariant 6), whoever merged them.

mkdocs runs with the embargo identity in the environment of the authorised build. Its YAML
loader is PyYAML's full loader plus ``!ENV`` (``!!python/object/apply`` runs code, ``!ENV``
copies an environment variable into the site), ``hooks:`` imports Python files, ``INHERIT``
reads another file, any plugin is arbitrary code, and ``pymdownx.snippets`` pastes files
(``/proc/self/environ``, ``keys/…``) into pages. So the config is read with Sealboard's
strict loader (no tags at all) and every key, plugin and Markdown extension must be on an
allow-list; ``pymdownx.snippets`` is refused outright (no setting of it is safe enough to
be worth checking: ``base_path`` defaults to the working directory, the instance root).

The site generator itself runs in a child process holding nothing secret, confined to the
staged tree by Landlock, with Jinja sandboxed (``render/generator.py``,
``render/confinement.py``, ``render/jinja_sandbox.py``); the guard is the first wall, not
the only one, and it judges a config the same whichever generator runs it.

Nothing in the config may name a Python object to import. Zensical resolves dotted names in
Markdown extension options (``toc``/``tabbed``/``blocks.tab`` ``slugify: {object: …, kwds: …}``,
superfences' and inlinehilite's ``format``/``validator``, emoji's ``emoji_index``) by
importing them, so any mapping with ``object``/``kwds`` and any string where a function is
expected (in extension or plugin options), and any dotted Python path in extension options,
is refused (``config-python-object``). Nor may the site sources hold Python (a
``helper.py`` in ``site_src/`` is importable as ``docs.helper`` from the staged tree):
``site-python-module``. A theme template (a file of ``theme.custom_dir``) may include,
import or extend only a template named by a relative path written out in it: not an
absolute path or ``..`` (``theme-include-path``; Zensical's loader would read the identity
file), nor a name built while rendering from config or page metadata
(``theme-include-dynamic``).

``theme.custom_dir`` must name a folder under ``site_src/`` (a
template folder anywhere else could be ``.`` or ``keys/``, and mkdocs copies a theme
folder's files into the site). Anything the site would load from another host is refused,
naming the key: ``extra_javascript`` / ``extra_css`` URLs, ``extra.analytics``, web fonts
(``theme.font``), a logo or favicon URL; the site is self-contained by contract.

The site sources must be regular files under the instance (no links out of it), and must
not shadow what the build generates (``data/``, each benchmark's pages, Sealboard's assets
and its ``main.html`` override, which carries the rehearsal banner and ``noindex``): a
hand-written page wins over a default one in the staged tree, which would let a file in
``site_src/data/`` silently replace a board. A ``.gitattributes`` that changes bundle bytes on checkout
(``eol=crlf``, filters, encodings) would break every signature, so only attributes that
leave bytes alone are accepted, and only in the root ``.gitattributes``.

``check_*`` functions return findings (never raise), so the PR check (``builder.validate``)
reports the same findings from git objects that the build refuses on disk.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from jinja2 import Environment, TemplateSyntaxError, nodes

from builder.config import benchmark_of
from builder.errors import BuilderError
from builder.strict import loads_yaml

MKDOCS_CONFIG = "mkdocs.yml"
SITE_SRC = "site_src"
GITATTRIBUTES = ".gitattributes"
MAX_MKDOCS_BYTES = 256 << 10
MAX_TEMPLATE_BYTES = 1 << 20  # larger theme files are assets (images, fonts), not templates

# Top-level mkdocs keys that configure presentation only. Not here on purpose: `hooks`
# (imports Python), `INHERIT` (reads another file), `watch`/`dev_addr` (serve only),
# `extra_templates` (mkdocs renders them with a bare jinja2.Template: no sandbox).
ALLOWED_KEYS = frozenset(
    {
        "site_name",
        "site_url",
        "site_description",
        "site_author",
        "repo_url",
        "repo_name",
        "edit_uri",
        "copyright",
        "docs_dir",
        "site_dir",
        "theme",
        "plugins",
        "markdown_extensions",
        "extra",
        "extra_css",
        "extra_javascript",
        "nav",
        "use_directory_urls",
        "strict",
        "validation",
        "exclude_docs",
        "not_in_nav",
        "draft_docs",
    }
)
# Plugins are Python code. These read nothing outside docs_dir and the theme.
ALLOWED_PLUGINS = frozenset({"search", "sealboard", "tags", "offline", "privacy", "meta"})
# Markdown extensions that transform text only (Python-Markdown's own, and pymdownx's that
# neither include files nor run code). Notably absent: pymdownx.snippets, markdown-include.
ALLOWED_EXTENSIONS = frozenset(
    {
        "abbr",
        "admonition",
        "attr_list",
        "def_list",
        "footnotes",
        "md_in_html",
        "tables",
        "toc",
        "meta",
        "sane_lists",
        "smarty",
        "codehilite",
        "fenced_code",
        "nl2br",
        "wikilinks",
        "extra",
        "legacy_attrs",
        "legacy_em",
        "pymdownx.arithmatex",
        "pymdownx.betterem",
        "pymdownx.caret",
        "pymdownx.critic",
        "pymdownx.details",
        "pymdownx.emoji",
        "pymdownx.highlight",
        "pymdownx.inlinehilite",
        "pymdownx.keys",
        "pymdownx.mark",
        "pymdownx.smartsymbols",
        "pymdownx.superfences",
        "pymdownx.tabbed",
        "pymdownx.tasklist",
        "pymdownx.tilde",
        "pymdownx.magiclink",
        "pymdownx.saneheaders",
        "pymdownx.escapeall",
        "pymdownx.striphtml",
        "pymdownx.blocks.admonition",
        "pymdownx.blocks.details",
        "pymdownx.blocks.tab",
    }
)
ALLOWED_THEMES = frozenset({"material"})
# Attributes that never change a file's bytes on checkout.
SAFE_ATTRIBUTES = frozenset(
    {"binary", "-text", "text", "eol=lf", "-diff", "diff", "export-ignore", "-export-ignore", "-merge", "merge=binary"}
)
SAFE_ATTRIBUTE_PREFIXES = ("linguist-", "-linguist-")
# Generated pages at the site root (render/site.py, release/pages.py); data/, labs/ and each
# benchmark's folder are reserved whole.
GENERATED_PAGES = frozenset(
    {"rejected.md", "reasons.md", "methodology.md", "data.md", "access.md", "changelog.md", "verify-release.md", "snapshots.md"}
)
# Files the staged tree always holds (render/site_tree.py): every file of Sealboard's
# assets folder, read from the folder itself so that a new asset is reserved the day it is
# added, and the vendored plotly.js published beside them.
_ASSETS = Path(__file__).parent / "site_template" / "assets"
GENERATED_FILES = frozenset(
    {f"assets/{p.relative_to(_ASSETS).as_posix()}" for p in _ASSETS.rglob("*") if p.is_file()}
    | {"assets/plotly.min.js", "assets/plotly-LICENSE.txt"}
)
# Folders the build writes whole: the search index (render/search_index.py) and the
# deploy's attestation (attest/write.py: a file there would be published unattested).
GENERATED_DIRS = frozenset({"search", "attestation"})
# Sealboard's theme override (site_template/overrides/): the banner and noindex live there,
# and the template that puts the generated pages' HTML in place (render/fragments.py).
OVERRIDE_TEMPLATES = frozenset({"main.html", "sealboard-fragments.html"})
# The generated pages' HTML (render/fragments.py), staged into the theme folder.
FRAGMENTS_DIR = "fragments"
# Keys whose value may name a file the browser fetches: a URL there loads it from another host.
ASSET_KEYS = (("theme", "logo"), ("theme", "favicon"))
# Option names whose value is a function (Python-Markdown, pymdownx, Zensical's resolver): from
# YAML without tags such a value can only be a name for Zensical to import.
CALLABLE_OPTIONS = frozenset({"format", "validator", "slugify", "emoji_generator", "emoji_index", "formatter", "callback", "function"})
# The pymdownx form of "import this and call it": {object: "module.name", kwds: {...}}.
OBJECT_FORM_KEYS = frozenset({"object", "kwds"})
# A dotted Python path ("os.system", "docs.helper.evil") or an entry point ("pkg.mod:attr").
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?|[A-Za-z_]\w*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# Files Python imports (importlib's suffixes: .py, .pyc, extension modules) and the path files
# site.py reads: none belongs in the site sources.
PYTHON_SUFFIXES = (*importlib.machinery.all_suffixes(), ".pyw", ".pth")
# Jinja statements that load another template by name (Zensical's minijinja has the same four).
_TEMPLATE_LOADS = (nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)


@dataclass(frozen=True)
class Finding:
    where: str
    reason: str
    message: str
    hint: str


class UnsafeSiteError(BuilderError):
    """mkdocs.yml, site_src/ or .gitattributes could read outside the site or alter bundles.
    Raised by builder.render.site_guard.refuse_unsafe_site before the build reads any bundle."""

    reason = "unsafe-site"

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = tuple(findings)
        listing = "; ".join(f"{f.where}: {f.reason}: {f.message}" for f in findings)
        super().__init__(
            f"the build refuses to run: {len(findings)} unsafe site setting(s): {listing}",
            where=findings[0].where,
            hint="remove them (see the maintainers' page, 'What the site may be built from')",
        )


def check_mkdocs_config(data: bytes, where: str = MKDOCS_CONFIG) -> list[Finding]:
    """Findings for one mkdocs.yml's bytes (the root is the directory it sits in)."""
    if len(data) > MAX_MKDOCS_BYTES:
        return [Finding(where, "mkdocs-config", f"is {len(data)} bytes; at most {MAX_MKDOCS_BYTES}", "keep mkdocs.yml small")]
    try:
        config = loads_yaml(data, where)
    except BuilderError as exc:
        line = f" (line {exc.line})" if exc.line else ""
        hint = "mkdocs.yml may use no YAML tags (!ENV, !!python/…, !relative), anchors or duplicate keys"
        if exc.reason == "yaml-tag":
            return [Finding(where, "mkdocs-yaml-tag", exc.message + line, hint)]
        return [Finding(where, "mkdocs-config", exc.message + line, hint)]
    if not isinstance(config, dict):
        return [Finding(where, "mkdocs-config", "must be a mapping", "see mkdocs' configuration docs")]
    out: list[Finding] = []
    for key in sorted(set(config) - ALLOWED_KEYS, key=str):
        if key == "hooks":
            out.append(Finding(where, "mkdocs-hooks", "`hooks:` imports and runs Python files during the build", "remove hooks:"))
        elif key == "extra_templates":
            out.append(
                Finding(
                    where,
                    "mkdocs-extra-templates",
                    "`extra_templates:` renders files with a plain (unsandboxed) jinja2.Template, "
                    "outside the theme's sandboxed environment: `{{ lipsum.__globals__.os.environ }}` prints the environment",
                    "commit robots.txt and the like as plain files in site_src/ (copied as they are)",
                )
            )
        elif key == "INHERIT":
            out.append(Finding(where, "mkdocs-inherit", "`INHERIT:` reads another config file", "merge the settings into mkdocs.yml"))
        else:
            out.append(Finding(where, "mkdocs-key", f"key {key!r} is not on the allow-list", f"allowed: {', '.join(sorted(ALLOWED_KEYS))}"))
    out += _check_dir_setting(config.get("docs_dir", "docs"), where, "docs_dir", must_equal=SITE_SRC)
    theme = config.get("theme")
    theme_name = theme.get("name") if isinstance(theme, dict) else theme
    if theme_name not in ALLOWED_THEMES:
        out.append(Finding(where, "mkdocs-theme", f"theme {theme_name!r} is not on the allow-list", "use theme: {name: material}"))
    if isinstance(theme, dict) and theme.get("custom_dir") is not None:
        out += _check_dir_setting(theme["custom_dir"], where, "theme.custom_dir", under=SITE_SRC)
    out += _check_external(config, theme, where)
    for name, options in _named_entries(config.get("plugins"), where, "plugins", out):
        if name not in ALLOWED_PLUGINS:
            out.append(
                Finding(
                    where,
                    "plugin-not-allowed",
                    f"plugin {name!r} is not on the allow-list (plugins run code)",
                    f"allowed: {', '.join(sorted(ALLOWED_PLUGINS))}",
                )
            )
        out += check_python_objects(options, where, f"plugins.{name}", dotted=False)  # file names (tags_file: tags.md) look dotted
    for name, options in _named_entries(config.get("markdown_extensions"), where, "markdown_extensions", out):
        out += check_python_objects(options, where, f"markdown_extensions.{name}")
        if name == "pymdownx.snippets":
            out.append(
                Finding(
                    where,
                    "mkdocs-snippets",
                    "pymdownx.snippets pastes files (e.g. /proc/self/environ, keys/) into pages",
                    "remove it; write the text into the page",
                )
            )
        elif name not in ALLOWED_EXTENSIONS:
            out.append(
                Finding(
                    where,
                    "extension-not-allowed",
                    f"Markdown extension {name!r} is not on the allow-list",
                    "use one of the text-only extensions listed on the maintainers' page",
                )
            )
    return out


def check_python_objects(options: Any, where: str, key: str, dotted: bool = True) -> list[Finding]:
    """Findings for every place in an extension's or plugin's options that names a Python
    object to import: the ``{object: …, kwds: …}`` form, a string where a function is
    expected, or (``dotted``) any dotted Python path. mkdocs wants a function there (which YAML without
    tags cannot give); Zensical imports the name and calls it."""
    out = []
    stack: list[tuple[str, Any]] = [(key, options)]
    while stack:
        at, value = stack.pop()
        if isinstance(value, dict):
            named = sorted(OBJECT_FORM_KEYS & {k for k in value if isinstance(k, str)})
            if named:
                out.append(
                    Finding(
                        where,
                        "config-python-object",
                        f"{at} has {'/'.join(named)}: names a Python object for the generator to import and call",
                        "remove it: the site's settings may not run code; use the extension's defaults",
                    )
                )
            stack += [(f"{at}.{k}", v) for k, v in reversed(value.items()) if k not in OBJECT_FORM_KEYS]
        elif isinstance(value, list):
            stack += [(f"{at}[{i}]", v) for i, v in reversed(list(enumerate(value)))]
        elif isinstance(value, str):
            last = at.rsplit(".", 1)[-1]
            if last in CALLABLE_OPTIONS or (dotted and _DOTTED.fullmatch(value.strip())):
                out.append(
                    Finding(
                        where,
                        "config-python-object",
                        f"{at} is {value!r}: a name the generator would import and call",
                        "remove the setting: the site's settings may not name Python code",
                    )
                )
    return out


def check_theme_template(path: str, data: bytes) -> list[Finding]:
    """Findings for one theme file: every template it includes, imports or extends must be
    named by a relative path written out in it, inside the theme (no absolute path, no
    ``..``), never by a name built while rendering (config or page metadata could steer it)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []  # not text: both generators read templates as UTF-8, so it cannot be one
    if "{%" not in text:
        return []
    try:
        tree = Environment().parse(text)
    except TemplateSyntaxError as exc:
        return [
            Finding(
                path,
                "theme-template-syntax",
                f"line {exc.lineno}: does not parse as a Jinja template ({exc.message})",
                "fix the template (mkdocs and Zensical both read it as Jinja)",
            )
        ]
    out = []
    for node in tree.find_all(_TEMPLATE_LOADS):
        if not isinstance(node, nodes.Include | nodes.Import | nodes.FromImport | nodes.Extends):
            continue
        target = node.template
        names = target.items if isinstance(target, nodes.List | nodes.Tuple) else [target]
        for name in names:
            if not (isinstance(name, nodes.Const) and isinstance(name.value, str)):
                out.append(
                    Finding(
                        path,
                        "theme-include-dynamic",
                        f"line {node.lineno}: loads a template whose name is built while rendering; "
                        "config or page metadata could steer it to any file",
                        'write the name out, e.g. {% include "partials/footer.html" %}',
                    )
                )
                continue
            parts = PurePosixPath(name.value).parts
            if name.value.startswith(("/", "\\", "~")) or "\\" in name.value or ".." in parts or re.match(r"[A-Za-z]:", name.value):
                out.append(
                    Finding(
                        path,
                        "theme-include-path",
                        f"line {node.lineno}: loads {name.value!r}, outside the theme",
                        "name a template of the theme by a relative path without '..'",
                    )
                )
    return out


def _is_external(value: Any) -> bool:
    """A URL with a scheme or a protocol-relative one (``//host/x.js``): fetched from another host."""
    if isinstance(value, dict):  # mkdocs' {path: ..., type: module, async: true} form
        value = value.get("path")
    if not isinstance(value, str):
        return False
    v = value.strip().lower()
    return v.startswith("//") or v.startswith("\\\\") or bool(re.match(r"[a-z][a-z0-9+.-]*:", v))


def _check_external(config: dict[str, Any], theme: Any, where: str) -> list[Finding]:
    out = []
    for key, reason in (("extra_javascript", "external-script"), ("extra_css", "external-style")):
        entries = config.get(key) or []
        for entry in entries if isinstance(entries, list) else [entries]:
            if _is_external(entry):
                shown = entry.get("path") if isinstance(entry, dict) else entry
                out.append(
                    Finding(
                        where,
                        reason,
                        f"{key} loads {shown!r} from another host on every page",
                        f"vendor the file into site_src/ and list its path under {key}",
                    )
                )
    extra = config.get("extra")
    if isinstance(extra, dict) and extra.get("analytics") is not None:
        out.append(
            Finding(
                where,
                "analytics",
                "extra.analytics puts a third-party tracking script on every page",
                "remove extra.analytics: the site is self-contained",
            )
        )
    if isinstance(theme, dict):
        if theme.get("font") not in (None, False):
            out.append(
                Finding(
                    where, "external-font", "theme.font loads web fonts from Google Fonts", "remove theme.font (the site uses system fonts)"
                )
            )
        for section, name in ASSET_KEYS:
            if _is_external(theme.get(name)):
                out.append(
                    Finding(
                        where,
                        "external-asset",
                        f"{section}.{name} {theme[name]!r} is on another host",
                        f"vendor the file into site_src/ and set {section}.{name} to its path",
                    )
                )
    return out


def _named_entries(value: Any, where: str, key: str, out: list[Finding]) -> Iterable[tuple[str, Any]]:
    # mkdocs accepts a list of names / {name: options}, or a mapping name -> options.
    if value is None:
        return []
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        for entry in value:
            if isinstance(entry, dict) and len(entry) == 1:
                items.append(next(iter(entry.items())))
            else:
                items.append((entry, None))
    else:
        out.append(Finding(where, "mkdocs-config", f"{key} must be a list or a mapping", "see mkdocs' configuration docs"))
    named = []
    for name, options in items:
        if not isinstance(name, str):
            out.append(Finding(where, "mkdocs-config", f"{key}: entry {name!r} is not a name", "list names or {name: options}"))
        else:
            named.append((name, options))
    return named


def _check_dir_setting(value: Any, where: str, key: str, must_equal: str | None = None, under: str | None = None) -> list[Finding]:
    example = must_equal or f"{under or SITE_SRC}/overrides"
    if not isinstance(value, str):
        return [Finding(where, "mkdocs-path", f"{key} must be a relative path", f"e.g. {key}: {example}")]
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value or value.startswith("~"):
        return [
            Finding(
                where, "mkdocs-path", f"{key} {value!r} points outside the instance", f"use a folder inside the repository, e.g. {example}"
            )
        ]
    if must_equal is not None and path != PurePosixPath(must_equal):
        return [Finding(where, "mkdocs-path", f"{key} is {value!r}; the layout fixes it to {must_equal}", f"set {key}: {must_equal}")]
    if under is not None and (len(path.parts) < 2 or path.parts[0] != under):
        return [
            Finding(
                where,
                "mkdocs-path",
                f"{key} is {value!r}; it may only name a folder under {under}/ (a theme folder's files are copied into the site)",
                f"move the templates to e.g. {example} and set {key}: {example}",
            )
        ]
    return []


def custom_dir_of(config: Any) -> str | None:
    """The instance's theme.custom_dir (relative to the root), if it names one under site_src/."""
    theme = config.get("theme") if isinstance(config, dict) else None
    custom = theme.get("custom_dir") if isinstance(theme, dict) else None
    if isinstance(custom, str) and not _check_dir_setting(custom, MKDOCS_CONFIG, "theme.custom_dir", under=SITE_SRC):
        return PurePosixPath(custom).as_posix()
    return None


def _shadowed(rel: tuple[str, ...], reserved: set[str], theme: bool) -> str | None:
    """The generated path a site file at ``rel`` would replace, if any. A theme folder's
    files are copied into the site as they are (``x.html`` there is a template instead)."""
    joined = "/".join(rel)
    # "<benchmark>@<version>/": an earlier dataset version's pages (builder.pipeline.earlier_versions)
    if len(rel) > 1 and benchmark_of(rel[0]) in reserved:
        return f"{rel[0]}/"
    if joined in GENERATED_FILES:
        return joined
    if theme:
        if joined in OVERRIDE_TEMPLATES:
            return (
                f"{joined} (Sealboard's template: the banner and noindex)" if joined == "main.html" else f"{joined} (Sealboard's template)"
            )
        if rel[0] == FRAGMENTS_DIR:
            return f"{FRAGMENTS_DIR}/ (the generated pages' tables)"
        if joined.endswith(".html") and joined[:-5] + ".md" in GENERATED_PAGES:
            return joined
    elif len(rel) == 1 and rel[0] in GENERATED_PAGES:
        return rel[0]
    return None


def check_site_paths(entries: Iterable[tuple[str, str]], benchmarks: Iterable[str], custom_dir: str | None = None) -> list[Finding]:
    """Findings for the files of the site sources: ``(path relative to the root, kind)``
    with kind ``file``, ``link`` or ``other`` (a submodule, a device…). Files under
    ``custom_dir`` (a folder of site_src/) are judged as theme files, the rest as pages."""
    # labs/: the generated lab pages (render/site.py); snapshots/: each recorded deploy's boards (release/snapshot_pages.py)
    reserved = {"data", "labs", "snapshots", *GENERATED_DIRS, *benchmarks}
    theme_parts = PurePosixPath(custom_dir).parts if custom_dir else ()  # (): no theme folder
    out = []
    for path, kind in entries:
        if kind == "link":
            out.append(Finding(path, "site-symlink", "is a symbolic link; the site must not read through links", "commit the file itself"))
        elif kind != "file":
            out.append(Finding(path, "site-not-a-file", "is not a regular file", "commit a regular file"))
        parts = PurePosixPath(path).parts
        if path.endswith(PYTHON_SUFFIXES) or "__pycache__" in parts:
            out.append(
                Finding(
                    path,
                    "site-python-module",
                    "is Python the site generator could import (the staged tree holds the site sources)",
                    "remove it; to publish a script, commit it with another extension (e.g. .py.txt)",
                )
            )
        theme = bool(theme_parts) and parts[: len(theme_parts)] == theme_parts
        base = theme_parts if theme else (SITE_SRC,)
        if parts[: len(base)] == base and len(parts) > len(base):
            rel = parts[len(base) :]
            shadow = _shadowed(rel, reserved, theme)
            if shadow:
                folder = "/".join(base)
                out.append(
                    Finding(
                        path,
                        "shadows-generated",
                        f"would replace the generated {shadow}",
                        f"{folder}/{'/'.join(rel)} names what the build writes; choose another name",
                    )
                )
    return out


def check_gitattributes(path: str, data: bytes) -> list[Finding]:
    """A .gitattributes may only set attributes that leave file bytes alone, and only at the root."""
    if path != GITATTRIBUTES:
        return [
            Finding(
                path,
                "gitattributes",
                "only the root .gitattributes is accepted (attributes here could rewrite bundle bytes on checkout)",
                "remove it",
            )
        ]
    out = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[0].startswith("[attr]"):
            out.append(Finding(path, "gitattributes", f"line {number}: macro attributes are not accepted", "spell attributes out"))
            continue
        bad = [a for a in fields[1:] if a not in SAFE_ATTRIBUTES and not a.startswith(SAFE_ATTRIBUTE_PREFIXES)]
        if bad:
            out.append(
                Finding(
                    path,
                    "gitattributes",
                    f"line {number}: {' '.join(bad)} can change file bytes on checkout (and break every signature)",
                    f"allowed: {', '.join(sorted(SAFE_ATTRIBUTES))}, linguist-*",
                )
            )
    return out


def _walk(root: Path, top: str) -> Iterable[tuple[str, str]]:
    start = root / top
    try:
        st = os.lstat(start)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        yield top, "link"
        return
    for dirpath, dirnames, filenames in os.walk(start):
        rel = Path(dirpath).relative_to(root).as_posix()
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            mode = os.lstat(p).st_mode
            kind = "link" if stat.S_ISLNK(mode) else "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"
            if kind != "dir":
                yield f"{rel}/{name}", kind
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]


def _gitattributes_files(root: Path) -> Iterable[str]:
    skip = {".git", ".sealboard", "node_modules"}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip and not d.startswith(".sealboard-site-")]
        if GITATTRIBUTES in filenames:
            yield (Path(dirpath) / GITATTRIBUTES).relative_to(root).as_posix()


def check_instance(root: Path, benchmarks: Iterable[str], out_dir: Path | None = None) -> list[Finding]:
    """Every finding for the instance on disk (what the build is about to run)."""
    findings: list[Finding] = []
    config = root / MKDOCS_CONFIG
    custom = None
    if config.is_symlink():
        findings.append(Finding(MKDOCS_CONFIG, "site-symlink", "is a symbolic link", "commit the file itself"))
    elif config.is_file():
        findings += check_mkdocs_config(config.read_bytes())
        try:
            parsed = loads_yaml(config.read_bytes(), MKDOCS_CONFIG)
        except BuilderError:
            parsed = None
        custom = custom_dir_of(parsed)
    # custom_dir lies under site_src/, so this one walk covers it (judged as theme files).
    entries = list(_walk(root, SITE_SRC))
    findings += check_site_paths(entries, benchmarks, custom)
    if custom is not None:
        prefix = custom.rstrip("/") + "/"
        for path, kind in entries:
            if kind == "file" and path.startswith(prefix) and (root / path).stat().st_size <= MAX_TEMPLATE_BYTES:
                findings += check_theme_template(path, (root / path).read_bytes())
    for path in _gitattributes_files(root):
        findings += check_gitattributes(path, (root / path).read_bytes())
    return findings


def refuse_unsafe_site(root: Path, benchmarks: Iterable[str]) -> None:
    """Raise UnsafeSiteError listing every finding, or return if the site is safe to build."""
    findings = check_instance(root, list(benchmarks))
    if findings:
        raise UnsafeSiteError(findings)
