"""Site search in a real headless Chromium (tests/render/cdp.py), served and from disk.

One demo build is shared by the module. Material's search UI runs on the index
``builder/render/search_index.py`` writes: a Korean word of a KCSAT-ML question finds that
benchmark's pages, an item id ranks its item page first, no document of the index is
fetched before search is opened (the page loads only the index's config), and opened from
disk (``file://``) search initialises and answers the same queries. Material's own worker,
driven by its messages, finds every item's page first from the item's id: lunr's token set
once held terms its index did not, and a query reaching one ("kcsat-2014-a-01") threw
(lunr_fix.TOKEN_SET_FIX).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest

from builder.render import lunr_fix
from tests.render.test_pages_browser import WIDTHS

# Open search as a visitor does (focus the box), wait until Material's worker is ready (its
# result line turns from "Initializing search" to "Type to start searching": waiting only while
# it reads "Initializing" raced a loaded machine, where the line may still be empty), type the
# query and wait for its results: the result links and the result count line. "No matching
# documents" is taken as the answer only once it has stood for 3 s: CI once saw it for a query
# that has 825 matches, on a loaded machine, and it did not recur in 40 runs under load; the
# line's timeline (``log``) is returned so that a failure shows what the page said, and when.
SEARCH = """(async (q) => {
  const input = document.querySelector('.md-search__input');
  const meta = () => (document.querySelector('.md-search-result__meta') || {textContent: ''}).textContent.trim();
  const t0 = performance.now(), log = [];
  const note = (tag) => { const m = meta(); if (!log.length || log[log.length - 1][2] !== m) log.push([Math.round(performance.now() - t0), tag, m]); };
  input.focus();
  for (let i = 0; i < 3000 && !/type to start/i.test(meta()); i++) { note('wait'); await new Promise(r => setTimeout(r, 100)); }
  note('ready');
  input.value = q;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'a'}));
  let none = 0;
  for (let i = 0; i < 3000; i++) {
    await new Promise(r => setTimeout(r, 100));
    note('query');
    const links = [...document.querySelectorAll('.md-search-result__item > a')].map(a => a.href);
    if (links.length) return {meta: meta(), links, log};
    if (/no matching/i.test(meta()) && ++none >= 30) return {meta: meta(), links, log};
  }
  return {meta: meta(), links: [], log};
})"""


@pytest.fixture(scope="module")
def site(served_demo):
    """The session's authorised demo site (tests/conftest.py) at http://127.0.0.1:<port>/math/."""
    return served_demo


