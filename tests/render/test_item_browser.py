"""The item browser of a released benchmark in a real headless Chromium (tests/render/cdp.py).

Each filter the page offers (split, subfield, type, language, year, edition, difficulty, solved
by none) is applied value by value at 1400 px and 390 px, numeric options must come in numeric
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
import html
import json
import re
import shutil
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import pytest

from builder.pipeline.build import build, load_identities
from builder.release.admin import flip, sign_statement
from builder.release.statement import Publish, Scope
from tests.factory import NOW, make_instance, results_for
from tests.release.support import AFTER, T, distinct_items
from tests.render.test_pages_browser import SHOTS, WIDTHS, _Quiet, _url_to_file, overflow_problems
from tests.shared_demo import DEMO_SITE_URL

# What each filter means, from the published item's fields (design: the item browser).
MEANING: dict[str, Callable[[dict[str, Any]], list[Any]]] = {
    "split": lambda it: [it["split"]],
    "subfield": lambda it: [it.get("msc") or it.get("category")],
    "type": lambda it: [it.get("problem_type") or it["answer_type"]],
    "language": lambda it: list(it["question"]),
    "year": lambda it: [it.get("year")],
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


# The shared demo's site_url path ("math"): its 404.html links there, root-absolute.
SUB = urlsplit(DEMO_SITE_URL).path.strip("/")


def _serve(www: Path) -> tuple[ThreadingHTTPServer, int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


@pytest.fixture(scope="module")
def sites(tmp_path_factory, demo_site):
    """The session's authorised demo site (tests/conftest.py; linked, read-only) and a small
    released multi-language site, served over HTTP under /demo/ and /small/."""
    www = tmp_path_factory.mktemp("item-browser") / "www"
    www.mkdir()
    (www / "demo").symlink_to(demo_site.site, target_is_directory=True)
    # And where its site_url puts it (mkdocs writes 404.html's links under that path).
    (www / SUB).symlink_to(demo_site.site, target_is_directory=True)
    (www.parent / "demo").symlink_to(demo_site.root, target_is_directory=True)

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
    ("demo", "kcsat-ml", {"split", "subfield", "type", "year", "difficulty"}),
    ("demo", "livemathematicianbench", {"subfield", "edition"}),
    ("small", "soohak", {"split", "subfield", "type", "language", "difficulty"}),
]
# Options in the order a reader expects, said by hand: numbers by value.
ORDERED = {("small", "difficulty"): ["2", "3", "10", "12"], ("demo", "difficulty"): ["2", "3", "4"], ("small", "subfield"): ["05", "11"]}


@pytest.mark.parametrize(("site_name", "bench", "expected_filters"), CASES, ids=[c[1] for c in CASES])
def test_every_filter_shows_exactly_the_matching_items(sites, browser, site_name, bench, expected_filters):
    www, base = sites
    site = www / site_name
    items, solved_by_none = _published(site, bench)
    every = {it["id"] for it in items}
    values = {name: sorted({str(v) for it in items for v in meaning(it) if v is not None}) for name, meaning in MEANING.items()}
    assert {name for name, vs in values.items() if len(vs) > 1} == expected_filters
    assert solved_by_none and solved_by_none < every, "the data must give solved-by-none something to do"
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
            want = {
                it["id"]
                for it in items
                if it["id"] in solved_by_none and all(v in [str(x) for x in MEANING[n](it)] for n, v in pick.items())
            }
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


# --- issue 25: formulas, the grid, items and models both ways, text, palette, 404 -------

# What a reader sees of the page's content: KaTeX's hidden MathML copy (which keeps the TeX)
# and literal code (answers as given) left out.
SEEN_TEXT = """(() => {
  const c = document.querySelector('.md-content').cloneNode(true);
  c.querySelectorAll('.katex-mathml, code, script').forEach(e => e.remove());
  return c.textContent;
})()"""
MATH_FACTS = """(() => ({
  formulas: document.querySelectorAll('.sb-math .katex').length,
  transcriptFormulas: document.querySelectorAll('.sb-transcript-text .katex').length,
  gold: document.querySelectorAll('.sb-tex .katex').length,
  errors: document.querySelectorAll('.katex-error').length,
  katexFont: [...document.fonts].some(f => f.family.replace(/"/g, '').startsWith('KaTeX') && f.status === 'loaded'),
}))()"""
_INLINE = re.compile(r"\$[^$\n]+\$")


def _items(site: Path, bench: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (site / "data" / bench / "items.jsonl").read_text().splitlines() if line.strip()]


def _math_pages(site: Path) -> list[tuple[str, dict[str, Any]]]:
    """A KCSAT-ML item (Korean around formulas) whose gold answer is bare TeX, and a
    LiveMathematicianBench item (English) with four transcripts."""
    kcsat = next(it for it in _items(site, "kcsat-ml") if "\\" in it["answer"]["ko"] and _INLINE.search(it["question"]["ko"]))
    lmb = next(
        it
        for it in _items(site, "livemathematicianbench")
        if (site / "livemathematicianbench/items" / f"{it['id']}.html").read_text().count('class="sb-transcript"') == 4
    )
    return [(f"kcsat-ml/items/{kcsat['id']}.html", kcsat), (f"livemathematicianbench/items/{lmb['id']}.html", lmb)]


def _wait(page, ms: int = 200) -> None:
    page.eval(f"new Promise(r => setTimeout(r, {ms}))")


def test_formulas_render_on_item_pages_in_both_languages(sites, browser):
    www, base = sites
    site = www / "demo"
    problems: list[str] = []
    for width, height in WIDTHS:
        page = browser.page(width, height)
        try:
            for rel, item in _math_pages(site):
                page.goto(f"{base}demo/{rel}")
                page.eval("document.fonts.ready.then(() => true)")
                facts = page.eval(MATH_FACTS)
                where = f"{rel} @{width}px"
                want = sum(len(_INLINE.findall(q)) for q in item["question"].values())
                if facts["formulas"] < want:
                    problems.append(f"{where}: {facts['formulas']} rendered formulas, the question has {want}")
                if any("\\" in a for a in item["answer"].values()) and not facts["gold"]:
                    problems.append(f"{where}: the TeX gold answer is not rendered")
                if facts["errors"] or not facts["katexFont"]:
                    problems.append(f"{where}: KaTeX errors {facts['errors']}, font loaded {facts['katexFont']}")
                seen = page.eval(SEEN_TEXT)
                if "$" in seen:
                    problems.append(f"{where}: raw $ in the rendered text: …{seen[seen.index('$') - 40 : seen.index('$') + 40]}…")
                requests = page.requests()
                if not any(u.endswith("/assets/katex/katex.min.js") for u in requests):
                    problems.append(f"{where}: KaTeX not loaded")
                foreign = [u for u in requests if not u.startswith((base, "data:", "about:"))]
                problems += [f"{where}: requested {u}" for u in foreign]
                problems += overflow_problems(page, width, where)
                problems += [f"{where}: console error {e}" for e in page.errors()]
                page.screenshot(SHOTS / f"math-{rel.split('/')[0]}-{width}.png")
            # Pages without formulas never load KaTeX.
            for rel in ("kcsat-ml/items.html", "kcsat-ml/core.html", "index.html"):
                page.goto(f"{base}demo/{rel}")
                if any("/assets/katex/" in u for u in page.requests()):
                    problems.append(f"{rel} @{width}px: loads KaTeX without a formula")
        finally:
            page.close()
    assert not problems, "\n".join(problems)


def test_the_leak_scan_sees_embargoed_text_through_rendered_math(sites, browser):
    """KaTeX changes only what the browser shows: the page's source keeps the TeX, which is
    what the output scan reads. An embargoed LiveMathematicianBench question (with its
    formulas) planted in a released item's page renders as formulas and is still caught."""
    from builder.leakscan.scan import build_needles, scan_tree
    from builder.trust.seal import unseal

    www, base = sites
    site, demo = www / "demo", www.parent / "demo"
    ids = load_identities(demo / "keys/demo/identity.txt", None)
    sealed = next((demo / "bundles/livemathematicianbench/_dataset").glob("*/items.jsonl.age")).read_bytes()
    every = [json.loads(line) for line in unseal(sealed, ids, "items").splitlines()]
    released = {it["id"] for it in _items(site, "livemathematicianbench")}
    hidden = next(it for it in every if it["id"] not in released and _INLINE.search(it["question"]["en"]))
    needles = build_needles([(hidden["id"], "", list(hidden["question"].values()))])  # its text, not its canary
    rel, _ = _math_pages(site)[1]
    source = (site / rel).read_text()
    folder = www / "planted"
    shutil.rmtree(folder, ignore_errors=True)
    planted = folder / rel
    planted.parent.mkdir(parents=True)
    for name in ("assets",):  # the page's relative links resolve in the copy
        shutil.copytree(site / name, folder / name)
    assert scan_tree(folder, needles)[0] is None  # control: the released page alone is clean
    question = hidden["question"]["en"].split("\n")[0]
    marker = '<div class="sb-transcript-text sb-math" style="white-space: pre-wrap">'
    assert marker in source
    planted.write_text(source.replace(marker, marker + html.escape(question) + " ", 1))
    hit = scan_tree(folder, needles)[0]
    assert hit is not None and hit.path == rel and hit.label == f"question text of {hidden['id']}"
    page = browser.page(1400, 900)
    try:
        page.goto(f"{base}planted/{rel}")
        assert page.eval(MATH_FACTS)["transcriptFormulas"] >= len(_INLINE.findall(question)) > 0
    finally:
        page.close()
        shutil.rmtree(folder)


GRID_POINT = """((i, j) => {
  const c = document.querySelector('[data-sb-grid-canvas]'), step = +c.dataset.cell, label = +c.dataset.label;
  const box = c.parentElement;
  box.scrollLeft = Math.max(0, label + i * step - box.clientWidth / 2);
  box.scrollTop = Math.max(0, j * step - box.clientHeight / 2);
  box.scrollIntoView({block: 'center', behavior: 'instant'});
  const r = c.getBoundingClientRect();
  return {x: r.left + label + i * step + step / 2 - 1, y: r.top + j * step + step / 2 - 1};
})"""


def _matrix_counts(site: Path, bench: str) -> dict[tuple[str, str], list[int]]:
    counts: dict[tuple[str, str], list[int]] = {}
    with (site / "data" / bench / "matrix.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            c = counts.setdefault((row["submission"], row["item"]), [0, 0])
            c[0] += row["correct"] == "True"
            c[1] += 1
    return counts


def _mouse(page, kind: str, x: float, y: float) -> None:
    params = {
        "type": kind,
        "x": x,
        "y": y,
        "button": "left" if kind != "mouseMoved" else "none",
        "clickCount": 1 if kind != "mouseMoved" else 0,
    }
    page.b.send("Input.dispatchMouseEvent", params, session=page.session)


@pytest.mark.parametrize("bench", ["kcsat-ml", "livemathematicianbench"])
def test_grid_cells_are_the_matrix_and_a_click_opens_that_models_verdict(sites, browser, bench):
    www, base = sites
    site = www / "demo"
    grid = json.loads((site / f"data/{bench}/grid.json").read_text())
    counts = _matrix_counts(site, bench)  # by hand from every published sample
    released = {it["id"] for it in _items(site, bench)}
    assert [it["id"] for it in grid["items"]] == sorted({item for _, item in counts})
    assert {it["id"] for it in grid["items"]} <= released
    assert {m["submission"] for m in grid["models"]} == {sub for sub, _ in counts}
    for m in grid["models"]:
        got = [[c, n] if n is not None else None for c, n in zip(m["correct"], m["samples"])]
        assert got == [counts.get((m["submission"], it["id"])) for it in grid["items"]], m["submission"]
    last_model, last_item = len(grid["models"]) - 1, len(grid["items"]) - 1
    picks = [(0, 0), (last_model, last_item), (last_model // 2, last_item // 3)]
    for width, height in WIDTHS:
        page = browser.page(width, height)
        try:
            for i, j in picks:
                page.goto(f"{base}demo/{bench}/grid.html")
                assert not overflow_problems(page, width, "grid"), overflow_problems(page, width, "grid")
                assert not page.errors(), page.errors()
                if (i, j) == (0, 0):
                    page.screenshot(SHOTS / f"grid-{bench}-{width}.png")
                point = page.eval(f"{GRID_POINT}({i}, {j})")
                model, item = grid["models"][i], grid["items"][j]
                correct, samples = counts[(model["submission"], item["id"])]
                _mouse(page, "mouseMoved", point["x"], point["y"])
                tip = page.eval("document.querySelector('[data-sb-grid-tip]').textContent")
                assert tip == f"{item['id']} · {model['model']} ({model['lab']}) · {correct} of {samples} sample(s) correct", tip
                page.mark = len(page.b.events)
                _mouse(page, "mousePressed", point["x"], point["y"])
                _mouse(page, "mouseReleased", point["x"], point["y"])
                page.b.wait_event("Page.loadEventFired", page.session, page.mark)
                landed = page.eval("""(() => { const t = document.querySelector(':target');
                  return {path: location.pathname, hash: location.hash, model: t && t.querySelector('a').textContent,
                          href: t && t.querySelector('a').href, text: t && t.textContent}; })()""")
                assert landed["path"].endswith(f"/{bench}/items/{item['page']}.html") and landed["hash"] == f"#{model['anchor']}", landed
                assert landed["model"] == model["model"] and f"{correct} / {samples}" in landed["text"], landed
                assert _url_to_file(www, base, landed["href"]) == site / bench / "models" / f"{model['submission']}.html"
        finally:
            page.close()


ROWS = """(() => [...document.querySelectorAll('table.sb-items tbody tr')].filter(tr => !tr.hidden)
  .map(tr => tr.querySelector('a').textContent))()"""


def test_items_index_sorts_and_filters_with_its_view_in_the_url(sites, browser):
    www, base = sites
    site = www / "demo"
    items = {it["id"]: it for it in _items(site, "kcsat-ml")}
    rate = {r["id"]: r["solve_rate"] for r in json.loads((site / "data/kcsat-ml/item_summary.json").read_text())["items"]}
    of_2020 = [i for i, it in items.items() if it["year"] == 2020]
    for width, height in WIDTHS:
        page = browser.page(width, height)
        try:
            page.goto(f"{base}demo/kcsat-ml/items.html?year=2020&sort=solve_rate&dir=asc")
            shown = page.eval(ROWS)
            assert sorted(shown) == sorted(of_2020), width
            assert [rate[i] for i in shown] == sorted(rate[i] for i in of_2020), "ascending solve rate"
            assert page.eval("document.querySelector('[data-sb-filter=year]').value") == "2020"
            page.click('table.sb-items th[data-key="solve_rate"]')
            shown = page.eval(ROWS)
            assert [rate[i] for i in shown] == sorted((rate[i] for i in of_2020), reverse=True), "a click sorts descending"
            kind = items[shown[0]]["answer_type"]
            page.eval(
                f"(s => {{ s.value = {json.dumps(kind)}; s.dispatchEvent(new Event('change')); }})"
                "(document.querySelector('[data-sb-filter=type]'))"
            )
            query = page.eval("location.search")
            assert {"year=2020", "sort=solve_rate", "dir=desc", f"type={kind}"} <= set(query.lstrip("?").split("&")), query
            view = page.eval(ROWS)
            assert view == [i for i in shown if items[i]["answer_type"] == kind]
            page.goto(page.eval("location.href"))  # the shared address restores the view
            assert page.eval(ROWS) == view
            assert not page.errors(), page.errors()
        finally:
            page.close()


def test_model_and_item_pages_link_both_ways_for_released_results_only(sites, browser):
    www, base = sites
    site = www / "demo"
    for bench in ("kcsat-ml", "livemathematicianbench"):
        counts = _matrix_counts(site, bench)
        released = {it["id"] for it in _items(site, bench)}
        subs = json.loads((site / f"data/{bench}/submissions.json").read_text())["rows"]
        opted = {sub for sub, _ in counts}
        assert opted < {r["submission"] for r in subs}, "the demo keeps some results private"
        item_pages: dict[str, str] = {}
        for r in subs:
            sub = r["submission"]
            model = (site / bench / "models" / f"{sub}.html").read_text()
            table_anchor = re.search(r'<table class="sb-items sb-model-items" data-anchor="(m-[^"]+)">', model)
            links = [
                (name, table_anchor.group(1), *rest)
                for name, *rest in re.findall(
                    r'<a href="../../items/([^"#]+)\.html">([^<]+)</a><td class="sb-num"[^>]*>(\d+) / (\d+)', model
                )
            ]
            if sub not in opted:  # private per-item results: listed nowhere
                assert not links and "Per-item results" not in model, sub
                continue
            assert {iid for _, _, iid, _, _ in links} == {item for s, item in counts if s == sub} <= released
            for page_name, anchor, iid, correct, samples in links:
                assert anchor == "m-" + sub.replace("/", ".") and [int(correct), int(samples)] == counts[(sub, iid)]
                text = item_pages.get(page_name) or item_pages.setdefault(
                    page_name, (site / bench / "items" / f"{page_name}.html").read_text()
                )
                row = re.search(rf'<tr id="{re.escape(anchor)}"[^>]*><td><a href="../models/{re.escape(sub)}\.html">', text)
                assert row, (sub, iid)
        for text in item_pages.values():  # every verdict row is an opted-in submission's
            assert {a for a in re.findall(r'<tr id="(m-[^"]+)"', text)} <= {"m-" + s.replace("/", ".") for s in opted}
    # Both kinds of page fit a phone, with their verdict colours.
    page = browser.page(390, 844)
    try:
        for rel in ("kcsat-ml/models/lab-solar/solar-10-7b-instruct-v1-0-default-base.html", _math_pages(site)[0][0]):
            page.goto(f"{base}demo/{rel}")
            if "/models/" in rel:  # each item link opens the item page at this model's row
                hashes = page.eval("[...new Set([...document.querySelectorAll('table.sb-model-items tbody a')].map(a => a.hash))]")
                assert hashes == ["#m-lab-solar.solar-10-7b-instruct-v1-0-default-base"], hashes
            assert not overflow_problems(page, 390, rel), overflow_problems(page, 390, rel)
            assert not page.errors(), page.errors()
            page.screenshot(SHOTS / f"both-ways-{rel.split('/')[1]}-390.png")
    finally:
        page.close()


def test_text_bugs_of_issue_25_are_gone(sites):
    """The LiveMathematicianBench landing page's unranked row (Python None, an empty n=),
    the Methodology page's reStructuredText link, and four transcripts of one sample all
    labelled alike."""
    site = sites[0] / "demo"
    landing = (site / "livemathematicianbench/index.html").read_text()
    assert 'class="sb-rank">None<' not in landing and '<span class="sb-n"></span>' not in landing
    assert 'class="sb-rank">—</td><th scope="row" class="sb-model"><a href="models/lab-grok/grok-4-1-fast.html">' in landing
    method = (site / "methodology.html").read_text()
    assert '<a href="https://github.com/huggingface/Math-Verify">math-verify</a>' in method
    assert "`_" not in method and "&lt;https://" not in method
    rel, _ = _math_pages(site)[1]
    labels = re.findall(r'<details class="sb-transcript"[^>]*><summary>([^<]+)</summary>', (site / rel).read_text())
    assert len(labels) == 4 and len(set(labels)) == 4, labels
    assert all("variant: " in label and "sketch: " in label for label in labels)


PALETTE = "document.body.getAttribute('data-md-color-scheme')"


def test_the_palette_follows_the_operating_system_until_the_reader_toggles(sites, browser):
    www, base = sites
    for width, height in WIDTHS:
        page = browser.page(width, height)
        try:
            page.goto(f"{base}demo/index.html")
            page.eval("localStorage.clear()")
            for os_scheme, shown in (("dark", "slate"), ("light", "default"), ("dark", "slate")):
                page.b.send(
                    "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": os_scheme}]}, session=page.session
                )
                page.goto(f"{base}demo/kcsat-ml/grid.html")
                assert page.eval(PALETTE) == shown, (width, os_scheme)
                if shown == "slate":
                    page.screenshot(SHOTS / f"dark-grid-{width}.png")
            page.click("form[data-md-component=palette] label:not([hidden])")  # the reader's own choice wins over the OS
            page.goto(f"{base}demo/index.html")
            assert page.eval(PALETTE) == "default", width
            assert not page.errors(), page.errors()
        finally:
            page.eval("localStorage.clear()")
            page.close()


class _PagesHost(_Quiet):
    """A host that serves a site's 404.html for every unknown path below it (GitHub Pages)."""

    def send_error(self, code, message=None, explain=None):
        top = Path(self.directory) / urlsplit(self.path).path.lstrip("/").split("/")[0]
        if code != 404 or not (top / "404.html").is_file():
            return super().send_error(code, message, explain)
        body = (top / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


STYLED = """(() => ({
  sheets: [...document.querySelectorAll('link[rel=stylesheet]')].map(l => !!l.sheet && l.sheet.cssRules.length > 0),
  uses: [...document.querySelectorAll('link[rel=stylesheet], script[src]')].map(e => e.href || e.src),
  header: getComputedStyle(document.querySelector('.md-header')).position,
  home: document.querySelector('.md-content a[href]').href,
  logo: document.querySelector('.md-header__button.md-logo').href,
}))()"""


def test_the_404_page_is_styled_at_any_depth_below_a_sub_path(sites, browser):
    www, _ = sites
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_PagesHost, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        for width, height in WIDTHS:
            page = browser.page(width, height)
            try:
                for missing in (
                    f"{SUB}/nope.html",
                    f"{SUB}/kcsat-ml/nope.html",
                    f"{SUB}/kcsat-ml/items/nope.html",
                    f"{SUB}/labs/x/y/nope.html",
                ):
                    page.goto(base + missing)
                    facts = page.eval(STYLED)
                    assert facts["sheets"] and all(facts["sheets"]), (missing, facts)
                    assert facts["header"] == "sticky", (missing, facts)
                    assert facts["home"] == facts["logo"] == base + f"{SUB}/index.html", (missing, facts)
                    # What the page uses resolves to the site's files. (Chromium's preload
                    # scanner may also guess them against the address before the <base> exists:
                    # speculative requests the page never uses.)
                    broken = [
                        u for u in facts["uses"] if not u.startswith(base + f"{SUB}/assets/") or not _url_to_file(www, base, u).is_file()
                    ]
                    assert len(facts["uses"]) >= 5 and not broken, (missing, broken)
                    assert not overflow_problems(page, width, missing), overflow_problems(page, width, missing)
                page.screenshot(SHOTS / f"404-deep-{width}.png")
            finally:
                page.close()
    finally:
        server.shutdown()
