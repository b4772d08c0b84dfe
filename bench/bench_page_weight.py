"""Weigh the built site's pages: HTML size per page and what a first visit loads.

    python bench/bench_page_weight.py [--site demo/site]     # default: build a fresh demo first

Prints the HTML weight of every kind of page (largest board page against the 150 KB goal)
and, measured in headless Chromium over HTTP with an empty cache, what a first load of the
home page and of the heaviest boards transfers (uncompressed: the test server does not
compress): the bytes before any chart is requested (goal, issue 25: <= 600 KB), with the
search index and plotly.js counted apart, and the time from first paint until the board's
table sorts and filters (goal: <= 500 ms on loopback). Works on an older site too (the
"before" figures: python bench/bench_page_weight.py --site /work/base/demo/site).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.served_site import build_demo, served  # noqa: E402
from tests.render.cdp import Browser  # noqa: E402

# Runs before the page's own scripts: notes when the board table is set up (sealboard.js
# marks it data-ready once tablesort and the filters are attached), on old and new sites.
WATCH_TABLE = """(() => { const t0 = setInterval(() => {
  const t = document.querySelector('table.sb-board[data-sortable]');
  if (t && t.dataset.ready) { window.__sbReady = performance.now(); clearInterval(t0); } }, 5); })()"""
TIMES = """(() => ({paint: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
                 ready: window.__sbReady}))()"""


def first_load(browser: Browser, url: str, width: int = 1440, height: int = 900) -> dict[str, float]:
    """One cold load of url: bytes before any chart is requested (without the search index),
    the search index's and plotly's bytes, requests, and first paint -> table ready (ms)."""
    page = browser.page(width, height)
    page.b.send("Network.setCacheDisabled", {"cacheDisabled": True}, session=page.session)
    page.b.send("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_TABLE}, session=page.session)
    page.goto(url)
    time.sleep(1.0)  # the search index and fonts-free assets load after the load event
    times = page.eval(TIMES)
    urls: dict[str, str] = {}
    out = {"before_chart": 0.0, "search": 0.0, "plotly": 0.0, "requests": 0.0, "tti_ms": -1.0}
    for e in page._events():
        if e["method"] == "Network.requestWillBeSent":
            urls[e["params"]["requestId"]] = e["params"]["request"]["url"]
        elif e["method"] == "Network.loadingFinished" and e["params"]["requestId"] in urls:
            size, where = float(e["params"]["encodedDataLength"]), urls[e["params"]["requestId"]]
            key = "plotly" if where.endswith("plotly.min.js") else "search" if where.endswith("search_index.json") else "before_chart"
            out[key] += size
    out["requests"] = float(len(urls))
    if times.get("paint") is not None and times.get("ready") is not None:
        out["tti_ms"] = max(0.0, times["ready"] - times["paint"])
    page.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site (default: build the demo in a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site, seconds, timings = build_demo(Path(tmp))
            print(f"demo build {seconds:.1f}s: " + ", ".join(f"{k} {v:.2f}s" for k, v in timings.items() if not k.startswith("leak_scan_")))
        kinds: dict[str, list[tuple[int, str]]] = {}
        boards = set()
        import orjson

        for bench in orjson.loads((site / "data/index.json").read_bytes())["benchmarks"]:
            boards |= {f"{bench['id']}/{b['board']}.html" for b in bench["boards"]}
        for page in sorted(site.rglob("*.html")):
            rel = page.relative_to(site).as_posix()
            kind = "board" if rel in boards else "model" if "/models/" in rel else "lab" if rel.startswith("labs/") else "other"
            kinds.setdefault(kind, []).append((page.stat().st_size, rel))
        print("HTML weight per page (KB):")
        for kind, sizes in sorted(kinds.items()):
            sizes.sort()
            print(
                f"  {kind:6s} {len(sizes):4d} pages  median {statistics.median(s for s, _ in sizes) / 1024:6.1f}  max {sizes[-1][0] / 1024:6.1f} ({sizes[-1][1]})"
            )
        heavy = [rel for _, rel in sorted(kinds["board"])[-3:]]
        print(f"  largest board page {sorted(kinds['board'])[-1][0] / 1024:.1f} KB (goal <= 150 KB)")

        with served(site, Path(tmp)) as base:
            chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
            browser = Browser(chromium, Path(tmp) / "profile")
            print("first load, cold cache (KB, uncompressed; goal <= 600 KB before any chart is requested,")
            print("table ready <= 500 ms after first paint; the search index is counted apart):")
            for width, height in ((1440, 900), (390, 844)):
                for rel in ["index.html", *heavy]:
                    f = first_load(browser, base + rel, width, height)
                    tti = f"table ready {f['tti_ms']:5.0f} ms after first paint" if f["tti_ms"] >= 0 and rel != "index.html" else ""
                    print(
                        f"  @{width:4d} {rel:30s} {f['before_chart'] / 1024:7.1f} in {f['requests']:.0f} requests + search index {f['search'] / 1024:.0f}"
                        + (f" + plotly.min.js {f['plotly'] / 1024:.0f}" if f["plotly"] else "")
                        + f"  {tti}"
                    )
            browser.close()


if __name__ == "__main__":
    main()
