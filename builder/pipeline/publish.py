"""Publish: scan every output byte for key material and embargoed text, then the checkout (builder.pipeline.checkout), then move the site into place.

The scan itself (normalisation, every 8-word window, Aho-Corasick) is
:mod:`builder.leakscan.scan`; lab-supplied text was already scanned per bundle before
render, so a hit here is in the site's own output: it removes the output and fails the
build (LeakError), naming the file and the item, never the text.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from builder.attest.write import Written
from builder.bundles.ingest import Rejection
from builder.errors import BuilderError, LeakError
from builder.leakscan.scan import SHINGLE, Needles, build_needles, normalise, scan_tree
from builder.pipeline.attestation import attest
from builder.pipeline.checkout import guard_checkout
from builder.report.records import STAGED, BenchmarkState, BuildReport
from builder.trust.sshkeys import PrivateKey

SITE_MARKER = Path("data") / "index.json"


def leak_scan(site: Path, needles: Needles) -> tuple[int, int]:
    """Raise LeakError on a hit; return (files, bytes) scanned."""
    hit, files, scanned = scan_tree(site, needles)
    if hit is not None and hit.reason != "leak":  # key material: the label names its kind, never the key
        raise LeakError(
            f"{hit.label} found in the output; the output was removed",
            where=hit.path,
            reason=hit.reason,
            hint="find what copied a secret into the site (a theme override, an extra template, a page of site_src), "
            "remove it, rotate that key, and rebuild",
        )
    if hit is not None:
        raise LeakError(
            f"{hit.label} found in the output; the output was removed",
            where=hit.path,
            reason="leak",
            hint="find what put embargoed text on a page (a template, a page of site_src) and rebuild",
        )
    return files, scanned


def without_public(needles: Needles, public_texts: Iterable[str]) -> Needles:
    """Drop windows that occur in text a partial release made public (templated items share
    word windows; a released item's text is not a leak of an embargoed one). Canaries and
    every other window keep guarding each item outside the scope."""
    public: set[bytes] = set()
    for text in public_texts:
        words = normalise(text).split()
        windows = [words[i : i + SHINGLE] for i in range(len(words) - SHINGLE + 1)] if len(words) >= SHINGLE else [words]
        public.update(b" " + b" ".join(w) + b" " for w in windows)
    kept = [(p, label) for p, label in zip(needles.patterns, needles.labels) if p not in public]
    if len(kept) == len(needles.patterns):
        return needles
    return Needles.of(tuple(p for p, _ in kept), tuple(label for _, label in kept))


def needles_for(states: Iterable[BenchmarkState]) -> Needles:
    """The embargoed items' needles, less what a release in force published: a partial
    release's items, and an earlier version's released items that a new version kept
    (builder.pipeline.earlier_versions), whose canary is then public too."""
    entries = []
    public: list[str] = []
    public_canaries: set[str] = set()
    states = list(states)
    for state in states:
        public += [text for item in state.released_items for text in item["question"].values()]
        public_canaries.update(item.get("canary") or "" for item in state.released_items)
    for state in states:
        if state.status == "released":
            continue
        entries += [
            (f"{state.config.id} item {item}", "" if canary in public_canaries else canary, qs) for item, canary, qs in state.embargoed_text
        ]
    return without_public(build_needles(entries), public)


def _replace_dir(new: Path, out: Path) -> None:
    if out.exists():
        if out.is_symlink() or not out.is_dir():
            raise BuilderError("exists and is not a directory", where=str(out), hint="choose another --out")
        if any(out.iterdir()) and not (out / SITE_MARKER).is_file():
            raise BuilderError(
                "is not empty and is not a Sealboard site; refusing to replace it",
                where=str(out),
                hint="choose an empty or new --out directory",
            )
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        out.rename(old)
        new.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        new.rename(out)


@dataclass(frozen=True)
class Published:
    """What the publish stage returns: the attestation it wrote, the rejections of lab files
    in the git history (the site was published without them) and what the scans read."""

    attestation: Written | None
    rejections: list[Rejection]
    timings: dict[str, float]


def publish(
    report: BuildReport,
    built: Path,
    needles: Needles | None = None,
    *,
    generator: str = "mkdocs",
    build_key: PrivateKey | None = None,
    clean: frozenset[tuple[str, str]] = frozenset(),
) -> Published:
    """``clean``: the files the screen stage's bundle-folder scan found clean with these
    ``needles`` (builder.pipeline.checkout.Refused), so the checkout scan does not repeat it."""
    if needles is None:  # clean was judged with the caller's needles, if any: not these
        needles, clean = needles_for(report.benchmarks), frozenset()
    try:
        start, cpu = time.perf_counter(), time.process_time()
        files, size = leak_scan(built, needles)
        timings = {
            "leak_scan_s": time.perf_counter() - start,
            "leak_scan_cpu_s": time.process_time() - cpu,
            "leak_scan_files": files,
            "leak_scan_bytes": size,
        }
        # The attestation covers exactly the scanned bytes; its own files are scanned too
        # (signatures and a public key only, but nothing leaves unscanned).
        attestation = attest(report, built, generator, build_key)
        leak_scan(built / "attestation", needles)
    except LeakError:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(report.root / STAGED, ignore_errors=True)
        raise
    # The output is clean; the repository it came from must be too (builder.pipeline.checkout).
    in_history, checkout_timings = guard_checkout(report.root, report.out, built, needles, clean)
    try:
        _replace_dir(built, report.out)
    finally:
        shutil.rmtree(built, ignore_errors=True)  # a no-op once it has been moved into place
    return Published(attestation, in_history, {**timings, **checkout_timings})
