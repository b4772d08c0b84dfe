"""Earlier dataset versions stay on the site while a release of them is in force.

A benchmark's config names one dataset version; a new version (items changed or added, a
new embargo key) replaces it in ``leaderboards/<benchmark>.yaml``. Nothing un-releases the
earlier version, so its released items, boards and results stay published: under
``<benchmark>@<version>/`` (pages) and ``data/<benchmark>@<version>/`` (data), scored as
that version's own config said. That config is read from git: the file as last committed
naming that version (a checkout without that history shows no earlier version, and says so
in the build's output). Its bundles are the benchmark's bundles that name that version,
admitted by the same policy; the key that opens it is the identity its full release
published (``keys/released/``) or, for the authorised build, the embargo identity.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from builder.bundles.admissions import Admissions
from builder.bundles.dataset import VerifiedDataset
from builder.bundles.ingest import Rejection
from builder.config import EARLIER_SEPARATOR, BenchmarkConfig, parse_config
from builder.errors import BuilderError
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


def config_at(root: Path, config: BenchmarkConfig, version: str) -> tuple[BenchmarkConfig, datetime] | None:
    """The config as last committed (on HEAD's first-parent history) naming ``version``, and
    the time of the commit that replaced it; None if no commit names it."""
    log = git_output(root, "log", "--first-parent", "--format=%H %ct", "HEAD", "--", config.path)
    replaced: datetime | None = None
    for line in (log or b"").decode().splitlines():
        commit, _, stamp = line.partition(" ")
        data = git_output(root, "show", f"{commit}:{config.path}")
        past = None
        if data is not None:  # None: the file was deleted at that commit
            try:
                past = parse_config(data, f"{config.path} at {commit[:12]}", config.id)
            except BuilderError:
                pass  # a past config that no longer parses shows nothing, as a broken current one would
        if past is not None and past.version == version and replaced is not None:
            return past, replaced
        replaced = datetime.fromtimestamp(int(stamp), timezone.utc)
    return None


@dataclass(frozen=True)
class Earlier:
    """One earlier version to show: its config (id still the benchmark's), its release
    state, and when the commit that replaced it was made: it ranks no bundle git admitted
    from then on (a run of a released version, its answers public, proves nothing)."""

    config: BenchmarkConfig
    release: ReleaseState
    replaced: datetime


def earlier_versions(root: Path, configs: list[BenchmarkConfig], datasets: dict[str, dict[str, VerifiedDataset]],
                     registry: Registry, clock: datetime, now: datetime, progress: Progress) -> list[Earlier]:
    """Every verified dataset version other than the config's whose release is in force."""
    found = []
    for config in configs:
        for version in sorted(set(datasets.get(config.id, {})) - {config.version}):
            at = config_at(root, config, version)
            if at is None:
                progress(f"  {config.id} {version}: not shown: no commit replaced a committed config naming this version")
                continue
            past, replaced = at
            release = release_states(root, [past], registry, clock, now=now)[config.id]
            if release.state in STATUS:
                found.append(Earlier(replace(past, superseded_by=config.version), release, replaced))
    return found


def unseal_earlier(root: Path, earlier: Earlier, ingested: Ingested, registry: Registry, datasets: dict[str, dict[str, VerifiedDataset]],
                   identities: list[Identity], admissions: Admissions, now: datetime,
                   rejections: list[Rejection]) -> BenchmarkState | None:
    """The earlier version's state, admitted, unsealed and renamed ``<benchmark>@<version>``;
    None when nothing of it can be opened. Its refusals join ``rejections``, and the current
    version's ``wrong-version`` refusal of each bundle it admits is withdrawn."""
    config = earlier.config
    published, problems = published_identities(root, [config], {config.id: earlier.release})
    rejections += [Rejection(p.where or "keys/released", p.reason, str(p), p.hint, config.id) for p in problems]
    before = [r for r in ingested.raws[config.id] if (t := admissions.time(r)) is not None and t < earlier.replaced]
    admitted = admit([config], replace(ingested, raws={config.id: before}), registry, now=now, admissions=admissions)
    # Judged on a copy: a version no key opens here changes nothing of the build's refusals.
    seen = {(r.where, r.reason) for r in rejections}
    judged = [*rejections, *(r for r in admitted.rejections if r.reason != WRONG_VERSION and (r.where, r.reason) not in seen)]
    bundles = admitted.bundles[config.id]
    state = unseal_state(config, bundles, datasets.get(config.id), identities + published, judged, earlier.release)
    state = reject_clones(state, list(admitted.order), judged)
    if state.status not in STATUS.values():
        return None  # sealed: no key opens it here (a rebuild before its identity was published)
    shown = {b.where for b in state.bundles}
    rejections[:] = [r for r in judged if not (r.reason == WRONG_VERSION and _names_one_of(r, shown))]
    title = f"{config.title} {config.version}"
    return replace(state, config=replace(config, id=f"{config.id}{EARLIER_SEPARATOR}{config.version}", title=title))


def _names_one_of(rejection: Rejection, folders: set[str]) -> bool:
    """Whether a refusal names one of the bundle folders (its where may name a file inside)."""
    return any(rejection.where == f or rejection.where.startswith(f + "/") for f in folders)
