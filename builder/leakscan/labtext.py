"""The lab-text leak scan: disguised and scattered question text (issue 22).

The plain scan (:meth:`builder.leakscan.scan.Needles.scan_text`) finds a window of an
embargoed question in one field as written. A lab holding a valid key can disguise it
(look-alike letters, spaced letters, reversed order, base64, percent-escapes: folded by
:mod:`builder.leakscan.fold`) or scatter it: an excerpt split across ``notes`` and
``judge``, alternate words interleaved across two of its bundles. So each lab's texts, over
all its bundles of a benchmark, are also read together:

- each text alone, and every decoding of it;
- each bundle's texts joined in field order (notes + judge + model name …);
- every ordered pair of the lab's texts joined, and interleaved word by word, across
  fields and bundles.

Every reading is matched with spaces removed against the needles folded the same way
(:class:`LabNeedles`). Cost: lab text is small (a few hundred words a bundle), and the
pairs are capped (``MAX_PAIRED`` distinct texts a lab; beyond it, pairs within a bundle
and between the same field of two bundles).
"""

from __future__ import annotations

import functools
import html
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import daachorse

from builder.leakscan.fold import decoded, fold_pattern, forms, raw_letters, skeleton, words
from builder.leakscan.gunzip import gunzip
from builder.leakscan.normalise import normalise

MAX_PAIRED = 120
_TAG = re.compile(r"<[^<>]{0,200}>")


@dataclass(frozen=True)
class LabNeedles:
    """The needles folded as lab text is (skeleton, no spaces), with their labels."""

    labels: tuple[str, ...] = ()
    _automaton: daachorse.DoubleArrayAhoCorasick | None = field(default=None, repr=False, compare=False)

    def find(self, reading: bytes) -> str | None:
        if self._automaton is None or not reading:
            return None
        for _start, _end, index in self._automaton.find(reading):
            return self.labels[index]
        return None

    def any(self, readings: Iterable[bytes]) -> str | None:
        for reading in readings:
            found = self.find(reading)
            if found is not None:
                return found
        return None


@functools.lru_cache(maxsize=2)
def lab_needles(patterns: tuple[bytes, ...], labels: tuple[str, ...]) -> LabNeedles:
    folded: dict[bytes, str] = {}
    for pattern, label in zip(patterns, labels):
        key = fold_pattern(pattern)
        if key:
            folded.setdefault(key, label)
    if not folded:
        return LabNeedles()
    return LabNeedles(tuple(folded.values()), daachorse.DoubleArrayAhoCorasick(list(folded)))


def texts_of(text: str) -> list[list[str]]:
    """The word lists a piece of lab text may be read as: as written, as a page could show
    it (entities decoded, inline tags gone), and every decoding of either."""
    shown = _TAG.sub(" ", html.unescape(text)) if ("&" in text or "<" in text) else text
    variants = decoded(text) + ([d for d in decoded(shown) if d != text] if shown != text else [])
    return [w for w in (words(v) for v in dict.fromkeys(variants)) if w]


def scan_alone(text: str, needles: LabNeedles) -> str | None:
    """One text (a field, a transcript) in every disguise, alone."""
    return needles.any(r for ws in texts_of(text) for r in forms(ws))


def _interleave(a: Sequence[str], b: Sequence[str]) -> list[str]:
    out: list[str] = []
    for x, y in itertools.zip_longest(a, b):
        out += [w for w in (x, y) if w is not None]
    return out


@dataclass(frozen=True)
class Piece:
    bundle: str  # the submission key
    path: str  # the field
    words: tuple[str, ...]


def scan_together(pieces: Sequence[Piece], needles: LabNeedles) -> tuple[str, tuple[str, ...]] | None:
    """A lab's texts read together: (label, the bundles whose texts spell it) or None."""
    by_bundle: dict[str, list[Piece]] = {}
    for p in pieces:
        by_bundle.setdefault(p.bundle, []).append(p)
    for bundle, own in by_bundle.items():
        joined = [w for p in own for w in p.words]
        found = needles.any(forms(joined))
        if found is not None:
            return found, (bundle,)
    distinct = list({p.words: p for p in pieces}.values())
    if len(distinct) > MAX_PAIRED:
        pairs = [(a, b) for a, b in itertools.permutations(distinct, 2) if a.bundle == b.bundle or a.path == b.path]
    else:
        pairs = list(itertools.permutations(distinct, 2))
    for a, b in pairs:
        found = needles.any([*forms([*a.words, *b.words]), *forms(_interleave(a.words, b.words))])
        if found is not None:
            return found, tuple(dict.fromkeys((a.bundle, b.bundle)))
    return None


_ASCII_SKELETON = bytes.maketrans(b"10", b"lo")  # the skeleton's only ASCII changes (fold.skeleton_table)


def scan_file_folded(data: bytes, name: str, needles: LabNeedles) -> str | None:
    """A repository file read as lab text is, for the checkout scan: what git carries holds
    lab text too (a manifest, a note in a PR). The same readings as :func:`scan_alone`
    (look-alike letters, spacing and invisible characters, reversed words and characters,
    every decoding) on the file's text, except the page view (entities decoded, tags gone:
    a reader of the repository sees the markup; the plain scan decodes entities), in bytes
    operations so that the history of a repository (tens of MB) is read in seconds. A file
    that is not UTF-8 (a sealed file, an image) is left to the plain scan; gzip opened."""
    if needles._automaton is None:
        return None
    if name.endswith(".gz"):
        data = gunzip(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.isascii():
        normalised = normalise(data).translate(_ASCII_SKELETON)
        reversed_chars = normalised[::-1].replace(b" ", b"")
    else:
        normalised = skeleton(normalise(raw_letters(text)).decode("utf-8")).encode("utf-8")
        reversed_chars = normalised.decode("utf-8")[::-1].replace(" ", "").encode("utf-8")
    found = needles.any([normalised.replace(b" ", b""), b"".join(reversed(normalised.split())), reversed_chars])
    if found is not None:
        return found
    return needles.any(r for d in decoded(text)[1:] for r in forms(words(d)))
