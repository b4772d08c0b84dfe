"""Pages a release adds: the item browser, one page per item, the changelog and the
"Verify this release" page. Rendered from the same dicts as the data files.

Item pages stay out of the mkdocs nav (a nav of thousands of pages makes every page's
build walk them all: quadratic) and out of the search index; the item browser links them.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from builder.pipeline.records import BenchmarkState, BuildReport
from builder.release.outputs import ItemSummary, is_released, item_row, item_summaries, matrix_frame, release_files
from builder.release.transcripts import by_item, publishes_transcripts

_ENV = Environment(
    loader=PackageLoader("builder.release", "templates"),
    undefined=StrictUndefined,
    autoescape=False,  # Markdown output; every value goes through `e` explicitly
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_SAFE_PAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_FILTERS = (("split", "Split"), ("subfield", "Subfield"), ("type", "Type"), ("language", "Language"), ("edition", "Edition"), ("difficulty", "Difficulty"))


def _render(name: str, **context: Any) -> str:
    import html

    return _ENV.get_template(name).render(
        e=lambda s: html.escape(str(s)) if s is not None else "",
        pct=lambda v: "—" if v is None else f"{100 * v:.1f}%",
        **context,
    )


def page_name(item_id: str) -> str:
    """A file name for an item's page: its id when plain, else a stable hex of it."""
    return item_id if _SAFE_PAGE.match(item_id) else "x-" + item_id.encode().hex()[:120]


def benchmark_release(state: BenchmarkState) -> tuple[dict[str, bytes], dict[str, str]]:
    """Data files (under data/) and pages (under pages/) of one released benchmark."""
    if not is_released(state):
        return {}, {}
    bench, title = state.config.id, state.config.title
    matrix = matrix_frame(state)
    summaries = item_summaries(state, matrix)
    files = release_files(state, summaries, matrix)
    rows = [dict(item_row(s), page=page_name(s.item["id"])) for s in summaries]
    filters = []
    for name, label in _FILTERS:
        key = "languages" if name == "language" else name
        values = sorted({str(v) for r in rows for v in (r[key] if name == "language" else [r[key]]) if v is not None})
        if len(values) > 1:
            filters.append((name, label, values))
    pages = {
        f"{bench}/items.md": _render(
            "items.md.j2", bench=bench, bench_title=title, rows=rows, filters=filters,
            release_summary=state.release.summary().capitalize(), has_matrix=f"{bench}/matrix.csv" in files,
        )
    }
    transcripts = by_item(state)
    for s, row in zip(summaries, rows):
        pages[f"{bench}/items/{row['page']}.md"] = _item_page(state, s, row, transcripts.get(s.item["id"], []))
    return files, pages


def _item_page(state: BenchmarkState, s: ItemSummary, row: dict[str, Any], transcripts: list[dict[str, Any]]) -> str:
    return _render(
        "item.md.j2", bench=state.config.id, bench_title=state.config.title, item=s.item, row=row,
        subs=s.per_submission, commitment=state.dataset_commitments.get(s.item["id"], ""),
        transcripts=transcripts, shows_transcripts=publishes_transcripts(state),
    )


def release_nav(state: BenchmarkState) -> list[dict[str, str]]:
    return [{"Released items": f"{state.config.id}/items.md"}] if is_released(state) else []


def _registry_dates(root: Path) -> dict[str, str]:
    """When each registry file was added, from git (empty outside a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "log", "--diff-filter=A", "--format=%x00%cs", "--name-only", "--", "keys/registry"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    dates: dict[str, str] = {}
    for chunk in out.stdout.split("\x00")[1:] if out.returncode == 0 else []:
        date, *names = chunk.strip().splitlines()
        for name in names:
            dates.setdefault(Path(name).name, date)
    return dates


def changelog_entries(report: BuildReport) -> list[dict[str, Any]]:
    import html

    entries: list[dict[str, Any]] = []
    for state in report.benchmarks:
        bench = state.config.id
        release = state.release
        for v in release.verdicts if release is not None else ():
            if v.statement is None or not v.signed:
                continue
            what = f"release of {v.statement.scope.describe()}" + (" (in force)" if v.state == "effective" else " (scheduled)")
            entries.append({"date": f"{v.statement.not_before:%Y-%m-%d %H:%M}", "benchmark": bench, "what": html.escape(what)})
        for b in state.bundles:
            m = b.manifest
            entries.append({"date": f"{m.created:%Y-%m-%d %H:%M}", "benchmark": bench,
                            "what": f"new submission {html.escape(m.model.name)} ({html.escape(m.lab)}/{html.escape(m.submission)})"})
    for r in report.rejections:
        if r.benchmark and r.lab:
            entries.append({"date": None, "benchmark": r.benchmark, "what": f"submission withdrawn or rejected: <code>{html.escape(r.where)}</code> ({html.escape(r.reason)})"})
    dates = _registry_dates(report.root)
    if report.registry is not None:
        for version in range(1, report.registry.version + 1):
            name = f"v{version:04d}.yaml"
            entries.append({"date": dates.get(name), "benchmark": None, "what": f"key registry version {version}"})
    return sorted(entries, key=lambda e: (e["date"] or "", e["what"]), reverse=True)


def site_release_pages(report: BuildReport) -> dict[str, str]:
    releases = [
        {"id": s.config.id, "title": s.config.title, "version": s.config.version, **s.release.to_dict()}
        for s in report.benchmarks if s.release is not None
    ]
    return {
        "changelog.md": _render("changelog.md.j2", entries=changelog_entries(report),
                                as_of=f"{report.as_of:%Y-%m-%d %H:%M} UTC" if report.as_of else None),
        "verify-release.md": _render("verify-release.md.j2", releases=releases),
    }


__all__ = ["benchmark_release", "page_name", "release_nav", "site_release_pages"]
