"""Lab text never reaches a Plotly template (issue 22, "Hostile logs and answers").

A hovertemplate is a template: a model named ``%{x}`` was evaluated there (its hover showed
the x value), and a name holding ``<b>`` would be markup. The real sealboard.js and the
site's real plotly.js run in headless Chromium; every chart kind is drawn from a spec whose
labels are hostile, each trace is hovered (``Plotly.Fx.hover``), and the hover must show
the label literally. Control: an ordinary name shows as itself beside its value.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from builder.render.site_tree import plotly_js
from tests.render.cdp import CHROMIUM

pytestmark = pytest.mark.slow  # builds a site

ASSET = Path(__file__).resolve().parents[2] / "builder" / "render" / "site_template" / "assets" / "sealboard.js"
HOSTILE = "M %{x} <b>b</b> %{y:.1f} %{customdata}"
PLAIN = "Plain model 7B"

_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<script src="plotly.min.js"></script></head><body>
{charts}<pre id="out"></pre><script src="sealboard.js"></script>
<script>
window.addEventListener("load", function () {{ setTimeout(function () {{
  var out = [];
  document.querySelectorAll(".sb-chart").forEach(function (el, i) {{
    (el._fullData || []).forEach(function (trace, curve) {{
      if (trace.hoverinfo === "skip") return;
      Plotly.Fx.hover(el, trace.type === "heatmap" ? {{xval: 0, yval: 0}} : [{{curveNumber: curve, pointNumber: 0}}]);
      var texts = [];
      el.querySelectorAll(".hoverlayer text").forEach(function (t) {{ texts.push(t.textContent); }});
      out.push([i, curve, texts.join(" | ")]);
    }});
  }});
  document.getElementById("out").textContent = JSON.stringify(out);
}}, 200); }});
</script></body></html>"""


def specs(label: str) -> list[dict]:
    return [
        {"type": "dots", "x_title": "Accuracy (%)", "y_title": "Model", "points": [{"label": label, "value": 50.0, "lo": 40.0, "hi": 60.0}],
         "references": [{"label": label, "value": 30.0}]},
        {"type": "lines", "x_title": "Edition", "y_title": "Accuracy (%)", "x": ["2024", "2025"], "series": [{"label": label, "y": [10.0, 20.0]}], "references": []},
        {"type": "pairs", "x_title": "Accuracy (%)", "y_title": "Model", "a": "English", "b": "Korean", "rows": [{"label": label, "a": 10.0, "b": 20.0}]},
        {"type": "arrows", "x_title": "Accuracy (%)", "y_title": "Model", "a": "TTS off", "b": "TTS on", "rows": [{"label": label, "a": 10.0, "b": 20.0}]},
        {"type": "scatter", "x_title": "Cost (USD)", "y_title": "Accuracy (%)", "points": [{"label": label, "x": 1.0, "y": 20.0}], "references": []},
        {"type": "heatmap", "x_title": "Subfield", "y_title": "Model", "z_title": "Accuracy (%)", "x": ["Algebra"], "y": [label], "z": [[20.0]]},
    ]  # fmt: skip


def hovers(tmp_path: Path, label: str) -> list[tuple[int, int, str]]:
    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed")
    shutil.copy(plotly_js(), tmp_path / "plotly.min.js")
    shutil.copy(ASSET, tmp_path / "sealboard.js")
    embedded = [json.dumps(s).replace("</", "<\\/") for s in specs(label)]  # as a page embeds JSON in a script
    charts = "".join(f'<div class="sb-chart" style="width:800px"><script type="application/json">{e}</script></div>\n' for e in embedded)
    (tmp_path / "page.html").write_text(_PAGE.format(charts=charts), "utf-8")
    args = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--virtual-time-budget=5000",
        "--dump-dom",
        (tmp_path / "page.html").as_uri(),
    ]
    dom = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True).stdout
    start = dom.index('<pre id="out">') + len('<pre id="out">')
    return [tuple(h) for h in json.loads(html.unescape(dom[start : dom.index("</pre>", start)]))]


def test_hostile_model_names_show_literally_in_every_hover(tmp_path: Path) -> None:
    found = hovers(tmp_path, HOSTILE)
    charted = {chart for chart, _, _ in found}
    assert charted == set(range(len(specs(HOSTILE)))), "every chart kind was drawn and hovered"
    for chart, curve, text in found:
        assert HOSTILE in text, (specs(HOSTILE)[chart]["type"], curve, text)


def test_control_a_plain_name_shows_beside_its_value(tmp_path: Path) -> None:
    found = hovers(tmp_path, PLAIN)
    assert len({chart for chart, _, _ in found}) == len(specs(PLAIN))
    for chart, curve, text in found:
        assert PLAIN in text and any(ch.isdigit() for ch in text.replace("7B", "")), (chart, curve, text)
