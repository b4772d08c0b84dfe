"""The item browser of a released benchmark in a real headless Chromium (tests/render/cdp.py).

Each filter the page offers (split, subfield, type, language, edition, difficulty, solved by
none) is applied value by value at 1400 px and 390 px, numeric options must come in numeric
order (2, 3, 10, 12: not text order), and the rows left *visible* must be
exactly the items that the published data says match: counted here from
``data/<benchmark>/items.jsonl`` (and ``matrix.csv`` for solved-by-none), not from the page.
A filter is offered exactly when the items have two or more values for it. Every item link
resolves to a file. The demo's two released benchmarks (KCSAT-ML in full, the oldest
LiveMathematicianBench editions) have one language each, so a small released instance
whose items differ in languages covers the language filter.
"""

from __future__ import annotations

import csv
import functools
import json
import threading
from datetime import datetime, timezone
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest

from builder.demo.instance import write_demo
from builder.pipeline.build import build, load_identities
from builder.release.admin import flip, sign_statement
from builder.release.statement import Publish, Scope
from tests.factory import NOW, make_instance, results_for
from tests.release.support import AFTER, T, distinct_items
from tests.render.test_pages_browser import SHOTS, WIDTHS, _Quiet, _url_to_file, overflow_problems

# What each filter means, from the published item's fields (design: the item browser).
MEANING: dict[str, Callable[[dict[str, Any]], list[Any]]] = {
    "split": lambda it: [it["split"]],
    "subfield": lambda it: [it.get("msc") or it.get("category")],
    "type": lambda it: [it.get("problem_type") or it["answer_type"]],
    "language": lambda it: list(it["question"]),
    "edition": lambda it: [it.get("edition")],
    "difficulty": lambda it: [it.get("points")],
}

# Visible rows and the page's own count line, after setting the filters given.
APPLY = """((filters, none) => {
  document.querySelectorAll('[data-sb-filter]').forEach(s => {
    s.value = filters[s.dataset.sbFilter] || '';
    s.dispatchEvent(new Event('change'));
  });
  const box = document.querySelector('[data-sb-filter-none]');
  box.checked = none;
  box.dispatchEvent(new Event('change'));
  const rows = [...document.querySelectorAll('table.sb-items tbody tr')];
  return {
    visible: rows.filter(tr => tr.getClientRects().length > 0).map(tr => tr.querySelector('a').textContent),
    count: document.querySelector('[data-sb-count]').textContent,
  };
})"""

OFFERED = """(() => Object.fromEntries([...document.querySelectorAll('[data-sb-filter]')].map(
  s => [s.dataset.sbFilter, [...s.options].map(o => o.value).filter(Boolean)])))()"""

LINKS = "[...document.querySelectorAll('table.sb-items tbody a')].map(a => a.href)"


