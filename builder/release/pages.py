"""Pages a release adds: the item browser, one page per item, the grid, the changelog and the
"Verify this release" page. Rendered from the same dicts as the data files.

Item pages stay out of the mkdocs nav (a nav of thousands of pages makes every page's
build walk them all: quadratic) and out of the search index; the item browser links them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from builder.attest.snapshots import Snapshot
from builder.bundles.withdrawn import read_tombstones
from builder.errors import BuilderError
from builder.leakscan.labkeys import key_in_text
from builder.release.audit_record import read_audit
from builder.release.explore import anchor, embedded_json, grid_data, grid_json, model_results
from builder.release.item_rows import item_rows, submission_rows
from builder.release.outputs import (
    ItemSummary,
    is_released,
    item_row,
    item_summaries,
    matrix_frame,
    paired_figures,
    paired_file,
    release_files,
)
from builder.release.registry_history import registry_history
from builder.release.snapshot_pages import snapshot_entries, snapshot_pages, snapshots
from builder.release.templating import render
from builder.release.transcripts import by_item, published, publishes_transcripts
from builder.render.escaping import page_text
from builder.render.formulas import has_math
from builder.render.labels import option_order
from builder.report.records import BenchmarkState, BuildReport, PublishedSamples, ReleaseOutput

_SAFE_PAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_COLUMNS = (
    ("split", "Split"),
    ("subfield", "Subfield"),
    ("type", "Type"),
    ("languages", "Languages"),
    ("year", "Year"),
    ("edition", "Edition"),
    ("difficulty", "Difficulty"),
)
_FILTERS = (
    ("split", "Split"),
    ("subfield", "Subfield"),
    ("type", "Type"),
    ("language", "Language"),
    ("year", "Year"),
    ("edition", "Edition"),
    ("difficulty", "Difficulty"),
)


def _render(name: str, **context: Any) -> str:
    return render(
        name,
        pct=lambda v: "—" if v is None else f"{100 * v:.1f}%",
        sortable=lambda v: "-1" if v is None else f"{v:.6f}",  # an unknown rate sorts below 0
        **context,
    )


def page_name(item_id: str) -> str:
    """A file name for an item's page: its id when plain, else a stable hex of it."""
    return item_id if _SAFE_PAGE.match(item_id) else "x-" + item_id.encode().hex()[:120]


def benchmark_release(state: BenchmarkState) -> tuple[dict[str, bytes], dict[str, str], dict[str, str], PublishedSamples | None]:
    """Data files (under data/), pages (under pages/), model pages' per-item sections (by
    submission) of one released benchmark, and the samples it publishes (the rows of
    ``matrix.csv``, with the transcripts it publishes) for the renderer's EEE samples files."""
    if not is_released(state):
        return {}, {}, {}, None
    bench, title = state.config.id, state.config.title
    matrix = matrix_frame(state)
    summaries = item_summaries(state, matrix)
    files = release_files(state, summaries, matrix)
    rows = [dict(item_row(s), page=page_name(s.item["id"])) for s in summaries]
    filters = []
    for name, label in _FILTERS:
        key = "languages" if name == "language" else name
        values = option_order(v for r in rows for v in (r[key] if name == "language" else [r[key]]) if v is not None)
        if len(values) > 1:
            filters.append((name, label, values))
    # A column no item has a value for (KCSAT-ML's editions) only costs a phone its width.
    columns = [(key, label) for key, label in _COLUMNS if key in ("split", "type", "languages") or any(r[key] is not None for r in rows)]
    pages = {
        f"{bench}/items.md": _render(
            "items.md.j2",
            bench=bench,
            bench_title=title,
            rows=rows,
            filters=filters,
            columns=columns,
            has_cohort=any(r["cohort_solve_rate"] is not None for r in rows),
            release_summary=state.verdicts.summary(published=True).capitalize(),
            has_matrix=f"{bench}/matrix.csv" in files,
            has_grid=not matrix.empty,
        )
    }
    transcripts = by_item(state)
    # Asked once, not once an item page: it builds the set of items whose statement publishes
    # transcripts (783 pages on the demo: 0.22 -> 0.00 profiled CPU-s).
    shows_transcripts = publishes_transcripts(state)
    for s, row in zip(summaries, rows):
        pages[f"{bench}/items/{row['page']}.md"] = _item_page(state, s, row, transcripts.get(s.item["id"], []), shows_transcripts)
    sections: dict[str, str] = {}
    if not matrix.empty:  # per-item verdicts: only where a statement in force publishes results
        names = {r["id"]: r["page"] for r in rows}
        shown = [s for s in summaries if s.per_submission]
        grid = grid_data(bench, shown, names)
        files[f"{bench}/grid.json"] = grid_json(grid)
        pages[f"{bench}/grid.md"] = _render(
            "grid.md.j2", bench=bench, bench_title=title, grid=grid, grid_json=embedded_json(files[f"{bench}/grid.json"])
        )
        for sub, results in model_results(shown, names).items():
            sections[sub] = _render("model_items.md.j2", rows=results, item_rows=item_rows(results), anchor=anchor(sub))
    samples = PublishedSamples(matrix, dict(published(state))) if f"{bench}/matrix.csv" in files and not matrix.empty else None
    return files, pages, sections, samples


