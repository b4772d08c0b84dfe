"""How long the test suite takes: wall and CPU (user+sys, every child process included).

    python bench/bench_suite.py                       # the quick loop (-m "not slow"), 3 runs
    python bench/bench_suite.py --full --runs 1       # the whole suite as CI runs it
    python bench/bench_suite.py --args "-n 0"         # e.g. without xdist, for a same-run baseline

Each run is a fresh `python -m pytest` in this checkout; the table gives every run and the
median. CPU is read from the children's rusage, so it counts pytest, its xdist workers, the
site generator's child processes, Chromium and the harnesses alike.
"""

from __future__ import annotations

import argparse
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FULL = ["-n", "auto", "--dist", "worksteal"]
QUICK = ["-m", "not slow", "-n", "auto"]


def one_run(args: list[str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
    return wall, cpu, last[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the whole suite (default: the quick loop)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--args", default="", help="extra pytest arguments, e.g. '-n 0'")
    ns = parser.parse_args()
    args = (FULL if ns.full else QUICK) + shlex.split(ns.args)
    print(f"pytest {' '.join(args)}")
    print("| run | wall s | CPU s (user+sys) | result |")
    print("|---|---|---|---|")
    walls, cpus = [], []
    for i in range(ns.runs):
        wall, cpu, result = one_run(args)
        walls.append(wall)
        cpus.append(cpu)
        print(f"| {i + 1} | {wall:.0f} | {cpu:.0f} | {result} |", flush=True)
    print(f"| median | {statistics.median(walls):.0f} | {statistics.median(cpus):.0f} | |")


if __name__ == "__main__":
    main()
