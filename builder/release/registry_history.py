"""Which registry version was in force at a given time: the maintainers a release counts.

A statement takes effect when a threshold of the maintainers of the registry version *in
force when its signatures were completed* signed it: the time git admitted the statement
with a complete tally (``statement_admitted``), never a time the statement claims
(``not_before`` is a time lock the signers choose; back-dating it must not put removed
maintainers back in force). A registry file carries no date of its own that says when it
took over (``expires`` is an end, revocations date revocations), and a maintainer could
write any date into a file anyway. The date nobody but the repository controls is the
commit that brought the version into force, as for bundles (builder.pipeline.admission):

    admitted(vN) = committer time of the oldest first-parent commit on the branch at which
                   keys/registry/vNNNN.yaml had its current bytes and vNNNN.yaml.sig held
                   a complete tally (the registry's own rule, builder.trust.registry.tally)

    in force at T = the newest trusted version admitted at or before T
                    (when T precedes them all: the newest version the first admitting
                    commit brought, the registry as the repository first held it).

A repository whose first commit brings v0001 and v0002 together never held v0001 alone, so
before that commit v0002 stands in, not v0001: otherwise a statement dated before the
repository's first commit (the demo's releases of a day ago, committed now) would be
counted against a version the repository never had in force, and named-version checks
would refuse it.

The oldest complete commit, not the newest change: a signature added to a version later
must not move its date, or re-signing it after the fact would put an older version (and a
maintainer it removed) back in force. Statements are dated the same way: the oldest
first-parent commit at which the statement had its current bytes and its ``.sig`` a
complete tally against the version in force at that commit.

Because signatures are judged when they were completed, removing or rotating a maintainer
later never un-releases a benchmark.

Only when every trusted version's admission is known, and none is dated after the build's
clock: in a checkout without the registry's history (no git, as the demo without its
repository, or a registry file edited and not committed), or with a version committed with
a clock ahead of the build's (``ahead``: its real date is unknown, and dating it late
would keep the maintainers it removed counting), the latest trusted version stands in for
every time, the same version the rest of the build trusts; so it does for a statement
whose admission is unknown (not committed, or no git). The build workflow fetches the full
history. The changelog dates registry versions by the same times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from builder.errors import BuilderError
from builder.gitrepo.gitread import git_output
from builder.trust.registry import read_chain, tally, verify_signatures
from builder.trust.registry_format import REGISTRY_DIR, SIG_SUFFIX, RegistryVersion, version_filename


@dataclass(frozen=True)
class RegistryHistory:
    versions: dict[int, RegistryVersion]  # the trusted versions, 1 .. the one in force now
    admitted: dict[int, datetime | None]  # git admission time of each (None: unknown)
    ahead: tuple[int, ...] = ()  # versions admitted after the build's clock (refused as dates)

    @property
    def latest(self) -> RegistryVersion:
        return self.versions[max(self.versions)]

    @property
    def dated(self) -> bool:
        """Whether every version's admission time is known and none is ahead of the build's
        clock (else `at` falls back to latest)."""
        return not self.ahead and all(self.admitted.get(n) is not None for n in self.versions)

    def at(self, when: datetime) -> RegistryVersion:
        """The version in force at `when` (see the module doc for the rule and its fallback)."""
        if not self.dated:
            return self.latest
        # dated: every version's admission time is known (none is None)
        admitted = {n: t for n, t in self.admitted.items() if t is not None}
        due = [n for n in self.versions if admitted[n] <= when]
        if not due:
            first = min(admitted[n] for n in self.versions)
            due = [n for n in self.versions if admitted[n] == first]
        return self.versions[max(due)]

    def removed_from(self, fingerprint: str, doc: RegistryVersion) -> int | None:
        """The first version after `doc`'s predecessors that dropped a maintainer key that an
        earlier version had (None if the key was never a maintainer key before `doc`)."""
        had = [n for n, d in self.versions.items() if n < doc.version and any(m.key.fingerprint == fingerprint for m in d.maintainers)]
        if not had or any(m.key.fingerprint == fingerprint for m in doc.maintainers):
            return None
        return max(had) + 1


def _admitted(root: Path, doc: RegistryVersion, data: bytes, prev: RegistryVersion | None) -> datetime | None:
    """The oldest first-parent commit at which this version was fully signed (see above)."""
    name = version_filename(doc.version)
    paths = (f"{REGISTRY_DIR}/{name}", f"{REGISTRY_DIR}/{name}{SIG_SUFFIX}")
    log = git_output(root, "log", "--first-parent", "--reverse", "--format=%H %ct", "HEAD", "--", *paths)
    for line in (log or b"").decode().splitlines():
        commit, stamp = line.split()
        if git_output(root, "show", f"{commit}:{paths[0]}") != data:
            continue
        try:
            signers = verify_signatures(data, git_output(root, "show", f"{commit}:{paths[1]}"), doc.path)
        except BuilderError:
            continue  # a broken .sig at that commit: not in force then
        if tally(prev, doc, signers).complete:
            return datetime.fromtimestamp(int(stamp), timezone.utc)
    return None


def registry_history(root: Path, in_force: int, now: datetime | None = None) -> RegistryHistory:
    """The verified chain up to version `in_force` (load_registry's) with admission times;
    versions git admitted after `now` (the build's clock) are listed in `ahead`."""
    chain = [(doc, data) for doc, data, _signers in read_chain(root) if doc.version <= in_force]
    admitted = {doc.version: _admitted(root, doc, data, chain[i - 1][0] if i else None) for i, (doc, data) in enumerate(chain)}
    ahead = tuple(n for n, t in admitted.items() if now is not None and t is not None and t > now)
    return RegistryHistory({doc.version: doc for doc, _ in chain}, admitted, ahead)


def statement_admitted(root: Path | None, path: str, data: bytes, complete: Callable[[bytes | None, datetime], bool]) -> datetime | None:
    """When git admitted a release statement: the committer time of the oldest first-parent
    commit at which `path` held `data` and its .sig a complete tally (`complete(sig, time)`);
    None without git, or when the statement's current bytes were never committed so."""
    if root is None:
        return None
    paths = (path, path + SIG_SUFFIX)
    log = git_output(root, "log", "--first-parent", "--reverse", "--format=%H %ct", "HEAD", "--", *paths)
    for line in (log or b"").decode().splitlines():
        commit, stamp = line.split()
        if git_output(root, "show", f"{commit}:{paths[0]}") != data:
            continue
        when = datetime.fromtimestamp(int(stamp), timezone.utc)
        if complete(git_output(root, "show", f"{commit}:{paths[1]}"), when):
            return when
    return None
