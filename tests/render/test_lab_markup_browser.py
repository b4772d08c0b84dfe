"""Markup in every lab-controlled field runs nowhere on the site (issue 44, class 2: stored
XSS through site search), in a real headless Chromium (tests/render/cdp.py).

One small partly released instance is built once for the module. Lab ``acme`` writes markup
into every field a lab controls and the site shows: model id, name and family, reasoning
effort, notes, harness name and version, judge, its answers and its opted-in transcripts, and
its display name in the registry. Each payload calls ``__pwn(<field>)``, which every page
gets before its own scripts run (``Page.addScriptToEvaluateOnNewDocument``); the routes are
HTML (``<img onerror>``, ``<script>``, ``"><svg onload>``), ``javascript:`` links (Markdown
and KaTeX ``\\href``), Markdown attribute lists (``{: onclick=… }``), YAML's ``\\x3c`` escape
in a front matter title, and event handlers after a broken-out attribute. Lab ``beta`` is
the control: an ordinary model, shown and found by search.

Every page of the site is opened served (a loopback ``http.server``) and from disk
(``file://``): its charts drawn, the mouse moved over every element with a ``title`` (real
input events, each seen arriving), then a sentinel ``<img onerror>`` inserted with
``innerHTML`` is waited for: when it has run, so have the page's own failed images, and the
sentinel shows that a handler could run here at all (no check that cannot fail). The
instance asks for Material's ``content.tooltips``, which renders a title as HTML (and copies
a truncated page title, a model's name, into one): a maintainer's page
(``site_src/tooltip-control.md``) holds one hostile ``title``, and hovering it must run
nothing, as the generated config leaves that feature out. Site search is driven
by typing a planted word and by opening ``index.html?q=word``; the boards', items' and
compare page's share URLs (``?sort=``, ``?dir=``, ``?col=``, ``?q=`` and every filter,
``?m=``) and Material's ``?h=`` highlight carry markup and planted values. Nothing may
call ``__pwn`` or leave an element with a planted handler or a ``javascript:`` URL.

The search index's documents are also read without a browser: no tag but Material's bare
formatting tags, the planted text present, escaped.
"""

from __future__ import annotations

import functools
import gzip
import html
import json
import re
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import orjson
import pytest

from builder.pipeline.build import build
from builder.release.admin import flip, sign_statement
from builder.release.statement import Publish, Scope
from builder.render.escaping import SEARCH_TAGS
from tests.factory import MODEL, NOW, make_instance, results_for
from tests.release.support import AFTER, T, distinct_items
from tests.render.cdp import CHROMIUM
from tests.render.test_pages_browser import _Quiet
from tests.render.test_search_browser import SEARCH

if CHROMIUM is None:
    pytest.skip("chromium not installed", allow_module_level=True)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Every lab-controlled field, with markup by each route that field's sinks could take.
# A Markdown heading (the model's and the lab's page) gets links and attribute lists; a front
# matter title (the same two) YAML's escapes. Lengths are within the manifest's limits.
NAME = "Quokkaname <img src=x onerror=__pwn('name')> \\x3csvg onload=__pwn('name-yaml')\\x3e {: onclick=__pwn('name-attr') }"
LAB_NAME = "Quokkalab <img src=x onerror=__pwn('lab')> [a](javascript:__pwn('lab-md')) \\x3cimg src=x onerror=__pwn('lab-yaml')\\x3e"
MODEL_ID = "\"><svg/onload=__pwn('model-id')>"
FAMILY = "Quokkafamily <svg onload=__pwn('family')> [a](javascript:__pwn('family-md'))"
EFFORT = "<img src=x onerror=__pwn('effort')>"
NOTES = (
    "Quokkanotes <script>__pwn('notes')</script>\n"
    "\"><img src=x onerror=__pwn('notes-attr')> '><svg onload=__pwn('notes-quote')>\n\n"
    "[a](javascript:__pwn('notes-md')) {: onclick=__pwn('notes-attr-list') }\n"
    "# <svg onload=__pwn('notes-heading')>"
)
HARNESS = {"name": "Quokkaharness <img src=x onerror=__pwn('harness')>", "version": "'><svg onload=__pwn('harness-version')>"}
JUDGE = "Quokkajudge <img src=x onerror=__pwn('judge')>"
ANSWER = "<img src=x onerror=__pwn('answer')>"
TRANSCRIPT = "Quokkatranscript <img src=x onerror=__pwn('transcript')> $\\href{javascript:__pwn('tex')}{x}$ <script>__pwn('transcript-script')</script>"
PLANTED = {
    "model.name": NAME, "lab name": LAB_NAME, "model.id": MODEL_ID, "model.family": FAMILY, "config.reasoning_effort": EFFORT,
    "config.notes": NOTES, "harness.name": HARNESS["name"], "harness.version": HARNESS["version"], "judge": JUDGE,
    "answer": ANSWER, "transcript": TRANSCRIPT,
}  # fmt: skip
CONTROL = "Wombat Control 7B"
# A maintainer's page with one title holding markup: Material's tooltips would run it.
TOOLTIP_CONTROL = "# Tooltip control\n\n<abbr title=\"&lt;img src=x onerror=__pwn('tooltip-control')&gt;\">hover</abbr>\n"
SHARE_MARKUP = "\"><img src=x onerror=__pwn('share')>"

