"""Every benchmark's release state, with the reasons a maintainer needs to act on.

States (what ``sealboard release status`` and the build summary show):

- ``released``: a statement whose scope is the whole version is in force;
- ``partly released``: statements with narrower scopes are in force (their union is public);
- ``scheduled``: nothing in force yet, but a fully signed statement waits for its time;
- ``embargoed``: nothing in force and nothing signed is waiting.

Reading statements never raises: a broken statement is a verdict with a reason, and the
rest of the build goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from builder.bundles.dataset import parse_dataset_manifest
from builder.bundles.ingest import DATASET_DIR
from builder.bundles.manifest import MANIFEST
from builder.config import BenchmarkConfig
from builder.errors import BuilderError
from builder.release.registry_history import RegistryHistory, registry_history
from builder.release.statement import Scope, read_statements
from builder.release.verify import EFFECTIVE, SCHEDULED, DatasetFacts, Verdict, dataset_digest, judge
from builder.trust.registry import Registry, read_chain
from builder.trust.registry_format import RegistryVersion

RELEASED = "released"
PARTLY = "partly released"
SCHEDULED_STATE = "scheduled"
EMBARGOED = "embargoed"
_MAX_MANIFEST = 64 << 20


@dataclass(frozen=True)
class ReleaseState:
    benchmark: str
    version: str
    state: str
    verdicts: tuple[Verdict, ...]
    clock: datetime
    blocked: str | None = None  # set by the build when released items fail their commitments

    @property
    def effective(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.state == EFFECTIVE)

    @property
    def scopes(self) -> tuple[Scope, ...]:
        return tuple(v.statement.scope for v in self.effective if v.statement)

    @property
    def full(self) -> bool:
        return self.state == RELEASED

    def publishes(self, what: str) -> bool:
        """Whether any statement in force publishes `what` (items, results, transcripts)."""
        return any(getattr(v.statement.publish, what) for v in self.effective if v.statement)

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(v.message for v in self.verdicts)

    def summary(self) -> str:
        if self.blocked:
            return f"embargoed: release blocked: {self.blocked}"
        if self.state == RELEASED:
            return "released"
        if self.state == PARTLY:
            return "partly released: " + "; ".join(s.describe() for s in self.scopes)
        pending = [v for v in self.verdicts if v.state == SCHEDULED]
        if pending:
            soonest = min(pending, key=lambda v: v.statement.not_before if v.statement else self.clock)
            return f"scheduled: {soonest.message.split(': ', 1)[-1]}"
        if not self.verdicts:
            return "embargoed: no release statement"
        return "embargoed: " + "; ".join(v.message.split(": ", 1)[-1] for v in self.verdicts)

    def to_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "summary": self.summary(),
            "blocked": self.blocked,
            "statements": [
                {
                    "path": v.path,
                    "state": v.state,
                    "reason": v.reason,
                    "message": v.message,
                    "signers": list(v.signers),
                    "needed": v.needed,
                    "not_before": v.statement.not_before.strftime("%Y-%m-%dT%H:%M:%SZ") if v.statement else None,
                    "scope": v.statement.scope.describe() if v.statement else None,
                }
                for v in self.verdicts
            ],
        }


def dataset_facts(root: Path, benchmark: str, version: str) -> DatasetFacts | None:
    path = root / "bundles" / benchmark / DATASET_DIR / version / MANIFEST
    if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_MANIFEST:
        return None
    data = path.read_bytes()
    try:
        splits = frozenset(parse_dataset_manifest(data, str(path.relative_to(root))).splits)
    except BuilderError:
        splits = frozenset()
    return DatasetFacts(version, dataset_digest(data), splits)


def registry_docs(root: Path) -> dict[int, RegistryVersion]:
    """The registry chain by version (its trust is established by load_registry)."""
    return {doc.version: doc for doc, _data, _signers in read_chain(root)}


def release_state(
    root: Path, config: BenchmarkConfig, registry: Registry, history: RegistryHistory, clock: datetime
) -> ReleaseState:
    facts = dataset_facts(root, config.id, config.version)
    verdicts = tuple(
        judge(f, benchmark=config.id, version=config.version, dataset=facts, history=history, revoked=registry.revoked, clock=clock)
        for f in read_statements(root, config.id)
    )
    effective = [v for v in verdicts if v.state == EFFECTIVE]
    if any(v.statement and v.statement.scope.whole for v in effective):
        state = RELEASED
    elif effective:
        state = PARTLY
    elif any(v.state == SCHEDULED for v in verdicts):
        state = SCHEDULED_STATE
    else:
        state = EMBARGOED
    return ReleaseState(config.id, config.version, state, verdicts, clock)


def release_states(root: Path, configs: list[BenchmarkConfig], registry: Registry, clock: datetime) -> dict[str, ReleaseState]:
    history = registry_history(root, registry.version)
    return {c.id: release_state(root, c, registry, history, clock) for c in configs}
