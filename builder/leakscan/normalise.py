"""The leak scan's normalisation (steps 2–5 of :mod:`builder.leakscan.scan`), the same
for needles and output: words separated by single spaces, padded.

2. Unicode NFKD, then case folding (not ``lower()``: "ΣΟΣ" and "STRASSE" match);
3. invisible characters deleted: soft hyphen, zero-width space/joiners, word joiner, BOM,
   bidi embeddings/overrides/isolates, variation selectors, tag characters, Hangul fillers
   (all of Unicode category Cf, plus the few invisible ones filed elsewhere), and every
   combining mark (full-width and other compatibility forms fold to plain letters; accents
   go, however they are encoded);
4. every run of non-word characters (punctuation, symbols, white space, in any script)
   becomes one space, so markup, escaping and spacing cannot hide text;
5. NFC, which (marks gone, spacing marks separators) composes only Hangul jamo: Korean is
   compared as syllables, however written (syllables, conjoining or compatibility jamo).
   Step 2 split every syllable into two or three jamo; step 5 puts them back, so the hits
   are exactly those of steps 1–4, and the scan keeps Korean as the syllables it is
   (three bytes each, not nine).

Speed (``bench/bench_leakscan.py`` prints MB/s per CPU): whole files through C-level
primitives. ASCII: ``bytes.translate`` and numpy. The Unicode steps as a table of the
characters they change (Hangul syllables and most letters are not in it), built from this
Python's Unicode data on the first fold (0.15 s of CPU; importing costs nothing), applied
in mostly-ASCII text to its non-ASCII runs through a cached codec error handler, and in
dense text (Korean) by the vector route (:func:`_fold_vector`: numpy checks UTF-8 and
writes the few changed characters in place; one ``bytes.translate`` drops what goes). Text
the vector route declines (characters beyond U+FFFF, or that grow when folded) is folded in
its UTF-8 bytes, the characters to change found by a byte automaton. Every route is pinned
to the plain definition by tests/leakscan/test_leakscan_equivalence.py.
"""

from __future__ import annotations

import codecs
import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick_rs
import numpy as np

# Invisible characters outside category Cf that still render as nothing, and the code points
# Unicode reserves as default-ignorable (DerivedCoreProperties: Default_Ignorable_Code_Point)
# though unassigned in this Python's data: a newer browser renders them as nothing too
# (U+2065, U+FFF0-FFF8, the rest of the tag block U+E0000-E0FFF).
_INVISIBLE_EXTRA = (
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u3164\uffa0\u2065"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xFFF0, 0xFFF9)))
    + "".join(chr(c) for c in range(0xE0000, 0xE1000) if c not in range(0xE0100, 0xE01F0))
)
# Blocks of word characters listed first in the non-word class (Hangul jamo and syllables,
# kana, CJK): `re` then settles dense Korean text by a range test instead of a Unicode
# lookup (2.5x faster). A block joins only if all of it is \w in this Python's Unicode
# data, so the set is the same.
_WORD_RANGES = ((0x1100, 0x11FF), (0x3041, 0x3096), (0x30A1, 0x30FA), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3))


@dataclass(frozen=True)
class _Plain:
    """The tables of the plain definition (steps 2–5), from this Python's Unicode data."""

    invisible: str  # category Cf, the extra invisible characters, variation selectors beyond U+FFFF
    marks: str  # categories Mn and Me
    drop: re.Pattern[str]  # what is deleted after NFKD and case folding, up to U+FFFF
    drop_astral: dict[int, None]  # and beyond: a class holding them is 20x slower in `re`
    word_blocks: str
    nonword: re.Pattern[str]  # non-ASCII characters that are not word characters


