"""Disguises folded out of lab-supplied text before the leak scan reads it (issue 22).

Lab text is small (a manifest's fields, opted-in transcripts), so it can afford what the
output scan (every byte of the site, :mod:`builder.leakscan.scan`) cannot. A lab that
holds a valid key writes an embargoed question so that a reader still recovers it:

- **look-alike letters** (Cyrillic "а", "е", "о" for Latin): every character is replaced
  by its prototype from Unicode TR39's confusables data (``confusables.txt``, as shipped by
  the maintained ``confusable-homoglyphs`` package) after the plain normalisation (NFKD,
  case folding, marks gone), and case folded again: the TR39 skeleton, restricted to
  letters and digits that look like one letter or digit (a symbol stays a separator);
- **spacing inside words** ("q u e s t i o n"): matched with every space removed, on both
  sides, so a window is found however its letters are spaced;
- **reversed order**: the words in reverse, and the characters in reverse;
- **encodings**: base64 runs (standard and URL-safe, 16+ characters, also wrapped over
  lines or cut in pieces of 12+) and percent-escapes decoded, twice (an encoding of an encoding), each decoding scanned as another text.

Needles go through the same fold (:func:`fold_pattern`), so what matched before still
matches: the fold only merges. Windows over several fields and bundles are
:func:`builder.leakscan.labtext.lab_texts`' job.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
import unicodedata
import urllib.parse
from importlib import resources

from builder.leakscan.normalise import normalise

# Base64 wrapped over lines or broken by spaces (MIME's 76 and PEM's 64 columns, a run cut in
# pieces): runs of 12+ base64 characters with only white space between them are joined and
# decoded as one run. (Pieces of 12 or more: prose, whose words are shorter, costs nothing.)
# Possessive: a run is never tried again shorter (no backtracking; Python 3.11).
# The last line of wrapped base64 may be short: then it ends in padding.
_BASE64_WRAPPED = re.compile(r"[A-Za-z0-9+/_-]{12,}+={0,2}(?:[ \t\r\n]++(?:[A-Za-z0-9+/_-]{12,}+={0,2}|[A-Za-z0-9+/_-]{1,11}+={1,2}))*+")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
DECODE_DEPTH = 2


def _plain_char(c: str) -> str:
    return unicodedata.normalize("NFKD", c).casefold()


@functools.cache
def _targets() -> dict[str, str]:
    """Character -> its TR39 prototype, one character each, followed to the end ("т" ->
    "ᴛ" -> "T").

    The package's data lists, for each character, its confusables: a source character's
    list is its prototype alone, a prototype's list every source. So ``k -> t`` when k's
    list is [t] and t's list holds more than k (or t is ASCII and k is not: a pair that
    names only each other)."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    targets: dict[str, str] = {}
    for source, entries in data.items():
        if len(entries) != 1:
            continue
        target = entries[0]["c"].strip("\u200e\u200f")  # the data wraps RTL letters in marks
        if len(target) != 1 or len(source) != 1 or not (source.isalnum() and target.isalnum()):
            continue  # letters and digits only: a symbol stays a separator
        if len(data.get(target, [])) == 1 and not (target.isascii() and not source.isascii()):
            continue  # a pair naming only each other: no direction, unless one is ASCII
        targets[source] = target
    resolved = {}
    for source in targets:
        target, seen = targets[source], {source}
        while target in targets and target not in seen:
            seen.add(target)
            target = targets[target]
        resolved[source] = target
    return resolved


@functools.cache
def raw_table() -> dict[int, str]:
    """Before the plain normalisation: a non-ASCII letter or digit whose prototype is ASCII
    ("Т", Cyrillic, -> "T"), so case folding does not lose which it looked like (Cyrillic
    "т" looks like a small capital). ASCII maps to itself: questions, mostly Latin, are
    folded only after normalisation (:func:`fold_pattern`), as their needles are."""
    return {ord(s): t for s, t in _targets().items() if not s.isascii() and t.isascii()}


