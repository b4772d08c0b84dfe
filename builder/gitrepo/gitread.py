"""Read a pull request's change straight from git objects, never from a checkout.

Reading blobs by id means a symlink in the PR is seen as what it is (mode 120000) and is
never followed, and a submodule (mode 160000) is seen as a commit, not a directory. No code
from the PR runs: only `git` plumbing commands over the object database.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from builder.errors import BuilderError

MODE_FILE = "100644"
MODE_EXEC = "100755"
MODE_LINK = "120000"
MODE_SUBMODULE = "160000"


class GitError(BuilderError):
    """A git command failed (bad revision, not a repository). Raised by builder.gitrepo.gitread."""

    reason = "git"


@dataclass(frozen=True)
class Entry:
    path: str
    mode: str
    kind: str  # "blob" | "commit" | "tree"
    oid: str
    size: int | None


@dataclass(frozen=True)
class Change:
    status: str  # A, M, D, T
    path: str


def safe_path(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and all(p not in ("", ".", "..") and "\\" not in p for p in parts)


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _git(self, *args: str, input: bytes | None = None) -> bytes:
        try:
            proc = subprocess.run(["git", "-C", str(self.root), *args], input=input, capture_output=True, timeout=120)
        except FileNotFoundError:
            raise GitError("git is not installed", hint="install git") from None
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {message[-1] if message else 'unknown error'}", where=str(self.root))
        return proc.stdout

    def commit(self, rev: str) -> str:
        try:
            return self._git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
        except GitError:
            # rev-parse --quiet says nothing on stderr: name the revision and the way out.
            if self._git_ok("rev-parse", "--git-dir"):
                raise GitError(
                    f"revision {rev!r} is not a commit in this repository",
                    where=str(self.root),
                    reason="unknown-revision",
                    hint="pass the branch the pull request targets, e.g. --base main (or run 'git fetch origin' first)",
                ) from None
            raise GitError(
                "is not a git repository",
                where=str(self.root),
                reason="not-a-repository",
                hint="run validate inside the leaderboard's git repository, or pass --root",
            ) from None

    def check_toplevel(self) -> None:
        """The root must be the top of its own git repository. A leaderboard folder inside some
        other repository (the Quick start's ``demo/`` in a project checkout) is no instance
        repository: git would answer for the outer one and validate would judge its history."""
        try:
            top = self._git("rev-parse", "--show-toplevel").decode().strip()
        except GitError:
            return  # not in any repository: commit() names that case
        folder = self.root.resolve()
        if Path(top).resolve() != folder:
            raise GitError(
                f"is not the root of a git repository: git would judge the enclosing repository {top} instead",
                where=str(folder),
                reason="not-an-instance-repository",
                hint=f"make the leaderboard its own repository (cd {folder} && git init && git add -A && git commit -m 'leaderboard'), "
                "or pass --root <the repository's top folder>",
            )

    def _git_ok(self, *args: str) -> bool:
        try:
            self._git(*args)
        except GitError:
            return False
        return True

    def merge_bases(self, base: str, head: str) -> list[str]:
        """Every best common ancestor (``git merge-base --all``): one for an ordinary branch,
        several for a criss-cross history, which the caller refuses."""
        try:
            return self._git("merge-base", "--all", base, head).decode().split()
        except GitError:
            raise GitError(
                f"{head[:12]} shares no history with {base[:12]}",
                where=str(self.root),
                reason="no-merge-base",
                hint="fetch the target branch with its history (actions/checkout fetch-depth: 0)",
            ) from None

    def merge_tree(self, base: str, head: str) -> tuple[str, bool]:
        """The tree merging head into base would produce (git's own merge, ort, without a
        work tree: ``git merge-tree --write-tree``, git >= 2.38), and whether it conflicts."""
        try:
            proc = subprocess.run(
                ["git", "-C", str(self.root), "merge-tree", "--write-tree", "--no-messages", base, head], capture_output=True, timeout=120
            )
        except FileNotFoundError:
            raise GitError("git is not installed", hint="install git") from None
        if proc.returncode not in (0, 1) or not proc.stdout:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(
                f"git merge-tree failed: {message[-1] if message else 'unknown error'}",
                where=str(self.root),
                reason="merge-tree",
                hint="validate needs git 2.38 or newer (git merge-tree --write-tree)",
            )
        return proc.stdout.split(b"\n", 1)[0].decode().strip(), proc.returncode == 1

    def changes(self, base: str, head: str) -> list[Change]:
        out = self._git("diff", "--name-status", "-z", "--no-renames", base, head).split(b"\0")
        changes = []
        for status, path in zip(out[0::2], out[1::2]):
            if status:
                changes.append(Change(status.decode()[0], path.decode("utf-8", "surrogateescape")))
        return changes

    def tree(self, rev: str, prefix: str = "") -> dict[str, Entry]:
        args = ["ls-tree", "-r", "-z", "-l", "--full-tree", rev]
        if prefix:
            args += ["--", prefix]
        entries = {}
        for record in self._git(*args).split(b"\0"):
            if not record:
                continue
            meta, path = record.split(b"\t", 1)
            mode, kind, oid, size = meta.decode().split()
            name = path.decode("utf-8", "surrogateescape")
            entries[name] = Entry(name, mode, kind, oid, None if size == "-" else int(size))
        return entries

    def blobs(self, oids: list[str]) -> dict[str, bytes]:
        """Read many blobs in one `git cat-file --batch` call."""
        if not oids:
            return {}
        out = self._git("cat-file", "--batch", input=("\n".join(oids) + "\n").encode())
        blobs: dict[str, bytes] = {}
        pos = 0
        for oid in oids:
            header_end = out.index(b"\n", pos)
            parts = out[pos:header_end].split()
            if len(parts) != 3:
                raise GitError(f"object {oid} is missing")
            size = int(parts[2])
            blobs[oid] = out[header_end + 1 : header_end + 1 + size]
            pos = header_end + 1 + size + 1
        return blobs

    def materialise(self, rev: str, prefix: str, target: Path) -> int:
        """Write the regular files under prefix at rev into target (links and submodules skipped)."""
        entries = [e for e in self.tree(rev, prefix).values() if e.kind == "blob" and e.mode in (MODE_FILE, MODE_EXEC)]
        blobs = self.blobs([e.oid for e in entries])
        for entry in entries:
            if not safe_path(entry.path):
                raise GitError(f"unsafe path {ascii(entry.path)} in {rev}", reason="bad-path")
            path = target / entry.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blobs[entry.oid])
        return len(entries)


def git_output(root: Path, *args: str) -> bytes | None:
    """stdout of a git command in root, or None when git is missing or fails."""
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None
