"""The checkout scan: no embargoed text or canary anywhere a push could carry it.

The output scan (builder.pipeline.publish) guards what the site shows; this one guards the
repository the site is built from. A lab's PR that adds decrypted items (``items.jsonl`` from
``age -d``, canaries included) would otherwise pass as "maintainer review required" and sit
in public git history for good. The authorised build refuses to publish while any such text
is present, naming where (reason ``plaintext-in-checkout``).

What is scanned: everything git would carry (issue 44) --

- the working tree's files git would carry: ``git ls-files --cached --others
  --exclude-standard`` (tracked, and untracked but not ignored);
- the index: a file staged and then deleted or rewritten on disk is in the next commit;
- the history reachable from HEAD (``git rev-list --objects HEAD``): text committed and
  deleted at the tip is in every clone.

Each distinct blob is read once (``git cat-file --batch``, deduplicated by blob id; a
working-tree file whose bytes are a blob already read is not read again), with the output
scan's normalisation and needles (builder.leakscan.scan) and, for text, the disguises the
lab-text scan folds (look-alike letters, spacing, reversal, base64, percent-escapes:
builder.leakscan.fold). Ignored files are not scanned: the .gitignore Sealboard writes
(builder.scaffold.ignore) names the places plaintext may sit on a maintainer's laptop, and a
fresh CI checkout holds none of them; a ``git add -f`` puts a file in the index, and so in
the scan. Outside git (no repository, or git missing) the whole tree is scanned. Either way
the build's own output and staging (``site/``, ``.sealboard/``, --out) and ``.git/`` are left
out, in the working tree and in history alike: the output has its own scan.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from builder.errors import LeakError
from builder.gitrepo.gitread import git_output
from builder.leakscan.labtext import lab_needles, scan_file_folded
from builder.leakscan.scan import Needles
from builder.report.records import STAGED, BuildReport

_SKIPPED_DIRS = (".git", ".sealboard")
SCREENED_REASON = "embargoed-text"  # builder.leakscan.scan.screen_lab_text's rejection


def _skipper(root: Path, exclude: Iterable[Path]) -> Callable[[Path], bool]:
    """Whether a path (under root) is the build's own output, staging, .git or excluded."""
    # As strings: ``Path.parents`` per file was half the scan's time on the demo (its site
    # output and staging are thousands of files git lists as untracked).
    skipped = [str(p) for p in (*(root / name for name in _SKIPPED_DIRS), *(p.resolve() for p in exclude))]

    def skip(path: Path) -> bool:
        name = str(path)
        return any(name == s or name.startswith(s + os.sep) for s in skipped)

    return skip


