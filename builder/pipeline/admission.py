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
from datetime import datetime, timezone
from pathlib import Path

from builder.bundles.ingest import RawBundle
from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.bundles.verify import VerifiedBundle, verify_bundle
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
        self._lock = threading.Lock()  # verify_all asks from several threads

    def _load(self) -> dict[str, datetime]:
        with self._lock:
            return self._times if self._times is not None else self._read()

    def _read(self) -> dict[str, datetime]:
        self._times = {}
        tree = git_output(self.root, "ls-tree", "-r", "-z", "HEAD", "--", "bundles")
        log = git_output(self.root, "log", "--first-parent", "-z", "--format=%x01%ct", "--name-only", "HEAD", "--", "bundles")
        if tree is None or log is None:
            return self._times
        for record in tree.split(b"\0"):
            if record:
                meta, path = record.split(b"\t", 1)
                self._blobs[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
        when: datetime | None = None
        for token in log.split(b"\0"):
            token = token.strip(b"\n")
            if token.startswith(b"\x01"):
                when = datetime.fromtimestamp(int(token[1:]), timezone.utc)
            elif token and when is not None:
                self._times.setdefault(token.decode("utf-8", "surrogateescape"), when)  # newest first
        return self._times

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
