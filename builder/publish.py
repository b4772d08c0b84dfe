"""Publish: scan every output byte for embargoed text, then move the site into place.

The leak scan looks, in every file of the built site (HTML, JSON, CSV, JS, and the
decompressed content of .gz files), for each still-embargoed benchmark's item canaries and
question texts. A hit removes the output and fails the build (LeakError), naming the file
and the item, never the text.

Question text is matched on normalised word shingles (lower-cased ``\\w+`` tokens, so HTML
escaping, JSON ``\\u`` escapes, markup and white space do not hide it): the first, middle and
last 8-word windows of every question. Canaries are matched exactly.
"""

from __future__ import annotations

import gzip
import html
import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from builder.build import BuildReport
from builder.errors import BuilderError, LeakError

SHINGLE = 8
MIN_SHORT_TOKENS = 4
_WORD = re.compile(r"\w+")
_ALNUM = re.compile(r"[A-Za-z0-9]+")
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
SITE_MARKER = Path("data") / "index.json"


@dataclass(frozen=True)
class Needles:
    """What must not appear: canaries (exact) and question shingles (normalised)."""

    canaries: dict[str, str]  # canary -> label
    anchors: dict[str, list[str]]  # an interior alnum run of a canary -> canaries having it
    unanchored: tuple[str, ...]  # canaries with no interior run: searched with `in`
    shingles: dict[tuple[str, ...], str]  # word window -> label
    first_words: frozenset[str]

    @property
    def empty(self) -> bool:
        return not self.canaries and not self.shingles


def build_needles(entries: Iterable[tuple[str, str, Iterable[str]]]) -> Needles:
    """``entries``: (label, canary, question texts) per embargoed item."""
    canaries: dict[str, str] = {}
    anchors: dict[str, list[str]] = {}
    unanchored: list[str] = []
    shingles: dict[tuple[str, ...], str] = {}
    for label, canary, questions in entries:
        if canary:
            canaries[canary] = label
            runs = _ALNUM.findall(canary)
            # Interior runs are bounded by the canary's own separators, so they appear as
            # whole tokens wherever the canary appears, whatever surrounds it.
            interior = [r for r in runs[1:-1] if len(r) >= 6]
            if interior:
                anchors.setdefault(max(interior, key=len), []).append(canary)
            else:
                unanchored.append(canary)
        for text in questions:
            words = [w.lower() for w in _WORD.findall(text)]
            if len(words) >= SHINGLE:
                mid = (len(words) - SHINGLE) // 2
                for start in {0, mid, len(words) - SHINGLE}:
                    shingles[tuple(words[start : start + SHINGLE])] = label
            elif len(words) >= MIN_SHORT_TOKENS:
                shingles[tuple(words)] = label
    return Needles(canaries, anchors, tuple(unanchored), shingles, frozenset(s[0] for s in shingles))


def _texts(path: Path) -> Iterator[str]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            pass
    text = data.decode("utf-8", errors="replace")
    yield text
    if "\\u" in text:
        yield _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    if "&" in text:
        yield html.unescape(text)


def scan_text(text: str, needles: Needles) -> str | None:
    """Return the label of the first embargoed thing found in text, else None."""
    if needles.canaries:
        tokens = set(_ALNUM.findall(text))
        for anchor in tokens.intersection(needles.anchors):
            for canary in needles.anchors[anchor]:
                if canary in text:
                    return f"canary of {needles.canaries[canary]}"
        for canary in needles.unanchored:
            if canary in text:
                return f"canary of {needles.canaries[canary]}"
    if needles.shingles:
        words = [w.lower() for w in _WORD.findall(text)]
        first = needles.first_words
        lengths = {len(s) for s in needles.shingles}
        for i, word in enumerate(words):
            if word in first:
                for n in lengths:
                    hit = needles.shingles.get(tuple(words[i : i + n]))
                    if hit:
                        return f"question text of {hit}"
    return None


def leak_scan(site: Path, needles: Needles) -> tuple[int, int]:
    """Raise LeakError on a hit; return (files, bytes) scanned."""
    files = scanned = 0
    if needles.empty:
        return 0, 0
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        files += 1
        scanned += path.stat().st_size
        for text in _texts(path):
            found = scan_text(text, needles)
            if found:
                raise LeakError(
                    f"{found} found in the output; the output was removed",
                    where=str(path.relative_to(site)),
                    reason="leak",
                    hint="find what put embargoed text on a page (a model name, a note, a template) and rebuild",
                )
    return files, scanned


def needles_for(report: BuildReport) -> Needles:
    entries = []
    for state in report.benchmarks:
        if state.status == "released":
            continue
        entries += [(f"{state.config.id} item {item}", canary, qs) for item, canary, qs in state.embargoed_text]
    return build_needles(entries)


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


def publish(report: BuildReport, built: Path) -> None:
    from builder.render.site import STAGED

    try:
        files, size = leak_scan(built, needles_for(report))
        report.timings["leak_scan_files"] = files
        report.timings["leak_scan_bytes"] = size
    except LeakError:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(report.root / STAGED, ignore_errors=True)
        raise
    _replace_dir(built, report.out)
