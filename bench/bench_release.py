"""What the demo's releases cost: build time and output size before and after, the number
of item pages, the time they add, and (for comparison) the time with them in the nav.

    python bench/bench_release.py [--out DIR] [--in-nav]

Writes the demo once (LiveMathematicianBench editions through 2025-12 and KCSAT-ML in
full released, SOOHAK scheduled), then builds it authorised:

1. before: the release statements and the published identity moved aside (all embargoed);
2. after, without item pages (the item pages dropped from the render);
3. after, as shipped (item pages out of the nav);
4. with --in-nav: after, with every item page in the nav (to show why they are not).

``--nav-scaling`` instead builds a bare mkdocs-material site of N item-like pages, in the
nav and out of it, for N = 200, 400, 800, and prints the CPU time per page: in the nav,
every page renders the whole nav, so time per page grows with N (quadratic in total).

Prints wall time and CPU time (this process and its workers) per build, mkdocs' share,
the output's size and file count. Run on a quiet machine: wall time under contention
says little; CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import builder.render.site as site_module  # noqa: E402
from builder.demo.instance import write_demo  # noqa: E402
from builder.pipeline.build import build, load_identities  # noqa: E402

NOW = datetime.now(timezone.utc)


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def size(site: Path) -> tuple[int, int]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def run(label: str, root: Path, out: Path) -> None:
    ids = load_identities(root / "keys" / "demo" / "identity.txt", None)
    wall, used = time.perf_counter(), cpu()
    report = build(root, out, identities=ids, now=NOW)
    wall, used = time.perf_counter() - wall, cpu() - used
    files, total = size(out)
    # Pages are files (use_directory_urls: false): <benchmark>/items/<id>.html, beside the browser.
    item_pages = sum(1 for p in out.rglob("*.html") if p.parent.name == "items")
    states = ", ".join(f"{s.config.id} {s.status}" for s in report.benchmarks)
    print(
        f"{label:<28} wall {wall:7.1f} s  cpu {used:7.1f} s  mkdocs {report.timings.get('mkdocs', 0):6.1f} s  "
        f"render {report.timings.get('render', 0):5.1f} s  output {total / 1e6:6.1f} MB in {files} files  item pages {item_pages}  [{states}]"
    )


def nav_scaling() -> None:
    import logging

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    for n in (200, 400, 800):
        for in_nav in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                docs = Path(tmp) / "docs"
                (docs / "items").mkdir(parents=True)
                (docs / "index.md").write_text("# Home\n")
                for i in range(n):
                    (docs / "items" / f"i{i:04d}.md").write_text(f"# Item {i}\n\n| a | b |\n|---|---|\n| {i} | x |\n")
                nav = ["index.md"] + ([{"Items": [f"items/i{i:04d}.md" for i in range(n)]}] if in_nav else [])
                import yaml

                (Path(tmp) / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "theme": {"name": "material"}, "nav": nav}))
                config = load_config(config_file=str(Path(tmp) / "mkdocs.yml"), site_dir=str(Path(tmp) / "site"))
                used = cpu()
                mkdocs_build(config)
                used = cpu() - used
                print(f"{n:5d} pages {'in nav    ' if in_nav else 'out of nav'}  cpu {used:6.1f} s  {1000 * used / n:6.1f} ms/page")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="keep the demo here (default: a temporary directory)")
    parser.add_argument("--in-nav", action="store_true", help="also build with every item page in the nav")
    parser.add_argument("--nav-scaling", action="store_true", help="only the bare mkdocs nav-scaling measurement")
    args = parser.parse_args()
    if args.nav_scaling:
        nav_scaling()
        return
    base = args.out or Path(tempfile.mkdtemp(prefix="sealboard-release-bench-"))
    root = base / "demo"
    write_demo(root, seed=0, now=NOW)

    aside = base / "aside"
    aside.mkdir(exist_ok=True)
    moved = [p for p in (root / "leaderboards").glob("*.release")] + [root / "keys" / "released"]
    for p in moved:
        shutil.move(str(p), aside / p.name)
    run("before (all embargoed)", root, base / "site-before")
    for p in moved:
        shutil.move(str(aside / p.name), p)

    original = site_module.benchmark_release

    def without_item_pages(state):  # type: ignore[no-untyped-def]
        files, pages = original(state)
        return files, {k: v for k, v in pages.items() if "/items/" not in k}

    site_module.benchmark_release = without_item_pages
    run("after, no item pages", root, base / "site-no-items")
    site_module.benchmark_release = original
    run("after, item pages (shipped)", root, base / "site-after")

    if args.in_nav:
        nav = site_module._nav

        def nav_with_items(report, boards):  # type: ignore[no-untyped-def]
            out = nav(report, boards)
            fresh = root / ".sealboard" / "staged.tmp" / "pages"  # render_site writes here first
            pages = sorted(p.relative_to(fresh).as_posix() for p in fresh.rglob("items/*.md"))
            out.append({"Items": [{p: p} for p in pages]})
            return out

        site_module._nav = nav_with_items
        run("after, item pages in nav", root, base / "site-in-nav")
        site_module._nav = nav
    if not args.out:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
