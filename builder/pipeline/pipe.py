"""The build's stages, each a function from values to values.

Each stage takes what earlier stages returned and returns a new record: the states it
made or changed, and the rejections it made. No stage changes what another returned: the
build script (builder.pipeline.build) puts the outputs together, in order, and the rejections
the site lists are every stage's, concatenated, with those that quote embargoed or
key-shaped text withheld (:func:`screen`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from builder.attest.write import check_build_key
from builder.bundles.access import AccessEntry
from builder.bundles.access import review as review_access
from builder.bundles.admissions import Admissions
from builder.bundles.dataset import VerifiedDataset
from builder.bundles.ingest import Rejection
from builder.bundles.manifest import RESULTS
from builder.config import BenchmarkConfig, load_configs
from builder.errors import BuilderError, ConfigError
from builder.leakscan.labkeys import screen_unsealed_keys
from builder.leakscan.rejections import withhold_key_text
from builder.leakscan.scan import Needles, screen_lab_text, withhold_embargoed_text
from builder.pipeline.admission import Admitted, Ingested, admit
from builder.pipeline.checkout import refuse_leaking_bundles
from builder.pipeline.earlier_versions import earlier_versions, unseal_earlier, withdrawn
from builder.pipeline.regrade_budget import pregrade
from builder.pipeline.stages import reject_clones, score_states, unseal_state, verify_datasets
from builder.pipeline.ungraded import refuse_ungraded
from builder.release.identity import published_identities
from builder.release.status import ReleaseState, release_states
from builder.release.transcripts import screen_transcripts
from builder.render.site_guard import refuse_unsafe_site
from builder.report.records import BenchmarkState, Progress
from builder.trust.registry import Registry, load_registry
from builder.trust.seal import Identity
from builder.trust.sshkeys import PrivateKey


@dataclass(frozen=True)
class Configured:
    """The config stage's output: the benchmarks, the registry chain, the releases judged at
    the build's clock, and the embargo identities releases published."""

    configs: list[BenchmarkConfig]
    registry: Registry
    synthetic: bool
    releases: dict[str, ReleaseState]
    published: list[Identity]
    rejections: list[Rejection]


def configure(root: Path, now: datetime, as_of: datetime | None, build_key: PrivateKey | None, beacon_relay: str | None) -> Configured:
    """The benchmark configs and the whole registry chain. A site config that could read
    outside the site (hooks, snippets, unlisted plugins, links) stops the build before any
    bundle is read, let alone unsealed (security invariant 6). Release statements are judged
    at the build's clock (a rehearsal's: as_of); the embargo identities are those published
    in the repository by full releases, or opened from a time-locked statement once its
    beacon round is signed (the round from the repository, or from `beacon_relay`)."""
    configs = load_configs(root)
    refuse_unsafe_site(root, [c.id for c in configs])
    registry = load_registry(root, now)
    check_build_key(registry, build_key, "--build-key / SEALBOARD_BUILD_KEY")
    releases = release_states(root, configs, registry, as_of or now, now=now)
    published, problems = published_identities(root, configs, releases, beacon_relay)
    rejections = [Rejection(p.where or "keys/released", p.reason, str(p), p.hint) for p in problems]
    return Configured(configs, registry, (root / "keys" / "demo").is_dir(), releases, published, rejections)


def check_identities(identities: list[Identity], configs: list[BenchmarkConfig]) -> None:
    """An identity given must open some benchmark."""
    recipients = {r for ident in identities for r in ident.recipients}
    if identities and not any(c.embargo_recipient in recipients for c in configs):
        raise ConfigError(
            "the identity given matches no benchmark's embargo_recipient",
            where="--identity / SEALBOARD_IDENTITY",
            hint="pass the identity of this instance's embargo key",
        )


@dataclass(frozen=True)
class Verified:
    """The verify stage's output."""

    admissions: Admissions
    datasets: dict[str, dict[str, VerifiedDataset]]
    admitted: Admitted
    item_access: list[AccessEntry]
    rejections: list[Rejection]


def verify(root: Path, configured: Configured, ingested: Ingested, now: datetime) -> Verified:
    """Signatures against the registry, then every byte against its manifest; then the
    admission policy (builder.bundles.admission_policy, the rules `validate` applies):
    immutability, budget, duplicates. An expired key is judged when git admitted its
    bundle. Labs' copies of the items: granted by the registry's threshold, sealed to their
    SSH keys only."""
    configs, registry = configured.configs, configured.registry
    admissions = Admissions(root)
    datasets, refused_datasets = verify_datasets(ingested.raws, registry, now, root, admissions)
    admitted = admit(configs, ingested, registry, now=now, admissions=admissions)
    item_access, access_problems = review_access(root, registry, {c.id: c.version for c in configs})
    rejections = [*refused_datasets, *admitted.rejections, *access_problems]
    return Verified(admissions, datasets, admitted, item_access, rejections)


