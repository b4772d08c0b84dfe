"""When a bundle was admitted to the repository: the time a lab key's validity is judged at.

A lab's `created` field is the lab's own claim, so a lab whose key has expired could sign a
new bundle and backdate it. The time nobody but the repository controls is the commit that
brought the bundle's current bytes into the branch being built: on GitHub a merged pull
request lands as a merge (or squash/rebase) commit that GitHub writes, with its own
committer time. So a bundle's key is judged at

    admitted = committer time of the newest first-parent commit that changed the bundle's
               manifest.json or manifest.json.sig,

provided the files on disk are exactly that commit's blobs. Otherwise (not committed yet,
edited locally, no git, or git fails) the bundle is judged at the build's clock, as before:
never more lenient. A shallow clone makes every bundle look admitted by its newest commit,
again never more lenient (the build workflow fetches the full history).

Revocation for compromise ignores all of this: a revoked key is refused whatever the time
(builder.trust.registry.Registry.lab_key checks revocations first).
"""

from __future__ import annotations

import hashlib
import subprocess
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from builder.bundles import admission_policy as policy
from builder.bundles.ingest import DATASET_DIR, RawBundle, Rejection, discover
from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.bundles.verify import VerifiedBundle, verify_bundle
from builder.bundles.withdrawn import Tombstone, read_tombstones
from builder.config import BenchmarkConfig
from builder.errors import BuilderError, TrustError
from builder.trust.registry import Registry

# Judged at admission time only for these: the key's window closed (or had not opened) at
# build time. Every other refusal stands as it is.
_WINDOW_REASONS = ("key-expired",)
_SIGNED_FILES = (MANIFEST, SIGNATURE)


def git_output(root: Path, *args: str) -> bytes | None:
    """stdout of a git command in root, or None when git is missing or fails."""
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def blob_id(data: bytes) -> str:
    """git's object id for a blob with these bytes (SHA-1 repositories)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Admissions:
    """Admission times of bundle files, read from git once, on first need."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._times: dict[str, datetime] | None = None
        self._blobs: dict[str, str] = {}
        self._first: dict[str, str] = {}  # signed file -> blob id of its first admitted version
        self._lock = threading.Lock()  # verify_all asks from several threads

    def _load(self) -> dict[str, datetime]:
        with self._lock:
            return self._times if self._times is not None else self._read()

    def _read(self) -> dict[str, datetime]:
        self._times = {}
        tree = git_output(self.root, "ls-tree", "-r", "-z", "HEAD", "--", "bundles")
        log = git_output(self.root, "log", "--first-parent", "-z", "--no-renames", "--no-abbrev", "--raw", "--format=%x01%ct", "HEAD", "--", "bundles")
        if tree is None or log is None:
            return self._times
        for record in tree.split(b"\0"):
            if record:
                meta, path = record.split(b"\t", 1)
                self._blobs[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
        # --raw -z: "\x01<time>", then per changed file ":<modes> <old> <new> <status>", "<path>".
        when: datetime | None = None
        status: list[bytes] = []
        for token in log.split(b"\0"):
            token = token.strip(b"\n")
            if token.startswith(b"\x01"):
                when = datetime.fromtimestamp(int(token[1:]), timezone.utc)
            elif token.startswith(b":"):
                status = token.split()
            elif token and when is not None and status:
                name = token.decode("utf-8", "surrogateescape")
                self._times.setdefault(name, when)  # newest first
                if status[-1] == b"A":
                    self._first[name] = status[3].decode()  # overwritten until the oldest addition
        return self._times

    def rewritten(self, raw: RawBundle) -> bool:
        """Whether the bundle's signed files differ from the first version git admitted of
        them (design invariant 9): edited in a later commit, or edited on disk since."""
        self._load()
        for name in _SIGNED_FILES:
            first = self._first.get(f"{raw.where}/{name}")
            data = raw.files.get(name)
            if first is not None and (data is None or blob_id(data) != first):
                return True
        return False

    def time(self, raw: RawBundle) -> datetime | None:
        """When the bundle's current signed bytes were admitted, or None if they were not."""
        times = self._load()
        found = []
        for name in _SIGNED_FILES:
            path = f"{raw.where}/{name}"
            data = raw.files.get(name)
            if data is None or self._blobs.get(path) != blob_id(data) or path not in times:
                return None
            found.append(times[path])
        return max(found)


def verify_admitted(raw: RawBundle, registry: Registry, *, now: datetime, benchmark_version: str,
                    admissions: Admissions) -> VerifiedBundle:
    """verify_bundle, judging the key's validity window at admission time when it is closed now."""
    try:
        return verify_bundle(raw, registry, now=now, benchmark_version=benchmark_version)
    except TrustError as exc:
        if exc.reason not in _WINDOW_REASONS:
            raise
        admitted = admissions.time(raw)
        if admitted is None or admitted >= now:
            raise
        return verify_bundle(raw, registry, now=now, benchmark_version=benchmark_version, key_time=admitted)


def verify_all(raws: Sequence[RawBundle], registry: Registry, *, now: datetime, benchmark_version: str,
               admissions: Admissions) -> list[VerifiedBundle | BuilderError]:
    """verify_admitted for every bundle, in order; a refusal is returned in its place.

    Nearly all of verification is SHA-256 over the sealed files (as large as the results),
    and hashlib releases the GIL on large buffers: threads hash several bundles at once.
    Each bundle is still verified whole, by the same function, before anything decrypts it.
    """

    from builder.bundles.unseal import workers_available  # not at import: it loads pandas and pyarrow

    def one(raw: RawBundle) -> VerifiedBundle | BuilderError:
        try:
            return verify_admitted(raw, registry, now=now, benchmark_version=benchmark_version, admissions=admissions)
        except BuilderError as exc:
            return exc

    workers = min(workers_available(), len(raws))
    if workers < 2:
        return [one(raw) for raw in raws]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, raws))


