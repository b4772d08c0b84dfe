"""The leak scan: find embargoed item text (canaries, question text) in text and bytes.

Two places, one rule (design, "What is public when"):

- **lab text, per bundle, before render** (:meth:`Needles.scan_text`): every displayed
  field a lab wrote (model name, family, notes, harness, judge, …) is scanned while the
  bundle can still be left out; a hit rejects that bundle, and the site builds without it.
- **the site's own output, every byte, before publishing** (:meth:`Needles.scan_bytes`):
  a hit there is the site's own doing (a template, a page) and fails the build.

Normalisation, the same on both sides (needles and haystack):

1. JSON ``\\uXXXX`` escapes and HTML entities decoded (output only);
2. invisible characters removed: soft hyphen, zero-width space/joiners, word joiner, BOM,
   bidi embeddings/overrides/isolates, variation selectors, tag characters, Hangul fillers
   (all of Unicode category Cf, plus the few invisible ones filed elsewhere);
3. Unicode NFKD with combining marks dropped (full-width and other compatibility forms
   fold to plain letters; accents go, however they are encoded);
4. lower-cased; every run of non-word characters (punctuation, symbols, white space, in
   any script) becomes one space, so markup, escaping and spacing cannot hide text.

Question text is matched on **every** window of 8 consecutive words (a shorter question
whole, from 4 words); windows made mostly of numbers and symbols are skipped, as they would
match tables of scores. Canaries are matched anywhere, as word sequences.

Speed: the output scan is one Aho-Corasick pass (Rust ``ahocorasick-rs``, bytes automaton)
over the normalised bytes of each file; normalisation is C-level bytes operations
(``bytes.translate``, ``bytes.replace``) with a Unicode pass only for files that hold
non-ASCII bytes. ``bench/bench_leakscan.py`` prints the MB/s.
"""

from __future__ import annotations

import functools
import gzip
import html
import re
import unicodedata
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import ahocorasick_rs

from builder.bundles.ingest import Rejection
from builder.bundles.manifest import MANIFEST
from builder.pipeline.isolation import restrict
from builder.pipeline.records import BuildReport

SHINGLE = 8
MIN_SHORT_TOKENS = 4
MIN_REAL_WORDS = 3

# Invisible characters outside category Cf that still render as nothing.
_INVISIBLE_EXTRA = "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u3164\uffa0" + "".join(map(chr, range(0xFE00, 0xFE10)))


def _invisible_chars() -> str:
    chars = [chr(c) for c in range(0x80, 0x110000) if unicodedata.category(chr(c)) == "Cf"]
    return "".join(chars) + _INVISIBLE_EXTRA + "".join(map(chr, range(0xE0100, 0xE01F0)))


_INVISIBLE = _invisible_chars()
_INVISIBLE_RE = re.compile("[" + re.escape(_INVISIBLE) + "]")
_DROP_RE = re.compile("[" + re.escape("".join(chr(c) for c in range(0x300, 0x30000) if unicodedata.category(chr(c)) in ("Mn", "Me"))) + "]")
# Non-ASCII characters that are not word characters (Unicode spaces, dashes, quotes, math
# symbols): separators, like ASCII punctuation.
_NONWORD_RE = re.compile(r"[^\x00-\x7f\w]")
_NON_ASCII_RUN = re.compile(rb"[\x80-\xff]+")
# ASCII: letters lower-cased, digits, "_" and every non-ASCII byte kept, all else a space.
_TABLE = bytes(c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122 or c == 95 or c >= 128) else 32 for c in range(256))
# JSON string escapes: \uXXXX and the short ones (\n would otherwise glue "n" to a word).
_JSON_ESCAPE = re.compile(rb"\\(u[0-9a-fA-F]{4}|[\"\\/bfnrt])")
_JSON_SHORT = {b'"': b'"', b"\\": b"\\", b"/": b"/", b"b": b" ", b"f": b" ", b"n": b" ", b"r": b" ", b"t": b" "}


_TAG = re.compile(r"<[^<>]{0,200}>")


def _json_unescape(m: re.Match[bytes]) -> bytes:
    code = m.group(1)
    if len(code) == 1:
        return _JSON_SHORT[code]
    return chr(int(code[1:], 16)).encode("utf-8", "replace")


def _collapse(data: bytes) -> bytes:
    # bytes.replace runs in C; each pass shortens every run of spaces, long runs first.
    for run in (b" " * 32, b" " * 8, b"    "):
        if run in data:
            data = data.replace(run, b" ")
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    return data