def _serve(www: Path) -> tuple[ThreadingHTTPServer, int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The authorised demo site and a small released multi-language site, served over HTTP
    under /demo/ and /small/."""
    www = tmp_path_factory.mktemp("item-browser") / "www"
    now = datetime.now(timezone.utc)
    demo = www.parent / "demo"
    write_demo(demo, seed=0, now=now)
    build(demo, www / "demo", identities=load_identities(demo / "keys/demo/identity.txt", None), now=now)

    items = distinct_items()
    for it in items[::3]:  # every third item in English only: the language filter has work
        del it["question"]["ko"], it["answer"]["ko"]
    for i, it in enumerate(items):  # points past 9, so text order (10 before 2) would show
        it["points"] = (10, 2, 12, 3)[i % 4]
    inst = make_instance(www.parent / "small", items=items)
    correct = {it["id"]: [i % 4 == 0, False, False] for i, it in enumerate(inst.items)}
    inst.add_submission("acme", "run-1", results_for(inst.items, correct))
    flip(inst.root, "soohak", T, Scope(), Publish(), NOW, name="r1")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    build(inst.root, www / "small", identities=[inst.identity], now=AFTER)

    server, port = _serve(www)
    yield www, f"http://127.0.0.1:{port}/"
    server.shutdown()


def _published(site: Path, bench: str) -> tuple[list[dict[str, Any]], set[str]]:
    items = [json.loads(line) for line in (site / "data" / bench / "items.jsonl").read_text().splitlines() if line.strip()]
    solved: dict[str, bool] = {}
    with (site / "data" / bench / "matrix.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            solved[row["item"]] = solved.get(row["item"], False) or row["correct"] == "True"
    return items, {item for item, ok in solved.items() if not ok}


CASES = [  # (site, benchmark, the filters its data calls for)
    ("demo", "kcsat-ml", {"split", "subfield", "type", "difficulty"}),
    ("demo", "livemathematicianbench", {"subfield", "edition"}),
    ("small", "soohak", {"split", "subfield", "type", "language", "difficulty"}),
]
# Options in the order a reader expects, said by hand: numbers by value.
ORDERED = {("small", "difficulty"): ["2", "3", "10", "12"], ("demo", "difficulty"): ["2", "3", "4"],
           ("small", "subfield"): ["05", "11"]}


@pytest.mark.parametrize(("site_name", "bench", "expected_filters"), CASES, ids=[c[1] for c in CASES])
def test_every_filter_shows_exactly_the_matching_items(sites, browser, site_name, bench, expected_filters):
    www, base = sites
    site = www / site_name
    items, solved_by_none = _published(site, bench)
    every = {it["id"] for it in items}
    values = {name: sorted({str(v) for it in items for v in meaning(it) if v is not None}) for name, meaning in MEANING.items()}
    assert {name for name, vs in values.items() if len(vs) > 1} == expected_filters
    assert solved_by_none and solved_by_none < every, "the data must give solved-by-none something to do"
    SHOTS.mkdir(exist_ok=True)
    url = f"{base}{site_name}/{bench}/items.html"
    for width, height in WIDTHS:
        page = browser.page(width, height)
        try:
            page.goto(url)
            offered = page.eval(OFFERED)
            assert set(offered) == expected_filters, (width, offered)
            for name, options in offered.items():
                assert sorted(options) == values[name], (name, options)
                assert options == ORDERED.get((site_name, name), options), (name, options)
                if all(o.isdigit() for o in options):
                    assert options == sorted(options, key=int), (name, options)
                for value in options:
                    shown = page.eval(f"{APPLY}({json.dumps({name: value})}, false)")
                    want = {it["id"] for it in items if value in [str(v) for v in MEANING[name](it)]}
                    assert sorted(shown["visible"]) == sorted(want), (width, name, value)
                    assert shown["count"] == f"{len(want)} of {len(items)} items"
            shown = page.eval(f"{APPLY}({{}}, true)")
            assert sorted(shown["visible"]) == sorted(solved_by_none), width
            # Filters combine: the first two offered, each at its first value, and solved-by-none.
            pick = {name: opts[0] for name, opts in list(offered.items())[:2]}
            shown = page.eval(f"{APPLY}({json.dumps(pick)}, true)")
            want = {it["id"] for it in items if it["id"] in solved_by_none
                    and all(v in [str(x) for x in MEANING[n](it)] for n, v in pick.items())}
            assert sorted(shown["visible"]) == sorted(want), (width, pick)
            shown = page.eval(f"{APPLY}({{}}, false)")
            assert len(shown["visible"]) == len(items)
            # Against the device's width, element by element (the table scrolls in its own box).
            assert not overflow_problems(page, width, f"{bench} items"), overflow_problems(page, width, f"{bench} items")
            links = page.eval(LINKS)
            assert len(links) == len(items)
            missing = [u for u in links if not _url_to_file(www, base, u).is_file()]
            assert not missing, missing[:3]
            assert not page.errors(), page.errors()
            page.screenshot(SHOTS / f"items-{bench}-{width}.png")
            page.goto(links[0])  # an item page opens, without errors, and fits the screen
            assert page.eval("document.querySelector('h1').textContent")
            assert not page.errors(), page.errors()
            assert not overflow_problems(page, width, links[0]), overflow_problems(page, width, links[0])
            page.screenshot(SHOTS / f"item-{bench}-{width}.png")
        finally:
            page.close()


# Every text of every chart (tick labels, axis titles, legend) lies inside its chart's box
# (a label plotly cut at the edge, or pushed out of the margin, is named), and model names
# shortened for a phone still tell the rows apart.
CLIPPED_TEXT = """(() => {
  const out = [];
  document.querySelectorAll('.sb-chart').forEach((chart, i) => {
    const svg = chart.querySelector('svg.main-svg');
    if (!svg) { out.push(`chart ${i} not drawn`); return; }
    const box = svg.getBoundingClientRect();
    chart.querySelectorAll('svg text').forEach(t => {
      const r = t.getBoundingClientRect();
      if (!t.textContent.trim() || r.width === 0) return;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push(`chart ${i}: "${t.textContent.trim().slice(0, 40)}" at ${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)}`);
    });
    if (box.right > window.visualViewport.width + 1) out.push(`chart ${i} wider than the screen`);
    // Rows named by model: names that differ must read apart after shortening.
    const spec = chart.spec, full = (spec.points || spec.rows || []).map(p => p.label).concat(spec.type === 'heatmap' ? spec.y : []);
    const ticks = chart._fullLayout.yaxis.tickmode === 'array' ? chart._fullLayout.yaxis.ticktext : [];
    if (ticks.length && new Set(ticks).size < new Set(full).size)
      out.push(`chart ${i}: ${new Set(full).size - new Set(ticks).size} row label(s) shortened alike, e.g. "${ticks.find((t, j) => ticks.indexOf(t) !== j)}"`);
  });
  return out;
})()"""


def test_kcsat_ml_chart_labels_fit_a_phone(sites, browser):
    www, base = sites
    site = www / "demo"
    pages = sorted(p.name for p in (site / "kcsat-ml").glob("*.html") if 'class="sb-chart' in p.read_text())
    assert pages, "KCSAT-ML has charted boards"
    problems = []
    page = browser.page(390, 844)
    try:
        for name in pages:
            page.goto(f"{base}demo/kcsat-ml/{name}")
            assert page.draw_charts(), name  # plotly is fetched when a chart scrolls into view
            problems += [f"{name}: {p}" for p in page.eval(CLIPPED_TEXT)]
            page.screenshot(SHOTS / f"chart-kcsat-ml-{name[:-5]}-390.png")
    finally:
        page.close()
    assert not problems, "\n".join(problems[:20])