def _item_page(
    state: BenchmarkState, s: ItemSummary, row: dict[str, Any], transcripts: list[dict[str, Any]], shows_transcripts: bool
) -> str:
    texts = [*s.item["question"].values(), *s.item["answer"].values(), *(t["text"] for t in transcripts)]
    subs = [dict(r, anchor=anchor(r["submission"])) for r in s.per_submission]
    return _render(
        "item.md.j2",
        bench=state.config.id,
        bench_title=state.config.title,
        item=s.item,
        row=row,
        subs=subs,
        submission_rows=submission_rows(subs, {t["submission"] for t in transcripts}),
        commitment=state.dataset_commitments.get(s.item["id"], ""),
        math=has_math(*texts) or any("\\" in a for a in s.item["answer"].values()),
        transcripts=[dict(t, anchor=anchor(t["submission"])) for t in transcripts],
        shows_transcripts=shows_transcripts,
    )


def release_nav(state: BenchmarkState, pages: dict[str, str]) -> list[dict[str, str]]:
    """The item browser, and the grid where per-item results are published."""
    bench = state.config.id
    return [
        {title: rel} for title, rel in (("Released items", f"{bench}/items.md"), ("Item × model grid", f"{bench}/grid.md")) if rel in pages
    ]


def _when(at: datetime | None) -> str | None:
    return f"{at:%Y-%m-%d %H:%M}" if at is not None else None


def _registry_entries(report: BuildReport) -> list[dict[str, Any]]:
    """One entry per trusted registry version, dated by the commit that admitted it.

    A registry file has no signed field saying when it took effect (``expires`` is an end,
    a revocation's ``revoked`` dates only that revocation), so the date is the one the
    release tally uses too: git's admission time (builder.release.registry_history)."""
    if report.registry is None:
        return []
    try:
        history = registry_history(report.root, report.registry.version)
    except BuilderError:  # the registry was read once already; a race leaves it undated
        return []
    entries = []
    for n, doc in sorted(history.versions.items()):
        at = history.admitted.get(n)
        maintainers = ", ".join(m.id for m in doc.maintainers)
        what = f"key registry version {n} (maintainers {maintainers}; threshold {doc.threshold})"
        entries.append(
            {"at": at, "date": _when(at), "benchmark": None, "what": page_text(what) + ("" if at else " — not committed: undated")}
        )
    return entries


def _withdrawal_entries(root: Path, benchmarks: set[str]) -> list[dict[str, Any]]:
    """One entry per tombstone (builder.bundles.withdrawn), dated by its `withdrawn` field."""
    stones, _errors = read_tombstones(root)  # the build reports unreadable ones already
    entries = []
    for stone in stones.values():
        if stone.benchmark not in benchmarks:
            continue
        why = f": {stone.reason}" if stone.reason else ""
        # A withdrawn folder named like a key (refused as key-material) is not named here either.
        name = f"{stone.lab}/{stone.submission}" if key_in_text(stone.submission) is None else f"{stone.lab}/(name withheld)"
        entries.append(
            {
                "at": stone.withdrawn,
                "date": _when(stone.withdrawn),
                "benchmark": stone.benchmark,
                "what": page_text(f"submission withdrawn by maintainers: {name}{why}"),
            }
        )
    return entries


