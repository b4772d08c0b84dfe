"""The built pages in a real headless Chromium (driven over the DevTools pipe, tests/render/cdp.py).

The session's demo build (tests/conftest.py) is served over HTTP under a sub-path
(``/math/``, as a GitHub Pages project site is, and its site_url says). Every board page is opened at
1400×900 and 390×844 and must: not overflow the screen sideways (neither the page's scroll
width nor any element outside a box that scrolls or clips it), chart with named axes,
reorder rows when a column title is clicked, log no console error, request nothing from
another host, and fetch plotly only once a chart comes near the screen (never on a page
without one); its charts name no "trace N", keep legends off axis titles and point labels off
each other, give each line its own colour, draw a frontier they name, and on a desktop follow
the table's lab filter (one pass does all this: loading and drawing are most of the cost).
Filters and their URL state, model
links and the from-disk link structure are checked too. Screenshots of the home page and
three boards land in tests/render/screenshots/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import os
import re
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html
import orjson
import pytest

from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for
from tests.render.cdp import CHROMIUM
from tests.shared_demo import DEMO_SITE_URL

if CHROMIUM is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("headless Chromium is required in CI (apt-get install chromium-headless-shell)")
    pytest.skip("chromium not installed", allow_module_level=True)

WIDTHS = ((1400, 900), (390, 844))
SHOTS = Path(__file__).parent / "screenshots"
SHOT_PAGES = ("index.html", "soohak/msc.html", "kcsat-ml/tts.html", "livemathematicianbench/editions.html")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D102 - keep pytest output clean
        pass


@pytest.fixture(scope="module")
def served(served_demo):
    """The session's authorised demo site (tests/conftest.py) at http://127.0.0.1:<port>/math/."""
    return served_demo


def _boards(site: Path) -> list[tuple[str, dict]]:
    index = orjson.loads((site / "data/index.json").read_bytes())
    out = []
    for bench in index["benchmarks"]:
        for board in bench["boards"]:
            data = orjson.loads((site / board["json"]).read_bytes())
            out.append((f"{bench['id']}/{board['board']}.html", data))
    return out


# Facts about the page after load, gathered in one evaluation.
PAGE_FACTS = """(() => {
  const charts = [...document.querySelectorAll('.sb-chart')].map(el => ({
    drawn: !!el.querySelector('svg.main-svg'),
    x: el._fullLayout ? String(el._fullLayout.xaxis.title.text || '') : '',
    y: el._fullLayout ? String(el._fullLayout.yaxis.title.text || '') : '',
    svgTitles: [...el.querySelectorAll('.xtitle, .ytitle')].map(t => t.textContent.trim()).filter(Boolean).length,
  }));
  return {
    charts,
    modelLinks: [...document.querySelectorAll('table.sb-board .sb-model a')].map(a => a.href),
    rows: document.querySelectorAll('table.sb-board[data-sortable] tbody tr').length,
  };
})()"""

# Sideways overflow at a device width, in two ways. (innerWidth cannot serve: under mobile
# emulation the layout viewport widens to fit what overflows, so innerWidth grows with it.)
# 1. the page: the root's scroll width against the device's;
# 2. every element: its right edge against the device's, unless an ancestor clips or
#    scrolls it sideways (a table in its scroll box may be wider; the box itself may not).
OVERFLOW = """((width) => {
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + [...el.classList].slice(0, 2).map(c => '.' + c).join('');
  const boxed = el => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    return false;
  };
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= width + 1) continue;
    if (getComputedStyle(el).visibility === 'hidden' || boxed(el)) continue;
    const path = [];
    for (let p = el; p && p !== document.body && path.length < 4; p = p.parentElement) path.unshift(name(p));
    wide.push(`${path.join(' > ')} reaches ${Math.round(r.right)} px`);
  }
  return {page: document.documentElement.scrollWidth - width, elements: wide};
})"""


def overflow_problems(page, width: int, where: str) -> list[str]:
    """What sticks out sideways at `width` (OVERFLOW), as readable problems."""
    found = page.eval(f"{OVERFLOW}({width})")
    out = [f"{where}: page is {found['page']} px wider than the screen"] if found["page"] > 0 else []
    return out + [f"{where}: {e}" for e in found["elements"][:5]]


