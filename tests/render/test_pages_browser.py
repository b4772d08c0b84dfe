"""The built pages in a real headless Chromium: the chart is drawn from the page's data,
the banner and board table are there, and nothing on the page reaches the network."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

if CHROMIUM is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("headless Chromium is required in CI (apt-get install chromium)")
    pytest.skip("chromium not installed", allow_module_level=True)


def dump_dom(page: Path, profile: Path) -> str:
    args = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", page.as_uri(),
    ]  # fmt: skip
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser") / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, False, False] for it in inst.items}))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    out = root.parent / "site"
    build(root, out, identities=[inst.identity], now=NOW)
    return out


def test_board_chart_is_drawn_from_the_page_data(site, tmp_path):
    dom = dump_dom(site / "soohak/mini/index.html", tmp_path / "profile")
    # Plotly replaced the placeholder with an SVG plot holding one bar per ranked row.
    assert 'class="main-svg"' in dom
    mini = orjson.loads((site / "data/soohak/mini.json").read_bytes())
    for row in mini["rows"]:
        assert row["model"] in dom
    assert dom.count('class="point"') >= len(mini["rows"])
    # The table shows the same numbers as the data file.
    beta = next(r for r in mini["rows"] if r["submission"] == "beta/run-1")
    assert f"{100 * beta['metrics']['avg@3']['value']:.1f}" in dom


def test_sealed_site_pages_render_without_scores(tmp_path):
    root = tmp_path / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items))
    out = tmp_path / "site"
    build(root, out, identities=[], now=NOW)
    dom = dump_dom(out / "soohak/index.html", tmp_path / "profile")
    assert "Scores are sealed" in dom
    assert "sb-chart" not in dom


def test_model_names_in_charts_are_text_not_markup(tmp_path):
    from tests.factory import MODEL

    root = tmp_path / "inst"
    inst = make_instance(root)
    evil = dict(MODEL, name='<a href="https://evil.example/">Evil</a> & <b>Bold</b>')
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, True, False] for it in inst.items}), model=evil)
    out = tmp_path / "site"
    build(root, out, identities=[inst.identity], now=NOW)
    dom = dump_dom(out / "soohak/mini/index.html", tmp_path / "profile")
    assert 'class="main-svg"' in dom
    # Neither the table nor the chart made a link or a bold element of it.
    assert '<a href="https://evil.example/"' not in dom and 'xlink:href="https://evil.example/"' not in dom
    assert "<b>Bold</b>" not in dom
    assert "&lt;a href=" in dom  # the name is shown as text