# Defines __pwn before any script of the page: each call is recorded.
# Records too which marked elements (MARK_TITLES) the mouse reached.
RECORDER = """window.__pwned = []; window.__pwn = function (f) { window.__pwned.push(String(f)); };
window.__hovered = new Set();
document.addEventListener('mouseover', (e) => { const t = e.target.closest && e.target.closest('[data-probe-title]');
  if (t) window.__hovered.add(t.getAttribute('data-probe-title')); }, true);"""
# Wait for a sentinel handler inserted with innerHTML to run (the page's own failed images
# have errored by then too), then return what ran, every element left with a planted handler
# or a javascript: URL that calls it (Material's own search share button is
# javascript:void(0)). A title may hold any text: no script of the site renders one.
PROBE = """(async () => {
  const probe = document.createElement('div');
  probe.innerHTML = "<img src=x-sentinel onerror=__pwn('sentinel')>";
  document.body.appendChild(probe);
  const until = Date.now() + 30000;
  while (!(window.__pwned || []).includes('sentinel') && Date.now() < until) await new Promise(r => setTimeout(r, 50));
  probe.remove();
  const planted = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if ((name.startsWith('on') && a.value.includes('__pwn')) || (/^(href|src|action|formaction|xlink:href)$/.test(name) && /^\\s*javascript:.*__pwn/i.test(a.value)))
        planted.push(el.tagName.toLowerCase() + ' ' + name + '=' + a.value);
    }
    if (el.tagName === 'SCRIPT' && el.type !== 'application/json' && el.textContent.includes('__pwn')) planted.push('script ' + el.textContent.slice(0, 80));
  }
  return {ran: window.__pwned || null, planted, text: document.body.innerText};
})()"""