def changelog_entries(report: BuildReport, snaps: Sequence[Snapshot] = ()) -> list[dict[str, Any]]:
    """Releases (dated by not_before), new submissions (their signed `created`), withdrawals
    (the tombstone's `withdrawn`), registry versions (git admission) and recorded deploys
    (their signed build time, linking their snapshots), newest first.

    The changelog is judged at the build's clock, like the releases' verdicts: a rehearsal's
    ``as_of`` or now. A submission, withdrawal or registry version dated after it has not
    happened yet at that time and is left out; a signed release dated after it is listed
    as scheduled."""
    entries: list[dict[str, Any]] = []
    for state in report.benchmarks:
        bench = state.config.id
        release = state.release
        for v in release.verdicts if release is not None else ():
            if v.statement is None or not v.signed:
                continue
            what = f"release of {v.statement.scope.describe()}" + (" (in force)" if v.state == "effective" else " (scheduled)")
            # A signed statement dated later is an announcement: listed, as scheduled.
            entries.append({"at": None, "date": _when(v.statement.not_before), "benchmark": bench, "what": page_text(what)})
        for b in state.bundles:
            m = b.manifest
            entries.append(
                {
                    "at": m.created,
                    "date": _when(m.created),
                    "benchmark": bench,
                    "what": f"new submission {page_text(m.model.name)} ({page_text(m.lab)}/{page_text(m.submission)})",
                }
            )
    entries += _withdrawal_entries(report.root, {s.config.id for s in report.benchmarks})
    entries += _registry_entries(report)
    clock = report.as_of or report.now
    entries += snapshot_entries(list(snaps), clock)
    entries = [e for e in entries if e["at"] is None or e["at"] <= clock]
    return sorted(entries, key=lambda e: (e["date"] or "", e["what"]), reverse=True)


def site_release_pages(report: BuildReport) -> dict[str, str]:
    releases = [
        {
            "id": s.config.id,
            "title": s.config.title,
            "version": s.config.version,
            **s.release.to_dict(published=True),
            # The recorded audit after release (builder.release.audit_record), once fully released.
            "audit": read_audit(report.root, s.config.id) if s.status == "released" else None,
        }
        for s in report.benchmarks
        if s.release is not None
    ]
    snaps = snapshots(report.root)
    return {
        "changelog.md": _render(
            "changelog.md.j2",
            entries=changelog_entries(report, snaps),
            as_of=f"{report.as_of:%Y-%m-%d %H:%M} UTC" if report.as_of else None,
        ),
        "verify-release.md": _render("verify-release.md.j2", releases=releases),
        **snapshot_pages(report, snaps),
    }


def release_output(report: BuildReport) -> ReleaseOutput:
    """Everything the releases in force add to the site: the build hands it to the renderer."""
    nav: dict[str, list[Any]] = {}
    data: dict[str, bytes] = {}
    pages: dict[str, str] = {}
    sections: dict[str, str] = {}
    paired: dict[str, dict[str, Any]] = {}
    samples: dict[str, PublishedSamples] = {}
    for state in report.benchmarks:
        # A release in force adds the dataset, the results matrix, the item pages and grid.
        bench_data, bench_pages, bench_sections, bench_samples = benchmark_release(state)
        if bench_samples is not None:
            samples[state.config.id] = bench_samples
        data.update(bench_data)
        pages.update(bench_pages)
        sections.update({f"{state.config.id}/{sub}": text for sub, text in bench_sections.items()})
        nav[state.config.id] = release_nav(state, bench_pages)
        # The compare page's paired differences: per-item results made public (scoring/paired.py).
        if pairs := paired_figures(state):
            paired[state.config.id] = dict(pairs)
            data[f"{state.config.id}/paired.json"] = paired_file(state.config.id, pairs)
    pages.update(site_release_pages(report))
    return ReleaseOutput(nav, data, pages, sections, paired, samples)


__all__ = ["benchmark_release", "page_name", "release_nav", "release_output", "site_release_pages"]
