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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from builder.errors import BuilderError, LeakError
from builder.pipeline.records import STAGED, BuildReport

SHINGLE = 8
MIN_SHORT_TOKENS = 4
MIN_REAL_WORDS = 3
_WORD = re.compile(r"\w+")
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
SITE_MARKER = Path("data") / "index.json"


@dataclass(frozen=True)
class Needles:
    """What must not appear: canaries (exact) and question shingles (normalised)."""

    canaries: dict[str, str]  # canary -> label
    anchors: dict[str, list[str]]  # an interior word of a canary (lower-cased) -> canaries
    unanchored: tuple[str, ...]  # canaries with no interior word: searched with `in`
    shingles: dict[tuple[str, ...], str]  # word window -> label
    # One word of each shingle and its offset: a file whose word set misses every anchor
    # cannot hold any shingle, which skips most files without a Python-level loop.
    shingle_anchors: dict[str, list[tuple[int, tuple[str, ...]]]]

    @property
    def empty(self) -> bool:
        return not self.canaries and not self.shingles


def _real_word(word: str) -> bool:
    # Hangul and CJK words carry more per character: two syllables make a real word.
    return len(word) >= (4 if word.isascii() else 2) and not any(ch.isdigit() for ch in word)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def build_needles(entries: Iterable[tuple[str, str, Iterable[str]]]) -> Needles:
    """``entries``: (label, canary, question texts) per embargoed item."""
    canaries: dict[str, str] = {}
    anchors: dict[str, list[str]] = {}
    unanchored: list[str] = []
    shingles: dict[tuple[str, ...], str] = {}
    for label, canary, questions in entries:
        if canary:
            canaries[canary] = label
            # Interior words are bounded by the canary's own separators, so they appear as
            # whole words wherever the canary appears, whatever surrounds it.
            interior = [w for w in _words(canary)[1:-1] if len(w) >= 6]
            if interior:
                anchors.setdefault(max(interior, key=len), []).append(canary)
            else:
                unanchored.append(canary)
        for text in questions:
            words = _words(text)
            if len(words) >= SHINGLE:
                mid = (len(words) - SHINGLE) // 2
                windows = [tuple(words[start : start + SHINGLE]) for start in sorted({0, mid, len(words) - SHINGLE})]
            else:
                windows = [tuple(words)] if len(words) >= MIN_SHORT_TOKENS else []
            for window in windows:
                # A window of numbers and symbols ("x 1 y 2 …") says nothing about the item
                # and would match tables of scores; keep windows with real words.
                if sum(_real_word(w) for w in window) >= MIN_REAL_WORDS:
                    shingles[window] = label
    # Anchor each shingle on its rarest word across all shingles (template words such as
    # "synthetic" or "let" occur on every page and would make every file a candidate).
    frequency: dict[str, int] = {}
    for shingle in shingles:
        for word in set(shingle):
            frequency[word] = frequency.get(word, 0) + 1
    shingle_anchors: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for shingle in shingles:
        # Numbers and short words are everywhere on a leaderboard; prefer real words.
        offset = min(range(len(shingle)), key=lambda i: (not _real_word(shingle[i]), frequency[shingle[i]], -len(shingle[i])))
        shingle_anchors.setdefault(shingle[offset], []).append((offset, shingle))
    return Needles(canaries, anchors, tuple(unanchored), shingles, shingle_anchors)


def _text(path: Path) -> str:
    """The file's text with JSON \\u escapes and HTML entities decoded (gzip opened)."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            pass
    text = data.decode("utf-8", errors="replace")
    if "\\u" in text:
        text = _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    if "&" in text:
        text = html.unescape(text)
    return text


def scan_text(text: str, needles: Needles) -> str | None:
    """Return the label of the first embargoed thing found in text, else None."""
    words = _words(text)
    present = set(words)
    for anchor in present.intersection(needles.anchors):
        for canary in needles.anchors[anchor]:
            if canary in text:
                return f"canary of {needles.canaries[canary]}"
    for canary in needles.unanchored:
        if canary in text:
            return f"canary of {needles.canaries[canary]}"
    hits = present.intersection(needles.shingle_anchors)
    if not hits:
        return None
    # Search the normalised text (words joined by single spaces) with str.find, which runs
    # in C; only the few places an anchor word occurs are compared against its shingles.
    norm = " " + " ".join(words) + " "
    for anchor in hits:
        candidates = [(" " + " ".join(sh[:off]) if off else "", " " + " ".join(sh) + " ", sh) for off, sh in needles.shingle_anchors[anchor]]
        pos = norm.find(f" {anchor} ")
        while pos != -1:
            for lead, full, shingle in candidates:
                if norm.startswith(full, pos - len(lead)):
                    return f"question text of {needles.shingles[shingle]}"
            pos = norm.find(f" {anchor} ", pos + 1)
    return None


def leak_scan(site: Path, needles: Needles) -> tuple[int, int]:
    """Raise LeakError on a hit; return (files, bytes) scanned."""
    files = scanned = 0
    if needles.empty:
        return 0, 0
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        files += 1
        scanned += path.stat().st_size
        found = scan_text(_text(path), needles)
        if found:
            raise LeakError(
                f"{found} found in the output; the output was removed",
                where=str(path.relative_to(site)),
                reason="leak",
                hint="find what put embargoed text on a page (a model name, a note, a template) and rebuild",
            )
    return files, scanned


def without_public(needles: Needles, public_texts: Iterable[str]) -> Needles:
    """Drop shingles that occur in text a partial release made public (templated items
    share word windows; a released item's text is not a leak of an embargoed one).
    Canaries and the other windows keep guarding every item outside the scope."""
    public: set[tuple[str, ...]] = set()
    for text in public_texts:
        words = _words(text)
        public.update(tuple(words[i : i + SHINGLE]) for i in range(max(len(words) - SHINGLE + 1, 0)))
        if MIN_SHORT_TOKENS <= len(words) < SHINGLE:
            public.add(tuple(words))
    if not public.intersection(needles.shingles):
        return needles
    shingles = {sh: label for sh, label in needles.shingles.items() if sh not in public}
    anchors = {a: kept for a, lst in needles.shingle_anchors.items() if (kept := [(o, sh) for o, sh in lst if sh in shingles])}
    return Needles(needles.canaries, needles.anchors, needles.unanchored, shingles, anchors)


def needles_for(report: BuildReport) -> Needles:
    entries = []
    public: list[str] = []
    for state in report.benchmarks:
        if state.status == "released":
            continue
        entries += [(f"{state.config.id} item {item}", canary, qs) for item, canary, qs in state.embargoed_text]
        public += [text for item in state.released_items for text in item["question"].values()]
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


def publish(report: BuildReport, built: Path) -> None:
    try:
        files, size = leak_scan(built, needles_for(report))
        report.timings["leak_scan_files"] = files
        report.timings["leak_scan_bytes"] = size
    except LeakError:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(report.root / STAGED, ignore_errors=True)
        raise
    try:
        _replace_dir(built, report.out)
    finally:
        shutil.rmtree(built, ignore_errors=True)  # a no-op once it has been moved into place
