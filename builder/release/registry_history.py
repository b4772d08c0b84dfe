"""Which registry version was in force at a given time: the maintainers a release counts.

A statement takes effect when a threshold of the maintainers of the registry version *in
force at its not_before* signed it. A registry file carries no date of its own that says
when it took over (``expires`` is an end, revocations date revocations), and a maintainer
could write any date into a file anyway. The date nobody but the repository controls is
the commit that admitted the version, as for bundles (builder.pipeline.admission):

    admitted(vN) = committer time of the newest first-parent commit that changed
                   keys/registry/vNNNN.yaml or vNNNN.yaml.sig,

provided both files on disk are exactly that commit's blobs (signatures added later move
the date later: the version is in force once its signed bytes are on the branch).

    in force at T = the newest trusted version admitted at or before T
                    (the oldest version when T precedes them all).

Only when every trusted version's admission is known: in a checkout without the
registry's history (no git, a local edit not committed yet) the latest trusted version
stands in, the same version the rest of the build trusts (the build workflow fetches the
full history). The changelog dates registry versions by the same admission times.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from builder.pipeline.admission import GitAdmissions
from builder.trust.registry import read_chain
from builder.trust.registry_format import REGISTRY_DIR, SIG_SUFFIX, RegistryVersion, version_filename


@dataclass(frozen=True)
class RegistryHistory:
    versions: dict[int, RegistryVersion]  # the trusted versions, 1 .. the one in force now
    admitted: dict[int, datetime | None]  # git admission time of each (None: unknown)

    @property
    def latest(self) -> RegistryVersion:
        return self.versions[max(self.versions)]

    @property
    def dated(self) -> bool:
        """Whether every version's admission time is known (else `at` falls back to latest)."""
        return all(self.admitted.get(n) is not None for n in self.versions)

    def at(self, when: datetime) -> RegistryVersion:
        """The version in force at `when` (see the module doc for the rule and its fallback)."""
        if not self.dated:
            return self.latest
        due = [n for n in self.versions if self.admitted[n] <= when]  # type: ignore[operator]
        return self.versions[max(due) if due else min(self.versions)]

    def removed_from(self, fingerprint: str, doc: RegistryVersion) -> int | None:
        """The first version after `doc`'s predecessors that dropped a maintainer key that an
        earlier version had (None if the key was never a maintainer key before `doc`)."""
        had = [n for n, d in self.versions.items() if n < doc.version and any(m.key.fingerprint == fingerprint for m in d.maintainers)]
        if not had or any(m.key.fingerprint == fingerprint for m in doc.maintainers):
            return None
        return max(had) + 1


def _file(root: Path, name: str) -> bytes | None:
    path = root / REGISTRY_DIR / name
    return path.read_bytes() if path.is_file() and not path.is_symlink() else None


def registry_history(root: Path, in_force: int) -> RegistryHistory:
    """The verified chain up to version `in_force` (load_registry's) with admission times."""
    versions = {doc.version: doc for doc, _data, _signers in read_chain(root) if doc.version <= in_force}
    git = GitAdmissions(root, REGISTRY_DIR)
    admitted = {}
    for n in versions:
        name = version_filename(n)
        admitted[n] = git.time_of({f"{REGISTRY_DIR}/{name}": _file(root, name), f"{REGISTRY_DIR}/{name}{SIG_SUFFIX}": _file(root, name + SIG_SUFFIX)})
    return RegistryHistory(versions, admitted)
