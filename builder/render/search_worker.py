"""Material's search worker as one script, so that search opened from disk (``file://``)
runs in a real worker, off the page's thread.

Browsers refuse ``new Worker("file:///…")``, and Material's answer (the iframe-worker shim)
ran the worker in a hidden iframe: on the page's own thread, where building the lunr index
of the demo's 4,700 documents blocked the page for 1–4 s at a time (and for up to 32 s on a
slower machine). A worker made from a ``blob:`` URL does run from disk in Chromium, Firefox
and Safari, but it cannot ``importScripts`` a ``file://`` script, and a page cannot
``fetch`` one either; a ``<script>`` can load. So the build writes
``search/search_worker.js``: one statement that sets ``WORKER_GLOBAL`` to the worker's
source, with the lunr-languages scripts the worker would import for the index's languages
already in it (``lunr_scripts``, the same list and order as the worker's own import step)
and ``importScripts`` made a no-op after them (everything it would import is loaded).
``assets/sealboard-search.js`` loads that script when search is opened from disk and starts
the worker from a ``blob:`` URL of it. Over HTTP the worker loads as Material loads it.
"""

from __future__ import annotations

import os

import orjson

from builder.render.lunr_fix import patch_lunr

WORKER_GLOBAL = "__sealboard_search_worker"
# After the worker (which publishes self.lunr and its message handler) and the language
# scripts: the worker's own import step then finds nothing left to load.
IMPORTS_INLINED = (
    "\n;/* Sealboard (builder/render/search_worker.py): every script the worker imports is above. */\n"
    "self.importScripts = function () {};\n"
)
WORKER_SCRIPT = os.path.join("search", "search_worker.js")


def lunr_scripts(langs: list[str]) -> list[str]:
    """The scripts (relative to ``assets/javascripts/lunr``) Material's worker imports for an
    index in ``langs``, in its order (mkdocs-material 9.x, search worker ``setupSearchLanguages``)."""
    extra: list[str] = []
    for lang in langs:
        if lang == "ja":
            extra.append("tinyseg.js")
        elif lang in ("hi", "th"):
            extra.append("wordcut.js")
        if lang != "en":
            extra.append(f"min/lunr.{lang}.min.js")
    if len(langs) > 1:
        extra.append("min/lunr.multi.min.js")
    return ["min/lunr.stemmer.support.min.js", *extra] if extra else []


def search_worker(js_folder: str) -> str | None:
    """The path of Material's search worker under ``js_folder`` (``assets/javascripts``)."""
    workers = os.path.join(js_folder, "workers")
    names = sorted(os.listdir(workers)) if os.path.isdir(workers) else []
    return next((os.path.join(workers, n) for n in names if n.startswith("search.") and n.endswith(".js")), None)


def worker_source(js_folder: str, langs: list[str]) -> str | None:
    """The worker with its language scripts inlined, or None where a part is missing (no
    search plugin, another Material): then search from disk finds no worker script and says so."""
    worker = search_worker(js_folder)
    if worker is None:
        return None
    parts = [worker, *(os.path.join(js_folder, "lunr", s) for s in lunr_scripts(langs))]
    if not all(os.path.isfile(p) for p in parts):
        return None
    sources = []
    for path in parts:
        with open(path, encoding="utf-8") as f:
            # A source map comment in the middle of the blob would point nowhere useful.
            sources.append(f.read().replace("//# sourceMappingURL=", "// source map: "))
    return "\n;\n".join(sources) + IMPORTS_INLINED


def write_worker_script(site_dir: str, langs: list[str]) -> None:
    """Write ``search/search_worker.js`` (``WORKER_GLOBAL`` = the worker's source) into the site."""
    source = worker_source(os.path.join(site_dir, "assets", "javascripts"), langs)
    if source is None:
        return
    with open(os.path.join(site_dir, WORKER_SCRIPT), "wb") as f:
        f.write(b"var " + WORKER_GLOBAL.encode() + b" = " + orjson.dumps(source) + b";\n")


def finish(site_dir: str) -> str | None:
    """What the site stage does to search in a generated site, hooks or not: the lunr fixes
    on Material's worker (``lunr_fix.py``), then the worker script for search from disk, made
    from the fixed worker and the languages of the site's index. Returns why the lunr fixes
    were not applied (another Material), or None."""
    # The generator's output is written by a child that ran theme code: this process (not
    # confined) follows no link out of the site, so a folder or file that is a link is left be.
    if any(_linked(site_dir, os.path.join(site_dir, *parts)) for parts in (("assets", "javascripts"), ("search",))):
        return None
    why = patch_lunr(os.path.join(site_dir, "assets", "javascripts"))
    index = os.path.join(site_dir, "search", "search_index.json")
    if os.path.isfile(index) and not os.path.islink(index) and not os.path.islink(os.path.join(site_dir, WORKER_SCRIPT)):
        with open(index, "rb") as f:
            langs = (orjson.loads(f.read()).get("config") or {}).get("lang") or ["en"]
        write_worker_script(site_dir, list(langs))
    return why


def _linked(site_dir: str, path: str) -> bool:
    """Whether ``path`` resolves outside ``site_dir`` or through a link (absent paths: no)."""
    if not os.path.lexists(path):
        return False
    real = os.path.realpath(path)
    return real != os.path.join(os.path.realpath(site_dir), os.path.relpath(path, site_dir)) or os.path.islink(path)
