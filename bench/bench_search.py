"""Time a visitor's first search on the built site, from disk and served.

    python bench/bench_search.py [--site demo/site] [--runs 3]   # default: build a fresh demo first

Ten queries a visitor might type (tests/render/test_search_browser.py's TIMED_QUERIES), each
in a fresh page, so the index is built each time as on a visitor's first search, typed at
once before the index is ready. Per place (disk, served) and run: the median time to the
first results, the longest long task the page saw and the longest gap between its 5 ms
timer ticks (how long the page's own thread was blocked). The median over runs is printed
last. A query that finds nothing is reported, and the script exits 1.

This was a test until issue 39: a timing depends on the machine, so it is a benchmark; the
suite keeps the answers (every one of these queries answers in Material's worker,
test_every_item_id_finds_its_item_page_first_in_the_worker).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.served_site import build_demo, served  # noqa: E402
from tests.render.cdp import Browser  # noqa: E402
from tests.render.test_search_browser import _timed, timed_queries  # noqa: E402


def one_run(browser: Browser, urls: dict[str, str], queries: list[str]) -> tuple[dict[str, tuple[float, int, int]], list[str]]:
    """Per place: (median ms to results, longest long task, longest timer gap); and the misses."""
    out, misses = {}, []
    for where, url in urls.items():
        rows = [_timed(browser, url, q) for q in queries]
        misses += [f"{where} {q!r}: {r['errors'] or 'no result'}" for q, r in zip(queries, rows) if not r["links"] or r["errors"]]
        out[where] = (statistics.median(r["ms"] for r in rows), max(r["task"] for r in rows), max(r["gap"] for r in rows))
    return out, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site (default: build the demo in a temporary directory)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        sys.exit("headless Chromium is needed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_demo(Path(tmp))[0]
        with served(site, Path(tmp)) as base:
            urls = {"disk": site.resolve().as_uri() + "/index.html", "served": base + "index.html"}
            browser = Browser(chromium, Path(tmp) / "profile")
            queries = timed_queries(site)
            runs, misses = [], []
            try:
                for n in range(args.runs):
                    figures, missed = one_run(browser, urls, queries)
                    runs.append(figures)
                    misses += missed
                    for where, (ms, task, gap) in figures.items():
                        print(
                            f"run {n + 1} {where:6s}: median {ms:6.0f} ms to results, longest long task {task:5d} ms, longest timer gap {gap:5d} ms"
                        )
            finally:
                browser.close()
            print(f"median of {args.runs} runs, {len(queries)} queries each:")
            for where in urls:
                ms, task, gap = (statistics.median(r[where][i] for r in runs) for i in range(3))
                print(f"  {where:6s}: {ms:6.0f} ms to results, longest long task {task:5.0f} ms, longest timer gap {gap:5.0f} ms")
            if misses:
                print("queries that found nothing:\n  " + "\n  ".join(misses))
                sys.exit(1)


if __name__ == "__main__":
    main()