@functools.cache
def _plain() -> _Plain:
    # A look-up per code point (0.08 s of CPU): done on the first fold, not at import, so
    # that every command importing the build (validate, a build without the identity, whose
    # needles are empty) does not pay it.
    invisible = "".join(chr(c) for c in range(0x80, 0x110000) if unicodedata.category(chr(c)) == "Cf")
    invisible += _INVISIBLE_EXTRA + "".join(map(chr, range(0xE0100, 0xE01F0)))
    marks = "".join(chr(c) for c in range(0x300, 0x30000) if unicodedata.category(chr(c)) in ("Mn", "Me"))
    word_blocks = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _WORD_RANGES if re.fullmatch(r"\w*", "".join(map(chr, range(lo, hi + 1)))))
    return _Plain(
        invisible,
        marks,
        re.compile("[" + re.escape("".join(c for c in invisible + marks if c <= "\uffff")) + "]"),
        {ord(c): None for c in invisible + marks if c > "\uffff"},
        word_blocks,
        # Non-ASCII characters that are not word characters (Unicode spaces, dashes,
        # quotes, math symbols): separators, like ASCII punctuation.
        re.compile(f"[^\\x00-\\x7f{word_blocks}\\w]"),
    )


_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
# ASCII: letters lower-cased, digits, "_" and every non-ASCII byte kept, all else a space.
_TABLE = bytes(c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122 or c == 95 or c >= 128) else 32 for c in range(256))
# A binary file (an image, a font): its ASCII is scanned, every other byte separates words.
_BINARY_TABLE = _TABLE[:128] + b" " * 128
_FOLD = "sealboard-leakscan-fold"


def _fold_plain(text: str) -> str:
    """Steps 2–5 on Unicode text by their definition, whole-text C primitives.

    Every step works character by character (NFKD reorders only combining marks, which are
    dropped; case folding has no context, unlike lower(), which spells a final sigma apart;
    NFC composes only Hangul jamo, as every other canonical pair has a mark, dropped, or a
    spacing mark, a separator, in it), so folding a text in pieces split at ASCII characters
    gives the same as folding it whole; tests/leakscan/test_leakscan_equivalence.py pins
    that. (NFKD once suffices: the case folding of any NFKD character is NFKD again, checked
    over all of Unicode.) Slow on Korean, whose every syllable NFKD triples: the scan folds
    by the table below instead."""
    plain = _plain()
    text = plain.drop.sub("", unicodedata.normalize("NFKD", text).casefold())
    if _ASTRAL_RE.search(text):
        text = text.translate(plain.drop_astral)
    return unicodedata.normalize("NFC", plain.nonword.sub(" ", text))


def _char_class(chars: Iterable[str]) -> str:
    codes = sorted(map(ord, chars))
    spans: list[list[int]] = []
    for c in codes:
        if spans and spans[-1][1] == c - 1:
            spans[-1][1] = c
        else:
            spans.append([c, c])
    return "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in spans)


# Hangul vowel and final jamo: they compose with what precedes them (NFC then runs).
_ASTRAL_LEADS = 5  # lead bytes F0-F4: characters beyond U+FFFF, folded one by one
_VT_JAMO = [chr(c) for c in (*range(0x1161, 0x1176), *range(0x11A8, 0x11C3))]
_HAS_VT_JAMO = re.compile(f"[{_char_class(_VT_JAMO)}]")


@dataclass(frozen=True)
class _Folds:
    """The fold by table: every BMP character the steps change, with what they make of it."""

    char_fold: dict[str, str]
    changed: re.Pattern[str]  # those characters, and every one beyond U+FFFF (folded one by one)
    byte_folds: list[tuple[bytes, bytes]]  # the same in UTF-8, for the dense route
    byte_fold_nfc: list[bool]  # whether the folded bytes hold vowel or final jamo
    byte_automaton: ahocorasick_rs.BytesAhoCorasick


@functools.cache
def _folds() -> _Folds:
    """One whole-text fold of every BMP character, "\x00" between (a starter that composes
    with nothing, so no step reaches across it); built on the first fold (0.03 s, and the
    plain tables first). Hangul syllables, CJK ideographs and most letters of other scripts
    fold to themselves and are absent: text made of them (Korean) passes the Unicode steps
    untouched."""
    chars = [chr(c) for c in range(0x80, 0x10000) if not 0xD800 <= c <= 0xDFFF]
    folded = _fold_plain("\x00".join(chars)).split("\x00")
    if len(folded) != len(chars):
        raise AssertionError()
    char_fold = {c: f for c, f in zip(chars, folded) if f != c}
    # Dense text (Korean) is folded in its UTF-8 bytes: one automaton finds every character
    # the steps change (few, in Korean: punctuation, soft hyphens), and only those are
    # replaced; no decoded copy is folded and encoded again. It also finds Hangul vowel and
    # final jamo, and the lead byte of every character beyond U+FFFF (folded one by one).
    # UTF-8 is self-synchronising, so in valid UTF-8 the encoding of a character is found
    # only where that character is.
    byte_folds = (
        [(c.encode(), f.encode()) for c, f in char_fold.items()]
        + [(j.encode(), j.encode()) for j in _VT_JAMO]
        + [(bytes([lead]), b"") for lead in range(0xF0, 0xF0 + _ASTRAL_LEADS)]
    )
    return _Folds(
        char_fold,
        re.compile(f"[{_char_class(char_fold)}\U00010000-\U0010ffff]"),
        byte_folds,
        [bool(_HAS_VT_JAMO.search(to.decode())) for _, to in byte_folds],
        # A DFA, as its states are few (three bytes deep).
        ahocorasick_rs.BytesAhoCorasick([c for c, _ in byte_folds], implementation=ahocorasick_rs.Implementation.DFA),
    )