COLUMN = """((key) => {
  const table = document.querySelector('table.sb-board[data-sortable]');
  const col = [...table.tHead.rows[0].cells].findIndex(th => th.dataset.key === key);
  return [...table.tBodies[0].rows].filter(tr => !tr.hidden).map(tr => {
    const cell = tr.cells[col];  // the sort key, else the shown number (wide boards)
    const v = cell.getAttribute('data-sort') ?? cell.textContent.replace(/\u2212/g, '-').replace(/[^0-9.-]/g, '');
    return v === '' ? null : parseFloat(v);
  });
})"""


def _url_to_file(site: Path, base: str, url: str) -> Path:
    assert url.startswith(base), url
    return site / unquote(urlsplit(url).path[len(urlsplit(base).path) :])


# Facts about each drawn chart: its legend, whether the legend lies over the x-axis title, how
# many point labels are shown and how many pairs of them overlap, its lines' colours, whether it
# draws a Pareto frontier and how many points its spec puts on one.
CHART_FACTS = """[...document.querySelectorAll('.sb-chart')].filter(el => el._fullData).map(el => {
  const r = e => e ? e.getBoundingClientRect() : null, hit = (a, b) => a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const legend = r(el.querySelector('.legend')), xtitle = r(el.querySelector('.xtitle'));
  const labels = [...el.querySelectorAll('.textpoint text')].filter(t => t.textContent && t.style.display !== 'none').map(r);
  let collide = 0;
  labels.forEach((a, i) => labels.slice(i + 1).forEach(b => { if (hit(a, b)) collide++; }));
  return {type: el.spec.type, legend: [...el.querySelectorAll('.legendtext')].map(t => t.textContent), legendOverX: hit(legend, xtitle),
          labels: labels.length, collide, lineColors: el._fullData.filter(t => t.mode && t.mode.includes('lines') && t.showlegend !== false && t.name !== 'Pareto frontier').map(t => t.line.color),
          frontier: el._fullData.some(t => t.name === 'Pareto frontier'), points: el.spec.points ? el.spec.points.length : 0,
          frontierPoints: el.spec.frontier ? el.spec.points.filter(p => p.frontier).length : 0};
})"""


def _chart_problems(page, where: str, desktop: bool, seen: dict[str, int]) -> list[str]:
    """No legend says "trace N"; no legend lies over the x-axis title; no two shown point labels
    overlap; each line of a lines chart has its own colour; a scatter with a frontier of two
    points or more draws it; on a desktop a scatter of more than twelve points names some of
    them. ``seen`` counts the lines charts, frontiers and such scatters checked."""
    page.eval("new Promise(r => setTimeout(r, 150))")  # plotly places its labels after drawing
    out = []
    for c in page.eval(CHART_FACTS):
        at = f"{where} ({c['type']})"
        out += [f"{at}: legend entry {t!r}" for t in c["legend"] if re.fullmatch(r"trace \d+", t)]
        if c["legendOverX"]:
            out.append(f"{at}: the legend lies over the x-axis title")
        if c["collide"]:
            out.append(f"{at}: {c['collide']} overlapping point labels")
        if c["type"] == "lines":
            seen["lines"] += 1
            if len(set(c["lineColors"])) != len(c["lineColors"]):
                out.append(f"{at}: {len(c['lineColors'])} lines share {len(set(c['lineColors']))} colours")
        if c["frontierPoints"] > 1:
            seen["frontiers"] += 1
            if not c["frontier"]:
                out.append(f"{at}: {c['frontierPoints']} frontier points but no Pareto frontier drawn")
        if c["type"] == "scatter" and desktop and c["points"] > 12:
            seen["scatters"] += 1
            if not c["labels"]:
                out.append(f"{at}: {c['points']} points, none named")
    return out


