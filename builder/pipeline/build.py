"""The build, as one script: ingest → verify → unseal → score → render → publish.

Everything is read and validated before anything is written. A bundle that fails any
check becomes a Rejection (listed on the site's "Rejected submissions" page) and the rest
still build; ``strict=True`` makes any rejection fatal instead (PR validation).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from builder.bundles.access import review as review_access
from builder.bundles.budget import Entry as BudgetEntry
from builder.bundles.budget import over_budget
from builder.bundles.duplicates import Candidate, admission_order, find_duplicates
from builder.bundles.ingest import DATASET_DIR, RawBundle, Rejection, discover
from builder.bundles.manifest import RESULTS
from builder.bundles.verify import VerifiedBundle
from builder.bundles.withdrawn import read_tombstones, withdrawn_error
from builder.config import load_configs
from builder.errors import BuilderError, ConfigError
from builder.memory import freed_memory_kept
from builder.pipeline.admission import Admissions, verify_all
from builder.pipeline.isolation import isolate_render
from builder.pipeline.leakscan import screen_lab_text
from builder.pipeline.publish import needles_for, publish
from builder.pipeline.records import BenchmarkState, BuildReport, Progress
from builder.pipeline.stages import reject_clones, score_states, unseal_state, verify_datasets
from builder.release.identity import published_identities
from builder.release.status import release_states
from builder.release.transcripts import screen_transcripts
from builder.render.site_guard import refuse_unsafe_site
from builder.trust.registry import load_registry
from builder.trust.seal import Identity, load_identity

# Re-exported: callers of build() receive these records.
__all__ = ["BenchmarkState", "BuildReport", "build", "load_identities", "reject"]


def _quiet(_: str) -> None:
    pass


class _Timer:
    def __init__(self, report: BuildReport, progress: Progress) -> None:
        self.report, self.progress = report, progress

    def stage(self, name: str, message: str) -> "_Timer":
        self.name = name
        self.progress(message)
        return self

    def __enter__(self) -> None:
        self.start, self.cpu = time.perf_counter(), _cpu()

    def __exit__(self, *exc: object) -> None:
        self.report.timings[self.name] = self.report.timings.get(self.name, 0.0) + time.perf_counter() - self.start
        self.report.cpu_seconds[self.name] = self.report.cpu_seconds.get(self.name, 0.0) + _cpu() - self.cpu


def _cpu() -> float:
    """User + system CPU seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def load_identities(identity_file: Path | None, identity_env: str | None) -> list[Identity]:
    """The embargo identity from --identity FILE or SEALBOARD_IDENTITY (the file's text)."""
    if identity_file is not None:
        return [load_identity(identity_file.read_bytes(), str(identity_file))]
    if identity_env:
        return [load_identity(identity_env, "SEALBOARD_IDENTITY")]
    return []


def reject(exc: BuilderError, raw: RawBundle) -> Rejection:
    return Rejection(exc.where or raw.where, exc.reason, str(exc), exc.hint, raw.benchmark, raw.owner)


def _check_strict(report: BuildReport, strict: bool) -> None:
    """--strict: any rejection from any stage so far fails the build, before anything is written."""
    if strict and report.rejections:
        first = report.rejections[0]
        raise BuilderError(f"{len(report.rejections)} bundle(s) rejected; first: {first.message}", reason="rejected", hint="fix the listed bundles (--strict is on)")


_F = TypeVar("_F", bound=Callable[..., object])


def _memory_policy(func: _F) -> _F:
    """Run ``func`` with numpy's huge-page advice off (unless NUMPY_MADVISE_HUGEPAGE says
    otherwise) and glibc's malloc keeping what it frees (builder.memory).

    numpy advises the kernel to back every array of 4 MB or more with transparent huge pages.
    Where the kernel's THP defrag policy is "madvise" (Debian's and Ubuntu's default), a
    fault in such an array may compact memory there and then. Scoring makes dozens of
    short-lived arrays of one value per result row: on the 300-submission bench
    (bench/bench_build.py) the score stage took 0.76–0.90 s with the advice and 0.65–0.67 s
    without; unsealing did not change. The setting is numpy's, process-wide, so it is
    restored on return; an explicit NUMPY_MADVISE_HUGEPAGE is the user's choice and is kept.
    """

    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> object:
        toggle = None if "NUMPY_MADVISE_HUGEPAGE" in os.environ else _madvise_toggle()
        previous = toggle(False) if toggle else None
        try:
            # and freed blocks kept for reuse (builder.memory): the sealed results dropped
            # after unsealing become scoring's arrays instead of fresh, faulting pages
            with freed_memory_kept():
                return func(*args, **kwargs)
        finally:
            if toggle:
                toggle(previous)

    return wrapper  # type: ignore[return-value]