@dataclass(frozen=True)
class Staged:
    """A stage's output over the benchmarks: the states, the rejections it made, and what it
    measured besides its own time (the leak scans' files and bytes: bench_build.py)."""

    states: list[BenchmarkState]
    rejections: list[Rejection]
    timings: dict[str, float] = field(default_factory=dict)
    # The screen stage's: the bundle-folder files it found clean, as (blob id, name), for the
    # publish stage's checkout scan (builder.pipeline.checkout.Refused).
    clean: frozenset[tuple[str, str]] = frozenset()


def unseal(
    root: Path,
    configured: Configured,
    ingested: Ingested,
    verified: Verified,
    identities: list[Identity],
    prior: list[Rejection],
    now: datetime,
    as_of: datetime | None,
    progress: Progress,
) -> Staged:
    """Only with an identity, only for the benchmarks it opens; all in memory. An earlier
    dataset version with a release in force stays on the site, beside its benchmark
    (builder.pipeline.earlier_versions): nothing un-releases it; it withdraws the current
    version's wrong-version refusal of each bundle it shows, so the rejections returned
    are `prior` less those, then this stage's own."""
    keys = identities + configured.published
    states: list[BenchmarkState] = []
    own: list[Rejection] = []
    for config in configured.configs:
        state = unseal_state(
            config, verified.admitted.bundles[config.id], verified.datasets.get(config.id), keys, own, configured.releases[config.id]
        )
        # A re-sealed clone is only visible in the plaintext (builder.bundles.duplicates).
        states.append(reject_clones(state, list(verified.admitted.order), own))
    kept = list(prior)
    found = earlier_versions(
        root, configured.configs, verified.datasets, configured.registry, as_of or now, now, progress, verified.admissions.history
    )
    for earlier in found:
        args = (root, earlier, ingested, configured.registry, verified.datasets, keys, verified.admissions, now)
        shown = unseal_earlier(*args, [*kept, *own])
        kept = [r for r in kept if not withdrawn(r, shown.folders)]
        own = [*(r for r in own if not withdrawn(r, shown.folders)), *shown.rejections]
        if shown.state is not None:
            at = next(i for i, s in enumerate(states) if s.config.id == earlier.config.id)
            states.insert(at + 1, shown.state)
    if identities:
        # Decrypted and parsed: the sealed results (as large as their plaintext) are not
        # read again, so the states keep the bundles without them (bench_build.py).
        states = [replace(s, bundles=tuple(replace(b, files=_without_results(b.files)) for b in s.bundles)) for s in states]
    return Staged(states, [*kept, *own])


def _without_results(files: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in files.items() if name != RESULTS}


def screen(root: Path, out: Path, states: list[BenchmarkState], prior: list[Rejection], needles: Needles) -> Staged:
    """Lab text that holds embargoed item text rejects its bundle here, while the site can
    still be built without it (the output scan at publish fails the build instead); so does
    any file of a lab's bundle folder that git would carry (the checkout scan of the rest
    runs at publish). Key-shaped lab text was refused before verify; in answers and
    transcripts it is refused here. Returns the states and every rejection so far as the
    site may list them: a message that quotes embargoed item text (a field's value, an item
    id from results) or key-shaped text is replaced by one naming its place only."""
    states, in_lab_text = screen_lab_text(states, needles)
    so_far = withhold_embargoed_text([*prior, *in_lab_text], needles)
    states, in_transcripts = screen_transcripts(states, needles)
    folders = refuse_leaking_bundles(root, out, states, so_far, needles)
    states, in_answers = screen_unsealed_keys(folders.states)
    # The rejections as the site lists them: a message quoting key-shaped text (a folder's name) is withheld.
    rejections = withhold_key_text([*so_far, *in_transcripts, *folders.rejections, *in_answers])
    return Staged(states, rejections, folders.timings, folders.clean)


def regrade(states: list[BenchmarkState]) -> Staged:
    """A sample left ungraded (correct: null) must be one the regrade decides; then the
    regrade's equivalence path (math-verify) under a per-bundle time budget, in child
    processes where its alarm holds: a bundle over the budget is rejected, the rest publish."""
    states, ungraded = refuse_ungraded(states)
    states, over_budget = pregrade(states)
    return Staged(states, [*ungraded, *over_budget])


def score(states: list[BenchmarkState]) -> Staged:
    """Pure functions over the frames, one isolation boundary per submission."""
    return Staged(*score_states(states))


def check_strict(rejections: list[Rejection], strict: bool) -> None:
    """--strict: any rejection from any stage so far fails the build, before anything is written."""
    if strict and rejections:
        first = rejections[0]
        raise BuilderError(
            f"{len(rejections)} bundle(s) rejected; first: {first.message}",
            reason="rejected",
            hint="fix the listed bundles (--strict is on)",
        )
