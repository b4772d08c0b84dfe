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
import threading
from datetime import datetime, timezone
from pathlib import Path

from builder.bundles.ingest import RawBundle
from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.gitrepo.gitread import git_output

_SIGNED_FILES = (MANIFEST, SIGNATURE)


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


