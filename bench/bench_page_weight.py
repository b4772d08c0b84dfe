"""Weigh the built site's pages: HTML size per page and what a first visit loads.

    python bench/bench_page_weight.py [--site demo/site]     # default: build a fresh demo first

Prints the HTML weight of every kind of page (largest board page against the 150 KB goal)
and, measured in headless Chromium over HTTP with an empty cache, the bytes a first load
of the home page and of the heaviest boards transfers (uncompressed: the test server does
not compress), with the shared plotly.js file counted apart (goal: <= 2 MB without it).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.render.cdp import Browser  # noqa: E402


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def first_load(browser: Browser, url: str) -> tuple[int, int, int]:
    """(bytes without plotly, plotly bytes, requests) of one cold load of url."""
    page = browser.page(1400, 900)
    page.b.send("Network.setCacheDisabled", {"cacheDisabled": True}, session=page.session)
    page.goto(url)
    time.sleep(1.0)  # the search index and fonts-free assets load after the load event
    urls = {}
    total = plotly = 0
    for e in page._events():
        if e["method"] == "Network.responseReceived":
            urls[e["params"]["requestId"]] = e["params"]["response"]["url"]
        elif e["method"] == "Network.loadingFinished":
            size = int(e["params"]["encodedDataLength"])
            if urls.get(e["params"]["requestId"], "").endswith("plotly.min.js"):
                plotly += size
            else:
                total += size
    page.close()
    return total, plotly, len(urls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site (default: build the demo in a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            from builder.demo.instance import write_demo
            from builder.pipeline.build import build, load_identities

            root = Path(tmp) / "demo"
            now = datetime.now(timezone.utc)
            write_demo(root, seed=0, now=now)
            t = time.perf_counter()
            report = build(root, root / "site", identities=load_identities(root / "keys/demo/identity.txt", None), now=now)
            print(f"demo build {time.perf_counter() - t:.1f}s: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items() if not k.startswith("leak_scan_")))
            site = root / "site"
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
            print(f"  {kind:6s} {len(sizes):4d} pages  median {statistics.median(s for s, _ in sizes) / 1024:6.1f}  max {sizes[-1][0] / 1024:6.1f} ({sizes[-1][1]})")
        heavy = [rel for _, rel in sorted(kinds["board"])[-3:]]
        print(f"  largest board page {sorted(kinds['board'])[-1][0] / 1024:.1f} KB (goal <= 150 KB)")

        www = Path(tmp) / "www"
        www.mkdir()
        (www / "s").symlink_to(site.resolve())
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/s/"
        chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        browser = Browser(chromium, Path(tmp) / "profile")
        print("first load, cold cache (KB, uncompressed):")
        for rel in ["index.html", *heavy]:
            total, plotly, n = first_load(browser, base + rel)
            print(f"  {rel:40s} {total / 1024:8.1f} in {n} requests" + (f"  + plotly.min.js {plotly / 1024:.0f}" if plotly else ""))
        browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
