"""The site generator's versions (issue 40): pyproject.toml caps mkdocs-material, mkdocs and
Markdown at the versions the site was tested with (builder/render/tested_versions.py), this
environment has exactly those, and the lunr fixes step aside, saying why, on any other."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from builder.render import lunr_fix, tested_versions
from builder.render.tested_versions import TESTED, untested

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_pyproject_caps_the_generator_at_the_tested_versions():
    deps = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    for name, tested in TESTED.items():
        spec = next(d for d in deps if re.match(rf"{re.escape(name)}\s*[<>=]", d, re.IGNORECASE))
        assert f"<={tested}" in spec, spec


def test_the_installed_versions_are_the_tested_ones():
    assert untested(*TESTED) == []


def test_the_lunr_fixes_step_aside_on_another_material(tmp_path, monkeypatch):
    worker = tmp_path / "workers" / "search.x.min.js"
    worker.parent.mkdir()
    worker.write_text("self.lunr=lunr;")
    monkeypatch.setitem(tested_versions.TESTED, "mkdocs-material", "0.0.1")
    why = lunr_fix.patch_lunr(str(tmp_path))
    assert why is not None and "not applied" in why and "(tested: 0.0.1)" in why
    assert worker.read_text() == "self.lunr=lunr;"
    monkeypatch.undo()
    assert lunr_fix.patch_lunr(str(tmp_path)) is None  # control: the tested version patches
    assert lunr_fix.TOKEN_SET_FIX in worker.read_text()
