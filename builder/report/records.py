"""The build's records, shared by the stages below the build script.

``builder.pipeline.build`` runs the stages; each stage takes these records and returns
new ones (``dataclasses.replace``), never changing one it was given; the renderer and the
publisher read them. They live here, below all of them, so that every import points down
the pipeline and none points back at the script that runs it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.attest.write import Written
from builder.bundles.access import AccessEntry
from builder.bundles.ingest import Rejection
from builder.bundles.verify import VerifiedBundle
from builder.config import BenchmarkConfig
from builder.scoring.equivalence import Verdicts
from builder.scoring.tables import BoardTable
from builder.trust.registry import Registry

if TYPE_CHECKING:
    import pandas as pd

    # the release verdicts the build carries to the pages (computed in builder.release)
    from builder.release.status import ReleaseState

Progress = Callable[[str], None]

# Where a build stages generated pages and data inside the instance (so `mkdocs serve`
# shows the last build); the publisher removes it when the leak scan finds a hit, and a
# rehearsal (--as-of) when it ends.
STAGED = Path(".sealboard") / "staged"


def clear_staged(root: Path) -> None:
    """Remove the staged tree (and a half-written one) under root."""
    for path in (root / STAGED, (root / STAGED).with_name("staged.tmp")):
        shutil.rmtree(path, ignore_errors=True)


@dataclass(frozen=True)
class BenchmarkState:
    """What the build knows about one benchmark after verification and unsealing."""

    config: BenchmarkConfig
    status: str  # "sealed" (no identity), "embargoed" (authorised), "partly released", "released"
    bundles: tuple[VerifiedBundle, ...]
    dataset_where: str | None
    dataset_commitments: dict[str, str]
    items: pd.DataFrame | None = None
    results: pd.DataFrame | None = None
    submissions: pd.DataFrame | None = None
    boards: tuple[BoardTable, ...] = ()
    # (item id, canary, question texts) per item: what the leak scan must not find.
    embargoed_text: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # builder.release.status.ReleaseState: statements' verdicts (set for every benchmark by
    # the build; None in a stage's tests that build states without one: `verdicts` says so).
    release: ReleaseState | None = None
    # The dataset items a release in force publishes (full item dicts, salt included so
    # anyone can re-check commitments); empty while embargoed. Never written for others.
    released_items: tuple[dict[str, Any], ...] = ()
    # submission -> opted-in transcript lines of released items (builder.release.transcripts).
    transcripts: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    # Set by builder.leakscan.scan.screen_lab_text once every bundle's lab text was
    # scanned for this benchmark's embargoed items; the publication gate
    # (builder.scoring.gate) publishes lab free text under embargo only when it is.
    lab_text_screened: bool = False
    # The equivalence path's verdicts on this benchmark's answers, graded under the time
    # budget before scoring (builder.pipeline.regrade_budget): scoring reads them as given.
    regrade_verdicts: Verdicts = field(default_factory=dict)

    @property
    def verdicts(self) -> ReleaseState:
        """The release verdicts, which every built state has (the release outputs read them)."""
        if self.release is None:
            raise ValueError(f"{self.config.id}: this state has no release verdicts (the build's config stage sets them)")
        return self.release


@dataclass(frozen=True)
class BuildReport:
    """What a build made: every stage's output, put together by the build script."""

    root: Path
    out: Path
    now: datetime
    authorised: bool
    as_of: datetime | None
    registry: Registry | None
    benchmarks: list[BenchmarkState] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    # CPU seconds per stage, this process plus the worker processes it waited for: on a
    # shared machine wall time measures the neighbours as much as the build (bench/).
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    synthetic: bool = False
    # benchmark id -> its release statements' verdicts, judged at as_of or now.
    releases: dict[str, ReleaseState] = field(default_factory=dict)
    item_access: list[AccessEntry] = field(default_factory=list)  # who may read the items
    # The time stamped into the output (never judged at: that is `now` or `as_of`) and its
    # source: as-of, source-date-epoch, commit or clock (builder.pipeline.source_time).
    stamped: datetime | None = None
    time_source: str | None = None
    # What the publish stage attested (files, signed, digest).
    attestation: Written | None = None


def restrict(state: BenchmarkState, keep: set[str]) -> BenchmarkState:
    """The state with only the submissions in `keep` (bundles, frames, transcripts and board rows)."""
    bundles = tuple(b for b in state.bundles if b.manifest.key in keep)
    subs = state.submissions
    if subs is not None and len(subs):
        subs = subs[subs["submission"].isin(keep)].reset_index(drop=True)
    results = state.results
    if results is not None:
        results = results[results["submission"].isin(keep)].reset_index(drop=True)
    boards = tuple(replace(b, rows=tuple(r for r in b.rows if r.submission in keep)) for b in state.boards)
    transcripts = {key: rows for key, rows in state.transcripts.items() if key in keep}
    return replace(state, bundles=bundles, submissions=subs, results=results, boards=boards, transcripts=transcripts)


@dataclass(frozen=True)
class PublishedSamples:
    """The per-sample results a release in force publishes (``matrix.csv``'s rows: released
    items whose governing statement publishes results, opted-in submissions) and the
    transcripts it publishes (submission -> rows), for the Every Eval Ever samples files."""

    rows: pd.DataFrame
    transcripts: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ReleaseOutput:
    """What the releases in force add to the site, made by builder.release.pages and handed
    by the build to the renderer (which never reaches into release/ itself)."""

    nav: dict[str, list[Any]]  # benchmark -> its release pages' nav entries
    data: dict[str, bytes]  # path under data/ -> bytes (dataset, results matrix, transcripts)
    pages: dict[str, str]  # path under the pages -> text (item pages, grid, changelog, verify page)
    # "<benchmark>/<lab>/<submission>" -> its model page's per-item results (Markdown + raw HTML)
    model_sections: dict[str, str] = field(default_factory=dict)
    # benchmark -> board id -> builder.scoring.paired.PairedBoard: the compare page's item
    # correlations, from the per-item results the release publishes
    paired: dict[str, dict[str, Any]] = field(default_factory=dict)
    # benchmark -> the samples it publishes (builder.render.eee_samples writes them as EEE)
    samples: dict[str, PublishedSamples] = field(default_factory=dict)
