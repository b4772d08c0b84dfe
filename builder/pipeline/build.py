"""The build, as one script: ingest → verify → unseal → score → render → publish.

Everything is read and validated before anything is written. A bundle that fails any
check becomes a Rejection (listed on the site's "Rejected submissions" page) and the rest
still build; ``strict=True`` makes any rejection fatal instead (PR validation).
"""

from __future__ import annotations

import functools
import os
import time
from datetime import datetime, timezone
from pathlib import Path

from builder.attest.write import check_build_key
from builder.bundles.access import review as review_access
from builder.bundles.admissions import Admissions
from builder.bundles.ingest import Rejection
from builder.bundles.manifest import RESULTS
from builder.config import load_configs
from builder.errors import BuilderError, ConfigError
from builder.leakscan.labkeys import screen_unsealed_keys
from builder.leakscan.rejections import withhold_key_text
from builder.leakscan.scan import screen_lab_text
from builder.pipeline.admission import admit, ingest, reject
from builder.pipeline.checkout import refuse_leaking_bundles
from builder.pipeline.earlier_versions import earlier_versions, unseal_earlier
from builder.pipeline.isolation import isolate_render
from builder.pipeline.publish import needles_for, publish
from builder.pipeline.regrade_budget import pregrade
from builder.pipeline.source_time import source_time
from builder.pipeline.stages import reject_clones, score_states, unseal_state, verify_datasets
from builder.pipeline.ungraded import refuse_ungraded
from builder.release.identity import published_identities
from builder.release.status import release_states
from builder.release.transcripts import screen_transcripts
from builder.render.confinement import hold_secrets
from builder.render.site_guard import refuse_unsafe_site
from builder.report.records import BenchmarkState, BuildReport, Progress, clear_staged
from builder.trust.registry import load_registry
from builder.trust.seal import Identity, load_identity
from builder.trust.sshkeys import PrivateKey, load_private_key

# Re-exported: callers of build() receive these records.
__all__ = ["BenchmarkState", "BuildReport", "build", "load_build_key", "load_identities", "reject"]


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


def load_build_key(key_file: Path | None, key_env: str | None) -> PrivateKey | None:
    """The build key (signs each deploy's attestation) from --build-key FILE or
    SEALBOARD_BUILD_KEY (the file's text); None: the deploy is not signed."""
    if key_file is not None:
        return load_private_key(key_file, str(key_file))
    if key_env:
        return load_private_key(key_env.encode(), "SEALBOARD_BUILD_KEY")
    return None