def checkout_files(root: Path, exclude: Iterable[Path] = ()) -> Iterator[Path]:
    """Regular files (no symlinks) git would carry from root, or the whole tree outside git."""
    skip = _skipper(root, exclude)
    listed = git_output(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        names = sorted({n.decode("utf-8", "surrogateescape") for n in listed.split(b"\0") if n})
        candidates: Iterable[Path] = (root / name for name in names)
    else:
        candidates = sorted(Path(d) / f for d, dirs, files in os.walk(root) for f in files)
    for path in candidates:
        if not skip(path) and path.is_file() and not path.is_symlink():
            yield path


@dataclass(frozen=True)
class GitBlob:
    oid: str
    path: str  # where it is (or was) in the tree, relative to root
    where: str  # "the index" or "history (reachable from HEAD)"


def _blob_id(data: bytes) -> str:
    """git's id of a blob with these bytes (SHA-1 repositories; another format never matches
    and the blob is then simply read again)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_blobs(root: Path, exclude: Iterable[Path] = ()) -> list[GitBlob]:
    """Every distinct blob of the index and of the history reachable from HEAD (each once,
    first by the index), less those whose path is skipped; [] outside git."""
    skip = _skipper(root, exclude)
    found: dict[str, GitBlob] = {}
    staged = git_output(root, "ls-files", "-z", "--stage")
    for entry in (staged or b"").split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, oid, _stage = meta.decode("ascii", "replace").split()
        path = name.decode("utf-8", "surrogateescape")
        if mode in ("100644", "100755") and not skip(root / path):
            found.setdefault(oid, GitBlob(oid, path, "the index"))
    # HEAD may not exist yet (a repository with no commit): then only the index is carried.
    # Blobs only (the filter), each named by the first path rev-list met it at; commits are
    # listed too, without a path.
    history = git_output(root, "rev-list", "--objects", "--filter=object:type=blob", "HEAD") or b""
    for line in history.split(b"\n"):
        raw_oid, _, name = line.partition(b" ")
        path, blob_id = name.decode("utf-8", "surrogateescape"), raw_oid.decode("ascii", "replace")
        if path and blob_id not in found and not skip(root / path):
            found[blob_id] = GitBlob(blob_id, path, "history (reachable from HEAD)")
    return list(found.values())


def read_blobs(root: Path, blobs: list[GitBlob]) -> Iterator[tuple[GitBlob, bytes]]:
    """Each blob's bytes, by one ``git cat-file --batch`` (a writer thread feeds the ids, so
    neither pipe can fill while the other waits)."""
    if not blobs:
        return
    import threading

    proc = subprocess.Popen(["git", "-C", str(root), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(b"".join(b.oid.encode() + b"\n" for b in blobs))
            proc.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for blob in blobs:
            header = proc.stdout.readline().split()
            if len(header) != 3:  # "<oid> missing": a shallow or partial clone
                continue
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after the contents
            yield blob, data
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
        writer.join()


def scan_checkout(root: Path, needles: Needles, exclude: Iterable[Path] = ()) -> tuple[int, int]:
    """Raise LeakError (plaintext-in-checkout) naming the first file (or blob of the index or
    history) holding embargoed text; return (files and blobs, bytes) scanned."""
    files = scanned = 0
    if needles.empty:
        return 0, 0
    folded = lab_needles(needles.patterns, needles.labels)
    exclude = list(exclude)
    seen: set[str] = set()

    def found(data: bytes, name: str) -> str | None:
        return needles.scan_file(data, name) or scan_file_folded(data, name, folded)

    for path in checkout_files(root, exclude):
        data = path.read_bytes()
        files += 1
        scanned += len(data)
        seen.add(_blob_id(data))
        label = found(data, path.name)
        if label:
            rel = path.relative_to(root)
            raise LeakError(
                f"{label} found in the repository checkout; nothing was published",
                where=str(rel),
                reason="plaintext-in-checkout",
                hint=f"remove {rel} from the repository (git rm --cached {rel}; if it was pushed, its history too, "
                "and rotate the embargo key if it held items) and build again; keep decrypted items outside "
                "the repository or under a path .gitignore lists",
            )
    for blob, data in read_blobs(root, [b for b in git_blobs(root, exclude) if b.oid not in seen]):
        files += 1
        scanned += len(data)
        label = found(data, Path(blob.path).name or "blob")
        if label:
            where = f"{blob.path or '(unnamed blob)'} (blob {blob.oid[:12]} in {blob.where})"
            staged = blob.where == "the index"
            raise LeakError(
                f"{label} found in {'the git index' if staged else 'the git history reachable from HEAD'}; nothing was published",
                where=where,
                reason="plaintext-in-checkout",
                hint=(f"unstage it (git rm --cached {blob.path}) and build again" if staged else
                      f"every clone carries this blob: rewrite the history without {blob.path} (e.g. git filter-repo "
                      "--invert-paths --path <path>), force-push, and rotate the embargo key if it held items; then build again"),
            )
    return files, scanned


def guard_checkout(report: BuildReport, built: Path, needles: Needles) -> None:
    """The build's step before publish: scan the checkout; on a hit remove the new output
    and the staged pages (as the output scan does) and raise."""
    start, cpu = time.perf_counter(), time.process_time()
    try:
        # A manifest whose lab text the screen already refused (embargoed-text) is named on the
        # Rejected page and left out of the site: it must not take the whole site down too.
        screened = [report.root / r.where for r in report.rejections if r.reason == SCREENED_REASON]
        files, size = scan_checkout(report.root, needles, exclude=(report.out, built, *screened))
    except LeakError:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(report.root / STAGED, ignore_errors=True)
        raise
    report.timings["leak_scan_checkout_s"] = time.perf_counter() - start
    report.timings["leak_scan_checkout_cpu_s"] = time.process_time() - cpu
    report.timings["leak_scan_checkout_files"] = files
    report.timings["leak_scan_checkout_bytes"] = size
