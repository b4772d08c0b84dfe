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
