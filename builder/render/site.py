"""Stage the generated pages and data as a plain docs tree, then run the site generator.

``render_site`` writes every generated page and data file, then assembles the complete
tree the generator reads (``render/site_tree.py``: hand-written ``site_src/`` pages, the
generated pages, data, assets, Sealboard's theme override) under ``<root>/.sealboard/staged/``.
``StagedSite.build`` writes the generated config from the instance's mkdocs.yml and runs
mkdocs (or Zensical) on it in a child process that holds nothing secret
(``render/generator.py``). The staged tree holds only public output; keeping it on disk is
what lets ``mkdocs serve -f mkdocs.yml`` preview the last build (``mkdocs_plugin.py``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import BuilderError
from builder.render import pages, search_worker
from builder.render.compare import has_compare
from builder.render.data import access_data, board_files, dumps, index_data, rejected_data, submissions_data
from builder.render.fragments import fragment_path, join_fragments, split_page
from builder.render.generator import run_generator
from builder.render.reasons import reasons_page
from builder.render.site_tree import OVERRIDES, assemble, site_address, write_config
from builder.report.records import STAGED, BuildReport, ReleaseOutput


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
    pages: int = 0  # Markdown pages in the staged tree: the total progress counts towards
    # The build's stamped time, passed to the generator as SOURCE_DATE_EPOCH (mkdocs dates
    # the sitemap and its gzip header with it); None: the generator's own clock.
    source_date_epoch: int | None = None
    # False: the generator runs none of Sealboard's mkdocs hooks (the site must be the same,
    # tests/render/test_site_without_hooks.py); they only save time or report progress.
    hooks: bool = True

    def build(self, generator: str = "mkdocs", progress: Callable[[str], None] | None = None) -> Path:
        """Run the site generator into a fresh directory beside ``out``; return it (publish moves it)."""
        if not (self.root / "mkdocs.yml").is_file():
            raise BuilderError("mkdocs.yml is missing", where=str(self.root), hint="run 'sealboard demo' to see a complete instance")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        target = Path(tempfile.mkdtemp(prefix=".sealboard-site-", dir=self.out.parent))
        # Zensical writes only inside the config's folder: build there, then move it out.
        inner = self.staged / "site-build"
        shutil.rmtree(inner, ignore_errors=True)
        site_dir = target if generator == "mkdocs" else inner
        try:
            config = write_config(self.root, self.staged, generator, str(site_dir), hooks=self.hooks)
            total = self.pages or sum(1 for _ in (self.staged / "docs").rglob("*.md"))
            run_generator(generator, config, site_dir, total, progress, source_date_epoch=self.source_date_epoch)
            # Search as a visitor gets it with or without our hooks: lunr fixed, and from disk too.
            if (why := search_worker.finish(str(site_dir))) is not None and progress is not None:
                progress(f"Warning: {why}")
            if site_dir != target:
                target.rmdir()
                shutil.move(str(inner), str(target))
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            shutil.rmtree(inner, ignore_errors=True)
            raise
        return target


def _nav(report: BuildReport, boards: dict[str, list[dict[str, Any]]], release: ReleaseOutput) -> list[Any]:
    nav: list[Any] = [{"Home": "index.md"}]
    for state in report.benchmarks:
        bench = state.config.id
        section: list[Any] = [{"Overview": f"{bench}/index.md"}]
        section += [{b["title"]: f"{bench}/{b['board']}.md"} for b in boards.get(bench, [])]
        section += release.nav.get(bench, [])
        if has_compare(boards.get(bench, [])):  # the condition render_site writes it on
            section.append({"Compare models": f"{bench}/compare.md"})
        section.append({"Submissions": f"{bench}/submissions.md"})
        nav.append({state.config.title: section})
    nav.append(
        {
            "About": [
                {"Methodology": "methodology.md"},
                {"Labs": "labs/index.md"},
                {"Data": "data.md"},
                {"For labs: submitting a bundle": "labs.md"},
                {"For maintainers: keys and the registry": "maintainers.md"},
                {"Item access for labs": "access.md"},
                {"Adding a benchmark": "adding-a-benchmark.md"},
                {"Bundle format": "bundle-format.md"},
                {"Rejected submissions": "rejected.md"},
                {"Reason codes": "reasons.md"},
                {"Changelog": "changelog.md"},
                {"Snapshots": "snapshots.md"},
                {"Verify this release": "verify-release.md"},
            ]
        }
    )
    return nav


def _model_and_lab_pages(write: Any, by_id: dict[str, Any], subs_of: dict[str, dict[str, Any]], boards: dict[str, list[dict[str, Any]]],
                         labs: dict[str, str], registry_version: int | None, sections: dict[str, str]) -> None:  # fmt: skip
    """One page per submission and per lab. Kept out of the nav: with every page carrying
    the whole nav, listing them there would make the mkdocs stage quadratic."""
    by_model: dict[str, list[dict[str, Any]]] = {}
    for bench, subs in subs_of.items():
        for r in subs["rows"]:
            by_model.setdefault(r["model_id"], []).append(
                {"bench": bench, "title": by_id[bench]["title"], "submission": r["submission"], "model": r["model"]}
            )
    by_lab: dict[str, list[dict[str, Any]]] = {}
    for bench, subs in subs_of.items():
        for r in subs["rows"]:
            elsewhere = [o for o in by_model[r["model_id"]] if o["bench"] != bench]
            page = pages.model_page(
                by_id[bench], r, boards.get(bench, []), labs, elsewhere, registry_version, sections.get(f"{bench}/{r['submission']}", "")
            )
            write(f"pages/{bench}/models/{r['submission']}.md", page)
            by_lab.setdefault(r["lab"], []).append({"bench": bench, "title": by_id[bench]["title"], "sub": r})
    for lab, entries in by_lab.items():
        write(f"pages/labs/{lab}.md", pages.lab_page(lab, labs.get(lab, lab), entries))
    index = [{"id": lab, "name": labs.get(lab, lab), "count": len(entries)} for lab, entries in sorted(by_lab.items())]
    write("pages/labs/index.md", pages.labs_index(index))


def render_site(report: BuildReport, release: Callable[[BuildReport], ReleaseOutput]) -> StagedSite:
    """Write every generated page and data file, then assemble the staged tree. ``release``
    makes what the releases in force add (builder.release.pages.release_output, handed in
    by the build, so the renderer never imports release/)."""
    released = release(report)
    staged = report.root / STAGED
    fresh = staged.with_name("staged.tmp")
    shutil.rmtree(fresh, ignore_errors=True)
    (fresh / "pages").mkdir(parents=True)
    (fresh / "data").mkdir()

    published: list[str] = []  # every file under data/, for the Data page's links

    def write(rel: str, data: bytes | str) -> None:
        if rel.startswith("data/"):
            published.append(rel.removeprefix("data/"))
        if rel.startswith("pages/") and rel.endswith(".md") and isinstance(data, str):
            name = rel.removeprefix("pages/").removesuffix(".md")
            data, found = split_page(data, name)
            if found:
                write(f"{OVERRIDES}/{fragment_path(name)}", join_fragments(found))  # the theme folder's own
        path = fresh / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    registry_version = report.registry.version if report.registry else None
    labs = {lab.id: lab.name for lab in report.registry.labs} if report.registry else {}
    boards: dict[str, list[dict[str, Any]]] = {}
    site_url = site_address(report.root)
    for state in report.benchmarks:
        bench_boards, files = board_files(
            state, report.synthetic, registry_version, site_url=site_url, published=released.samples.get(state.config.id)
        )
        boards[state.config.id] = bench_boards
        for rel, data in files.items():
            write(f"data/{rel}", data)
    index = index_data(report, boards)
    write("data/index.json", dumps(index))
    rejected = rejected_data(report)
    write("data/rejected.json", dumps(rejected))

    by_id = {b["id"]: b for b in index["benchmarks"]}
    subs_of = {state.config.id: submissions_data(state, registry_version) for state in report.benchmarks}
    last_change = {b: max((r["created"] for r in s["rows"]), default=None) for b, s in subs_of.items()}
    for state in report.benchmarks:
        bench = by_id[state.config.id]
        subs = subs_of[bench["id"]]
        by_sub = {r["submission"]: r for r in subs["rows"]}
        board_dicts = {b["board"]: b for b in boards[bench["id"]]}
        specs = {spec.id: spec for spec in state.config.scoring.boards}
        earlier = [b for b in index["benchmarks"] if b["superseded_by"] and b["benchmark"] == bench["id"]]
        write(f"pages/{bench['id']}/index.md", pages.benchmark_page(bench, state.config, boards[bench["id"]], subs, earlier))
        write(f"pages/{bench['id']}/submissions.md", pages.submissions_page(bench, subs, labs))
        if (compare := pages.compare_page(bench, boards[bench["id"]], subs, released.paired.get(bench["id"]))) is not None:
            write(f"pages/{bench['id']}/compare.md", compare)
        for board in boards[bench["id"]]:
            page = pages.board_page(bench, board, by_sub, labs, specs.get(board["board"]), board_dicts)
            write(f"pages/{bench['id']}/{board['board']}.md", page)
    for rel, data in released.data.items():
        write(f"data/{rel}", data)
    for rel, text in released.pages.items():
        write(f"pages/{rel}", text)
    _model_and_lab_pages(write, by_id, subs_of, boards, labs, registry_version, released.model_sections)
    write("pages/rejected.md", pages.rejected_page(rejected))
    write("pages/reasons.md", reasons_page())
    access = access_data(report)
    write("data/access.json", dumps(access))
    write("pages/access.md", pages.access_page(access))
    write("pages/methodology.md", pages.methodology_page(report, boards))
    write("pages/data.md", pages.data_page(report, boards, site_url, published))  # after the last data file
    home = pages.home_summary(index, boards, last_change)
    meta = {
        "nav": _nav(report, boards, released),
        "banner": banner_text(report),
        "noindex": report.as_of is not None,  # a rehearsal must never be indexed
        "home_summary": home,
    }
    write("meta.json", dumps(meta))
    total = assemble(report.root, fresh, home)

    shutil.rmtree(staged, ignore_errors=True)
    fresh.rename(staged)
    stamped = report.stamped or report.now
    return StagedSite(root=report.root, staged=staged, out=report.out, pages=total, source_date_epoch=int(stamped.timestamp()))
