"""The checkout scan: no embargoed text or canary anywhere a push could carry it.

The output scan (builder.pipeline.publish) guards what the site shows; this one guards the
repository the site is built from. A lab's PR that adds decrypted items (``items.jsonl`` from
``age -d``, canaries included) would otherwise pass as "maintainer review required" and sit
in public git history for good.

Who put the text there decides what it stops (issue 44):

- a file inside a lab's bundle folder (``bundles/<benchmark>/<lab>/<submission>/…``, what a
  lab's pull request may add) is that bundle's: :func:`refuse_leaking_bundles`, before
  render, refuses the bundle (``embargoed-text``, naming the file) and the site builds
  without it. Otherwise any lab could stop every deploy with one merged note. Maintainers
  then remove it: a tombstone and ``git rm`` of the folder, which ``validate`` accepts as a
  withdrawal (the maintainers' page, "Removing a leaking bundle");
- any other file is the maintainers' (pages, configs, datasets, tombstones, a stray copy on
  the build machine): the authorised build refuses to publish while it is present, naming
  its path (reason ``plaintext-in-checkout``).

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

from builder.bundles.ingest import BUNDLES_DIR, DATASET_DIR, Rejection
from builder.errors import LeakError
from builder.gitrepo.gitread import git_output
from builder.leakscan.labtext import lab_needles, scan_file_folded
from builder.leakscan.scan import Needles
from builder.report.records import STAGED, BenchmarkState, restrict

_SKIPPED_DIRS = (".git", ".sealboard")
SCREENED_REASON = "embargoed-text"  # builder.leakscan.scan.screen_lab_text's rejection, and ours


def lab_folder(rel: str) -> str | None:
    """``bundles/<benchmark>/<lab>/<submission>`` for a path (``/``-separated, relative to
    the root) inside a lab's bundle folder, else None: the folders a lab's pull request may
    add (builder.validate.pr). A dataset's folder, a tombstone and the rest are the maintainers'."""
    parts = rel.split("/")
    if len(parts) >= 5 and parts[0] == BUNDLES_DIR and parts[2] != DATASET_DIR:
        return "/".join(parts[:4])
    return None


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

    proc = subprocess.Popen(
        ["git", "-C", str(root), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    if proc.stdin is None or proc.stdout is None:
        raise AssertionError()

    def feed() -> None:
        if proc.stdin is None:
            raise AssertionError()
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


def scan_checkout(
    root: Path, needles: Needles, exclude: Iterable[Path] = (), clean: frozenset[tuple[str, str]] = frozenset()
) -> tuple[int, int, list[tuple[str, str]]]:
    """Raise LeakError (plaintext-in-checkout) naming the first file (or blob of the index or
    history) outside labs' bundle folders holding embargoed text; return (files and blobs,
    bytes) scanned and the blobs of labs' bundle folders that hold some ((where, label): a lab's
    text never stops a deploy, so these are named, not fatal).

    ``clean``: (blob id, file name) of files :func:`refuse_leaking_bundles` scanned with these
    needles and found clean. A blob with those bytes and that name is not given the same
    plain scan again (the same function of the same bytes, name and needles: clean again);
    it is still read as lab text (:func:`builder.leakscan.labtext.scan_file_folded`). On the
    demo that is every lab's bundle in HEAD: 402 blobs, 35 MB, 0.25 CPU-s."""
    files = scanned = 0
    in_labs: list[tuple[str, str]] = []
    if needles.empty:
        return 0, 0, in_labs
    folded = lab_needles(needles.patterns, needles.labels)
    exclude = list(exclude)
    seen: set[str] = set()

    def found(data: bytes, name: str, oid: str | None = None) -> str | None:
        plain = None if (oid, name) in clean else needles.scan_file(data, name)
        return plain or scan_file_folded(data, name, folded)

    for path in checkout_files(root, exclude):
        if lab_folder(path.relative_to(root).as_posix()) is not None:
            continue  # a lab's bundle: judged per bundle before render (refuse_leaking_bundles)
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
        label = found(data, Path(blob.path).name or "blob", blob.oid)
        if label and lab_folder(blob.path) is not None:
            # Lab text (e.g. a bundle a lab added and deleted in one merged PR, or one maintainers
            # removed): named, never fatal, or any lab could stop every deploy with two commits.
            in_labs.append((f"{blob.path} (blob {blob.oid[:12]} in {blob.where})", label))
            continue
        if label:
            where = f"{blob.path or '(unnamed blob)'} (blob {blob.oid[:12]} in {blob.where})"
            staged = blob.where == "the index"
            raise LeakError(
                f"{label} found in {'the git index' if staged else 'the git history reachable from HEAD'}; nothing was published",
                where=where,
                reason="plaintext-in-checkout",
                hint=(
                    f"unstage it (git rm --cached {blob.path}) and build again"
                    if staged
                    else f"every clone carries this blob: rewrite the history without {blob.path} (e.g. git filter-repo "
                    "--invert-paths --path <path>), force-push, and rotate the embargo key if it held items; then build again"
                ),
            )
    return files, scanned, in_labs


