"""Every benchmark's release state, with the reasons a maintainer needs to act on.

States (what ``sealboard release status`` and the build summary show):

- ``released``: a statement whose scope is the whole version is in force;
- ``partly released``: statements with narrower scopes are in force;
- ``scheduled``: nothing in force yet, but a fully signed statement waits for its time;
- ``embargoed``: nothing in force and nothing signed is waiting.

What is public about an item is what ONE effective statement signed: the statement that
governs it (:meth:`ReleaseState.governing`: the newest in force whose scope covers the
item; of several equally new, the one publishing least). Statements never combine: an
aggregates-only statement over the whole version and another publishing everything about
one split publish that split's items and results, and only aggregates for the rest.

Reading statements never raises: a broken statement is a verdict with a reason, and the
rest of the build goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from builder.bundles.dataset import parse_dataset_manifest
from builder.bundles.ingest import DATASET_DIR
from builder.bundles.manifest import MANIFEST
from builder.config import BenchmarkConfig
from builder.errors import BuilderError
from builder.release.commitment_history import changed_commitment, first_commitments
from builder.release.registry_history import RegistryHistory, registry_history
from builder.release.scope import covers
from builder.release.statement import Publish, Scope, read_statements
from builder.release.verify import EFFECTIVE, SCHEDULED, DatasetFacts, Verdict, dataset_digest, judge
from builder.trust.registry import Registry, read_chain
from builder.trust.registry_format import RegistryVersion

RELEASED = "released"
PARTLY = "partly released"
SCHEDULED_STATE = "scheduled"
EMBARGOED = "embargoed"
_MAX_MANIFEST = 64 << 20
_PUBLISH_FLAGS = ("items", "results", "transcripts")


def _flags(publish: Publish) -> int:
    """How much a statement publishes (the count of its true flags)."""
    return sum(bool(getattr(publish, f)) for f in _PUBLISH_FLAGS)


@dataclass(frozen=True)
class ReleaseState:
    benchmark: str
    version: str
    state: str
    verdicts: tuple[Verdict, ...]
    clock: datetime
    blocked: str | None = None  # set by the build when released items fail their commitments
    # item id -> what its governing statement publishes; set by the build once the items are
    # unsealed (builder.release.apply), empty before.
    per_item: Mapping[str, Publish] = field(default_factory=dict)

    @property
    def effective(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.state == EFFECTIVE)

    @property
    def scopes(self) -> tuple[Scope, ...]:
        return tuple(v.statement.scope for v in self.effective if v.statement)

    @property
    def full(self) -> bool:
        return self.state == RELEASED

    def governing(self, split: str, edition: str | None) -> Verdict | None:
        """The one effective statement whose publish flags hold for an item (None: none covers it).

        The newest in force (latest not_before) covering the item governs it, so maintainers
        widen or narrow a release with a new statement; of several equally new, the one that
        publishes least, then the first by name. Flags are never OR-ed across statements."""
        covering = [(v, st) for v in self.effective if (st := v.statement) and covers(st.scope, split, edition)]
        if not covering:
            return None
        return min(covering, key=lambda vs: (-vs[1].not_before.timestamp(), _flags(vs[1].publish), vs[0].path))[0]

    def item_publish(self, items: Iterable[Mapping[str, object]]) -> dict[str, Publish]:
        """Item id -> the publish flags of its governing statement, for items some statement covers."""
        out = {}
        for it in items:
            edition = it.get("edition")  # covers() compares its text: str() here changes nothing
            v = self.governing(str(it["split"]), None if edition is None else str(edition))
            if v is not None and v.statement is not None:
                out[str(it["id"])] = v.statement.publish
        return out

    def published_ids(self, what: str) -> frozenset[str]:
        """Ids of the items whose governing statement publishes `what` (items, results, transcripts)."""
        return frozenset(i for i, p in self.per_item.items() if getattr(p, what))

    def publishes(self, what: str) -> bool:
        """Whether the governing statement of any item publishes `what`."""
        return bool(self.published_ids(what))

    @property
    def identity_authorised(self) -> bool:
        """Whether the statements in force authorise everything the embargo identity opens:
        every item and gold answer, every opted-in results file and transcript.

        Judged without the items (`release identity-due` holds no secret): the newest
        whole-version statement in force and every statement as new or newer (any of which
        may govern some items) must each publish items, results and transcripts. Older
        statements are superseded for every item by that whole-version one."""
        if self.state != RELEASED or self.blocked:
            return False
        wholes = [v.statement for v in self.effective if v.statement and v.statement.scope.whole]
        if not wholes:
            return False
        since = max(st.not_before for st in wholes)
        return all(
            _flags(v.statement.publish) == len(_PUBLISH_FLAGS) for v in self.effective if v.statement and v.statement.not_before >= since
        )

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(v.message for v in self.verdicts)

    def summary(self, *, published: bool = False) -> str:
        """One line; ``published``: as the site shows it, without countdowns (they depend on
        the build's clock, and the site's bytes on the commit only)."""
        if self.blocked:
            return f"embargoed: release blocked: {self.blocked}"
        if self.state == RELEASED:
            return "released"
        if self.state == PARTLY:
            return "partly released: " + "; ".join(s.describe() for s in self.scopes)
        pending = [v for v in self.verdicts if v.state == SCHEDULED]
        if pending:
            soonest = min(pending, key=lambda v: v.statement.not_before if v.statement else self.clock)
            return f"scheduled: {(soonest.published_message if published else soonest.message).split(': ', 1)[-1]}"
        # Statements of earlier versions stay in the folder (their release is history, not a
        # fault of this version): count them, do not list each as a reason.
        current = [v for v in self.verdicts if v.reason != "other-version"]
        if not current:
            older = len(self.verdicts)
            return "embargoed: no release statement" + (f" for version {self.version} ({older} for other versions)" if older else "")
        return "embargoed: " + "; ".join((v.published_message if published else v.message).split(": ", 1)[-1] for v in current)

    def to_dict(self, *, published: bool = False) -> dict[str, object]:
        """``published``: for the site's data and pages (no countdowns, as in summary)."""
        return {
            "state": self.state,
            "summary": self.summary(published=published),
            "blocked": self.blocked,
            "statements": [
                {
                    "path": v.path,
                    "state": v.state,
                    "reason": v.reason,
                    "message": v.published_message if published else v.message,
                    "signers": list(v.signers),
                    "needed": v.needed,
                    "not_before": v.statement.not_before.strftime("%Y-%m-%dT%H:%M:%SZ") if v.statement else None,
                    "scope": v.statement.scope.describe() if v.statement else None,
                    "timelock": _timelock_dict(v),
                }
                for v in self.verdicts
            ],
        }


