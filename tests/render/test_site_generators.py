"""The demo built both ways (issue 20): mkdocs-material by default and Zensical 0.0.73 on the
same staged tree must publish the same pages and data files; the build reports its progress
in pages; the staged tree needs no Sealboard plugin; ``mkdocs`` on the instance's own
mkdocs.yml (what ``mkdocs serve`` runs) previews the last build without per-page lines."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from builder.demo.instance import write_demo
from builder.pipeline.build import build, load_identities
from builder.render import generator
from builder.render.generator import scrubbed_env
from builder.render.site import StagedSite
from builder.render.site_tree import write_config

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("generators") / "demo"
    write_demo(root, seed=0, now=NOW)
    lines: list[str] = []
    build(root, root / "site", identities=load_identities(root / "keys/demo/identity.txt", None), now=NOW, progress=lines.append)
    return root, lines


def files_of(site: Path, suffix: str) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob(f"*{suffix}")}


def test_build_reports_pages_done_of_total(demo):
    root, lines = demo
    staged_pages = sum(1 for _ in (root / ".sealboard/staged/docs").rglob("*.md"))
    html = files_of(root / "site", ".html") - {"404.html"}
    assert len(html) == staged_pages  # one HTML page per staged Markdown page
    done = [line for line in lines if re.search(r"site: \d+ of \d+ pages done", line)]
    assert done and done[-1].strip().startswith(f"site: {staged_pages} of {staged_pages} pages done")
    assert any(f"({staged_pages} pages)" in line for line in lines)


def test_progress_counts_pages_while_mkdocs_runs(demo, tmp_path, monkeypatch):
    """The counts come from the generated config's progress hook, while mkdocs works: a line
    between the first and the last says some pages are done and not all."""
    root, _ = demo
    staged = root / ".sealboard/staged"
    total = sum(1 for _ in (staged / "docs").rglob("*.md"))
    monkeypatch.setattr(generator, "PROGRESS_SECONDS", 1.0)
    lines: list[str] = []
    config = write_config(root, staged, "mkdocs", str(tmp_path / "site"))
    generator.run_generator("mkdocs", config, tmp_path / "site", total, lines.append)
    done = [int(m[1]) for line in lines if (m := re.search(r"site: (\d+) of (\d+) pages done \((converting|writing)", line))]
    assert any(0 < d < total for d in done), lines
    assert done == sorted(done) and lines[-1].strip().startswith(f"site: {total} of {total} pages done")


def test_staged_tree_builds_without_the_sealboard_plugin(demo):
    root, _ = demo
    config = orjson.loads((root / ".sealboard/staged/mkdocs.yml").read_bytes())
    plugins = config.get("plugins", [])
    assert "sealboard" not in plugins and not any(isinstance(p, dict) and "sealboard" in p for p in plugins)
    # Jinja's sandbox first (the others work in its environment), then those that save time,
    # the search index, the data files linked rather than copied, and the progress counts.
    assert [Path(h).name for h in config["hooks"]] == ["jinja_sandbox.py", "nav_cache.py", "raw_html_blocks.py", "markdown_reuse.py",
                                                       "search_index.py", "static_links.py", "progress_hook.py"]  # fmt: skip
    assert all(Path(h).is_file() for h in config["hooks"])
    assert config["use_directory_urls"] is False and config["theme"]["font"] is False
    # Generated pages are raw HTML: md_in_html is dropped when no page uses it.
    assert "md_in_html" not in config.get("markdown_extensions", [])
    item = next((root / ".sealboard/staged/docs").glob("*/items/*.md")).read_text()
    assert "| Model |" not in item and "<table class=\"sb-items sb-item-verdicts\">" in item and 'markdown="' not in item


def test_zensical_builds_the_same_pages_and_data(demo, tmp_path):
    if importlib.util.find_spec("zensical") is None:
        pytest.skip("Zensical is not installed: pip install 'sealboard[zensical]' (.ci/run does)")
    root, _ = demo
    lines: list[str] = []
    out = StagedSite(root=root, staged=root / ".sealboard/staged", out=tmp_path / "site").build("zensical", lines.append)
    mk = root / "site"
    assert files_of(out, ".html") == files_of(mk, ".html")
    data_mk = {p for p in files_of(mk, "") if p.startswith("data/") and (mk / p).is_file()}
    data_z = {p for p in files_of(out, "") if p.startswith("data/") and (out / p).is_file()}
    assert data_z == data_mk
    for rel in data_mk:
        assert (out / rel).read_bytes() == (mk / rel).read_bytes(), rel
    assert lines and lines[-1].strip().startswith("site: ")
    board = (out / "soohak/index.html").read_text()
    assert "sb-banner" in board  # Sealboard's override (the demo banner) is used by Zensical too
    assert "fonts.googleapis" not in board


def test_mkdocs_preview_of_a_built_instance_is_quiet(demo, tmp_path):
    root, _ = demo
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(root / "mkdocs.yml"), "-d", str(tmp_path / "preview")],
                          capture_output=True, text=True, env=scrubbed_env(), cwd=root)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    log = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert not [line for line in log if "WARNING" in line or "not included in the" in line], log[:20]
    assert len(log) <= 5, log
    assert files_of(tmp_path / "preview", ".html") == files_of(root / "site", ".html")