def _check_strict(report: BuildReport, strict: bool) -> None:
    """--strict: any rejection from any stage so far fails the build, before anything is written."""
    if strict and report.rejections:
        first = report.rejections[0]
        raise BuilderError(
            f"{len(report.rejections)} bundle(s) rejected; first: {first.message}",
            reason="rejected",
            hint="fix the listed bundles (--strict is on)",
        )


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
    report = BuildReport(root=root, out=out, now=now, authorised=bool(identities), as_of=as_of, registry=None)
    # Judged at `now` (or as_of); stamped with the commit's time (or SOURCE_DATE_EPOCH), so
    # two builds of one commit are byte-identical (builder.pipeline.source_time says why two).
    stamp = source_time(root, clock=now, as_of=as_of)
    report.stamped, report.time_source = stamp.at, stamp.source
    timer = _Timer(report, progress)
    if as_of is not None and not identities:
        raise ConfigError(
            "a rehearsal (--as-of) is an authorised build only",
            where="--as-of",
            reason="rehearsal-unauthorised",
            hint="pass the embargo identity with --identity or SEALBOARD_IDENTITY",
        )

    # Config and trust: the benchmark configs and the whole registry chain. A site config
    # that could read outside the site (hooks, snippets, unlisted plugins, links) stops the
    # build before any bundle is read, let alone unsealed (security invariant 6).
    with timer.stage("config", "Loading leaderboard configs and the key registry"):
        configs = load_configs(root)
        refuse_unsafe_site(root, [c.id for c in configs])
        report.registry = registry = load_registry(root, now)
        check_build_key(registry, build_key, "--build-key / SEALBOARD_BUILD_KEY")
        report.synthetic = (root / "keys" / "demo").is_dir()
        # Release statements, judged at the build's clock (a rehearsal's: as_of), and the
        # embargo identities published in the repository by full releases, or opened from a
        # time-locked statement once its beacon round is signed (the round from the repository,
        # or from `beacon_relay`).
        report.releases = release_states(root, configs, registry, as_of or now, now=now)
        published, problems = published_identities(root, configs, report.releases, beacon_relay)
        report.rejections += [Rejection(p.where or "keys/released", p.reason, str(p), p.hint) for p in problems]
    recipients = {r for ident in identities for r in ident.recipients}
    if identities and not any(c.embargo_recipient in recipients for c in configs):
        raise ConfigError(
            "the identity given matches no benchmark's embargo_recipient",
            where="--identity / SEALBOARD_IDENTITY",
            hint="pass the identity of this instance's embargo key",
        )

    # 1. Ingest: read every bundle's bytes (with caps, no links); withdrawn names stay out.
    with timer.stage("ingest", "Reading bundles"):
        ingested = ingest(root, [c.id for c in configs])
        report.rejections += ingested.rejections

    # 2. Verify: signatures against the registry, then every byte against its manifest; then
    # the admission policy (builder.bundles.admission_policy, the rules `validate` applies):
    # immutability, budget, duplicates. An expired key is judged when git admitted its bundle.
    with timer.stage("verify", "Verifying signatures and digests"):
        admissions = Admissions(root)
        datasets = verify_datasets(ingested.raws, registry, now, report.rejections, root, admissions)
        admitted = admit(configs, ingested, registry, now=now, admissions=admissions)
        report.rejections += admitted.rejections
        # Labs' copies of the items: granted by the registry's threshold, sealed to their SSH keys only.
        report.item_access, access_problems = review_access(root, registry, {c.id: c.version for c in configs})
        report.rejections.extend(access_problems)
        progress(f"  {sum(map(len, admitted.bundles.values()))} bundle(s) verified, {len(report.rejections)} rejected")

    # 3. Unseal: only with the identity, only for the benchmarks it opens; all in memory.
    with timer.stage("unseal", "Unsealing results" if identities else "No identity: building the public (sealed) site"):
        for config in configs:
            state = unseal_state(
                config,
                admitted.bundles[config.id],
                datasets.get(config.id),
                identities + published,
                report.rejections,
                report.releases[config.id],
            )
            # A re-sealed clone is only visible in the plaintext (builder.bundles.duplicates).
            report.benchmarks.append(reject_clones(state, list(admitted.order), report.rejections))
        # An earlier dataset version with a release in force stays on the site, beside its
        # benchmark (builder.pipeline.earlier_versions): nothing un-releases it.
        for earlier in earlier_versions(root, configs, datasets, registry, as_of or now, now, progress, admissions.history):
            shown = unseal_earlier(root, earlier, ingested, registry, datasets, identities + published, admissions, now, report.rejections)
            if shown is not None:
                at = next(i for i, s in enumerate(report.benchmarks) if s.config.id == earlier.config.id)
                report.benchmarks.insert(at + 1, shown)
        if identities:
            # Decrypted and parsed: the sealed results (as large as their plaintext) are not
            # read again, so they need not stay in memory beside the frames (bench_build.py).
            for files in [
                *(b.files for bs in ingested.raws.values() for b in bs),
                *(b.files for bs in admitted.bundles.values() for b in bs),
            ]:
                files.pop(RESULTS, None)

    # Lab text that holds embargoed item text rejects its bundle here, while the site can
    # still be built without it (the output scan at publish fails the build instead); so
    # does any file of a lab's bundle folder that git would carry (the checkout scan of the
    # rest runs at publish). Key-shaped lab text was refused before verify; in answers and
    # transcripts it is refused here; a rejection quoting some (a folder's name) is
    # withheld; in every build.
    with timer.stage("screen", "Scanning lab-supplied text for embargoed item text"):
        needles = needles_for(report)
        screen_lab_text(report, needles)
        screen_transcripts(report, needles)
        refuse_leaking_bundles(report, needles)
        screen_unsealed_keys(report)
        report.rejections = withhold_key_text(report.rejections)
    _check_strict(report, strict)

    # Regrading's equivalence path (math-verify) under a per-bundle time budget, in child
    # processes where its alarm holds: a bundle over the budget is rejected, the rest publish.
    with timer.stage("regrade", "Regrading answers that need math-verify (time budget per bundle)"):
        # A sample left ungraded (correct: null) must be one the regrade decides.
        report.benchmarks = refuse_ungraded(report.benchmarks, report.rejections)
        report.benchmarks, over_budget = pregrade(report.benchmarks)
        report.rejections += over_budget
    _check_strict(report, strict)

    # 4. Score: pure functions over the frames, one isolation boundary per submission.
    with timer.stage("score", "Scoring boards"):
        report.benchmarks = score_states(report.benchmarks, report.rejections)
    _check_strict(report, strict)

    if not render:
        return report

    # 5–6. Render pages and data, build with mkdocs, leak-scan, then move into place.
    from builder.release.pages import release_output
    from builder.render.site import render_site

    try:
        with timer.stage("render", "Rendering pages and data"):
            staged = isolate_render(
                report, functools.partial(render_site, release=release_output), lambda states: score_states(states, report.rejections)
            )
        _check_strict(report, strict)
        # The generator runs theme templates a reviewed change may alter: it gets a fresh child
        # process with an allow-listed environment (no identity, no token), confined by Landlock
        # to the staged tree and the Python installation (render/generator.py, render/confinement.py).
        # Nothing after this point needs an identity, so the build's own references go first.
        # The build key stays in this process for the publish stage's signature: the child is a
        # fresh interpreter (exec) with an allow-listed environment, so it never sees it.
        del identities, published
        # The stage is named for the generator that ran, so the summary says which one it timed.
        with timer.stage(site_generator, f"Building the site with {site_generator} ({staged.pages} pages)"):
            built = staged.build(site_generator, progress)
        with timer.stage("publish", "Scanning the output and the checkout for embargoed text and publishing"):
            publish(report, built, needles, generator=site_generator, build_key=build_key)
    finally:
        if as_of is not None:
            # A rehearsal's staged tree holds what is only scheduled (items, canaries, salts):
            # no decrypted byte outlives the build that needed it, outside its --out.
            clear_staged(report.root)
    return report
