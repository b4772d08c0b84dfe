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

What is scanned: every file git would carry, i.e. ``git ls-files --cached --others
--exclude-standard`` (tracked, and untracked but not ignored), with the same normalisation
and needles as the output scan (builder.leakscan.scan). Ignored files are not scanned:
the .gitignore Sealboard writes (builder.scaffold.ignore) names the places plaintext may sit
on a maintainer's laptop, and a fresh CI checkout holds none of them; a ``git add -f`` puts a
file back in the tracked set, and so in the scan. Outside git (no repository, or git
missing) the whole tree is scanned. Either way the build's own output and staging
(``site/``, ``.sealboard/``, --out) and ``.git/`` are left out: the output has its own scan.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from builder.bundles.ingest import BUNDLES_DIR, DATASET_DIR, Rejection
from builder.errors import LeakError
from builder.gitrepo.gitread import git_output
from builder.leakscan.scan import Needles
from builder.report.records import STAGED, BuildReport, restrict

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


def checkout_files(root: Path, exclude: Iterable[Path] = ()) -> Iterator[Path]:
    """Regular files (no symlinks) git would carry from root, or the whole tree outside git."""
    # As strings: ``Path.parents`` per file was half the scan's time on the demo (its site
    # output and staging are thousands of files git lists as untracked).
    skipped = [str(p) for p in (*(root / name for name in _SKIPPED_DIRS), *(p.resolve() for p in exclude))]

    def kept(path: Path) -> bool:
        name = str(path)
        return not any(name == s or name.startswith(s + os.sep) for s in skipped)

    listed = git_output(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        names = sorted({n.decode("utf-8", "surrogateescape") for n in listed.split(b"\0") if n})
        candidates: Iterable[Path] = (root / name for name in names)
    else:
        candidates = sorted(Path(d) / f for d, dirs, files in os.walk(root) for f in files)
    for path in candidates:
        if kept(path) and path.is_file() and not path.is_symlink():
            yield path


def scan_checkout(root: Path, needles: Needles, exclude: Iterable[Path] = ()) -> tuple[int, int]:
    """Raise LeakError (plaintext-in-checkout) naming the first file holding embargoed text;
    return (files, bytes) scanned."""
    files = scanned = 0
    if needles.empty:
        return 0, 0
    for path in checkout_files(root, exclude):
        if lab_folder(path.relative_to(root).as_posix()) is not None:
            continue  # a lab's bundle: judged per bundle before render (refuse_leaking_bundles)
        data = path.read_bytes()
        files += 1
        scanned += len(data)
        label = needles.scan_file(data, path.name)
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
    return files, scanned


_LEAK_HINT = ("the text is public in the repository already: maintainers remove the bundle (a tombstone and git rm of "
              "its folder; see the maintainers' page, 'Removing a leaking bundle') and, if the embargo requires it, rewrite "
              "history and replace the items; the lab resubmits under a new name without it")


def refuse_leaking_bundles(report: BuildReport, needles: Needles) -> None:
    """Before render: refuse every lab bundle folder a file of which (any file git would
    carry there, listed in its manifest or not) holds embargoed text, and leave it out of
    every board. A folder the lab-text screen already refused is not named twice; a folder
    no board shows (withdrawn, rejected for another reason) is named all the same, so
    maintainers learn what to remove."""
    if needles.empty:
        return
    root = report.root
    start, files, size = time.perf_counter(), 0, 0
    shown = {b.where for s in report.benchmarks for b in s.bundles}
    refused = {lab_folder(r.where + "/") for r in report.rejections if r.reason == SCREENED_REASON} - shown
    hits: dict[str, tuple[str, str]] = {}  # folder -> (its first file holding embargoed text, label)
    for path in checkout_files(root, exclude=(report.out,)):
        rel = path.relative_to(root).as_posix()
        folder = lab_folder(rel)
        if folder is None or folder in hits or folder in refused:
            continue
        data = path.read_bytes()
        files, size = files + 1, size + len(data)
        label = needles.scan_file(data, path.name)
        if label:
            hits[folder] = (rel, label)
    # What the publish stage's checkout scan no longer reads (bench_build.py prints every timing).
    report.timings["leak_scan_bundles_s"] = time.perf_counter() - start
    report.timings["leak_scan_bundles_files"] = files
    report.timings["leak_scan_bundles_bytes"] = size
    for folder, (rel, label) in sorted(hits.items()):
        _, bench, lab, _ = folder.split("/")
        what = "an item's canary" if label.startswith("canary") else "an embargoed item's question text"
        # A path that spells the text itself is not repeated.
        where = rel if needles.scan_text(rel) is None else f"{BUNDLES_DIR}/{bench}/{lab}/(name withheld)"
        report.rejections.append(Rejection(
            where, "embargoed-text", f"{where}: holds {what}; the bundle was left out so that the site could be published",
            _LEAK_HINT, bench, lab))
    if hits:
        report.benchmarks = [restrict(s, {b.manifest.key for b in s.bundles if b.where not in hits})
                             if any(b.where in hits for b in s.bundles) else s for s in report.benchmarks]


def guard_checkout(report: BuildReport, built: Path, needles: Needles) -> None:
    """The build's step before publish: scan the checkout outside labs' bundle folders (judged
    before render by refuse_leaking_bundles); on a hit remove the new output and the staged
    pages (as the output scan does) and raise."""
    start, cpu = time.perf_counter(), time.process_time()
    try:
        files, size = scan_checkout(report.root, needles, exclude=(report.out, built))
    except LeakError:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(report.root / STAGED, ignore_errors=True)
        raise
    report.timings["leak_scan_checkout_s"] = time.perf_counter() - start
    report.timings["leak_scan_checkout_cpu_s"] = time.process_time() - cpu
    report.timings["leak_scan_checkout_files"] = files
    report.timings["leak_scan_checkout_bytes"] = size
