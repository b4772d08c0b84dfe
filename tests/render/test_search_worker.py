"""The search worker as one script for search from disk (builder/render/search_worker.py),
from the installed mkdocs-material's own worker and lunr-languages files."""

from __future__ import annotations

import shutil
from pathlib import Path

import material
import orjson

from builder.render.search_worker import IMPORTS_INLINED, WORKER_GLOBAL, WORKER_SCRIPT, lunr_scripts, write_worker_script

MATERIAL_JS = Path(material.__file__).parent / "templates" / "assets" / "javascripts"


def test_the_languages_scripts_are_those_the_worker_imports_in_its_order():
    assert lunr_scripts(["en"]) == []
    assert lunr_scripts(["en", "ko"]) == ["min/lunr.stemmer.support.min.js", "min/lunr.ko.min.js", "min/lunr.multi.min.js"]
    assert lunr_scripts(["ja"]) == ["min/lunr.stemmer.support.min.js", "tinyseg.js", "min/lunr.ja.min.js"]
    # The worker's own list, in its source (mkdocs-material's setupSearchLanguages): a newer
    # Material that imports other files fails here, not in a visitor's browser.
    worker = next((MATERIAL_JS / "workers").glob("search.*.min.js")).read_text(encoding="utf-8")
    for part in ("/min/lunr.stemmer.support.min.js", "/min/lunr.multi.min.js", "/tinyseg.js", "/min/lunr.${"):
        assert part in worker, part


def test_the_worker_script_holds_the_worker_then_its_languages(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(MATERIAL_JS, site / "assets" / "javascripts")
    (site / "search").mkdir()
    write_worker_script(str(site), ["en", "ko"])
    script = (site / WORKER_SCRIPT).read_bytes()
    prefix = f"var {WORKER_GLOBAL} = ".encode()
    assert script.startswith(prefix) and script.endswith(b";\n")
    source = orjson.loads(script[len(prefix) : -2])
    worker = next((MATERIAL_JS / "workers").glob("search.*.min.js")).read_text(encoding="utf-8")
    ko = (MATERIAL_JS / "lunr/min/lunr.ko.min.js").read_text(encoding="utf-8")
    # The worker first (it publishes self.lunr), the languages after, importScripts last.
    assert source.index(worker[:200]) < source.index(ko[:200]) < source.index(IMPORTS_INLINED)
    assert source.endswith(IMPORTS_INLINED)


def test_no_worker_script_without_materials_worker(tmp_path):
    (tmp_path / "search").mkdir()
    write_worker_script(str(tmp_path), ["en"])
    assert not (tmp_path / WORKER_SCRIPT).exists()
