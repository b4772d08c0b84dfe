"""The lab-text leak scan: disguised and scattered question text (issue 22).

The plain scan (:meth:`builder.leakscan.scan.Needles.scan_text`) finds a window of an
embargoed question in one field as written. A lab holding a valid key can disguise it
(look-alike letters, spaced letters, reversed order, base64, percent-escapes: folded by
:mod:`builder.leakscan.fold`) or scatter it: an excerpt split across ``notes`` and
``judge``, alternate words interleaved across two of its bundles. So each lab's texts, over
all its bundles of a benchmark, are also read together:

- each text alone, and every decoding of it;
- each bundle's texts joined in field order (notes + judge + model name …), and
  interleaved word by word (round robin over all of them, and over any three of them in any
  order, up to ``MAX_TRIPLED`` distinct texts);
- one field over all the lab's bundles, joined and interleaved word by word;
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
MAX_TRIPLED = 16  # distinct texts of one bundle, holding a needle's word, read three at a time (16 * 15 * 14 orders, 50 ms)
_TAG = re.compile(r"<[^<>]{0,200}>")


@dataclass(frozen=True)
class LabNeedles:
    """The needles folded as lab text is (skeleton, no spaces), with their labels."""

    labels: tuple[str, ...] = ()
    vocabulary: frozenset[str] = frozenset()  # every word of the needles, folded (skeleton)
    _automaton: daachorse.DoubleArrayAhoCorasick | None = field(default=None, repr=False, compare=False)

    def find(self, reading: bytes) -> str | None:
        if self._automaton is None or not reading:
            return None
        for _start, _end, index in self._automaton.find(reading):
            return self.labels[index]
        return None

    def any(self, readings: Iterable[bytes]) -> str | None:
        """The label of the first needle in the first reading that holds one, else None.

        The readings go through the automaton in one pass, a space before each: no needle
        holds a space (they are folded without), so no match spans two readings and the
        automaton is at its root where each begins; the first match is the one a pass over
        that reading alone reports first. (A pass each cost 0.9 CPU-s of calls a demo build:
        760,000 readings of a few dozen bytes.)"""
        return self.find(b" ".join(readings))


@functools.lru_cache(maxsize=2)
def lab_needles(patterns: tuple[bytes, ...], labels: tuple[str, ...]) -> LabNeedles:
    folded: dict[bytes, str] = {}
    vocabulary: set[str] = set()
    for pattern, label in zip(patterns, labels):
        key, skeletal = fold_pattern(pattern)
        if key:
            folded.setdefault(key, label)
            vocabulary.update(skeletal.split())
    if not folded:
        return LabNeedles()
    return LabNeedles(tuple(folded.values()), frozenset(vocabulary), daachorse.DoubleArrayAhoCorasick(list(folded)))


def texts_of(text: str) -> list[list[str]]:
    """The word lists a piece of lab text may be read as: as written, as a page could show
    it (entities decoded, inline tags gone), and every decoding of either."""
    shown = _TAG.sub(" ", html.unescape(text)) if ("&" in text or "<" in text) else text
    variants = decoded(text) + ([d for d in decoded(shown) if d != text] if shown != text else [])
    return [w for w in (words(v) for v in dict.fromkeys(variants)) if w]


def scan_alone(text: str, needles: LabNeedles) -> str | None:
    """One text (a field, a transcript) in every disguise, alone."""
    return scan_read(texts_of(text), needles)


def scan_read(read: list[list[str]], needles: LabNeedles) -> str | None:
    """:func:`scan_alone` of a text whose word lists (:func:`texts_of`) the caller has."""
    return needles.any(r for ws in read for r in forms(ws))


def _interleave(*texts: Sequence[str]) -> list[str]:
    """Word by word, round robin: the first word of each, then the second of each …"""
    return [w for column in itertools.zip_longest(*texts) for w in column if w is not None]


def scan_sequence(texts: Sequence[Sequence[str]], needles: LabNeedles) -> str | None:
    """Several texts read as one: joined in order, and interleaved word by word (an excerpt
    split word by word over three fields, or over a submission's transcripts)."""
    joined = [w for ws in texts for w in ws]
    return needles.any([*forms(joined), *(forms(_interleave(*texts)) if len(texts) > 1 else [])])


@dataclass(frozen=True)
class Piece:
    bundle: str  # the submission key
    path: str  # the field
    words: tuple[str, ...]


def scan_together(pieces: Sequence[Piece], needles: LabNeedles) -> tuple[str, tuple[str, ...]] | None:
    """A lab's texts read together: (label, the bundles whose texts spell it) or None.
    Each bundle's fields first, then one field over all the lab's bundles, then any two
    texts interleaved."""
    return _within_bundles(pieces, needles) or _across_bundles(pieces, needles) or _pairs(pieces, needles)


def _within_bundles(pieces: Sequence[Piece], needles: LabNeedles) -> tuple[str, tuple[str, ...]] | None:
    by_bundle: dict[str, list[Piece]] = {}
    for p in pieces:
        by_bundle.setdefault(p.bundle, []).append(p)
    for bundle, own in by_bundle.items():
        found = scan_sequence([p.words for p in own], needles)
        if found is not None:
            return found, (bundle,)
        # Any three of its fields in any order, word by word (an excerpt dealt over notes,
        # judge and harness, whatever fields lie between them in the manifest).
        # Only texts holding a word of some needle can be a share of one (not a digest, a
        # date, a file name).
        distinct = [p for p in {p.words: p for p in own}.values() if not needles.vocabulary.isdisjoint(p.words)]
        if len(distinct) <= MAX_TRIPLED:
            for trio in itertools.permutations(distinct, 3):
                found = scan_sequence([p.words for p in trio], needles)
                if found is not None:
                    return found, (bundle,)
    return None


def _across_bundles(pieces: Sequence[Piece], needles: LabNeedles) -> tuple[str, tuple[str, ...]] | None:
    by_path: dict[str, list[Piece]] = {}
    for p in pieces:
        by_path.setdefault(p.path, []).append(p)
    for same in by_path.values():  # one field over all the lab's bundles, word by word
        if len({p.bundle for p in same}) > 1:
            found = scan_sequence([p.words for p in same], needles)
            if found is not None:
                return found, tuple(dict.fromkeys(p.bundle for p in same))
    return None


def _pairs(pieces: Sequence[Piece], needles: LabNeedles) -> tuple[str, tuple[str, ...]] | None:
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