def _items(site: Path, bench: str) -> list[dict]:
    return [json.loads(line) for line in (site / "data" / bench / "items.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def _korean_word(site: Path) -> str:
    """A Korean word (between spaces) of a KCSAT-ML question, from the published items."""
    for item in _items(site, "kcsat-ml"):
        for word in item["question"].get("ko", "").split():
            if re.fullmatch(r"[\uac00-\ud7a3]{3,}", word):
                return word
    raise AssertionError("no Korean question in the demo's KCSAT-ML items")


# ``load(src)``, for the scripts below (``_eval`` defines it): loads a script (a path from the
# site's root) into the page as a <script> element.
LOAD_SCRIPT = "const load = (src) => new Promise((ok, fail) => { const s = document.createElement('script'); s.src = src; s.onload = ok; s.onerror = fail; document.head.appendChild(s); });"
# Material's search worker, driven by its own messages (SETUP with the built index's config
# and documents, then one QUERY per query): the first result's location per query, or null
# where it answered nothing (as it does when lunr throws: Material logs it and answers nothing).
WORKER_QUERIES = """(async ([worker, queries]) => {
  const config = (await (await fetch('search/search_index.json')).json()).config;
  await load('search/search_docs.js');
  const w = new Worker('assets/javascripts/workers/' + worker);
  let answer = null;
  w.onmessage = (m) => answer(m.data);
  const send = (message) => new Promise((ok) => { answer = ok; w.postMessage(message); });
  await send({type: 0, data: {config, docs: window.__sealboard_search_docs, options: {}}});
  const out = {};
  for (const q of queries) {
    const items = (await send({type: 2, data: q})).data.items;
    out[q] = items.length ? items[0][0].location : null;
  }
  w.terminate();
  return out;
})"""


# Terms of a demo build's index (digests, percentages: a rehearsal's words) that lunr 2.3.9's
# own token set, built from them in a fresh worker, extends by a term none of them is
# ("5/1179525c34]"): its node key read "1" + "179525…" as "11" + "79525…".
COLLIDING_TERMS = [
    "46/15.",
    "462e11f17e70c72af404e26fbdae88face689e76cfc9e8b5cebfe3d9d56ac2c2",
    "464.",
    "465eab5430556086]",
    "4670131b7495906cbd7aa8dc66431bfce9727d873acd378601f4cd30c6c6567b",
    "468eeb544c57ea0e]",
    "46959c72fffe1c7e]",
    "469e6030cecd0f91]",
    "46a095368a2fda78943f0ba1f8d1f02121f0b9fc2864f0463ab0542d9ea412d1",
    "46cac039af083c1c8451910c1b79d0609bca9bc3d5a671367fc5c62d44481747",
    "46ddfaeb52af3f7fa7b4f424f3479e1284c9f8f6b20438b1823ea17502504002",
    "46df8906b74466aec3bcb94ea6a4122dd31d972251f1d7f7fbd405c63b9508dd",
    "46f23045f1756ae40f5ec049a768f8d77d04bb9c5ee4998c80ec30ffaa7df2dd",
    "46f8f030bc195d5d9efaea25673ce4c1a72d71ab34dba58df3a89df0a41fc670",
    "47.4%",
    "47.5%",
    "47.6%",
    "47.7%",
    "47.8%",
    "47/19.",
    "470.",
    "4722caa1f6e3c76805ba5f858205fe45cbd9645dcccb6f64c94e9dfa804227d8",
    "472b77de2e7f90af]",
    "474076618884f168]",
    "4744c61179525c34]",
    "5/11.",
    "5/17.",
]
# The shipped worker's lunr, loaded as a page script (it sets self.lunr), builds the token
# set of a list of terms with node ids from 1, as a fresh worker does; the terms it holds.
TOKEN_SET = """(async ([worker, terms]) => {
  await load('assets/javascripts/workers/' + worker);
  lunr.TokenSet._nextId = 1;
  return lunr.TokenSet.fromArray(terms).toArray().sort();
})"""


# The site's lunr-languages scripts on top of the worker's lunr, as the worker loads them for
# the index's languages; the terms an English and Korean index keeps of one text.
MULTI_LANGUAGE_TERMS = """(async ([worker, text]) => {
  for (const src of ['workers/' + worker, 'lunr/min/lunr.stemmer.support.min.js', 'lunr/min/lunr.multi.min.js', 'lunr/min/lunr.ko.min.js'])
    await load('assets/javascripts/' + src);
  const index = lunr(function () { this.use(lunr.multiLanguage('en', 'ko')); this.ref('id'); this.field('text'); this.add({id: '1', text}); });
  return Object.keys(index.invertedIndex).sort();
})"""


def _worker(site: Path) -> str:
    """The file name of Material's search worker in the built site."""
    return next((site / "assets/javascripts/workers").glob("search.*.min.js")).name


def _eval(browser, url: str, script: str, arg) -> tuple[object, list[str]]:
    """``script`` (a JS function, which may call ``load``) called with ``arg`` in a page opened
    at ``url``: its answer, and the errors the page logged."""
    page = browser.page(1400, 900)
    try:
        page.goto(url)
        return page.eval(f"{LOAD_SCRIPT}\n({script})({json.dumps(arg)})"), page.errors()
    finally:
        page.close()


def _search(browser, url: str, query: str, width: int = 1400, height: int = 900, script: str = SEARCH) -> dict:
    """Run ``script`` (a function of the query: SEARCH, or TIMED_SEARCH) on a fresh page at ``url``."""
    page = browser.page(width, height)
    try:
        page.goto(url)
        out = page.eval(f"{script}({json.dumps(query)})")
        out["errors"] = page.errors()
        return out
    finally:
        page.close()


def test_no_index_document_is_fetched_before_search_opens(site, browser):
    path, base = site
    stub = orjson.loads((path / "search/search_index.json").read_bytes())
    assert stub["docs"] == [] and "ko" in stub["config"]["lang"], stub
    page = browser.page(1400, 900)
    try:
        page.goto(base + "kcsat-ml/full.html")
        page.eval("new Promise(r => setTimeout(r, 1500))")  # Material's start-up has fetched what it fetches
        before = page.requests()
        assert any(u.endswith("/search/search_index.json") for u in before), before
        assert not any("search_docs" in u for u in before), before
        page.eval("document.querySelector('.md-search__input').focus()")
        page.eval("new Promise(r => setTimeout(r, 1500))")
        assert any(u.endswith("/search/search_docs.js") for u in page.requests()), page.requests()
        assert page.errors() == []
    finally:
        page.close()


@pytest.mark.parametrize("width,height", WIDTHS, ids=[f"{w}px" for w, _ in WIDTHS])
def test_a_korean_query_finds_kcsat_ml_pages(site, browser, width, height):
    path, base = site
    word = _korean_word(path)
    out = _search(browser, base + "index.html", word, width, height)
    assert any("/kcsat-ml/items/" in u for u in out["links"]), (word, out)
    assert out["errors"] == []


def test_an_item_id_finds_its_item_page_first(site, browser):
    path, base = site
    for bench in ("kcsat-ml", "livemathematicianbench"):
        items = _items(path, bench)
        item = items[len(items) // 2]["id"]
        out = _search(browser, base + "index.html", item)
        assert out["links"] and out["links"][0].split("#")[0] == f"{base}{bench}/items/{item}.html", (item, out)


def test_the_workers_token_set_holds_exactly_the_indexed_terms(site, browser):
    path, base = site
    terms = sorted(COLLIDING_TERMS)
    held, _ = _eval(browser, base + "index.html", TOKEN_SET, [_worker(path), terms])
    assert held == terms, sorted(set(held) - set(terms))


def test_english_and_korean_words_are_indexed_without_their_punctuation(site, browser):
    path, base = site
    terms, _ = _eval(browser, base + "index.html", MULTI_LANGUAGE_TERMS, [_worker(path), "“laptop” (Riemann) 47.5% 정리."])
    # Unpatched, lunr-languages' Korean characters broke the trimmer: '“laptop”', '(riemann)'.
    assert terms == ["47.5", "laptop", "riemann", "정리"]


def test_every_item_id_finds_its_item_page_first_in_the_worker(site, browser):
    path, base = site
    worker = _worker(path)
    assert lunr_fix.TOKEN_SET_FIX in (path / "assets/javascripts/workers" / worker).read_text(encoding="utf-8")
    expected = {
        item["id"]: f"{bench}/items/{item['id']}.html" for bench in ("kcsat-ml", "livemathematicianbench") for item in _items(path, bench)
    }
    # Stop words and single letters too: "a" was one of the queries lunr threw on. And the ten
    # queries bench/bench_search.py times (a visitor's words): each finds something.
    answered = ["a", "2014 a", "the", "b", *timed_queries(path)]
    first, errors = _eval(browser, base + "index.html", WORKER_QUERIES, [worker, [*expected, *answered]])
    assert errors == []
    assert {q: first[q] for q in expected} == expected
    assert all(first[q] for q in answered), {q: first[q] for q in answered}


def test_search_works_opened_from_disk(site, browser):
    path, _ = site
    url = path.resolve().as_uri() + "/index.html"
    word = _korean_word(path)
    out = _search(browser, url, word)
    assert any("/kcsat-ml/items/" in u for u in out["links"]), (word, out)
    # An id with an "-a-" part: "a" is a stop word, left out of the index, and lunr's token set
    # once made such queries throw (what looked like a from-disk flake: which words did
    # depended on the whole index).
    item = next(i["id"] for i in _items(path, "kcsat-ml") if "-a-" in i["id"])
    out = _search(browser, url, item)
    assert out["links"] and out["links"][0].split("#")[0].endswith(f"/kcsat-ml/items/{item}.html"), (item, out)
    assert out["errors"] == []


# --- search from disk, a board's name, a Korean query typed at once (issue 41) ----------------

# A visitor's search, timed: focus the box, type the query at once (before the index is ready),
# wait for result links. Returns the time to the first results, the longest long task the page
# saw (PerformanceObserver 'longtask': the page's own thread blocked for that long) and the
# longest gap between 5 ms timer ticks (the same, measured by the page), the result line's
# timeline, and the first links. Reported, never asserted: a timing depends on the machine.
TIMED_SEARCH = """(async (q) => {
  const gaps = []; let last = performance.now(), stop = false;
  const beat = () => { const now = performance.now(); gaps.push(now - last); last = now; if (!stop) setTimeout(beat, 5); };
  setTimeout(beat, 5);
  const tasks = []; const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) tasks.push(e.duration); });
  obs.observe({type: 'longtask'});
  const input = document.querySelector('.md-search__input');
  const meta = () => (document.querySelector('.md-search-result__meta') || {textContent: ''}).textContent.trim();
  const t0 = performance.now(), log = [];
  input.focus(); input.value = q;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'a'}));
  let links = [], none = 0;
  for (let i = 0; i < 60000; i++) {
    await new Promise(r => setTimeout(r, 10));
    const m = meta(); if (!log.length || log[log.length - 1][1] !== m) log.push([Math.round(performance.now() - t0), m]);
    links = [...document.querySelectorAll('.md-search-result__item > a')].map(a => a.href);
    if (links.length || (/no matching/i.test(m) && ++none >= 300)) break;
  }
  const ms = performance.now() - t0;
  stop = true; obs.disconnect();
  return {ms: Math.round(ms), task: Math.round(Math.max(0, ...tasks)), gap: Math.round(Math.max(0, ...gaps)), log, links: links.slice(0, 5),
          lunrOnPage: typeof window.lunr !== 'undefined' || [...document.querySelectorAll('iframe')].some(f => { try { return 'lunr' in f.contentWindow; } catch (e) { return false; } }),
          iframes: document.querySelectorAll('iframe').length};
})"""

# Ten queries a visitor might type: a board's name, a Korean word (from the items), a benchmark,
# model families, an item id, words of the hand-written pages. "KO" stands for the Korean word.
TIMED_QUERIES = ("mini", "KO", "soohak", "gpt-5", "gemini flash", "kcsat-2014-a-01", "calibration", "embargo", "claude", "tiers")


def timed_queries(site: Path) -> list[str]:
    """TIMED_QUERIES with "KO" replaced by a Korean word of the site's items (bench/bench_search.py
    times them; the worker test below checks each answers)."""
    return [_korean_word(site) if q == "KO" else q for q in TIMED_QUERIES]


def _timed(browser, url: str, query: str) -> dict:
    return _search(browser, url, query, script=TIMED_SEARCH)


def _where(site, where: str) -> str:
    """The demo's index page, from disk or served."""
    path, base = site
    return (path.resolve().as_uri() + "/" if where == "disk" else base) + "index.html"


@pytest.mark.parametrize("where", ["disk", "served"])
def test_a_boards_name_finds_that_board_first(site, browser, where):
    # "mini" also matches "GPT-5-Mini (Minimal)" twice in each such model's title: 14 pages of
    # them came first (search_index.PAGE_BOOST).
    out = _timed(browser, _where(site, where), "mini")
    assert out["links"] and out["links"][0].endswith("/soohak/mini.html"), out
    assert out["errors"] == []


@pytest.mark.parametrize("where", ["disk", "served"])
def test_a_korean_query_typed_at_once_answers_right_the_first_time(site, browser, where):
    path, _ = site
    word = _korean_word(path)
    out = _timed(browser, _where(site, where), word)
    assert any("/kcsat-ml/items/" in u for u in out["links"]), (word, out)
    # The result line went from "Initializing search" to the count, never through "No matching".
    assert not any(re.search("no matching", m, re.I) for _, m in out["log"]), out["log"]
    assert out["errors"] == []


def test_search_from_disk_runs_in_a_worker_not_on_the_page(site, browser):
    """From disk the index is built in a real worker (a blob: URL of search/search_worker.js),
    not on the page's thread: no lunr in the page or in any iframe of it."""
    path, _ = site
    source = (path / "search/search_worker.js").read_text(encoding="utf-8")
    assert source.startswith("var __sealboard_search_worker = ") and "lunr.multiLanguage" in source
    out = _timed(browser, _where(site, "disk"), _korean_word(path))
    assert out["links"], out
    assert out["lunrOnPage"] is False and out["iframes"] == 0, out
    assert out["errors"] == []