def reject(exc: BuilderError, raw: RawBundle) -> Rejection:
    return Rejection(exc.where or raw.where, exc.reason, str(exc), exc.hint, raw.benchmark, raw.owner)


@dataclass(frozen=True)
class Ingested:
    """Stage 1's result: every bundle's bytes per benchmark (datasets included), the
    tombstones, and what was refused on reading (unreadable folders, withdrawn names)."""

    raws: dict[str, list[RawBundle]]
    tombstones: dict[str, Tombstone]
    rejections: tuple[Rejection, ...]


def ingest(root: Path, benchmarks: Sequence[str]) -> Ingested:
    """Read every bundle (with caps, no links). A withdrawn submission's folder (a tombstone
    beside it) stays out whatever bytes it holds: rule 1 of builder.bundles.admission_policy."""
    raws: dict[str, list[RawBundle]] = {b: [] for b in benchmarks}
    tombstones, errors = read_tombstones(root)
    rejections = [Rejection(exc.where or "bundles", exc.reason, str(exc), exc.hint) for exc in errors]
    facts = policy.Facts(tombstones=tombstones)
    for found in discover(root, set(raws)):
        if isinstance(found, Rejection):
            rejections.append(found)
        elif (error := policy.withdrawn(found.where, facts)) is not None:
            rejections.append(reject(error, found))
        else:
            raws[found.benchmark].append(found)
    return Ingested(raws, tombstones, tuple(rejections))


@dataclass(frozen=True)
class Admitted:
    """Stage 2's result for submissions: per benchmark the bundles admitted to the boards,
    the admission order (earliest first, for the clone rule after unsealing), and the
    refusals (signatures, digests, then the admission policy's rules)."""

    bundles: dict[str, list[VerifiedBundle]]
    order: tuple[str, ...]
    rejections: tuple[Rejection, ...]


def admit(configs: Sequence[BenchmarkConfig], ingested: Ingested, registry: Registry, *, now: datetime,
          admissions: Admissions) -> Admitted:
    """Verify every lab submission, then let the admission policy decide, from the git facts
    (admission times, rewritten bundles) and the tombstones, which ones the boards rank."""
    rejections: list[Rejection] = []
    verified: list[tuple[RawBundle, VerifiedBundle]] = []
    for config in configs:
        submitted = [raw for raw in ingested.raws[config.id] if raw.owner != DATASET_DIR]
        for raw, outcome in zip(submitted, verify_all(submitted, registry, now=now, benchmark_version=config.version, admissions=admissions)):
            if isinstance(outcome, BuilderError):
                rejections.append(reject(outcome, raw))
            else:
                verified.append((raw, outcome))
    facts = policy.Facts(
        tombstones=ingested.tombstones,
        budgets={c.id: c.budget for c in configs},
        rewritten=frozenset(raw.where for raw, _ in verified if admissions.rewritten(raw)),
    )
    decisions = policy.decide([policy.Submission(b.where, b.manifest, admissions.time(raw)) for raw, b in verified], facts)
    rejections += [reject(decisions.refused[b.where], raw) for raw, b in verified if b.where in decisions.refused]
    admitted = set(decisions.admitted)
    bundles: dict[str, list[VerifiedBundle]] = {c.id: [] for c in configs}
    for raw, b in verified:
        if b.where in admitted:
            bundles[raw.benchmark].append(b)
    return Admitted(bundles, decisions.order, tuple(rejections))