# The model rows a chart draws (by name) against those it should: its spec's rows (a lines
# chart has the top twelve only) whose table row the filters leave shown.
CHARTED = """() => {
  const el = document.querySelector('.sb-chart'), spec = el.spec;
  const shown = new Set([...document.querySelectorAll('table.sb-board[data-sortable] tbody tr[data-sub]')].filter(tr => !tr.hidden).map(tr => tr.dataset.sub));
  const rows = spec.type === 'heatmap' ? spec.y.map((label, i) => ({label, key: spec.keys[i]})) : (spec.points || spec.rows || spec.series);
  const named = new Set(rows.filter(p => p.key).map(p => p.label));
  const drawn = new Set((el._fullData || []).filter(t => t.customdata).flatMap(t => [].concat(t.customdata).flat(2)).map(String));
  return {want: [...new Set(rows.filter(p => p.key && shown.has(p.key)).map(p => p.label))].sort(),
          drawn: [...drawn].filter(l => named.has(l)).sort()};
}"""
# Picks a lab in the table's filter (the empty string clears it), then waits until the chart
# shows what ``settled`` (a JS predicate over CHARTED) expects, or 10 s: the redraw is
# asynchronous, and a fixed pause either wastes time or fails on a busy machine. Returns
# CHARTED's last reading and how long it waited, so a failure says both.
PICK_LAB = f"""(async (lab, settled) => {{
  const charted = {CHARTED}, s = document.querySelector('form.sb-filters select[name=lab]'), t0 = Date.now();
  s.value = lab; s.dispatchEvent(new Event('change', {{bubbles: true}}));
  let c = charted();
  while (!settled(c) && Date.now() - t0 < 10000) {{ await new Promise(r => setTimeout(r, 25)); c = charted(); }}
  return Object.assign(c, {{waited: Date.now() - t0}});
}})"""
SAME_ROWS = "(c => c.drawn.join('\\n') === c.want.join('\\n'))"


def _filter_problems(page, data: dict, where: str) -> list[str]:
    """Filtering the table by lab redraws the chart with that lab's rows only (fewer than
    before); clearing the filter brings every row back."""
    before = page.eval(f"({CHARTED})()")
    lab = orjson.dumps(data["rows"][-1]["lab"]).decode()
    after = page.eval(f"{PICK_LAB}({lab}, {SAME_ROWS})")
    out = []
    if not (after["drawn"] == after["want"] and len(after["want"]) < len(before["want"])):
        out.append(
            f"{where}: filtered by lab, the chart draws {after['drawn']}, not {after['want']} "
            f"(before: {before['want']}; waited {after['waited']} ms for the redraw)"
        )
    restored = page.eval(f"{PICK_LAB}('', c => JSON.stringify(c) === {orjson.dumps(orjson.dumps(before).decode()).decode()})")
    if {k: restored[k] for k in before} != before:
        out.append(f"{where}: clearing the lab filter did not bring the chart's rows back (waited {restored['waited']} ms)")
    return out


@pytest.mark.long_running  # 1-2 minutes: every board, loaded and its charts drawn, at 2 widths
def test_every_board_at_both_widths(served, browser):
    """One pass over every board at both widths (a page load and its charts drawn are most of
    a browser test's cost, so the board checks share it): the page, its charts, its sort and,
    on a desktop, its charts following the table's lab filter."""
    site, base = served
    boards = _boards(site)
    assert len(boards) >= 25
    problems: list[str] = []
    seen = {"lines": 0, "scatters": 0, "frontiers": 0, "filtered": 0}
    for width, height in WIDTHS:
        page = browser.page(width, height)
        for rel, data in [("index.html", None), *boards]:
            page.goto(base + rel)
            where = f"{rel} @{width}px"
            # Before any chart is near the screen, plotly.js is not even requested.
            far = page.eval("[...document.querySelectorAll('.sb-chart')].every(el => el.getBoundingClientRect().top > innerHeight + 250)")
            early = any(u.endswith("/assets/plotly.min.js") for u in page.requests())
            if far and early:
                problems.append(f"{where}: plotly requested before any chart came into view")
            if not page.draw_charts():
                problems.append(f"{where}: a chart was not drawn once scrolled into view")
            facts = page.eval(PAGE_FACTS)
            if rel in SHOT_PAGES:  # before the sort check reorders the rows
                page.screenshot(SHOTS / f"{rel.replace('/', '_').removesuffix('.html')}-{width}.png")
            problems += overflow_problems(page, width, where)
            for err in page.errors():
                problems.append(f"{where}: console error {err}")
            foreign = [u for u in page.requests() if not u.startswith((base, "data:", "blob:", "about:"))]
            if foreign:
                problems.append(f"{where}: requests outside the site {foreign[:3]}")
            plotly = any(u.endswith("/assets/plotly.min.js") for u in page.requests())
            if plotly != bool(facts["charts"]):
                problems.append(f"{where}: plotly requested={plotly} but charts={len(facts['charts'])} (after scrolling to them)")
            for chart in facts["charts"]:
                if not (chart["drawn"] and chart["x"] and chart["y"] and chart["svgTitles"] >= 2):
                    problems.append(f"{where}: chart without axis titles {chart}")
            for href in facts["modelLinks"]:
                if not _url_to_file(site, base, href).is_file():
                    problems.append(f"{where}: model link {href} does not resolve")
            if data is not None:
                if data["rows"] and not facts["charts"]:
                    problems.append(f"{where}: board with rows but no chart")
                expect = len(data["rows"]) + len(data["reference_rows"])
                if facts["rows"] != expect:
                    problems.append(f"{where}: {facts['rows']} table rows, board data has {expect}")
                problems += _chart_problems(page, where, width == WIDTHS[0][0], seen)
                if len(data["rows"]) >= 2:
                    problems += _check_sort(page, data, where)
                if width == WIDTHS[0][0] and len({r["lab"] for r in data["rows"]}) >= 2 and facts["charts"]:
                    problems += _filter_problems(page, data, where)
                    seen["filtered"] += 1
        page.close()
    assert not problems, "\n".join(problems)
    assert seen["lines"] >= 2 and seen["scatters"] >= 1 and seen["frontiers"] >= 1 and seen["filtered"] >= 10, seen


