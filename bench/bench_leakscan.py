"""Leak-scan throughput on a real built site, and on the same bytes made ASCII-only.

    python bench/bench_leakscan.py [--demo DIR] [--repeat 3]

Writes (or reuses) the demo instance in DIR, builds it authorised once without rendering
to learn the embargoed items (the needles: every 8-word window of every question and
every canary), then times builder.pipeline.leakscan.scan_tree over DIR/site and prints
MB/s. The demo site must have been built (``sealboard demo --out DIR``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builder.pipeline.build import build, load_identities  # noqa: E402
from builder.pipeline.leakscan import normalise, scan_tree  # noqa: E402
from builder.pipeline.publish import needles_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, default=Path("demo"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = args.demo.resolve()
    if not (root / "site" / "data" / "index.json").is_file():
        sys.exit(f"{root}/site is not a built demo site: run 'sealboard demo --out {args.demo}' first")
    report = build(root, root / ".bench-site", identities=load_identities(root / "keys" / "demo" / "identity.txt", None),
                   now=datetime.now(timezone.utc), render=False)  # fmt: skip
    t = time.perf_counter()
    needles = needles_for(report)
    print(f"needles: {len(needles.patterns):,} (canaries + every 8-word window) in {time.perf_counter() - t:.2f}s")
    times, cpu = [], []
    for _ in range(args.repeat):
        t, c = time.perf_counter(), time.process_time()
        hit, files, size = scan_tree(root / "site", needles)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        assert hit is None, hit
    best = min(times)
    # CPU time as well: on a shared machine the wall clock mostly measures the neighbours.
    print(f"site scan: {files} files, {size / 1e6:.1f} MB: median {statistics.median(times):.2f}s, best {best:.2f}s = {size / 1e6 / best:.0f} MB/s"
          f" (CPU {min(cpu):.2f}s = {size / 1e6 / min(cpu):.0f} MB/s)")  # fmt: skip
    data = b"".join(p.read_bytes() for p in sorted((root / "site").rglob("*.html")))
    ascii_only = data.decode("utf-8", "replace").encode("ascii", "ignore")
    t = time.perf_counter()
    needles.scan_bytes(normalise(ascii_only))
    took = time.perf_counter() - t
    print(f"ASCII-only HTML ({len(ascii_only) / 1e6:.1f} MB, normalise + Aho-Corasick): {len(ascii_only) / 1e6 / took:.0f} MB/s")


if __name__ == "__main__":
    main()
