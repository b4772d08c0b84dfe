"""Leak-scan throughput (MB of output per CPU second) on the demo site and on Korean-heavy output.

    python bench/bench_leakscan.py [--demo DIR] [--runs 5]

Uses (or writes, with ``sealboard demo --out DIR``) the demo instance in DIR, builds it
authorised once without rendering to learn the embargoed items (the needles: every 8-word
window of every question and every canary), then times
builder.leakscan.scan.scan_tree, the publish step's scan, on:

- the demo site (DIR/site: mkdocs-material pages, data JSON/CSV, scripts, plotly);
- a non-ASCII-heavy site written next to it: Korean question text (the released KCSAT-ML
  items, words shuffled and random Hangul words mixed in, so that runs repeat no more than
  in real text) as HTML with entities, as ``ensure_ascii`` JSON (every syllable a \\uXXXX
  escape, like mkdocs' search index), as UTF-8 JSON with \\n and \\" escapes, as CSV, with
  soft hyphens and zero-width spaces sprinkled in.

Each figure is the median CPU time (process_time: the machine is shared, the wall clock
mostly measures the neighbours) of --runs runs, single process. The baseline, timed in the
same runs on the same files: reading every file and one ``bytes.find`` over it (a needle
that is not there), i.e. the cost of touching the bytes at all; the ratio says how many
times that the scan costs. A planted question window must be found, so the figures are
of a scan that works.
"""

from __future__ import annotations

import argparse
import html
import json
import random
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builder.leakscan.scan import Needles, scan_tree  # noqa: E402
from builder.pipeline.build import build, load_identities  # noqa: E402
from builder.pipeline.publish import needles_for  # noqa: E402

GOAL = 100.0  # MB/s per CPU, on the demo site and on Korean-heavy output (issue 12)


def korean_site(site: Path, out: Path, target_mb: float, seed: int = 12) -> None:
    """A Korean-heavy output tree from the demo's released (public) KCSAT-ML items."""
    items = [orjson.loads(line) for line in (site / "data" / "kcsat-ml" / "items.jsonl").read_bytes().splitlines() if line.strip()]
    texts = [t for item in items for t in item["question"].values()]
    words = [w for t in texts for w in t.split()]
    rng = random.Random(seed)
    syllables = [chr(c) for c in range(0xAC00, 0xD7A4)]

    def paragraph() -> str:
        picked = rng.sample(words, 40)
        for i in range(0, 40, 5):  # one word in five unseen before: the fold cache misses too
            picked[i] = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        text = " ".join(picked)
        if rng.random() < 0.2:
            text = text.replace("다", "다\u00ad", 1).replace("의", "의\u200b", 1)
        return text

    out.mkdir(parents=True, exist_ok=True)
    n = 0
    while sum(p.stat().st_size for p in out.iterdir()) < target_mb * 1e6:
        paras = [paragraph() for _ in range(1000)]
        body = "".join(f"<p>{html.escape(p)}&nbsp;&middot; <code>x &lt; y</code></p>\n" for p in paras)
        (out / f"page{n}.html").write_text(f"<!doctype html><html lang=ko><body>\n{body}</body></html>\n", "utf-8")
        (out / f"search{n}.json").write_text(json.dumps({"docs": [{"text": p, "location": f"p{i}"} for i, p in enumerate(paras)]}), "ascii")
        (out / f"items{n}.json").write_bytes(orjson.dumps([{"question": p + '\n"인용"', "n": i} for i, p in enumerate(paras)]))
        (out / f"items{n}.csv").write_text("".join(f'{i},"{p}"\n' for i, p in enumerate(paras)), "utf-8")
        n += 1


def baseline(site: Path) -> int:
    total = 0
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        total += len(data) + data.find(b"\x00not-there\x00")
    return total


def cpu(fn, runs: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(runs):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def measure(name: str, site: Path, needles: Needles, runs: int) -> float:
    scan_s, (hit, files, size) = cpu(lambda: scan_tree(site, needles), runs)  # type: ignore[misc]
    assert hit is None, f"{name}: unexpected hit {hit}"
    base_s, _ = cpu(lambda: baseline(site), runs)
    mb = size / 1e6
    print(f"{name}: {files} files, {mb:.1f} MB: scan {scan_s:.3f} s CPU = {mb / scan_s:.0f} MB/s;"
          f" baseline (read + bytes.find) {base_s:.3f} s = {mb / base_s:.0f} MB/s; scan/baseline {scan_s / base_s:.1f}x")  # fmt: skip
    return mb / scan_s


_IMPORT_COST = """
import time
import ahocorasick_rs, daachorse, numpy, builder.bundles.ingest, builder.bundles.manifest, builder.pipeline.isolation
start = time.process_time()
import builder.leakscan.scan as leakscan
imported = time.process_time()
leakscan.normalise("\ud55c\uad6d\uc5b4 \u00e9")
print(f"{imported - start:.3f} {time.process_time() - imported:.3f}")
"""


def import_cost() -> str:
    """The module's own import (its dependencies loaded first) and its tables, built on the
    first fold of non-ASCII text, in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_COST], check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1]
    )
    own, tables = out.stdout.split()
    return f"import builder.leakscan.scan: {own} s CPU (its own code); its Unicode tables, on the first fold: {tables} s CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, default=Path("demo"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--korean-mb", type=float, default=16.0)
    args = parser.parse_args()
    root = args.demo.resolve()
    print(import_cost())
    if args.runs < 3:
        sys.exit("--runs must be at least 3 (the figure is a median)")
    if not (root / "site" / "data" / "index.json").is_file():
        print(f"writing the demo instance to {root} (sealboard demo) ...", flush=True)
        cli = "from builder.cli import main; main()"  # `sealboard demo`, with this tree's builder
        subprocess.run([sys.executable, "-c", cli, "demo", "--out", str(root)], check=True, stdout=subprocess.DEVNULL)
    report = build(root, root / ".bench-site", identities=load_identities(root / "keys" / "demo" / "identity.txt", None),
                   now=datetime.now(timezone.utc), render=False)  # fmt: skip
    start = time.process_time()
    needles = needles_for(report.benchmarks)
    print(f"needles: {len(needles.patterns):,} (canaries + every 8-word window), built in {time.process_time() - start:.2f} s CPU")
    # The scan must work: a planted window of an embargoed question is found in every format.
    window = next(p for p, label in zip(needles.patterns, needles.labels) if label.startswith("question")).decode().strip().upper()
    for name, data in (("page.html", html.escape(window).encode()), ("x.json", json.dumps({"t": window}).encode())):
        assert needles.scan_file(data, name) is not None, f"planted window not found in {name}"
    print(f"per CPU, median of {args.runs} runs, one process:")
    demo = measure("demo site", root / "site", needles, args.runs)
    korean = root / ".bench-korean"
    if not korean.is_dir():
        korean_site(root / "site", korean, args.korean_mb)
    dense = measure("Korean-heavy output", korean, needles, args.runs)
    verdicts = [
        f"{name} {'met' if figure >= GOAL else 'NOT met'} ({figure:.0f} MB/s)"
        for name, figure in (("demo site", demo), ("Korean-heavy", dense))
    ]
    print(f"goal >= {GOAL:.0f} MB/s per CPU on both: " + "; ".join(verdicts))


if __name__ == "__main__":
    main()