@functools.lru_cache(maxsize=1 << 16)
def _unicode_text(run: bytes) -> bytes:
    # One run of non-ASCII bytes: invisible characters removed, NFKD, combining marks
    # dropped (so "é" composed, decomposed or split from its letter compares as "e"),
    # lower-cased, non-word characters (Unicode spaces, dashes, quotes, symbols) turned
    # into spaces. Invalid UTF-8 is compared as a browser shows it (U+FFFD). Runs repeat
    # ("—", "·", a model's name), hence the cache.
    text = unicodedata.normalize("NFKD", _INVISIBLE_RE.sub("", run.decode("utf-8", "replace")))
    text = _NONWORD_RE.sub(" ", _DROP_RE.sub("", text).lower())
    return text.encode("utf-8", "surrogatepass")


def _unicode_run(m: re.Match[bytes]) -> bytes:
    return _unicode_text(m.group())


def normalise(data: bytes | str, *, binary: bool = False) -> bytes:
    """Normalised form (steps 2–4): lower-case words separated by single spaces, padded.

    ASCII is handled by ``bytes.translate`` and ``bytes.replace`` alone; only the runs of
    non-ASCII bytes go through the Unicode steps (not at all in a ``binary`` file, an image
    or a font, whose ASCII is still scanned). Text and bytes take the same path, so needles
    and output are normalised identically.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not binary and not data.isascii():
        data = _NON_ASCII_RUN.sub(_unicode_run, data)
    return b" " + _collapse(data.translate(_TABLE)).strip(b" ") + b" "


# Entities that decode to punctuation or space: the same as a space after normalisation.
_PUNCT_ENTITIES = (b"&amp;", b"&lt;", b"&gt;", b"&quot;", b"&#39;", b"&#x27;", b"&apos;", b"&nbsp;", b"&#34;", b"&para;", b"&middot;", b"&mdash;", b"&ndash;")
_ENTITY = re.compile(rb"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")


@functools.lru_cache(maxsize=1 << 14)
def _entity_text(entity: bytes) -> bytes:
    return html.unescape(entity.decode("ascii")).encode("utf-8", "surrogatepass")


_BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".pdf", ".zip"}


def decode_output(data: bytes, name: str) -> tuple[bytes, bool]:
    """An output file's bytes with gzip opened, JSON escapes and HTML entities decoded;
    and whether it is binary (not UTF-8: an image, a font)."""
    if name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            pass
    if data.isascii():
        pass
    elif Path(name).suffix.lower() in _BINARY_SUFFIXES:
        return data, True
    else:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return data, True
    if b"\\" in data:
        if data.isascii() and b"\\u" in data:
            # ASCII JSON (ensure_ascii): the C codec decodes every escape at once (and warns
            # about escapes JSON does not have, as in a script's regular expressions).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                data = data.decode("unicode_escape", "replace").encode("utf-8", "surrogatepass")
        else:
            data = _JSON_ESCAPE.sub(_json_unescape, data)
    if b"&" in data:
        for entity in _PUNCT_ENTITIES:
            if entity in data:
                data = data.replace(entity, b" ")
        if b"&" in data:
            data = _ENTITY.sub(lambda m: _entity_text(m.group()), data)
    return data, False


@functools.lru_cache(maxsize=1 << 16)
def _real_word(word: bytes) -> bool:
    # Hangul and CJK words carry more per character: two syllables make a real word.
    text = word.decode("utf-8", "replace")
    return len(text) >= (4 if text.isascii() else 2) and not any(ch.isdigit() for ch in text)


@dataclass(frozen=True)
class Needles:
    """What must not appear, normalised: canaries and question windows, with labels."""

    patterns: tuple[bytes, ...] = ()
    labels: tuple[str, ...] = ()
    _automaton: object = field(default=None, repr=False, compare=False)

    @property
    def empty(self) -> bool:
        return not self.patterns

    def scan_bytes(self, normalised: bytes) -> str | None:
        """The label of the first needle in already-normalised bytes, else None."""
        if self._automaton is None:
            return None
        for index, _start, _end in self._automaton.find_matches_as_indexes(normalised):  # type: ignore[attr-defined]
            return self.labels[index]
        return None

    def scan_text(self, text: str) -> str | None:
        """Lab-supplied text: the label of the first needle in it, else None.

        Scanned as written and as Markdown could display it: entities such as ``&nbsp;``
        decoded and inline tags removed. (The output scan does not strip tags: markup in
        the output is the site's own, and lab text reaches it escaped, already scanned.)"""
        found = self.scan_bytes(normalise(text))
        if found is None and ("&" in text or "<" in text):
            # As a page could show it: entities decoded, inline markup gone.
            found = self.scan_bytes(normalise(_TAG.sub("", html.unescape(text))))
        return found

    def scan_file(self, data: bytes, name: str) -> str | None:
        data, binary = decode_output(data, name)
        return self.scan_bytes(normalise(data, binary=binary))


def build_needles(entries: Iterable[tuple[str, str, Iterable[str]]]) -> Needles:
    """``entries``: (label, canary, question texts) per embargoed item."""
    found: dict[bytes, str] = {}
    for label, canary, questions in entries:
        if canary:
            norm = normalise(canary).strip(b" ")
            if norm:  # matched anywhere, even inside a longer word
                found.setdefault(norm, f"canary of {label}")
        for text in questions:
            words = normalise(text).split()
            if len(words) >= SHINGLE:
                windows = [words[i : i + SHINGLE] for i in range(len(words) - SHINGLE + 1)]
            else:
                windows = [words] if len(words) >= MIN_SHORT_TOKENS else []
            for window in windows:
                if sum(map(_real_word, window)) >= MIN_REAL_WORDS:
                    found.setdefault(b" " + b" ".join(window) + b" ", f"question text of {label}")
    if not found:
        return Needles()
    patterns = tuple(found)
    return Needles(patterns, tuple(found.values()), ahocorasick_rs.BytesAhoCorasick(list(patterns)))


@dataclass(frozen=True)
class Hit:
    path: str
    label: str


def scan_tree(site: Path, needles: Needles) -> tuple[Hit | None, int, int]:
    """(first hit or None, files scanned, bytes scanned) over every file under site."""
    files = scanned = 0
    if needles.empty:
        return None, 0, 0
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        files += 1
        scanned += len(data)
        label = needles.scan_file(data, path.name)
        if label:
            return Hit(str(path.relative_to(site)), label), files, scanned
    return None, files, scanned


# --- lab text, per bundle, before render ------------------------------------------------------


def _strings(value: object, path: str) -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _strings(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for i, inner in enumerate(value):
            yield from _strings(inner, f"{path}[{i}]")


def screen_lab_text(report: BuildReport, needles: Needles) -> None:
    """Reject every bundle whose published facts hold embargoed text; scrub rejections.

    What is scanned is exactly what the site publishes about the bundle (its row of the
    submissions data, from which every page and board row takes its lab text) plus its
    path, so a field added to the output later is scanned without a change here.
    """
    from builder.render.data import submissions_data  # render sits above this stage's records

    if needles.empty:
        return
    for i, state in enumerate(report.benchmarks):
        leaky: list[str] = []
        for bundle in state.bundles:
            (row,) = submissions_data(replace(state, bundles=(bundle,)))["rows"]
            for path, text in [("path", bundle.where), *_strings(row, "")]:
                label = needles.scan_text(text)
                if label is None:
                    continue
                what = "an item's canary" if label.startswith("canary") else "an embargoed item's question text"
                where = f"{bundle.where}/{MANIFEST}" if path != "path" else bundle.where
                report.rejections.append(
                    Rejection(
                        where,
                        "embargoed-text",
                        f"{where}: {path} contains {what}; the bundle was left out so that the site could be published",
                        "remove item text and canaries from every field of the manifest and resubmit",
                        state.config.id,
                        bundle.manifest.lab,
                    )
                )
                leaky.append(bundle.manifest.key)
                break
        if leaky:
            report.benchmarks[i] = restrict(state, {b.manifest.key for b in state.bundles} - set(leaky))
    # A rejection message may quote lab text (a field's value, an item id from results).
    for j, r in enumerate(report.rejections):
        if needles.scan_text(f"{r.where}\n{r.message}\n{r.hint or ''}") is None:
            continue
        where = r.where if needles.scan_text(r.where) is None else f"bundles/{r.benchmark}/{r.lab}/(name withheld)"
        message = f"{where}: the error message quoted embargoed item text and is withheld"
        report.rejections[j] = replace(r, where=where, message=message, hint=None)