def _transcripts(items: list[dict]) -> bytes:
    lines = [orjson.dumps({"item": it["id"], "lang": "en", "sample": 0, "text": TRANSCRIPT}) + b"\n" for it in items]
    return gzip.compress(b"".join(lines), mtime=0)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The planted site (mini split released, acme's transcripts published), its root, its
    served base URL."""
    root = tmp_path_factory.mktemp("lab-markup") / "inst"
    inst = make_instance(root, items=distinct_items(), lab_names={"acme": LAB_NAME})
    yml = root / "mkdocs.yml"
    features = "    - search.suggest\n    - search.highlight\n    - search.share\n    - content.tooltips\n"
    yml.write_text(yml.read_text().replace("    - search.suggest\n", features))
    (root / "site_src" / "tooltip-control.md").write_text(TOOLTIP_CONTROL)
    rows = results_for(inst.items, {it["id"]: [True, i % 2 == 0, False] for i, it in enumerate(inst.items)})
    rows = [dict(r, answer=ANSWER) if not r["correct"] and r["sample"] == 2 else r for r in rows]
    inst.add_submission("acme", "run-1", rows, model=dict(MODEL, id=MODEL_ID, name=NAME, family=FAMILY),
                        run={"reasoning_effort": EFFORT, "notes": NOTES}, harness=HARNESS, judge=JUDGE,
                        publish_transcripts=True, transcripts=_transcripts(inst.items))  # fmt: skip
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items[::3]}),
                        model=dict(MODEL, id="wombat-7b", name=CONTROL, family="Wombat"))  # fmt: skip
    flip(inst.root, "soohak", T, Scope(splits=("mini",)), Publish(), NOW, name="r1")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    www = root.parent / "www"
    site = www / "site"
    report = build(inst.root, site, identities=[inst.identity], now=AFTER)
    assert report.rejections == [] and report.benchmarks[0].status == "partly released", (report.rejections, report.benchmarks[0].status)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}/site/"
    server.shutdown()


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


@pytest.fixture
def tab(browser):
    """One tab per test, with RECORDER on every document it opens; each visit navigates it (a
    fresh tab per visit cost a renderer process each, a quarter of the module's Chromium CPU).
    What a visit records lives in its own document: the window's __pwned, __hovered and marks."""
    page = browser.page(1400, 900)
    page.b.send("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER}, session=page.session)
    yield page
    page.close()


def _open(tab, url: str):
    # A URL that differs from the open one only in its fragment would be a same-document
    # navigation (no load event, and the old document's state): leave the page first.
    if tab.eval("location.href").split("#")[0] == url.split("#")[0]:
        tab.goto("about:blank")
    tab.goto(url)
    return tab


# Marks every element with a title (Material takes the attribute off while its tooltip shows)
# and returns how many; HOVER_AT scrolls the n-th to the middle of the screen and gives its
# centre, or null when a visitor could not point at it (hidden, or under another element).
MARK_TITLES = "[...document.querySelectorAll('[title]')].map((el, i) => el.setAttribute('data-probe-title', i)).length"
HOVER_AT = """((i) => { const el = document.querySelector('[data-probe-title="' + i + '"]');
  if (!el) return null; el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();
  const x = r.x + r.width / 2, y = r.y + r.height / 2;
  return r.width && r.height && el.contains(document.elementFromPoint(x, y)) ? [x, y] : null; })"""
NEXT_FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _hover_titles(page, where: str) -> None:
    """Move the mouse (real input events: Material's tooltips ignore synthetic ones) over every
    displayed element with a title, two frames each (a tooltip is made on the next frame)."""
    hovered = set()
    page.eval(NEXT_FRAME)  # Material titles a truncated header or nav entry once it is seen
    for i in range(page.eval(MARK_TITLES)):
        at = page.eval(f"{HOVER_AT}({i})")
        if at:
            for x, y in ((0, 0), at):  # off it first: two titled elements may share a point
                page.b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, session=page.session)
            page.eval(NEXT_FRAME)
            hovered.add(str(i))
    reached = set(page.eval("[...window.__hovered]"))
    assert hovered <= reached, f"{where}: the mouse did not reach titled elements {sorted(hovered - reached)}"


def _probe(page, where: str) -> dict:
    _hover_titles(page, where)
    out = page.eval(PROBE)
    assert out["ran"] is not None and "sentinel" in out["ran"], (
        f"{where}: the sentinel handler never ran, so the probe proves nothing: {out['ran']}"
    )
    ran = [f for f in out["ran"] if f != "sentinel"]
    assert ran == [], f"{where}: planted markup ran: {ran}"
    assert out["planted"] == [], f"{where}: planted markup became live elements: {out['planted']}"
    return out


def _visit(tab, url: str, where: str) -> dict:
    page = _open(tab, url)
    page.draw_charts()
    return _probe(page, where)


# Planted markup written as markup: a tag carrying a payload, a handler attribute, a javascript: link.
LIVE = re.compile(r"<(img|svg|script)\b[^>]*__pwn|\son[a-z]+=[\"']?__pwn|href=[\"']?\s*javascript:[^\"'>]*__pwn", re.IGNORECASE)
EMBEDDED_JSON = re.compile(r'<script type="application/json"[^>]*>.*?</script>', re.DOTALL)


def test_no_page_writes_lab_markup_as_markup(planted):
    site, _ = planted
    for rel in (p for p in _pages(site) if p != "tooltip-control.html"):  # the maintainers' own markup
        source = EMBEDDED_JSON.sub("", (site / rel).read_text(encoding="utf-8"))
        assert not (m := LIVE.search(source)), f"{rel}: {source[max(0, m.start() - 80) : m.end() + 40]}"
    assert "<title>Quokkalab &lt;img src=x onerror=" in (site / "labs/acme.html").read_text(encoding="utf-8")
    # The instance asked for Material's tooltips; the generated config left them out.
    assert '"content.tooltips"' not in (site / "tooltip-control.html").read_text(encoding="utf-8")


def test_no_search_document_holds_lab_markup(planted):
    site, _ = planted
    script = (site / "search/search_docs.js").read_text(encoding="utf-8")
    docs = json.loads(script[script.index("=") + 1 :].strip().rstrip(";"))
    tags = {m.group(1).lower() for d in docs for field in ("title", "text") for m in re.finditer(r"</?([a-zA-Z][^\s/>]*)", d[field])}
    assert tags <= SEARCH_TAGS, tags - SEARCH_TAGS
    assert not any(re.search(r"<[a-z]+\s", d[f]) for d in docs for f in ("title", "text")), "a tag with attributes"
    # Control: the planted text is in the documents, as text (escaped once).
    text = "\n".join(html.unescape(d["title"] + "\n" + d["text"]) for d in docs)
    for field in ("model.name", "lab name", "model.family"):  # a section is cut at SECTION_CHARS: these come first
        assert PLANTED[field] in text, field
    assert CONTROL in text


def test_no_lab_markup_runs_on_any_page_served(planted, tab):
    site, base = planted
    pages = _pages(site)
    assert {"soohak/models/acme/run-1.html", "labs/acme.html", "soohak/items/m000.html", "soohak/compare.html", "soohak/grid.html",
            "soohak/items.html", "soohak/submissions.html", "changelog.html", "tooltip-control.html"} <= set(pages)  # fmt: skip
    for rel in pages:
        out = _visit(tab, base + rel, rel)
        if rel == "soohak/models/acme/run-1.html":  # the control of fidelity: shown as written
            for field in ("model.name", "model.family", "config.reasoning_effort", "judge", "harness.name", "lab name"):
                assert PLANTED[field] in out["text"], field


def test_no_lab_markup_runs_on_any_page_from_disk(planted, tab):
    site, _ = planted
    for rel in _pages(site):
        _visit(tab, (site / rel).resolve().as_uri(), f"file:// {rel}")


def _search(tab, url: str, query: str | None) -> dict:
    page = _open(tab, url)
    if query is None:  # ?q=: Material opens search with the query itself
        page.eval("""(async () => { const until = Date.now() + 30000;
          while (!document.querySelector('.md-search-result__item') && Date.now() < until) await new Promise(r => setTimeout(r, 100)); })()""")
        found = {"links": page.eval("[...document.querySelectorAll('.md-search-result__item > a')].map(a => a.href)")}
    else:
        found = page.eval(f"{SEARCH}({json.dumps(query)})")
    found["results"] = page.eval("(document.querySelector('.md-search-result') || {innerText: ''}).innerText")
    _probe(page, f"search {query!r} at {url}")
    return found


@pytest.mark.parametrize("query", ["Quokkaname", "Quokkalab", "Quokkatranscript", "Quokkafamily"])  # the words the index holds
def test_typing_a_planted_word_in_search_runs_nothing(planted, tab, query):
    site, base = planted
    for url in (base + "index.html", (site / "index.html").resolve().as_uri()):
        found = _search(tab, url, query)
        assert found["links"], (url, query, found)
        assert query in found["results"], (url, query, found["results"][:300])  # the result shows the text


def test_opening_a_search_url_runs_nothing(planted, tab):
    site, base = planted
    for url in (base + "index.html?q=Quokkaname", (site / "index.html").resolve().as_uri() + "?q=Quokkaname"):
        found = _search(tab, url, None)
        assert any("models/acme/run-1.html" in u for u in found["links"]), (url, found)
        assert "<img src=x onerror=__pwn('name')>" in found["results"], found["results"][:300]  # shown as text
    # A query that is itself markup.
    _search(tab, base + "index.html?q=" + quote(SHARE_MARKUP), None)


def test_control_an_ordinary_name_is_found_by_search(planted, tab):
    _, base = planted
    found = _search(tab, base + "index.html", "Wombat")
    assert any("models/beta/run-1.html" in u for u in found["links"]), found
    assert CONTROL in found["results"]


def test_share_urls_with_markup_or_planted_values_run_nothing(planted, tab):
    site, base = planted
    hostile, family, effort = quote(SHARE_MARKUP), quote(FAMILY), quote(EFFORT)
    boards = [p for p in _pages(site) if re.fullmatch(r"soohak/[a-z-]+\.html", p) and p not in ("soohak/index.html", "soohak/compare.html",
                                                                                                 "soohak/items.html", "soohak/grid.html",
                                                                                                 "soohak/submissions.html")]  # fmt: skip
    assert "soohak/mini.html" in boards
    urls = []
    for board in boards:
        urls += [
            f"{board}?sort={hostile}&dir={hostile}&col={hostile}&q={hostile}&lab={hostile}&family={hostile}&reasoning={hostile}&tts={hostile}&open={hostile}",
            f"{board}?sort=model&dir=asc&col=all&lab=acme&family={family}&reasoning={effort}&q=Quokkaname",
        ]
    urls += [
        f"soohak/compare.html?m={hostile}&m=acme/run-1&m=beta/run-1",
        f"soohak/items.html?sort={hostile}&dir={hostile}&split={hostile}&none={hostile}",
        "soohak/items.html?sort=solve_rate&dir=asc&split=mini&none=1",
        f"soohak/models/acme/run-1.html?h=Quokkaname&q={hostile}#{hostile}",
        f"labs/acme.html?h=Quokkalab+{hostile}",
    ]
    for rel in urls:
        out = _visit(tab, base + rel, rel)
        if "family=" + family in rel:  # the planted filter value selects acme's row, shown as written
            assert NAME in out["text"], rel
