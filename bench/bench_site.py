"""Benchmark the site stage: CPU per page, beside a plain ``mkdocs build`` of the same tree.

    python bench/bench_site.py                           # build the demo first, scales 1 and 10
    python bench/bench_site.py --root /tmp/demo --runs 5 --scales 1 3 10
    python bench/bench_site.py --generator zensical --scales 1
    nice python bench/bench_site.py --root /tmp/demo --runs 3 --baseline-runs 1 --scales 1 10   # the 10x row in ~15 min

The site stage is what the build spends after rendering: staging the plain docs tree
(``render/site_tree.py: assemble``) plus the generator's child process
(``render/generator.py``: mkdocs with the sandboxing hook, progress parsed from its log).
The baseline is ``python -m mkdocs build -q`` of the very same staged tree and config
without Sealboard's hook: what any mkdocs site of these pages costs. Both are measured in
CPU seconds (this process plus its waited-for children, from getrusage): the machine is
shared and wall time moves with the neighbours. Each figure is the median of --runs.

Scale k stages the demo's pages plus (k - 1) synthetic copies of every submission page and
every item page (new names, same content), so the site grows the way more submissions and
released items grow it; a flat CPU-per-page column is linear growth.
With --profile, one extra run of the generator under cProfile prints its top functions.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builder.render.fragments import FOLDER  # noqa: E402
from builder.render.generator import scrubbed_env  # noqa: E402
from builder.render.site import StagedSite  # noqa: E402
from builder.render.site_tree import CONFIG, OVERRIDES, assemble, generated_config  # noqa: E402
from builder.report.records import STAGED  # noqa: E402


def cpu() -> float:
    own = time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + kids.ru_utime + kids.ru_stime


def scaled(root: Path, staged: Path, k: int, work: Path) -> Path:
    """A copy of ``staged`` (hard links) with k - 1 more copies of each model and item page."""
    copy = work / f"staged-x{k}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(staged / "pages", copy / "pages", copy_function=os.link)
    shutil.copytree(staged / "data", copy / "data", copy_function=os.link)
    # The pages' HTML fragments (render/fragments.py), in the theme folder.
    if (staged / OVERRIDES / FOLDER).is_dir():
        shutil.copytree(staged / OVERRIDES / FOLDER, copy / OVERRIDES / FOLDER, copy_function=os.link)
    shutil.copy(staged / "meta.json", copy / "meta.json")
    pages = copy / "pages"
    originals = [p for p in pages.rglob("*.md") if "/models/" in p.as_posix() or "/items/" in p.as_posix()]
    for i in range(1, k):
        for p in originals:
            os.link(p, p.with_name(f"{p.stem}-x{i}.md"))
    return copy


def site_stage(root: Path, staged: Path, generator: str) -> tuple[float, int]:
    start = cpu()
    import orjson

    total = assemble(root, staged, orjson.loads((staged / "meta.json").read_bytes()).get("home_summary"))
    out = StagedSite(root=root, staged=staged, out=staged.parent / "out" / "site", pages=total).build(generator)
    spent = cpu() - start
    pages = sum(1 for _ in out.rglob("*.html"))
    shutil.rmtree(out)
    return spent, pages


def plain_mkdocs(root: Path, staged: Path) -> float:
    config = generated_config(root, staged, "mkdocs", str(staged.parent / "plain-site"))
    config.pop("hooks", None)
    import orjson

    path = staged / f"plain-{CONFIG}"
    path.write_bytes(orjson.dumps(config))
    start = cpu()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(path), "-d", str(staged.parent / "plain-site")],
                   check=True, env=scrubbed_env(), cwd=staged)  # fmt: skip
    spent = cpu() - start
    shutil.rmtree(staged.parent / "plain-site")
    return spent


def profile(staged: Path) -> None:
    stats = staged.parent / "mkdocs.prof"
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "mkdocs", "build", "-q", "-f", str(staged / CONFIG),
                    "-d", str(staged.parent / "prof-site")], check=True, env=scrubbed_env(), cwd=staged)  # fmt: skip
    import pstats

    p = pstats.Stats(str(stats))
    total = p.total_tt
    print(f"profile of one mkdocs run ({total:.1f}s under cProfile), top by cumulative time:")
    p.sort_stats("cumulative").print_stats(r"(markdown|jinja2|mkdocs|material)/", 22)
    shutil.rmtree(staged.parent / "prof-site", ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="an instance built earlier (default: write and build the demo)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--generator", choices=["mkdocs", "zensical"], default="mkdocs")
    parser.add_argument(
        "--baseline-runs", type=int, help="runs of the plain mkdocs baseline (default: --runs; it costs 2-3x the site stage)"
    )
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.root
        if root is None:
            from builder.demo.instance import write_demo
            from builder.pipeline.build import build, load_identities

            root = Path(tmp) / "demo"
            now = datetime.now(timezone.utc)
            write_demo(root, seed=0, now=now)
            c = cpu()
            report = build(root, root / "site", identities=load_identities(root / "keys/demo/identity.txt", None), now=now)
            print(
                f"demo build: {cpu() - c:.1f}s CPU; stages (wall s): "
                + ", ".join(f"{k} {v:.2f}" for k, v in report.timings.items() if not k.startswith("leak_scan_"))
            )
        root = root.resolve()
        baseline_runs = args.baseline_runs or args.runs
        print(
            f"median of {args.runs} run(s) (baseline: {baseline_runs}); CPU = this process + children; load = 1-min load average after the row"
        )
        print(
            f"{'scale':>5} {'pages':>6} {'site stage s':>13} {'ms/page':>8} {'plain mkdocs s':>15} {'ms/page':>8} {'ratio':>6} {'load':>5}"
        )
        for k in args.scales:
            staged = scaled(root, root / STAGED, k, Path(tmp))
            stage = [site_stage(root, staged, args.generator) for _ in range(args.runs)]
            pages = stage[0][1]
            s = statistics.median(x for x, _ in stage)
            line = f"{k:>5} {pages:>6} {s:>13.2f} {1000 * s / pages:>8.1f}"
            if not args.no_baseline:
                b = statistics.median(plain_mkdocs(root, staged) for _ in range(baseline_runs))
                line += f" {b:>15.2f} {1000 * b / pages:>8.1f} {b / s:>6.2f}"
            print(f"{line} {os.getloadavg()[0]:>5.1f}", flush=True)
            if args.profile and k == args.scales[0]:
                profile(staged)
            shutil.rmtree(staged)


if __name__ == "__main__":
    main()