def _one_of_each_kind(site: Path) -> list[str]:
    """Every page that is not a board, once per template: the site's own pages, and per
    benchmark its overview, submissions, item browser, compare page, first model page and first item page."""
    rels = sorted(p.name for p in site.glob("*.html"))
    rels += [f"labs/{min(p.name for p in (site / 'labs').glob('*.html'))}"]
    for bench in sorted(p.parent.name for p in site.glob("*/submissions.html")):
        rels += [
            f"{bench}/{name}"
            for name in ("index.html", "submissions.html", "items.html", "compare.html")
            if (site / bench / name).is_file()
        ]
        for sub in ("models", "items"):
            pages = sorted((site / bench / sub).rglob("*.html"))
            rels += [str(pages[0].relative_to(site))] if pages else []
    return rels


def test_every_kind_of_page_fits_both_widths(served, browser):
    site, base = served
    rels = _one_of_each_kind(site)
    # The demo has all of these (its releases give item browsers and item pages).
    assert {"methodology.html", "changelog.html", "maintainers.html", "kcsat-ml/items.html", "kcsat-ml/compare.html"} <= set(rels), rels
    assert any(r.startswith("kcsat-ml/items/") for r in rels) and any(r.startswith("soohak/models/") for r in rels), rels
    problems: list[str] = []
    for width, height in WIDTHS:
        page = browser.page(width, height)
        for rel in rels:
            page.goto(base + rel)
            problems += overflow_problems(page, width, f"{rel} @{width}px")
            problems += [f"{rel} @{width}px: console error {e}" for e in page.errors()]
        page.close()
    assert not problems, "\n".join(problems)


def test_the_overflow_check_sees_a_wide_element_and_spares_a_scroll_box(browser):
    """OVERFLOW itself: a 600 px block on a 390 px phone is named; the same block inside a
    box that scrolls sideways is not, and neither is the box."""
    page = browser.page(390, 844)
    try:
        page.goto(
            "data:text/html,<meta name=viewport content='width=device-width'><body style='margin:0'>"
            "<div id=box><p id=wide style='width:600px'>x</p></div>"
        )
        problems = overflow_problems(page, 390, "wide")
        assert any("p#wide reaches 600 px" in p for p in problems), problems
        assert problems[0] == "wide: page is 210 px wider than the screen", problems
        page.eval("document.getElementById('box').style.overflowX = 'auto'")
        assert overflow_problems(page, 390, "boxed") == []
    finally:
        page.close()