_LEAK_HINT = (
    "the text is public in the repository already: maintainers remove the bundle (a tombstone and git rm of "
    "its folder; see the maintainers' page, 'Removing a leaking bundle') and, if the embargo requires it, rewrite "
    "history and replace the items; the lab resubmits under a new name without it"
)


@dataclass(frozen=True)
class Refused:
    """What the bundle-folder scan returns: the states without the refused bundles, their
    rejections, what it read (timings: bench_build.py prints them), and the files it found
    clean, as (git blob id, file name): the publish stage's checkout scan reads the same
    files again from git (:func:`scan_checkout`)."""

    states: list[BenchmarkState]
    rejections: list[Rejection]
    timings: dict[str, float]
    clean: frozenset[tuple[str, str]] = frozenset()


def refuse_leaking_bundles(root: Path, out: Path, states: list[BenchmarkState], earlier: list[Rejection], needles: Needles) -> Refused:
    """Before render: refuse every lab bundle folder a file of which (any file git would
    carry there, listed in its manifest or not) holds embargoed text, and leave it out of
    every board. A folder the lab-text screen already refused is not named twice; a folder
    no board shows (withdrawn, rejected for another reason) is named all the same, so
    maintainers learn what to remove."""
    if needles.empty:
        return Refused(states, [], {})
    start, files, size = time.perf_counter(), 0, 0
    shown = {b.where for s in states for b in s.bundles}
    refused = {lab_folder(r.where + "/") for r in earlier if r.reason == SCREENED_REASON} - shown
    hits: dict[str, tuple[str, str]] = {}  # folder -> (its first file holding embargoed text, label)
    clean: set[tuple[str, str]] = set()
    for path in checkout_files(root, exclude=(out,)):
        rel = path.relative_to(root).as_posix()
        folder = lab_folder(rel)
        if folder is None or folder in hits or folder in refused:
            continue
        data = path.read_bytes()
        files, size = files + 1, size + len(data)
        label = needles.scan_file(data, path.name)
        if label:
            hits[folder] = (rel, label)
        else:
            clean.add((_blob_id(data), path.name))
    # What the publish stage's checkout scan no longer reads (bench_build.py prints every timing).
    timings = {"leak_scan_bundles_s": time.perf_counter() - start, "leak_scan_bundles_files": files, "leak_scan_bundles_bytes": size}
    rejections: list[Rejection] = []
    for folder, (rel, label) in sorted(hits.items()):
        _, bench, lab, _ = folder.split("/")
        what = "an item's canary" if label.startswith("canary") else "an embargoed item's question text"
        # A path that spells the text itself is not repeated.
        where = rel if needles.scan_text(rel) is None else f"{BUNDLES_DIR}/{bench}/{lab}/(name withheld)"
        rejections.append(
            Rejection(
                where,
                "embargoed-text",
                f"{where}: holds {what}; the bundle was left out so that the site could be published",
                _LEAK_HINT,
                bench,
                lab,
            )
        )
    kept = [
        restrict(s, {b.manifest.key for b in s.bundles if b.where not in hits}) if any(b.where in hits for b in s.bundles) else s
        for s in states
    ]
    return Refused(kept, rejections, timings, frozenset(clean))


def guard_checkout(
    root: Path, out: Path, built: Path, needles: Needles, clean: frozenset[tuple[str, str]] = frozenset()
) -> tuple[list[Rejection], dict[str, float]]:
    """The build's step before publish: scan the checkout outside labs' bundle folders (judged
    before render by refuse_leaking_bundles); on a hit remove the new output and the staged
    pages (as the output scan does) and raise. Returns the rejections of lab files in the
    git history (the site is published without them) and what the scan read. ``clean``: as
    :func:`scan_checkout` says."""
    start, cpu = time.perf_counter(), time.process_time()
    try:
        files, size, in_labs = scan_checkout(root, needles, exclude=(out, built), clean=clean)
    except LeakError:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(root / STAGED, ignore_errors=True)
        raise
    rejections: list[Rejection] = []
    for where, label in in_labs:
        _, bench, lab = where.split("/", 3)[:3]
        what = "an item's canary" if label.startswith("canary") else "an embargoed item's question text"
        rejections.append(
            Rejection(
                where,
                "embargoed-text",
                f"{where}: a lab's file in the git history holds {what}; the site was published without it",
                "every clone carries this blob: maintainers rewrite the history without it (git filter-repo --invert-paths --path "
                "<path>), force-push, and replace the items if the embargo requires it",
                bench,
                lab,
            )
        )
    return rejections, {
        "leak_scan_checkout_s": time.perf_counter() - start,
        "leak_scan_checkout_cpu_s": time.process_time() - cpu,
        "leak_scan_checkout_files": files,
        "leak_scan_checkout_bytes": size,
    }