@functools.lru_cache(maxsize=1 << 12)
def _fold_astral(ch: str) -> str:
    return _fold_plain(ch)


def _changed(m: re.Match[str]) -> str:
    ch = m.group()
    folded = _folds().char_fold.get(ch)
    return _fold_astral(ch) if folded is None else folded


def _fold(text: str) -> str:
    """Steps 2–5 (as :func:`_fold_plain`): each character the steps change replaced by what
    they make of it, then NFC (which returns at once unless Hangul jamo are to be composed)."""
    return unicodedata.normalize("NFC", _folds().changed.sub(_changed, text))


@functools.lru_cache(maxsize=1 << 16)
def _fold_run(run: str) -> bytes:
    # Runs repeat ("·", "—", a model's name, a Korean word): hence the cache.
    return _fold(run).encode("utf-8", "replace")


def _fold_error(err: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise AssertionError()
    run = err.object[err.start : err.end]
    # Long runs are not kept: the cache would hold a copy of every page's text.
    return (_fold_run(run) if len(run) <= 64 else _fold(run).encode("utf-8", "replace")), err.end


codecs.register_error(_FOLD, _fold_error)


def _fold_dense(data: bytes, text: str) -> bytes:
    """Steps 2–5 on dense valid UTF-8 (``text`` is it decoded), in its bytes."""
    folds = _folds()
    found = folds.byte_automaton.find_matches_as_indexes(data)
    if not found:
        return data
    if len(found) * 16 > len(data):  # many changes (upper-case Greek): the str route is faster
        return _fold(text).encode("utf-8", "replace")
    pieces, done, nfc = [], 0, False
    for index, start, end in found:
        pieces.append(data[done:start])
        if index >= len(folds.byte_folds) - _ASTRAL_LEADS:
            end = start + 4
            astral = _fold_astral(data[start:end].decode("utf-8"))
            pieces.append(astral.encode("utf-8", "replace"))
            nfc = nfc or bool(_HAS_VT_JAMO.search(astral))
        else:
            pieces.append(folds.byte_folds[index][1])
            nfc = nfc or folds.byte_fold_nfc[index]
        done = end
    pieces.append(data[done:])
    folded = b"".join(pieces)
    return unicodedata.normalize("NFC", folded.decode("utf-8")).encode("utf-8") if nfc else folded


def _fold_utf8(data: bytes, text: str | None = None) -> bytes:
    """Non-ASCII UTF-8 (UnicodeDecodeError if it is not UTF-8): steps 2–5 on the non-ASCII
    characters, ASCII left to the byte table.

    Mostly-ASCII text (a page with a few "·" and "—") is encoded to ASCII with an error
    handler that folds each run of non-ASCII characters (cached), so the Unicode steps see
    only those runs; dense text (Korean, where every word is a run) is folded in its bytes.
    ``text``: data decoded, if the caller has it."""
    if text is None:
        text = data.decode("utf-8")
    if (len(data) - len(text)) * 8 > len(data):
        return _fold_dense(data, text)
    return text.encode("ascii", _FOLD)


def _squeeze(data: bytes) -> bytes:
    """Every run of spaces made one, and one space at each end: numpy does it in C
    (``bytes.replace`` needed a pass per halving and was the scan's largest cost)."""
    if b"  " not in data and data[:1] == data[-1:] == b" ":
        return data
    a = np.empty(len(data) + 2, np.uint8)
    a[0] = a[-1] = 32
    a[1:-1] = np.frombuffer(data, np.uint8)
    word = a != 32
    keep = np.empty(len(a), np.bool_)
    keep[0] = True
    np.logical_or(word[1:], word[:-1], out=keep[1:])
    return a[keep].tobytes()


@dataclass(frozen=True)
class _Vector:
    """The fold by table as arrays over the BMP, for :func:`_fold_vector`: for each
    character, whether it changes (0 no, 1 in place, 2 not in place: its folded bytes,
    ASCII through the byte table, are longer than it), those bytes padded to its length with
    spaces (if they end with one: a run of spaces either way) or NULs (deleted), whether it
    is deleted outright, whether NFC must then run (vowel and final jamo)."""

    kind: np.ndarray
    bytes: np.ndarray
    deleted: np.ndarray
    nfc: np.ndarray
    hangul_kept: bool  # Hangul syllables fold to themselves: settled without a look-up


@functools.cache
def _vector() -> _Vector:
    folds = _folds()
    kind = np.zeros(0x10000, np.uint8)
    out = np.zeros((0x10000, 3), np.uint8)
    deleted = np.zeros(0x10000, np.bool_)
    nfc = np.zeros(0x10000, np.bool_)
    for ch, folded in [*folds.char_fold.items(), *((j, j) for j in _VT_JAMO)]:
        c, raw, to = ord(ch), ch.encode(), folded.encode().translate(_TABLE)
        if len(to) > len(raw):
            kind[c] = 2
            continue
        kind[c] = 1
        out[c, : len(raw)] = list(to.ljust(len(raw), b" " if to.endswith(b" ") else b"\0"))
        deleted[c] = not to
        nfc[c] = bool(_HAS_VT_JAMO.search(folded))
    hangul_kept = not any(chr(c) in folds.char_fold for c in range(0xAC00, 0xD7A4))
    return _Vector(kind, out, deleted, nfc, hangul_kept)


def _fold_vector(data: bytes) -> bytes | None:
    """Steps 2–5, the byte table and the squeeze at once on non-ASCII UTF-8, in numpy: the
    normalised bytes, or None where the general route must run (not UTF-8, characters
    beyond U+FFFF, a character whose folded bytes are longer than it).

    Dense text (Korean) cost four passes by the general route (decoding to check UTF-8,
    finding the characters to fold, squeezing spaces, matching); here the bytes go through
    the byte table once, and numpy, in vector operations of a few microseconds each, checks
    UTF-8 (every lead byte followed by as many continuation bytes as it says, and nothing
    else a continuation byte; no overlong E0 or surrogate ED form), picks out the
    characters that are neither ASCII nor Hangul syllables, looks them up, writes each
    one's folded bytes in its place, NULs for what is deleted, and marks every space
    after a space; one ``bytes.translate`` then drops the NULs and marks. A NUL run
    between two spaces would hide a run of spaces from the marking: such runs are made
    spaces first.

    Only dense text (one byte in eight non-ASCII or more) is taken: in mostly-ASCII text
    (a page with a few "·" and "—") the general route folds the few runs of non-ASCII
    characters at less cost than these vector operations over every byte.

    A large file goes in pieces of about a megabyte, cut at a space (ASCII, so never inside
    a character; a separator, so no word, jamo or run of spaces spans two pieces): the
    vector operations' arrays, several times a piece's size, stay small."""
    raw = np.frombuffer(data, np.uint8)
    if np.count_nonzero(raw >= 0x80) * 8 < len(data):
        return None
    pieces: list[bytes] = []
    start = 0
    while not pieces or start < len(data):
        cut = data.find(b" ", start + _PIECE) if len(data) - start > 2 * _PIECE else -1
        end = len(data) if cut < 0 else cut + 1
        piece = _fold_piece(data[start:end])
        if piece is None:
            return None
        pieces.append(piece if not pieces else piece[1:])  # each is padded with one space
        start = end
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


_PIECE = 1 << 20


def _fold_piece(data: bytes) -> bytes | None:
    v = _vector()
    a = np.empty(len(data) + 2, np.uint8)
    a[0] = a[-1] = 32  # one space at each end, as the squeeze leaves
    a[1:-1] = np.frombuffer(data.translate(_TABLE), np.uint8)  # ASCII mapped, the rest kept
    # UTF-8's shape: continuation bytes exactly where lead bytes C0-FF call for them
    # (one after a 2-byte lead, two after a 3-byte one). Leads of 4 bytes and bytes that are
    # never UTF-8 (F0-FF), and overlong or surrogate forms, are refused below, at the leads.
    lead, lead3 = a >= 0xC0, a >= 0xE0
    follows = np.zeros(len(a), np.bool_)
    follows[1:] = lead[:-1]
    follows[2:] |= lead3[:-2]
    if not np.array_equal(follows, (a & 0xC0) == 0x80):
        return None
    # The characters that may change: every lead byte but those of Hangul syllables (EA B0
    # to ED 9D; the rest of ED 9E is looked up), told by one number per byte with the next,
    # 64 (lead - EA) + second - B0, in 16 bits: 0-173 for those, more for any other lead.
    candidate = lead[:-1]
    if v.hangul_kept:
        pair = (a[:-1] - np.uint8(0xEA)).astype(np.uint16)
        pair <<= 6
        pair += a[1:]
        pair -= np.uint16(0xB0)
        candidate = candidate & (pair >= 174)
    at = np.flatnonzero(candidate)
    nfc = False
    if len(at):
        b0, b1, b2 = a[at].astype(np.int32), a[at + 1].astype(np.int32), a[at + 2].astype(np.int32)
        if ((b0 < 0xC2) | (b0 >= 0xF0) | ((b0 == 0xE0) & (b1 < 0xA0)) | ((b0 == 0xED) & (b1 >= 0xA0))).any():
            return None  # overlong, surrogate, beyond U+FFFF or not UTF-8: the general route
        three = b0 >= 0xE0
        code = np.where(three, ((b0 & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F), ((b0 & 0x1F) << 6) | (b1 & 0x3F))
        kind = v.kind[code]
        if (kind == 2).any():
            return None
        changes = kind == 1
        at, code, three = at[changes], code[changes], three[changes]
        folded = v.bytes[code]
        a[at] = folded[:, 0]
        a[at + 1] = folded[:, 1]
        a[at[three] + 2] = folded[three, 2]
        nfc = bool(v.nfc[code].any())
        gone = v.deleted[code]
        start, end = at[gone], at[gone] + 2 + three[gone]
        left, right = a[start - 1], a[end]
        between = ((left == 0) | (left == 32)) & ((right == 0) | (right == 32))  # spaces or NULs
        for s, e in zip(start[between].tolist(), end[between].tolist()):
            while a[s - 1] == 0:
                s -= 1
            while a[e] == 0:
                e += 1
            if a[s - 1] == 32 and a[e] == 32:
                a[s:e] = 32
    space = a == 32
    np.multiply(a[1:], ~(space[1:] & space[:-1]), out=a[1:])
    normalised = a.tobytes().translate(None, b"\0")
    return unicodedata.normalize("NFC", normalised.decode("utf-8")).encode("utf-8") if nfc else normalised


def normalise(data: bytes | str, *, binary: bool = False) -> bytes:
    """Normalised form (steps 2–5): words separated by single spaces, padded.

    ASCII is handled by ``bytes.translate`` and numpy alone; only non-ASCII text goes
    through the Unicode steps (not at all in a ``binary`` file, an image or a font, whose
    ASCII is still scanned). Text and bytes take the same path, so needles and output are
    normalised identically. Invalid UTF-8 in text is compared as a browser shows it
    (U+FFFD, a separator).
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if binary:
        return _squeeze(data.translate(_BINARY_TABLE))
    try:
        return normalise_utf8(data)
    except UnicodeDecodeError:
        return normalise_utf8(data.decode("utf-8", "replace").encode("utf-8", "surrogatepass"))


def normalise_utf8(data: bytes, text: str | None = None) -> bytes:
    """Normalised form of UTF-8 (UnicodeDecodeError if it is not); ``text``: data decoded,
    if the caller has it. ASCII by the byte table alone, dense text by the vector route,
    the rest by the general one."""
    if not data.isascii():
        normalised = _fold_vector(data)
        if normalised is not None:
            return normalised
        data = _fold_utf8(data, text)
    return _squeeze(data.translate(_TABLE))