def _timelock_dict(v: Verdict) -> dict[str, object] | None:
    tl = v.statement.timelock if v.statement else None
    if tl is None:
        return None
    return {
        "round": tl.round,
        "due": tl.chain.time_of(tl.round).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "chain_hash": tl.chain.hash,
        "ciphertext": tl.ciphertext,
        "ciphertext_sha256": tl.ciphertext_sha256,
        "recipient": tl.recipient,
    }


def dataset_facts(root: Path, benchmark: str, version: str) -> DatasetFacts | None:
    path = root / "bundles" / benchmark / DATASET_DIR / version / MANIFEST
    if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_MANIFEST:
        return None
    data = path.read_bytes()
    where = str(path.relative_to(root))
    try:
        manifest = parse_dataset_manifest(data, where)
    except BuilderError:
        return DatasetFacts(version, dataset_digest(data), frozenset())
    changed = changed_commitment(first_commitments(root, benchmark, version), manifest.commitments, where)
    return DatasetFacts(
        version,
        dataset_digest(data),
        frozenset(manifest.splits),
        changed,
        frozenset(s for s, n in manifest.splits.items() if n),
        None if manifest.editions is None else frozenset(manifest.editions),
    )


def registry_docs(root: Path) -> dict[int, RegistryVersion]:
    """The registry chain by version (its trust is established by load_registry)."""
    return {doc.version: doc for doc, _data, _signers in read_chain(root)}


def release_state(root: Path, config: BenchmarkConfig, registry: Registry, history: RegistryHistory, clock: datetime) -> ReleaseState:
    facts = dataset_facts(root, config.id, config.version)
    verdicts = tuple(
        judge(
            f, benchmark=config.id, version=config.version, dataset=facts, history=history, revoked=registry.revoked, clock=clock, root=root
        )
        for f in read_statements(root, config.id)
    )
    return ReleaseState(config.id, config.version, state_of(verdicts), verdicts, clock)


def state_of(verdicts: Iterable[Verdict]) -> str:
    """The benchmark's release state from its statements' verdicts."""
    verdicts = tuple(verdicts)
    effective = [v for v in verdicts if v.state == EFFECTIVE]
    if any(v.statement and v.statement.scope.whole for v in effective):
        return RELEASED
    if effective:
        return PARTLY
    if any(v.state == SCHEDULED for v in verdicts):
        return SCHEDULED_STATE
    return EMBARGOED


def release_states(
    root: Path, configs: list[BenchmarkConfig], registry: Registry, clock: datetime, *, now: datetime | None = None
) -> dict[str, ReleaseState]:
    """Every benchmark's release state at `clock`. A registry version git admitted after
    `now` (the build's real clock; `clock` unless given: a rehearsal's --as-of is earlier)
    is refused as a date (builder.release.registry_history)."""
    history = registry_history(root, registry.version, now or clock)
    return {c.id: release_state(root, c, registry, history, clock) for c in configs}
