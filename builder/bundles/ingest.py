"""Ingest: find bundles on disk and read them into memory, refusing anything odd.

Layout: ``bundles/<benchmark>/<lab>/<submission>/`` for result bundles and
``bundles/<benchmark>/_dataset/<version>/`` for the maintainers' dataset bundles. Nothing
here trusts content: it only reads bytes with caps, without following links.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from builder.bundles.withdrawn import SUFFIX as TOMBSTONE_SUFFIX
from builder.errors import BundleError

BUNDLES_DIR = "bundles"
DATASET_DIR = "_dataset"
MAX_FILES_PER_BUNDLE = 8
MAX_MANIFEST_BYTES = 1 << 20
MAX_SIGNATURE_BYTES = 16 << 10
MAX_SEALED_BYTES = 1 << 30  # 1 GiB: far above a real results file, far below memory


@dataclass(frozen=True)
class RawBundle:
    """A bundle directory's bytes, unverified. ``where`` is relative to the instance root."""

    benchmark: str
    owner: str  # lab id, or "_dataset"
    name: str  # submission id, or dataset version
    where: str
    files: dict[str, bytes] = field(repr=False)


@dataclass(frozen=True)
class Rejection:
    """A bundle (or file) left out of the build, with the reason shown to its lab."""

    where: str
    reason: str
    message: str
    hint: str | None
    benchmark: str | None = None
    lab: str | None = None

    def __post_init__(self) -> None:
        # Callers pass str(BuilderError), which already ends with its hint; every display
        # (rejected page, --strict, terminal) shows `hint` on its own, so keep it once.
        suffix = f" — hint: {self.hint}"
        if self.hint and self.message.endswith(suffix):
            object.__setattr__(self, "message", self.message[: -len(suffix)])


def _lstat_kind(path: Path, where: str) -> os.stat_result:
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        raise BundleError("is a symbolic link", where=where, reason="symlink", hint="commit the file itself, not a link")
    return st


def _list_dir(path: Path, where: str) -> list[str]:
    names = sorted(os.listdir(path))
    for name in names:
        if name in (".", "..") or "/" in name or "\\" in name or not name.isprintable():
            raise BundleError(f"unsafe name {ascii(name)}", where=where, reason="bad-path")
    return names


def read_bundle(path: Path, where: str, benchmark: str, owner: str) -> RawBundle:
    """Read one bundle directory's regular files, refusing links, subdirectories and excess."""
    names = _list_dir(path, where)
    if len(names) > MAX_FILES_PER_BUNDLE:
        raise BundleError(f"holds {len(names)} files; at most {MAX_FILES_PER_BUNDLE} are allowed", where=where, reason="too-many-files")
    files: dict[str, bytes] = {}
    for name in names:
        child = path / name
        child_where = f"{where}/{name}"
        st = _lstat_kind(child, child_where)
        if not stat.S_ISREG(st.st_mode):
            raise BundleError(
                "is not a regular file", where=child_where, reason="not-a-file", hint="a bundle holds only files, no directories"
            )
        cap = MAX_MANIFEST_BYTES if name.endswith(".json") else MAX_SIGNATURE_BYTES if name.endswith(".sig") else MAX_SEALED_BYTES
        if st.st_size > cap:
            raise BundleError(f"is {st.st_size} bytes; the limit for this file is {cap}", where=child_where, reason="oversize")
        # O_NOFOLLOW closes the window between lstat and open where a link could be swapped in.
        fd = os.open(child, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            # Read the size the open file has (plus one byte, to see growth), not the cap: a
            # read of cap + 1 bytes first allocates a buffer of the cap (1 GiB for a sealed
            # file), which glibc maps and unmaps for every file instead of reusing its heap.
            size = min(os.fstat(fd).st_size, cap)
            data = fh.read(size + 1)
            if len(data) > size:  # it grew while open: read on, up to the cap
                data += fh.read(cap + 1 - len(data))
        if len(data) > cap:
            raise BundleError(f"grew beyond {cap} bytes while being read", where=child_where, reason="oversize")
        files[name] = data
    return RawBundle(benchmark=benchmark, owner=owner, name=path.name, where=where, files=files)


def discover(root: Path, benchmarks: set[str]) -> Iterator[RawBundle | Rejection]:
    """Yield every bundle under ``bundles/`` (or a Rejection for what cannot be read)."""
    top = root / BUNDLES_DIR
    if not top.is_dir():
        return
    for bench_name in _list_dir(top, BUNDLES_DIR):
        bench_path = top / bench_name
        where = f"{BUNDLES_DIR}/{bench_name}"
        problem = _dir_problem(bench_path, where)
        if problem:
            yield problem
            continue
        if bench_name not in benchmarks:
            yield Rejection(
                where,
                "unknown-benchmark",
                f"{where}: no leaderboards/{bench_name}.yaml declares this benchmark",
                "check the directory name",
            )
            continue
        for owner in _list_dir(bench_path, where):
            owner_path, owner_where = bench_path / owner, f"{where}/{owner}"
            problem = _dir_problem(owner_path, owner_where)
            if problem:
                yield problem
                continue
            for name in _list_dir(owner_path, owner_where):
                bundle_path, bundle_where = owner_path / name, f"{owner_where}/{name}"
                if name.endswith(TOMBSTONE_SUFFIX) and not bundle_path.is_symlink() and bundle_path.is_file():
                    continue  # a maintainers' tombstone (builder.bundles.withdrawn), not a bundle
                problem = _dir_problem(bundle_path, bundle_where)
                if problem:
                    yield problem
                    continue
                try:
                    yield read_bundle(bundle_path, bundle_where, bench_name, owner)
                except BundleError as exc:
                    yield Rejection(exc.where or bundle_where, exc.reason, str(exc), exc.hint, bench_name, owner)
                except OSError as exc:
                    yield Rejection(bundle_where, "unreadable", f"{bundle_where}: cannot be read ({exc.strerror})", None, bench_name, owner)


def _dir_problem(path: Path, where: str) -> Rejection | None:
    try:
        st = _lstat_kind(path, where)
    except BundleError as exc:
        return Rejection(where, exc.reason, str(exc), exc.hint)
    if not stat.S_ISDIR(st.st_mode):
        return Rejection(
            where, "not-a-directory", f"{where}: expected a directory here", "bundles live at bundles/<benchmark>/<lab>/<submission>/"
        )
    return None
