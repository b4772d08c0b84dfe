"""Time the mkdocs stage alone on instances built earlier, to see how it grows with submissions.

    python bench/bench_build.py --submissions 100 --runs 1 --keep /tmp/bb100
    python bench/bench_build.py --submissions 300 --runs 1 --keep /tmp/bb300
    python bench/bench_mkdocs.py /tmp/bb100 /tmp/bb300 [--runs 3]

Reruns mkdocs on each instance's staged pages (one page per submission included) and prints
the median wall and CPU time, the page count and the time per page: linear growth keeps the
time per page flat. CPU time is printed because wall time on a shared machine is noisy.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builder.render.site import StagedSite  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instances", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for root in args.instances:
        walls, cpus = [], []
        pages = 0
        for _ in range(args.runs):
            w, c = time.perf_counter(), time.process_time()
            out = StagedSite(root=root, staged=root / ".sealboard/staged", out=root / "bench-mkdocs/site").build()
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
            pages = sum(1 for _ in out.rglob("*.html"))
            shutil.rmtree(out)
        models = sum(1 for _ in (root / ".sealboard/staged/pages").rglob("models/**/*.md"))
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(
            f"{root}: {models} submission pages, {pages} HTML pages; mkdocs wall {wall:.2f}s, cpu {cpu:.2f}s; cpu per page {1000 * cpu / pages:.1f} ms"
        )


if __name__ == "__main__":
    main()
