"""Earlier dataset versions stay on the site while a release of them is in force.

A benchmark's config names one dataset version; a new version (items changed or added, a
new embargo key) replaces it in ``leaderboards/<benchmark>.yaml``. Nothing un-releases the
earlier version, so its released items, boards and results stay published: under
``<benchmark>@<version>/`` (pages) and ``data/<benchmark>@<version>/`` (data), scored as
that version's own config said. Both facts come from the history maintainers control,
HEAD's first-parent chain (builder.gitrepo.first_parent), never from a date a commit carries:

- **replaced**: the *first* first-parent commit at which the config no longer names that
  version. Going back to the version and forward again later (two config changes) moves
  nothing: the version was replaced once, there.
- **scored by**: the config in force when it was replaced (the file as it stood just before
  that commit), not the last config naming it: a later commit that names the old version
  again cannot re-score it.

Its bundles are the benchmark's bundles that name that version and whose admitting commit
comes *before* the replacing commit on the chain (order, not dates: a fast-forwarded lab
commit carries the date the lab chose), admitted by the same policy. A checkout without that
history shows no earlier version, and says so in the build's output. The key that opens it
is the identity its full release published (``keys/released/``) or, for the authorised
build, the embargo identity.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from builder.bundles.admissions import Admissions
from builder.bundles.dataset import VerifiedDataset
from builder.bundles.ingest import RawBundle, Rejection
from builder.config import EARLIER_SEPARATOR, BenchmarkConfig, parse_config
from builder.errors import BuilderError
from builder.gitrepo.first_parent import FirstParent
from builder.gitrepo.gitread import git_output
from builder.pipeline.admission import Ingested, admit
from builder.pipeline.stages import reject_clones, unseal_state
from builder.release.apply import STATUS
from builder.release.identity import published_identities
from builder.release.status import ReleaseState, release_states
from builder.report.records import BenchmarkState, Progress
from builder.trust.registry import Registry
from builder.trust.seal import Identity

# A bundle of an earlier version is refused by the current version's admission for naming
# it; once that version is shown, the refusal no longer describes the bundle.
WRONG_VERSION = "wrong-version"


@dataclass(frozen=True)
class Replacement:
    """Where a version was first replaced on HEAD's first-parent chain, and the config then in force."""

    config: BenchmarkConfig  # as it stood just before the replacing commit
    commit: str
    position: int  # on the chain: a bundle ranks on the version only if admitted before it
    time: datetime  # the replacing commit's date, bounded by the chain


def config_at(root: Path, config: BenchmarkConfig, version: str, history: FirstParent) -> Replacement | None:
    """The first first-parent commit of HEAD at which the config stopped naming ``version``
    (deleted, unreadable, or naming another), with the config in force just before it; None
    if no commit names the version, or none replaced it."""
    log = git_output(root, "log", "--first-parent", "--reverse", "--format=%H", "HEAD", "--", config.path)
    in_force: BenchmarkConfig | None = None
    for commit in (log or b"").decode().split():
        data = git_output(root, "show", f"{commit}:{config.path}")
        past = None
        if data is not None:  # None: the file was deleted at that commit
            try:
                past = parse_config(data, f"{config.path} at {commit[:12]}", config.id)
            except BuilderError:
                pass  # a config that does not parse names no version: if it follows one, it replaced it
        if past is not None and past.version == version:
            in_force = past
            continue
        if in_force is not None:
            step = history.step(commit)
            return Replacement(in_force, commit, step.position, step.time) if step is not None else None
    return None


@dataclass(frozen=True)
class Earlier:
    """One earlier version to show: its config (id still the benchmark's), its release
    state, and where it was replaced: it ranks no bundle git admitted from then on (a run of
    a released version, its answers public, proves nothing)."""

    config: BenchmarkConfig
    release: ReleaseState
    replaced: Replacement


def admitted_before(raws: list[RawBundle], admissions: Admissions, replaced: Replacement) -> list[RawBundle]:
    """The bundles whose admitting commit comes before the replacing one on the first-parent
    chain: order, which maintainers control, not a date."""
    return [r for r in raws if (at := admissions.position(r)) is not None and at < replaced.position]


def earlier_versions(
    root: Path,
    configs: list[BenchmarkConfig],
    datasets: dict[str, dict[str, VerifiedDataset]],
    registry: Registry,
    clock: datetime,
    now: datetime,
    progress: Progress,
    history: FirstParent,
) -> list[Earlier]:
    """Every verified dataset version other than the config's whose release is in force."""
    found = []
    for config in configs:
        for version in sorted(set(datasets.get(config.id, {})) - {config.version}):
            replaced = config_at(root, config, version, history)
            if replaced is None:
                progress(f"  {config.id} {version}: not shown: no commit replaced a committed config naming this version")
                continue
            release = release_states(root, [replaced.config], registry, clock, now=now)[config.id]
            if release.state in STATUS:
                found.append(Earlier(replace(replaced.config, superseded_by=config.version), release, replaced))
    return found


def unseal_earlier(
    root: Path,
    earlier: Earlier,
    ingested: Ingested,
    registry: Registry,
    datasets: dict[str, dict[str, VerifiedDataset]],
    identities: list[Identity],
    admissions: Admissions,
    now: datetime,
    prior: list[Rejection],
) -> Shown:
    """The earlier version's state, admitted, unsealed and renamed ``<benchmark>@<version>``
    (None when nothing of it can be opened), its refusals (those `prior` already lists are
    not repeated), and the bundle folders it shows: the current version's ``wrong-version``
    refusal of each is withdrawn (:func:`withdrawn`)."""
    config = earlier.config
    published, problems = published_identities(root, [config], {config.id: earlier.release})
    own = [Rejection(p.where or "keys/released", p.reason, str(p), p.hint, config.id) for p in problems]
    before = admitted_before(ingested.raws[config.id], admissions, earlier.replaced)
    admitted = admit([config], replace(ingested, raws={config.id: before}), registry, now=now, admissions=admissions)
    # Judged apart: a version no key opens here changes nothing of the build's refusals.
    seen = {(r.where, r.reason) for r in [*prior, *own]}
    judged = [r for r in admitted.rejections if r.reason != WRONG_VERSION and (r.where, r.reason) not in seen]
    bundles = admitted.bundles[config.id]
    state = unseal_state(config, bundles, datasets.get(config.id), identities + published, judged, earlier.release)
    state = reject_clones(state, list(admitted.order), judged)
    if state.status not in STATUS.values():
        return Shown(None, own, frozenset())  # sealed: no key opens it here (a rebuild before its identity was published)
    title = f"{config.title} {config.version}"
    renamed = replace(state, config=replace(config, id=f"{config.id}{EARLIER_SEPARATOR}{config.version}", title=title))
    return Shown(renamed, [*own, *judged], frozenset(b.where for b in state.bundles))


@dataclass(frozen=True)
class Shown:
    """An earlier version as the unseal stage shows it (:func:`unseal_earlier`)."""

    state: BenchmarkState | None
    rejections: list[Rejection]
    folders: frozenset[str]  # its bundle folders: the current version's wrong-version refusals of them are withdrawn


def withdrawn(rejection: Rejection, folders: frozenset[str]) -> bool:
    """Whether `rejection` is the current version's wrong-version refusal of a bundle an
    earlier version shows."""
    return rejection.reason == WRONG_VERSION and _names_one_of(rejection, folders)


def _names_one_of(rejection: Rejection, folders: frozenset[str] | set[str]) -> bool:
    """Whether a refusal names one of the bundle folders (its where may name a file inside)."""
    return any(rejection.where == f or rejection.where.startswith(f + "/") for f in folders)