def _check_sort(page, data: dict, where: str) -> list[str]:
    """Click the last metric's title: rows come in descending order of its values, then
    ascending; the URL holds the sort."""
    metric = data["metrics"][-1]["name"]
    page.click(f'table.sb-board[data-sortable] thead th[data-key="{metric}"]')
    down = page.eval(f"{COLUMN}({orjson.dumps(metric).decode()})")
    page.click(f'table.sb-board[data-sortable] thead th[data-key="{metric}"]')
    up = page.eval(f"{COLUMN}({orjson.dumps(metric).decode()})")
    values = [v for v in down if v is not None]
    out = []
    if values != sorted(values, reverse=True):
        out.append(f"{where}: after one click on {metric} rows are not in descending order: {values[:8]}")
    if [v for v in up if v is not None] != sorted(values):
        out.append(f"{where}: after two clicks on {metric} rows are not in ascending order")
    search = page.eval("location.search")
    if f"sort={metric}" not in unquote(search) or "dir=asc" not in search:
        out.append(f"{where}: sort not kept in the URL ({search})")
    return out


def test_filters_hide_the_right_rows_and_the_url_restores_them(served, browser):
    site, base = served
    page = browser.page(1400, 900)
    checked = 0
    for rel, data in _boards(site):
        labs = sorted({r["lab"] for r in data["rows"]})
        if len(labs) < 2:
            continue
        lab = data["rows"][-1]["lab"]
        page.goto(base + rel)
        page.eval(f"""(() => {{ const s = document.querySelector('form.sb-filters select[name=lab]');
                       s.value = {orjson.dumps(lab).decode()}; s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()""")
        visible = page.eval(
            "[...document.querySelectorAll('table.sb-board[data-sortable] tbody tr')].filter(tr => !tr.hidden && !tr.hasAttribute('data-ref')).map(tr => tr.querySelector('.sb-model a').getAttribute('href'))"
        )
        want = sorted(f"models/{r['submission']}.html" for r in data["rows"] if r["lab"] == lab)
        assert sorted(visible) == want, rel
        url = page.eval("location.href")
        assert "lab=" + lab in url
        # Text search narrows further; a reload of the shared URL restores both.
        name = next(r["model"] for r in data["rows"] if r["lab"] == lab)
        page.eval(f"""(() => {{ const q = document.querySelector('form.sb-filters input[name=q]');
                       q.value = {orjson.dumps(name).decode()}; q.dispatchEvent(new Event('input', {{bubbles: true}})); }})()""")
        narrowed = page.eval(
            "[...document.querySelectorAll('table.sb-board[data-sortable] tbody tr')].filter(tr => !tr.hidden && !tr.hasAttribute('data-ref')).length"
        )
        assert 1 <= narrowed <= len(want)
        page.goto(page.eval("location.href"))
        again = page.eval(
            "[...document.querySelectorAll('table.sb-board[data-sortable] tbody tr')].filter(tr => !tr.hidden && !tr.hasAttribute('data-ref')).length"
        )
        assert again == narrowed, rel
        assert page.eval("document.querySelector('form.sb-filters select[name=lab]').value") == lab
        # Reference rows stay for comparison.
        refs = page.eval("[...document.querySelectorAll('tr[data-ref]')].filter(tr => !tr.hidden).length")
        assert refs == len(data["reference_rows"])
        checked += 1
    # Open weights: only open-weights rows remain.
    page.goto(base + "kcsat-ml/core.html?open=1")
    subs = {r["submission"]: r for r in orjson.loads((site / "data/kcsat-ml/submissions.json").read_bytes())["rows"]}
    shown = page.eval(
        "[...document.querySelectorAll('table.sb-board[data-sortable] tbody tr')].filter(tr => !tr.hidden && !tr.hasAttribute('data-ref')).map(tr => tr.querySelector('.sb-model a').getAttribute('href'))"
    )
    opened = sorted(
        f"models/{s}.html"
        for s, r in subs.items()
        if r["open_weights"] and s in {x["submission"] for x in orjson.loads((site / "data/kcsat-ml/core.json").read_bytes())["rows"]}
    )
    assert sorted(shown) == opened and 0 < len(opened)
    assert page.eval("document.querySelector('form.sb-filters input[name=open]').checked") is True
    page.close()
    assert checked >= 20


