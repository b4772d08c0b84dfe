"""The checkout scan: no embargoed text or canary anywhere a push could carry it.

The output scan (builder.pipeline.publish) guards what the site shows; this one guards the
repository the site is built from. A lab's PR that adds decrypted items (``items.jsonl`` from
``age -d``, canaries included) would otherwise pass as "maintainer review required" and sit
in public git history for good. The authorised build refuses to publish while any such file
is present, naming its path (reason ``plaintext-in-checkout``).

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

from builder.errors import LeakError
from builder.gitrepo.gitread import git_output
from builder.leakscan.scan import Needles
from builder.report.records import STAGED, BuildReport

_SKIPPED_DIRS = (".git", ".sealboard")
SCREENED_REASON = "embargoed-text"  # builder.leakscan.scan.screen_lab_text's rejection


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
