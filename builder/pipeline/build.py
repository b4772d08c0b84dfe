"""The build, as one script: ingest → verify → unseal → score → render → publish.

Everything is read and validated before anything is written. A bundle that fails any
check becomes a Rejection (listed on the site's "Rejected submissions" page) and the rest
still build; ``strict=True`` makes any rejection fatal instead (PR validation).

Each stage (builder.pipeline.pipe) takes values and returns values: the states it made
and the rejections it made. This script reads top to bottom as the stages and puts their
outputs together; nothing is changed after a stage returned it.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from builder.errors import ConfigError
from builder.pipeline import pipe
from builder.pipeline.admission import ingest, reject
from builder.pipeline.isolation import isolate_render
from builder.pipeline.publish import needles_for, publish
from builder.pipeline.source_time import source_time
from builder.pipeline.stages import score_states
from builder.render.confinement import hold_secrets
from builder.report.records import BenchmarkState, BuildReport, Progress, clear_staged
from builder.trust.credentials import load_build_key, load_identities
from builder.trust.seal import Identity
from builder.trust.sshkeys import PrivateKey

# Re-exported: callers of build() receive these records.
__all__ = ["BenchmarkState", "BuildReport", "build", "load_build_key", "load_identities", "reject"]


def _quiet(_: str) -> None:
    pass


class _Timer:
    """Wall and CPU seconds per stage, kept here and handed to the report at the end."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.timings: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}

    def stage(self, name: str, message: str) -> "_Timer":
        self.name = name
        self.progress(message)
        return self

    def __enter__(self) -> None:
        self.start, self.cpu = time.perf_counter(), _cpu()

    def __exit__(self, *exc: object) -> None:
        self.timings[self.name] = self.timings.get(self.name, 0.0) + time.perf_counter() - self.start
        self.cpu_seconds[self.name] = self.cpu_seconds.get(self.name, 0.0) + _cpu() - self.cpu


def _cpu() -> float:
    """User + system CPU seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def build(
    root: Path,
    out: Path | None = None,
    *,
    identities: list[Identity] | None = None,
    now: datetime | None = None,
    strict: bool = False,
    progress: Progress = _quiet,
    render: bool = True,
    as_of: datetime | None = None,
    site_generator: str = "mkdocs",
    build_key: PrivateKey | None = None,
    beacon_relay: str | None = None,
) -> BuildReport:
    root = root.resolve()
    out = (out or root / "site").resolve()
    now = now or datetime.now(timezone.utc)
    identities = identities or []
    if identities or build_key is not None or os.environ.get("SEALBOARD_IDENTITY") or os.environ.get("SEALBOARD_BUILD_KEY"):
        # A secret is in this process (memory, environment): no other process of this user
        # (the site generator's child least of all) may read its /proc entries (builder.render.confinement).
        hold_secrets()
    # Judged at `now` (or as_of); stamped with the commit's time (or SOURCE_DATE_EPOCH), so
    # two builds of one commit are byte-identical (builder.pipeline.source_time says why two).
    stamp = source_time(root, clock=now, as_of=as_of)
    timer = _Timer(progress)
    if as_of is not None and not identities:
        raise ConfigError(
            "a rehearsal (--as-of) is an authorised build only",
            where="--as-of",
            reason="rehearsal-unauthorised",
            hint="pass the embargo identity with --identity or SEALBOARD_IDENTITY",
        )

    with timer.stage("config", "Loading leaderboard configs and the key registry"):
        configured = pipe.configure(root, now, as_of, build_key, beacon_relay)
    pipe.check_identities(identities, configured.configs)

    # 1. Ingest: read every bundle's bytes (with caps, no links); withdrawn names stay out.
    with timer.stage("ingest", "Reading bundles"):
        ingested = ingest(root, [c.id for c in configured.configs])

    # 2. Verify: signatures, digests, the admission policy, labs' copies of the items.
    with timer.stage("verify", "Verifying signatures and digests"):
        verified = pipe.verify(root, configured, ingested, now)
        rejections = [*configured.rejections, *ingested.rejections, *verified.rejections]
        progress(f"  {sum(map(len, verified.admitted.bundles.values()))} bundle(s) verified, {len(rejections)} rejected")

    # 3. Unseal: only with the identity, only for the benchmarks it opens; all in memory.
    with timer.stage("unseal", "Unsealing results" if identities else "No identity: building the public (sealed) site"):
        unsealed = pipe.unseal(root, configured, ingested, verified, identities, rejections, now, as_of, progress)
    # The bundles' bytes are not read again (the states keep what they need): let them go.
    item_access = verified.item_access
    del ingested, verified

    # Lab text that holds embargoed item text (or key-shaped text) rejects its bundle here,
    # while the site can still be built without it.
    with timer.stage("screen", "Scanning lab-supplied text for embargoed item text"):
        needles = needles_for(unsealed.states)
        screened = pipe.screen(root, out, unsealed.states, unsealed.rejections, needles)
    pipe.check_strict(screened.rejections, strict)

    with timer.stage("regrade", "Regrading answers that need math-verify (time budget per bundle)"):
        regraded = pipe.regrade(screened.states)
    rejections = [*screened.rejections, *regraded.rejections]
    pipe.check_strict(rejections, strict)

    # 4. Score: pure functions over the frames, one isolation boundary per submission.
    with timer.stage("score", "Scoring boards"):
        scored = pipe.score(regraded.states)
    rejections = [*rejections, *scored.rejections]
    pipe.check_strict(rejections, strict)

    report = BuildReport(
        root=root,
        out=out,
        now=now,
        authorised=bool(identities),
        as_of=as_of,
        registry=configured.registry,
        benchmarks=scored.states,
        rejections=rejections,
        synthetic=configured.synthetic,
        releases=configured.releases,
        item_access=item_access,
        stamped=stamp.at,
        time_source=stamp.source,
    )
    if not render:
        return replace(report, timings={**timer.timings, **screened.timings}, cpu_seconds=timer.cpu_seconds)

    # 5–6. Render pages and data, build with mkdocs, leak-scan, then move into place.
    from builder.release.pages import release_output
    from builder.render.site import render_site

    try:
        with timer.stage("render", "Rendering pages and data"):
            report, staged = isolate_render(report, functools.partial(render_site, release=release_output), score_states)
        pipe.check_strict(report.rejections, strict)
        # The generator runs theme templates a reviewed change may alter: it gets a fresh child
        # process with an allow-listed environment (no identity, no token), confined by Landlock
        # to the staged tree and the Python installation (render/generator.py, render/confinement.py).
        # Nothing after this point needs an identity, so the build's own references go first.
        # The build key stays in this process for the publish stage's signature: the child is a
        # fresh interpreter (exec) with an allow-listed environment, so it never sees it.
        del identities, configured
        # The stage is named for the generator that ran, so the summary says which one it timed.
        with timer.stage(site_generator, f"Building the site with {site_generator} ({staged.pages} pages)"):
            built = staged.build(site_generator, progress)
        with timer.stage("publish", "Scanning the output and the checkout for embargoed text and publishing"):
            published = publish(report, built, needles, generator=site_generator, build_key=build_key, clean=screened.clean)
    finally:
        if as_of is not None:
            # A rehearsal's staged tree holds what is only scheduled (items, canaries, salts):
            # no decrypted byte outlives the build that needed it, outside its --out.
            clear_staged(root)
    return replace(
        report,
        rejections=[*report.rejections, *published.rejections],
        attestation=published.attestation,
        timings={**timer.timings, **screened.timings, **published.timings},
        cpu_seconds=timer.cpu_seconds,
    )
