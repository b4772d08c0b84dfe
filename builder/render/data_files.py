"""The Data page's download links: every file the build published under ``data/``, grouped.

The page links what was actually written (render_site hands over the paths), not path
templates, so a file that exists is one click away and a file that does not is never linked.
Paths are relative to ``data/``; the links are relative to the Data page (at the site's
root), so they work from disk and under a sub-path.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

# A benchmark's own files (beside its boards), in the order the page lists them.
BENCH_FILES = ("submissions.json", "submissions.csv", "commitments.json", "items.jsonl", "items.csv", "matrix.csv",
               "grid.json", "paired.json", "item_summary.json")  # fmt: skip
EEE = "eee/"
HF = "eval_results/"


@dataclass(frozen=True)
class BenchFiles:
    """One benchmark's published files, relative to ``data/``."""

    id: str
    boards: list[tuple[str, list[str]]]  # (board id, its files: .json then .csv)
    own: list[str]  # submissions, commitments, released items and results …
    eee: list[str] = field(default_factory=list)  # the Every Eval Ever datastore
    hf: list[str] = field(default_factory=list)  # Hugging Face .eval_results entries
    other: list[str] = field(default_factory=list)  # anything else the build wrote there


@dataclass(frozen=True)
class DataFiles:
    site: list[str]  # index.json, rejected.json, access.json
    benchmarks: dict[str, BenchFiles]


def group(files: Iterable[str], boards: dict[str, list[dict[str, Any]]]) -> DataFiles:
    """Sort the published paths into the site's and each benchmark's (boards in page order)."""
    files = sorted(set(files))
    site = [f for f in files if "/" not in f]
    out: dict[str, BenchFiles] = {}
    for bench, bench_boards in boards.items():
        mine = {f.removeprefix(f"{bench}/") for f in files if f.startswith(f"{bench}/")}
        board_files = []
        for b in bench_boards:
            have = [f"{bench}/{b['board']}{ext}" for ext in (".json", ".csv") if f"{b['board']}{ext}" in mine]
            mine -= {f"{b['board']}.json", f"{b['board']}.csv"}
            board_files.append((b["board"], have))
        own = [f"{bench}/{name}" for name in BENCH_FILES if name in mine]
        mine -= set(BENCH_FILES)
        eee = sorted(f"{bench}/{f}" for f in mine if f.startswith(EEE))
        hf = sorted(f"{bench}/{f}" for f in mine if f.startswith(HF))
        other = sorted(f"{bench}/{f}" for f in mine if not f.startswith((EEE, HF)))
        out[bench] = BenchFiles(bench, board_files, own, eee, hf, other)
    return DataFiles(site, out)


def link(rel: str, text: str | None = None) -> str:
    """An HTML link from the Data page to ``data/<rel>`` (each path segment percent-encoded)."""
    return f'<a href="data/{quote(rel)}">{html.escape(text if text is not None else rel.rsplit("/", 1)[-1])}</a>'


def links(rels: Sequence[str], strip: str = "") -> str:
    """A list of links, each named by its path below ``strip``."""
    return " · ".join(link(r, r.removeprefix(strip)) for r in rels)