def _links(page: Path) -> list[str]:
    """The href of every <a> and <link> and every src on `page`, in order. lxml's parser
    (libxml2): the stdlib's HTMLParser read the same 183,502 URLs of the demo's pages in
    7.7 CPU-s, this in 2.2."""
    urls = []
    for el in lxml.html.document_fromstring(page.read_bytes()).iter():
        if isinstance(el.tag, str):  # not a comment or a processing instruction
            urls += [v for name in (("href", "src") if el.tag in ("a", "link") else ("src",)) if (v := el.get(name))]
    return urls


def test_every_local_link_opens_a_file_from_disk(served):
    """Opened as files (the README's "open demo/site/index.html"), every relative link
    and asset of every page lands on a file, never a directory listing; no page uses a
    root-absolute path, so a sub-path works too. The one exception is mkdocs' own: with a
    site_url, 404.html (served for a missing file at any depth) links root-absolute under
    the site_url's path, which is where the deploy lives."""
    site, _ = served
    deployed = urlsplit(DEMO_SITE_URL).path  # "/math/"
    pages = sorted(site.rglob("*.html"))
    bad = []
    lands: dict[tuple[Path, str], bool] = {}  # (folder, path): most links repeat on every page of a folder
    for page in pages:
        for url in _links(page):
            if re.match(r"^[a-z]+:", url) or url.startswith("#"):
                continue
            if page == site / "404.html" and url.startswith(deployed):
                url = url.removeprefix(deployed)  # 404.html sits at the root of the site
            if url.startswith("/"):
                bad.append(f"{page.relative_to(site)}: root-absolute {url}")
                continue
            key = (page.parent, unquote(url.split("#")[0].split("?")[0]))
            if key not in lands:
                lands[key] = (key[0] / key[1]).resolve().is_file()
            if not lands[key]:
                bad.append(f"{page.relative_to(site)}: {url}")
    assert not bad, "\n".join(bad[:20])
    # Every submission has its page, every lab its page.
    for bench in ("kcsat-ml", "soohak", "livemathematicianbench"):
        for r in orjson.loads((site / f"data/{bench}/submissions.json").read_bytes())["rows"]:
            assert (site / bench / "models" / f"{r['submission']}.html").is_file()
            assert (site / "labs" / f"{r['lab']}.html").is_file()


def test_home_page_from_disk_draws_without_errors(served, browser):
    site, _ = served
    page = browser.page(1400, 900)
    page.goto((site / "soohak/mini.html").as_uri())
    assert page.draw_charts()
    assert page.eval("document.querySelector('.sb-chart svg.main-svg') !== null")
    assert page.errors() == []
    assert all(u.startswith(("file:", "data:")) for u in page.requests())
    page.close()


def test_sealed_site_pages_render_without_scores(tmp_path, browser):
    root = tmp_path / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items))
    out = tmp_path / "site"
    build(root, out, identities=[], now=NOW)
    page = browser.page(1400, 900)
    page.goto((out / "soohak/index.html").as_uri())
    assert "Scores are sealed" in page.eval("document.body.textContent")
    assert page.eval("document.querySelectorAll('.sb-chart').length") == 0
    assert not any("plotly" in u for u in page.requests())
    page.close()


def test_model_names_in_charts_are_text_not_markup(tmp_path, browser):
    from tests.factory import MODEL

    root = tmp_path / "inst"
    inst = make_instance(root)
    evil = dict(MODEL, name='<a href="https://evil.example/">Evil</a> & <b>Bold</b>')
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, True, False] for it in inst.items}), model=evil)
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    out = tmp_path / "site"
    build(root, out, identities=[inst.identity], now=NOW)
    page = browser.page(1400, 900)
    for rel in ("soohak/mini.html", "index.html", "soohak/models/acme/run-1.html"):
        page.goto((out / rel).as_uri())
        dom = page.eval("document.documentElement.outerHTML")
        # Neither the tables nor the chart made a link or a bold element of it.
        assert page.eval("document.querySelectorAll('a[href^=\"https://evil\"], b').length") == 0, rel
        assert "evil.example" not in "".join(page.requests())
        assert "&lt;a href=" in dom, rel  # the name is shown as text
    page.goto((out / "soohak/mini.html").as_uri())
    assert page.draw_charts()
    assert page.eval("document.querySelector('.sb-chart svg.main-svg') !== null")
    page.close()
