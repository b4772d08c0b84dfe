"""When a bundle was admitted to the repository: the time a lab key's validity is judged at.

A lab's `created` field is the lab's own claim, so a lab whose key has expired could sign a
new bundle and backdate it. What nobody but the maintainers controls is the branch's
first-parent history: the commit that brought the bundle's current bytes into the branch
being built is

    admitting commit = the newest first-parent commit that changed the bundle's
                       manifest.json or manifest.json.sig,

provided the files on disk are exactly that commit's blobs. Its *position* on the chain says
what it came before and after (builder.pipeline.earlier_versions ranks a bundle on a replaced
version only if its admitting commit comes before the replacing one). Its *time* is the
commit's committer date bounded by the chain (builder.gitrepo.first_parent): on GitHub a
merged pull request lands as a merge commit GitHub writes, with its own time; but a pull
request merged by fast-forward lands the lab's own commit, whose committer date the lab set,
so no commit is dated earlier than its first parent, nor (when it is no merge) later than the
next merge. A backdated fast-forwarded commit is thus dated by the newest commit the branch
held when it landed: at the latest, never earlier.

Otherwise (not committed yet, edited locally, no git, or git fails) the bundle is judged at
the build's clock, as before: never more lenient. A shallow clone makes every bundle look
admitted by its newest commit, again never more lenient (the build workflow fetches the full
history).

Revocation for compromise ignores all of this: a revoked key is refused whatever the time
(builder.trust.registry.Registry.lab_key checks revocations first).
"""

from __future__ import annotations

import hashlib
import threading
from datetime import datetime
from pathlib import Path

from builder.bundles.ingest import RawBundle
from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.gitrepo.first_parent import FirstParent
from builder.gitrepo.gitread import git_output

_SIGNED_FILES = (MANIFEST, SIGNATURE)


def blob_id(data: bytes) -> str:
    """git's object id for a blob with these bytes (SHA-1 repositories)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Admissions:
    """Admission times of bundle files, read from git once, on first need."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.history = FirstParent(root)
        self._commits: dict[str, str] | None = None  # signed file -> the commit that last changed it
        self._blobs: dict[str, str] = {}
        self._first: dict[str, str] = {}  # signed file -> blob id of its first admitted version
        self._lock = threading.Lock()  # verify_all asks from several threads

    def _load(self) -> dict[str, str]:
        with self._lock:
            return self._commits if self._commits is not None else self._read()

    def _read(self) -> dict[str, str]:
        self._commits = {}
        tree = git_output(self.root, "ls-tree", "-r", "-z", "HEAD", "--", "bundles")
        log = git_output(
            self.root, "log", "--first-parent", "-z", "--no-renames", "--no-abbrev", "--raw", "--format=%x01%H", "HEAD", "--", "bundles"
        )
        self.history.step("")  # the chain, read under the same lock
        if tree is None or log is None:
            return self._commits
        for record in tree.split(b"\0"):
            if record:
                meta, path = record.split(b"\t", 1)
                self._blobs[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
        # --raw -z: "\x01<commit>", then per changed file ":<modes> <old> <new> <status>", "<path>".
        when: str | None = None
        status: list[bytes] = []
        for token in log.split(b"\0"):
            token = token.strip(b"\n")
            if token.startswith(b"\x01"):
                when = token[1:].decode()
            elif token.startswith(b":"):
                status = token.split()
            elif token and when is not None and status:
                name = token.decode("utf-8", "surrogateescape")
                self._commits.setdefault(name, when)  # newest first
                if status[-1] == b"A":
                    self._first[name] = status[3].decode()  # overwritten until the oldest addition
        return self._commits

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

    def commits(self, raw: RawBundle) -> list[str] | None:
        """The first-parent commits that admitted the bundle's current signed bytes, or None
        if they were not admitted (not committed, or changed on disk since)."""
        commits = self._load()
        found = []
        for name in _SIGNED_FILES:
            path = f"{raw.where}/{name}"
            data = raw.files.get(name)
            if data is None or self._blobs.get(path) != blob_id(data) or path not in commits:
                return None
            found.append(commits[path])
        return found

    def time(self, raw: RawBundle) -> datetime | None:
        """When the bundle's current signed bytes were admitted (bounded by the chain), or None."""
        commits = self.commits(raw)
        times = [t for c in commits or [] if (t := self.history.time(c)) is not None]
        return max(times) if commits and len(times) == len(commits) else None

    def position(self, raw: RawBundle) -> int | None:
        """Where on the first-parent chain the bundle's current signed bytes were admitted, or None."""
        commits = self.commits(raw)
        places = [p for c in commits or [] if (p := self.history.position(c)) is not None]
        return max(places) if commits and len(places) == len(commits) else None