def _madvise_toggle() -> Callable[[bool], bool] | None:
    """numpy's switch for its huge-page advice (documented under "Global state"), or None."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage  # numpy >= 2
    except ImportError:
        try:
            from numpy.core.multiarray import _set_madvise_hugepage  # numpy 1.26
        except ImportError:
            return None
    return _set_madvise_hugepage


@_memory_policy
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
) -> BuildReport:
    root = root.resolve()
    out = (out or root / "site").resolve()
    now = now or datetime.now(timezone.utc)
    identities = identities or []
    report = BuildReport(root=root, out=out, now=now, authorised=bool(identities), as_of=as_of, registry=None)
    timer = _Timer(report, progress)
    if as_of is not None and not identities:
        raise ConfigError("a rehearsal (--as-of) is an authorised build only", where="--as-of", reason="rehearsal-unauthorised",
                          hint="pass the embargo identity with --identity or SEALBOARD_IDENTITY")

    # Config and trust: the benchmark configs and the whole registry chain. A site config
    # that could read outside the site (hooks, snippets, unlisted plugins, links) stops the
    # build before any bundle is read, let alone unsealed (security invariant 6).
    with timer.stage("config", "Loading leaderboard configs and the key registry"):
        configs = load_configs(root)
        refuse_unsafe_site(root, [c.id for c in configs])
        report.registry = registry = load_registry(root, now)
        report.synthetic = (root / "keys" / "demo").is_dir()
        # Release statements, judged at the build's clock (a rehearsal's: as_of), and the
        # embargo identities published in the repository by full releases.
        report.releases = release_states(root, configs, registry, as_of or now)
        published, problems = published_identities(root, configs, report.releases)
        report.rejections += [Rejection(p.where or "keys/released", p.reason, str(p), p.hint) for p in problems]
    recipients = {r for ident in identities for r in ident.recipients}
    if identities and not any(c.embargo_recipient in recipients for c in configs):
        raise ConfigError(
            "the identity given matches no benchmark's embargo_recipient",
            where="--identity / SEALBOARD_IDENTITY",
            hint="pass the identity of this instance's embargo key",
        )

    # 1. Ingest: read every bundle's bytes (with caps, no links). A withdrawn submission's
    # folder (a maintainers' tombstone beside it) stays out, whatever bytes it holds.
    with timer.stage("ingest", "Reading bundles"):
        raws: dict[str, list[RawBundle]] = {c.id: [] for c in configs}
        tombstones, tombstone_errors = read_tombstones(root)
        for exc in tombstone_errors:
            report.rejections.append(Rejection(exc.where or "bundles", exc.reason, str(exc), exc.hint))
        for found in discover(root, set(raws)):
            if isinstance(found, Rejection):
                report.rejections.append(found)
            elif found.where in tombstones:
                report.rejections.append(reject(withdrawn_error(tombstones[found.where]), found))
            else:
                raws[found.benchmark].append(found)

    # 2. Verify: signatures against the registry, then every byte against its manifest.
    with timer.stage("verify", "Verifying signatures and digests"):
        verified: dict[str, list[VerifiedBundle]] = {}
        admissions = Admissions(root)  # an expired key is judged when its bundle was admitted
        raw_of = {raw.where: raw for bundles in raws.values() for raw in bundles}
        datasets = verify_datasets(raws, registry, now, report.rejections)
        for config in configs:
            verified[config.id] = []
            submitted = [raw for raw in raws[config.id] if raw.owner != DATASET_DIR]
            for raw, outcome in zip(submitted, verify_all(submitted, registry, now=now, benchmark_version=config.version, admissions=admissions)):
                if isinstance(outcome, BuilderError):
                    report.rejections.append(reject(outcome, raw))
                else:
                    verified[config.id].append(outcome)
            # The submission budget, decided by the same function as `validate`: verified
            # bundles and withdrawn ones (their tombstones) count; the over-budget are refused.
            spent = [BudgetEntry(t.where, t.lab, t.created, spent=True) for t in tombstones.values() if t.benchmark == config.id and t.created]
            entries = [BudgetEntry(b.where, b.manifest.lab, b.manifest.created) for b in verified[config.id]]
            refused = over_budget(spent + entries, config.budget)
            if refused:
                for b in verified[config.id]:
                    if b.where in refused:
                        report.rejections.append(Rejection(b.where, "over-budget", str(refused[b.where]), refused[b.where].hint, config.id, b.manifest.lab))
                verified[config.id] = [b for b in verified[config.id] if b.where not in refused]
        # One ranked row per run, one lab per model name (builder.bundles.duplicates; the
        # same rule as `sealboard validate`).
        candidates = [Candidate(b.where, b.manifest, admissions.time(raw_of[b.where])) for bs in verified.values() for b in bs]
        refused = find_duplicates(candidates)
        admitted_first = admission_order(candidates)
        for config in configs:
            for b in verified[config.id]:
                if b.where in refused:
                    report.rejections.append(reject(refused[b.where], raw_of[b.where]))
            verified[config.id] = [b for b in verified[config.id] if b.where not in refused]
        # Labs' copies of the items: granted by the registry's threshold, sealed to their SSH keys only.
        report.item_access, access_problems = review_access(root, registry, {c.id: c.version for c in configs})
        report.rejections.extend(access_problems)
        progress(f"  {sum(map(len, verified.values()))} bundle(s) verified, {len(report.rejections)} rejected")

    # 3. Unseal: only with the identity, only for the benchmarks it opens; all in memory.
    with timer.stage("unseal", "Unsealing results" if identities else "No identity: building the public (sealed) site"):
        for config in configs:
            state = unseal_state(config, verified[config.id], datasets.get(config.id), identities + published, report.rejections, report.releases[config.id])
            # A re-sealed clone is only visible in the plaintext (builder.bundles.duplicates).
            report.benchmarks.append(reject_clones(state, admitted_first, report.rejections))
        if identities:
            # Decrypted and parsed: the sealed results (as large as their plaintext) are not
            # read again, so they need not stay in memory beside the frames (bench_build.py).
            for bundle in [*(b for bs in raws.values() for b in bs), *(b for bs in verified.values() for b in bs)]:
                bundle.files.pop(RESULTS, None)

    # Lab text that holds embargoed item text rejects its bundle here, while the site can
    # still be built without it (the output scan at publish fails the build instead).
    with timer.stage("screen", "Scanning lab-supplied text for embargoed item text"):
        needles = needles_for(report)
        screen_lab_text(report, needles)
        screen_transcripts(report, needles)
    _check_strict(report, strict)

    # 4. Score: pure functions over the frames, one isolation boundary per submission.
    with timer.stage("score", "Scoring boards"):
        report.benchmarks = score_states(report.benchmarks, report.rejections)
    _check_strict(report, strict)

    if not render:
        return report

    # 5–6. Render pages and data, build with mkdocs, leak-scan, then move into place.
    from builder.render.site import render_site

    with timer.stage("render", "Rendering pages and data"):
        staged = isolate_render(report, render_site, lambda states: score_states(states, report.rejections))
    _check_strict(report, strict)
    # The generator runs theme templates a reviewed change may alter: it gets a fresh child
    # process with an allow-listed environment (no identity, no token; render/generator.py).
    # Nothing after this point needs a key, so the build's own references go first.
    del identities, published
    with timer.stage("mkdocs", f"Building the site with {site_generator} ({staged.pages} pages)"):
        built = staged.build(site_generator, progress)
    with timer.stage("publish", "Scanning the output for embargoed text and publishing"):
        publish(report, built, needles)
    return report
