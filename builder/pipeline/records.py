"""The build's records, shared by the stages below the build script.

``builder.pipeline.build`` runs the stages; the stages, the renderer and the publisher
read and fill these records. They live here, below all of them, so that every import
points down the pipeline and none points back at the script that runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from builder.bundles.ingest import Rejection
from builder.bundles.verify import VerifiedBundle
from builder.config import BenchmarkConfig
from builder.trust.registry import Registry

Progress = Callable[[str], None]

# Where a build stages generated pages and data inside the instance (so `mkdocs serve`
# shows the last build); the publisher removes it when the leak scan finds a hit.
STAGED = Path(".sealboard") / "staged"


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
    boards: tuple[Any, ...] = ()
    # (item id, canary, question texts) per item: what the leak scan must not find.
    embargoed_text: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # builder.release.status.ReleaseState: statements' verdicts (set for every benchmark).
    release: Any = None
    # The dataset items a release in force publishes (full item dicts, salt included so
    # anyone can re-check commitments); empty while embargoed. Never written for others.
    released_items: tuple[dict[str, Any], ...] = ()
    # submission -> opted-in transcript lines of released items (builder.release.transcripts).
    transcripts: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    # Set by builder.pipeline.leakscan.screen_lab_text once every bundle's lab text was
    # scanned for this benchmark's embargoed items; the publication gate
    # (builder.scoring.gate) publishes lab free text under embargo only when it is.
    lab_text_screened: bool = False


@dataclass
class BuildReport:
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
    # benchmark id -> builder.release.status.ReleaseState, judged at as_of or now.
    releases: dict[str, Any] = field(default_factory=dict)
    item_access: list[Any] = field(default_factory=list)  # builder.bundles.access.AccessEntry: who may read the items
    # The time stamped into the output (never judged at: that is `now` or `as_of`) and its
    # source: as-of, source-date-epoch, commit or clock (builder.pipeline.source_time).
    stamped: datetime | None = None
    time_source: str | None = None
