"""The snapshot pages: each recorded deploy's boards as they stood on its date.

``snapshots.md`` lists every recorded deploy (builder.attest.snapshots), newest first, with
a link per benchmark; ``snapshots/<folder>/<benchmark>.md`` shows that benchmark's boards
from the deploy's signed copies: per board its ranking metric (value, 95% interval, n) and
rank range, exactly as the deploy published them. A benchmark whose boards had not changed
since an earlier deploy links to that earlier page. A deploy whose record does not verify,
is incomplete or is gone is listed so, with the reason, and shows nothing. The changelog lists each shown deploy.

Only the ranking metric is shown per board: a snapshot answers "where did the models stand
on that date"; the full columns of a board are in its recorded JSON, whose digest the page
names, and on today's board page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from builder.attest.record import DELETED, DIR
from builder.attest.snapshots import BenchmarkSnapshot, Snapshot, snapshots
from builder.errors import BuilderError
from builder.release.templating import render
from builder.render.compare import lead_metric
from builder.render.escaping import page_text
from builder.render.labels import metric_header
from builder.render.pages import fmt_cell, fmt_rank, ordered_rows
from builder.report.records import BuildReport
from builder.trust.registry_format import parse_time

INDEX = "snapshots.md"


def page_path(folder: str, bench: str) -> str:
    return f"snapshots/{folder}/{bench}.md"


def _built(snap: Snapshot) -> datetime | None:
    try:
        return parse_time(snap.built, f"{DIR}/{snap.name}/statement.json", "built") if snap.built else None
    except BuilderError:  # a signed statement always has one; a refused one may not
        return None


def _date(snap: Snapshot) -> str:
    when = _built(snap)
    return f"{when:%Y-%m-%d %H:%M} UTC" if when else "undated"


def _board(board: dict[str, Any], labs: dict[str, str]) -> dict[str, Any]:
    lead = lead_metric(board)
    rows = []
    for item in ordered_rows(board):
        row = item["row"]
        cell = (row.get("metrics") or {}).get(lead["name"]) if lead else None
        rows.append(
            {
                "rank": "ref" if item["ref"] else fmt_rank(row),
                "model": page_text(str(row.get("label") if item["ref"] else row.get("model"))),
                "cell": fmt_cell(cell, lead["unit"], True) if lead else '<td class="sb-num">—</td>',
                "lab": "reference" if item["ref"] else page_text(labs.get(str(row.get("lab")), str(row.get("lab")))),
                "ref": item["ref"],
            }
        )
    return {
        "title": page_text(str(board["title"])),
        "board": str(board["board"]),
        "header": metric_header(lead) if lead else "Value",
        "rows": rows,
    }


def _order(report: BuildReport) -> dict[str, list[str]]:
    """Each benchmark's board ids in its config's order: a snapshot lists boards as the board pages do."""
    return {s.config.id: [b.id for b in s.config.scoring.boards] for s in report.benchmarks}


def snapshot_pages(report: BuildReport, snaps: list[Snapshot]) -> dict[str, str]:
    """snapshots.md and one page per shown (deploy, benchmark) with boards of its own."""
    titles = {s.config.id: s.config.title for s in report.benchmarks}
    labs = {lab.id: lab.name for lab in report.registry.labs} if report.registry else {}
    order = _order(report)
    pages: dict[str, str] = {}
    listed = []
    for snap in reversed(snaps):
        links = [{"title": titles.get(b.id, b.id), "status": b.status, "href": _href(snap, b)} for b in snap.benchmarks]
        listed.append(
            {
                "date": _date(snap),
                "name": snap.name,
                "commit": (snap.commit or "")[:12],
                "problem": snap.problem,
                "state": _state(snap.problem),
                "registry": snap.registry_version,
                "links": links,
                "missing": [titles.get(m, m) for m in snap.missing],
            }
        )
        for b in snap.benchmarks:
            if b.same_as is not None:
                continue
            rank = {bid: i for i, bid in enumerate(order.get(b.id, []))}
            boards = sorted(b.boards, key=lambda d: (rank.get(str(d["board"]), len(rank)), str(d["board"])))
            pages[page_path(snap.name, b.id)] = render(
                "snapshot.md.j2",
                snap=snap,
                date=_date(snap),
                bench=b,
                title=titles.get(b.id, b.id),
                current=b.id in titles,
                boards=[_board(d, labs) for d in boards],
            )
    pages[INDEX] = render("snapshots.md.j2", snapshots=listed)
    return pages


def _state(problem: str | None) -> str:
    """What a refused record is, in words (the reason follows it on the page)."""
    reason = (problem or "").partition(":")[0]
    if reason == DELETED:
        return "is gone"
    if reason == "attestation-incomplete":
        return "is incomplete"
    return "does not verify"


def _href(snap: Snapshot, b: BenchmarkSnapshot) -> str:
    """The page showing this deploy's boards of b, relative to the site root (.html)."""
    return page_path(b.same_as or snap.name, b.id).removesuffix(".md") + ".html"


def snapshot_entries(snaps: list[Snapshot], clock: datetime) -> list[dict[str, Any]]:
    """Changelog entries: one per shown deploy built at or before the build's clock."""
    out = []
    for snap in snaps:
        when = _built(snap)
        if not snap.shown or when is None or when > clock:
            continue
        links = ", ".join(f'<a href="{_href(snap, b)}">{page_text(b.id)}</a> ({page_text(b.status)})' for b in snap.benchmarks)
        out.append(
            {
                "at": when,
                "date": f"{when:%Y-%m-%d}",
                "benchmark": None,
                "what": f"deploy recorded; its boards as they stood: {links or 'none kept'}",
            }
        )
    return out


__all__ = ["INDEX", "page_path", "snapshot_entries", "snapshot_pages", "snapshots"]