@functools.cache
def skeleton_table() -> dict[int, str]:
    """After the plain normalisation (case folded): code point -> its prototype, case
    folded; prototypes themselves map to nothing."""
    targets = _targets()
    prototypes = {_plain_char(t) for t in targets.values()}
    table: dict[int, str] = {}
    # A lower-case source first: "і" -> "i" is kept, not replaced by "І" -> "l" (whose case
    # folding is "і" too).
    for source, target in sorted(targets.items(), key=lambda st: _plain_char(st[0]) != st[0]):
        s, t = _plain_char(source), _plain_char(target)
        if len(s) != 1 or len(t) != 1 or s == t or s in prototypes:
            continue  # a letter others fold to ("i" for "ı") is never folded itself
        table.setdefault(ord(s), t)
    return table


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _translate(text: str, which: str) -> str:
    """``text.translate(table)``, at C speed where the text is ASCII: ``str.translate`` looks
    each character of non-ASCII text up in the dict (1 s a MB); here only the runs of
    non-ASCII characters are, and the ASCII characters the table changes by ``replace``.
    (The tables map no character to one they change: tests/leakscan/test_fold_speed.py.)"""
    table, ascii_changes = _tables()[which]
    if not text.isascii():
        text = _NON_ASCII.sub(lambda m: m.group().translate(table), text)
    for c, to in ascii_changes:
        text = text.replace(c, to)
    return text


@functools.cache
def _tables() -> dict[str, tuple[dict[int, str], tuple[tuple[str, str], ...]]]:
    """Each table, with the ASCII characters it changes."""
    tables = {"skeleton": skeleton_table(), "raw": raw_table()}
    return {name: (t, tuple((chr(c), to) for c, to in sorted(t.items()) if c < 128)) for name, t in tables.items()}


def raw_letters(text: str) -> str:
    """Text with each non-ASCII letter that looks like an ASCII one replaced by it
    (:func:`raw_table`), before the plain normalisation."""
    return _translate(text, "raw")


def skeleton(normalised: str) -> str:
    """Plainly normalised text with every look-alike letter replaced by its prototype."""
    return _translate(normalised, "skeleton")


def fold_pattern(pattern: bytes) -> tuple[bytes, str]:
    """A needle (normalised bytes) as lab text is compared: skeleton, no spaces; and its
    skeleton with the spaces, for its words (one skeleton of each of the demo's 21,000
    needles for both, where two cost 0.06 CPU-s more)."""
    skeletal = skeleton(pattern.decode("utf-8"))
    return skeletal.replace(" ", "").encode("utf-8"), skeletal


def _base64_runs(text: str) -> list[str]:
    """Runs of 16+ base64 characters, and pieces of 12+ joined across white space."""
    runs: list[str] = []
    for m in _BASE64_WRAPPED.finditer(text):
        run = m.group()
        if len(run) < 16:
            continue
        pieces = run.split()
        runs += [p for p in pieces if len(p) >= 16]
        if len(pieces) > 1:
            runs.append("".join(pieces))
    return runs


def _decodings(text: str) -> list[str]:
    found = []
    if _PERCENT.search(text):
        found.append(urllib.parse.unquote(text, errors="replace"))
    for run in dict.fromkeys(_base64_runs(text)):
        body = run.rstrip("=")
        for alphabet in (None, b"-_"):
            try:
                raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=alphabet, validate=True)
            except (binascii.Error, ValueError):
                continue
            try:
                found.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                continue
            break
    return found


def decoded(text: str) -> list[str]:
    """``text`` and every decoding of its base64 runs and percent-escapes, to DECODE_DEPTH."""
    out, layer = [text], [text]
    for _ in range(DECODE_DEPTH):
        layer = [d for t in layer for d in _decodings(t) if d not in out]
        out += layer
    return list(dict.fromkeys(out))


def words(text: str) -> list[str]:
    """The lab text's words after the plain normalisation and the skeleton."""
    return skeleton(normalise(raw_letters(text)).decode("utf-8")).split()


def forms(word_list: list[str]) -> list[bytes]:
    """Every reading of a word sequence a needle is matched against, spaces removed: as
    written, words reversed, characters reversed."""
    joined = "".join(word_list)
    return [joined.encode("utf-8"), "".join(reversed(word_list)).encode("utf-8"), joined[::-1].encode("utf-8")]
