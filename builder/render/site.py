"""Stage the generated pages and data, then run the mkdocs-material build.

The staged tree (``<root>/.sealboard/staged/``) is what the ``sealboard`` mkdocs plugin
adds to the hand-written pages of ``site_src/``; keeping it on disk is what lets
``mkdocs serve`` show the last build. It holds only public output.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import BuilderError
from builder.pipeline.records import STAGED, BuildReport
from builder.release.pages import benchmark_release, release_nav, site_release_pages
from builder.render import pages
from builder.render.data import access_data, board_files, dumps, index_data, rejected_data, submissions_data


def banner_text(report: BuildReport) -> str | None:
    parts = []
    if report.as_of is not None:
        parts.append(f"Rehearsal: this site shows what would be public at {report.as_of:%Y-%m-%d %H:%M} UTC. It is not published.")
    if report.synthetic:
        parts.append("Demo instance: every model, item and score on this site is synthetic.")
    return " ".join(parts) or None


@dataclass(frozen=True)
class StagedSite:
    root: Path
    staged: Path
    out: Path

    def build(self) -> Path:
        """Run mkdocs into a fresh directory beside ``out``; return it (publish moves it)."""
        from mkdocs.commands.build import build as mkdocs_build
        from mkdocs.config import load_config
        from mkdocs.exceptions import MkDocsException

        config_file = self.root / "mkdocs.yml"
        if not config_file.is_file():
            raise BuilderError("mkdocs.yml is missing", where=str(self.root), hint="run 'sealboard demo' to see a complete instance")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        target = Path(tempfile.mkdtemp(prefix=".sealboard-site-", dir=self.out.parent))
        logging.getLogger("mkdocs").setLevel(logging.WARNING)
        try:
            config = load_config(config_file=str(config_file), site_dir=str(target))
            mkdocs_build(config)
        except (MkDocsException, OSError) as exc:
            shutil.rmtree(target, ignore_errors=True)
            raise BuilderError(f"mkdocs build failed: {exc}", where="mkdocs.yml", reason="mkdocs") from None
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
        return target


def _nav(report: BuildReport, boards: dict[str, list[dict[str, Any]]]) -> list[Any]:
    nav: list[Any] = [{"Home": "index.md"}]
    for state in report.benchmarks:
        bench = state.config.id
        section: list[Any] = [{"Overview": f"{bench}/index.md"}]
        section += [{b["title"]: f"{bench}/{b['board']}.md"} for b in boards.get(bench, [])]
        section += release_nav(state)
        section.append({"Submissions": f"{bench}/submissions.md"})
        nav.append({state.config.title: section})
    nav.append(
        {
            "About": [
                {"Methodology": "methodology.md"},
                {"Data": "data.md"},
                {"For labs: submitting a bundle": "labs.md"},
                {"For maintainers: keys and the registry": "maintainers.md"},
                {"Item access for labs": "access.md"},
                {"Adding a benchmark": "adding-a-benchmark.md"},
                {"Bundle format": "bundle-format.md"},
                {"Rejected submissions": "rejected.md"},
                {"Changelog": "changelog.md"},
                {"Verify this release": "verify-release.md"},
            ]
        }
    )
    return nav


def render_site(report: BuildReport) -> StagedSite:
    staged = report.root / STAGED
    fresh = staged.with_name("staged.tmp")
    shutil.rmtree(fresh, ignore_errors=True)
    (fresh / "pages").mkdir(parents=True)
    (fresh / "data").mkdir()

    def write(rel: str, data: bytes | str) -> None:
        path = fresh / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    boards: dict[str, list[dict[str, Any]]] = {}
    for state in report.benchmarks:
        bench_boards, files = board_files(state)
        boards[state.config.id] = bench_boards
        for rel, data in files.items():
            write(f"data/{rel}", data)
    index = index_data(report, boards)
    write("data/index.json", dumps(index))
    rejected = rejected_data(report)
    write("data/rejected.json", dumps(rejected))

    by_id = {b["id"]: b for b in index["benchmarks"]}
    for state in report.benchmarks:
        bench = by_id[state.config.id]
        subs = submissions_data(state)
        write(f"pages/{bench['id']}/index.md", pages.benchmark_page(bench, state.config, boards[bench["id"]], subs))
        write(f"pages/{bench['id']}/submissions.md", pages.submissions_page(bench, subs))
        for board in boards[bench["id"]]:
            write(f"pages/{bench['id']}/{board['board']}.md", pages.board_page(bench, board))
        # A release in force adds the dataset, the results matrix and the item pages.
        release_data, release_pages = benchmark_release(state)
        for rel, data in release_data.items():
            write(f"data/{rel}", data)
        for rel, text in release_pages.items():
            write(f"pages/{rel}", text)
    for rel, text in site_release_pages(report).items():
        write(f"pages/{rel}", text)
    write("pages/rejected.md", pages.rejected_page(rejected))
    access = access_data(report)
    write("data/access.json", dumps(access))
    write("pages/access.md", pages.access_page(access))
    write("pages/methodology.md", pages.methodology_page(report, boards))
    write("pages/data.md", pages.data_page(report, boards))
    meta = {
        "nav": _nav(report, boards),
        "banner": banner_text(report),
        "noindex": report.as_of is not None,  # a rehearsal must never be indexed
        "home_summary": pages.home_summary(index),
    }
    write("meta.json", dumps(meta))

    shutil.rmtree(staged, ignore_errors=True)
    fresh.rename(staged)
    return StagedSite(root=report.root, staged=staged, out=report.out)
