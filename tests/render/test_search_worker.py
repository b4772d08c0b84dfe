"""The search worker as one script for search from disk (builder/render/search_worker.py),
from the installed mkdocs-material's own worker and lunr-languages files."""

from __future__ import annotations

import shutil
from pathlib import Path

import material
import orjson

from builder.render.lunr_fix import TOKEN_SET_FIX
from builder.render.search_worker import IMPORTS_INLINED, WORKER_GLOBAL, WORKER_SCRIPT, finish, lunr_scripts, write_worker_script

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


def test_finish_fixes_lunr_and_writes_the_disk_worker_without_any_hook(tmp_path):
    """The site stage's step (search_worker.finish) on a generator's output: what a visitor's
    search needs does not depend on Sealboard's mkdocs hooks having run."""
    site = tmp_path / "site"
    shutil.copytree(MATERIAL_JS, site / "assets" / "javascripts")
    (site / "search").mkdir()
    (site / "search" / "search_index.json").write_bytes(orjson.dumps({"config": {"lang": ["en"]}, "docs": []}))
    assert finish(str(site)) is None
    worker = next((site / "assets/javascripts/workers").glob("search.*.min.js")).read_text(encoding="utf-8")
    assert worker.endswith(TOKEN_SET_FIX)
    script = (site / WORKER_SCRIPT).read_bytes()
    assert TOKEN_SET_FIX in orjson.loads(script[len(f"var {WORKER_GLOBAL} = ") : -2])


def test_finish_writes_through_no_link_out_of_the_site(tmp_path):
    """The output was written by a child that ran theme code: a folder or file there that is a
    link is not followed by this (unconfined) process."""
    outside = tmp_path / "outside"
    shutil.copytree(MATERIAL_JS, outside)
    before = {p: p.read_bytes() for p in outside.rglob("*.js")}
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "assets" / "javascripts").symlink_to(outside, target_is_directory=True)
    (site / "search").mkdir()
    (site / "search" / "search_index.json").write_bytes(orjson.dumps({"config": {"lang": ["en"]}, "docs": []}))
    assert finish(str(site)) is None
    assert {p: p.read_bytes() for p in outside.rglob("*.js")} == before
    assert not (site / WORKER_SCRIPT).exists()
    # A worker file that is itself a link (the folder real) is not written through either.
    (site / "assets" / "javascripts").unlink()
    shutil.copytree(MATERIAL_JS, site / "assets" / "javascripts")
    worker = next((site / "assets/javascripts/workers").glob("search.*.min.js"))
    target = outside / "workers" / worker.name
    worker.unlink()
    worker.symlink_to(target)
    finish(str(site))
    assert target.read_bytes() == before[target]
