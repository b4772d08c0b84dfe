"""The leak scan: find embargoed item text (canaries, question text) in text and bytes.

Two places, one rule (design, "What is public when"):

- **lab text, per bundle, before render** (:meth:`Needles.scan_text`): every displayed
  field a lab wrote (model name, family, notes, harness, judge, …) is scanned while the
  bundle can still be left out; a hit rejects that bundle, and the site builds without it.
- **the site's own output, every byte, before publishing** (:meth:`Needles.scan_bytes`):
  a hit there is the site's own doing (a template, a page) and fails the build.

Normalisation, the same on both sides (needles and haystack):

1. output only: gzip opened; HTML entities decoded (as ``html.unescape``); JSON escapes
   (``\\uXXXX`` with surrogate pairs, ``\\n``, ``\\"``, …) decoded in JSON and scripts. A page
   or a CSV holding backslashes is read as written (``\\frac`` in a question is TeX: decoding
   ``\\f`` would hide every window holding it) and also decoded where JSON can be in it
   (inline scripts; the whole file if it has a ``\\uXXXX``). A file that is not UTF-8 (an
   image, a font) is scanned for its ASCII, every other byte a separator;
2.–5. :mod:`builder.leakscan.normalise`: Unicode NFKD and case folding, invisible
   characters and combining marks deleted, every run of non-word characters one space,
   Hangul jamo composed (Korean compared as syllables, however written).

Out of scope for the output scan: percent-escapes (``%20`` in a URL is not displayed
text), text in UTF-16 or inside compressed binary formats other than gzip, and double
escaping (``&amp;shy;`` shows as "&shy;", visibly). Lab text, which is small, is also read
decoded and in disguise (look-alike letters, spacing, reversal, base64, percent-escapes)
and across fields and bundles: :mod:`builder.leakscan.labtext`. Key material is looked for
in every output file whatever the needles: :mod:`builder.leakscan.keyscan`.

Question text is matched on **every** window of 8 consecutive words (a shorter question
whole, from 4 words); windows made mostly of numbers and symbols are skipped, as they would
match tables of scores. Canaries are matched anywhere, as word sequences.

Speed (``bench/bench_leakscan.py`` prints MB/s per CPU): one pass of daachorse's
double-array Aho-Corasick over each file's normalised bytes (:attr:`Needles._automaton`); escapes
decoded by one constant-replacement regular expression for JSON's short escapes, or
Python's ``unicode_escape`` codec where it reads every escape as JSON does; normalisation
as :mod:`builder.leakscan.normalise` says. The routes are pinned to the plain definition by
tests/leakscan/test_leakscan_equivalence.py.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import daachorse
import numpy as np

from builder.bundles.facts import submission_facts
from builder.bundles.ingest import Rejection
from builder.bundles.manifest import MANIFEST
from builder.bundles.verify import VerifiedBundle
from builder.leakscan.gunzip import gunzip
from builder.leakscan.keyscan import REASON as KEY_REASON
from builder.leakscan.keyscan import Fragments, key_material
from builder.leakscan.labtext import Piece, lab_needles, scan_read, scan_together, texts_of
from builder.leakscan.normalise import normalise, normalise_utf8
from builder.report.records import BenchmarkState, restrict

SHINGLE = 8
MIN_SHORT_TOKENS = 4
MIN_REAL_WORDS = 3

_TAG = re.compile(r"<[^<>]{0,200}>")


# JSON string escapes. Every short escape (\" \\ \/ \b \f \n \r \t) stands for a separator,
# and so does a backslash before anything else (in a script); matched left to right, so
# "\\u0041" is an escaped backslash and the text "u0041". What is left is \uXXXX.
_JSON_SHORT = re.compile(rb'\\(?:["\\/bfnrt]|(?!u[0-9a-fA-F]{4}))')
# html.unescape's own pattern, on bytes, with the name narrowed to what can decode: every
# HTML5 entity name is ASCII letters and digits, first a letter, and html.unescape replaces a
# name only by its longest prefix that is one, so the name's run of letters and digits alone
# gives the same text (and "&&" in a script costs no call). Digits bounded below int()'s
# 4,300-digit limit. Pinned to html.unescape by tests/leakscan/test_leakscan_equivalence.py.
_ENTITY = re.compile(rb"&(#[0-9]{1,4000};?|#[xX][0-9a-fA-F]{1,4000};?|[A-Za-z][A-Za-z0-9]{0,31};?)")


def _json_unescape(data: bytes) -> tuple[bytes, str | None]:
    """JSON escapes decoded: the bytes, and the text when it was decoded whole on the way."""
    # Dense: judged on the first 64 kB (counting every backslash of a dense file costs more).
    if data.count(b"\\", 0, 1 << 16) * 64 >= min(len(data), 1 << 16) and _codec_reads_as_json(data):
        # Dense (ensure_ascii JSON of Korean text), and every escape means to Python's codec
        # what it means to JSON (the short ones decode to separators either way): the C codec
        # decodes them all at once, where the short escapes' pass below would try a failed
        # match at every \u. A \u without four hex digits makes it fail; the general route
        # then runs.
        try:
            return _u_decode(data)
        except UnicodeDecodeError:
            pass
    data = _JSON_SHORT.sub(b" ", data)
    escapes = data.count(b"\\u")
    if not escapes:
        return data, None
    if escapes * 64 < len(data):  # a few (a script's regular expressions): one cached call each
        return _U_ESCAPE.sub(_u_escape, data), None
    return _u_decode(data)


# What may follow a backslash that begins an escape for the codec to read it as JSON does:
# not "/" (invalid to it) nor "x", "N", "U", digits, "a", "v" (Python's, not JSON's). A byte
# table (1 where it may): bytes.translate marks every byte at once.
_CODEC_READS_AS_JSON = bytes(c in b'"\\bfnrtu' for c in range(256))


def _codec_reads_as_json(data: bytes) -> bool:
    a = np.frombuffer(data, np.uint8)
    backslash = a == 92
    # In a run of backslashes every other one, from the first, begins an escape ("\\\\" is one).
    after_one = backslash[1:] & backslash[:-1]
    if (after_one[1:] & after_one[:-1]).any():  # runs of three or more: counted one by one
        at = np.flatnonzero(backslash)
        index = np.arange(len(at))
        run_start = np.maximum.accumulate(np.where(np.concatenate(([True], at[1:] != at[:-1] + 1)), index, 0))
        begins = np.zeros(len(a), np.bool_)
        begins[at[((index - run_start) & 1) == 0]] = True
    else:  # runs of one or two: an escape begins at a backslash after anything else
        begins = backslash.copy()
        begins[1:] &= ~backslash[:-1]
    if len(a) and begins[-1]:
        return False
    may_follow = np.frombuffer(data.translate(_CODEC_READS_AS_JSON), np.bool_)
    return not (begins[:-1] & ~may_follow[1:]).any()


def _u_decode(data: bytes) -> tuple[bytes, str]:
    """Every escape decoded (\\uXXXX and those Python reads as JSON does) by the C codec at
    once; non-ASCII text is passed through it as escapes of its own; surrogate pairs joined."""
    if data.isascii():
        text = data.decode("unicode_escape")
    else:
        text = data.decode("utf-8").encode("ascii", "backslashreplace").decode("unicode_escape")
    try:
        return text.encode("utf-8"), text
    except UnicodeEncodeError:  # surrogates: pairs joined, a lone one U+FFFD
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        return text.encode("utf-8"), text


_U_ESCAPE = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}")


@functools.lru_cache(maxsize=1 << 14)
def _u_text(escape: bytes) -> bytes:
    # A lone surrogate becomes U+FFFD, as in the codec path: a separator either way.
    text = escape.decode("unicode_escape").encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.encode("utf-8")


def _u_escape(m: re.Match[bytes]) -> bytes:
    return _u_text(m.group())


class _EntityTexts(dict[bytes, bytes]):
    """An entity's name (what follows "&") -> its text, cached: a page repeats a few
    ("&nbsp;", "&lt;") thousands of times."""

    def __missing__(self, name: bytes) -> bytes:
        text = html.unescape("&" + name.decode("ascii")).encode("utf-8", "replace")
        if len(self) < 1 << 14:
            self[name] = text
        return text


_ENTITY_TEXTS = _EntityTexts()


def _unescape_entities(data: bytes) -> bytes:
    # Split at the entities (the names land at odd places) and joined again: a dict lookup
    # each, where a substitution would call back into Python for every one.
    parts = _ENTITY.split(data)
    parts[1::2] = [_ENTITY_TEXTS[name] for name in parts[1::2]]
    return b"".join(parts)


_BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".pdf", ".zip"}
# Files whose backslashes are string escapes. Elsewhere (a page, a CSV) a backslash is
# itself: "\frac" in a question is TeX, and decoding "\f" there would hide the window.
_JSON_SUFFIXES = {".json", ".jsonl", ".js", ".mjs", ".cjs", ".map", ".webmanifest"}
_SCRIPT = re.compile(rb"<script\b[^>]*>|<SCRIPT\b[^>]*>")
_SCRIPT_END = re.compile(rb"</script|</SCRIPT")


def _text_form(data: bytes, json: bool) -> bytes:
    # Escapes are ASCII and decode to valid UTF-8, so a file that was not UTF-8 stays so
    # (UnicodeDecodeError).
    text = None  # data decoded, when that was done already
    if json and b"\\" in data:
        data, text = _json_unescape(data)
    if b"&" in data:
        unescaped = _unescape_entities(data)
        data, text = unescaped, (text if unescaped is data else None)
    return normalise_utf8(data, text)


def _scripts(data: bytes) -> bytes:
    """The bodies of a page's inline scripts (where its JSON is), one per line."""
    bodies = []
    for m in _SCRIPT.finditer(data):
        end = _SCRIPT_END.search(data, m.end())
        bodies.append(data[m.end() : end.start() if end else len(data)])
    return b"\n".join(bodies)


def output_forms(data: bytes, name: str) -> list[bytes]:
    """An output file normalised (steps 1–4), in every reading a browser or a reader could
    give it: gzip opened; HTML entities decoded; JSON escapes decoded in JSON and scripts,
    and in a page or CSV holding backslashes read both as written (TeX) and decoded where
    JSON can be (inline scripts, or the whole file if it has a \\uXXXX escape). A file that
    is not UTF-8 (an image, a font) is scanned for its ASCII."""
    if name.endswith(".gz"):
        name = name[:-3]
        data = gunzip(data)
    suffix = Path(name).suffix.lower()
    if not data.isascii() and suffix in _BINARY_SUFFIXES:
        return [normalise(data, binary=True)]
    try:
        if b"\\" not in data or suffix in _JSON_SUFFIXES:
            return [_text_form(data, json=True)]
        forms = [_text_form(data, json=False)]
        if _U_ESCAPE.search(data):
            forms.append(_text_form(data, json=True))
        else:
            scripts = _scripts(data)
            if b"\\" in scripts:
                forms.append(_text_form(scripts, json=True))
        return forms
    except UnicodeDecodeError:
        return [normalise(data, binary=True)]


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

    @classmethod
    def of(cls, patterns: tuple[bytes, ...], labels: tuple[str, ...]) -> Needles:
        """Distinct patterns, each with its label."""
        return cls(patterns, labels) if patterns else cls()

    @functools.cached_property
    def _automaton(self) -> daachorse.DoubleArrayAhoCorasick | None:
        """daachorse's double-array Aho-Corasick: on the scan's normalised output it matches
        21,000 needles at twice the speed of ``ahocorasick-rs`` (Korean) and nearly three
        times (the demo site), built in 0.14 s; bench/bench_leakscan.py.

        Built on the first scan, not with the needles: a build's needles are made, then made
        again without the windows a release published (``publish.needles_for``), and the
        first set is never scanned (its automaton cost 0.2 CPU-s a demo build)."""
        return daachorse.DoubleArrayAhoCorasick(list(self.patterns)) if self.patterns else None

    @property
    def empty(self) -> bool:
        return not self.patterns

    def scan_bytes(self, normalised: bytes) -> str | None:
        """The label of the first needle in already-normalised bytes, else None."""
        if self._automaton is None:
            return None
        for _start, _end, index in self._automaton.find(normalised):
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
        for form in output_forms(data, name):
            found = self.scan_bytes(form)
            if found is not None:
                return found
        return None


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
    return Needles.of(tuple(found), tuple(found.values()))


@dataclass(frozen=True)
class Hit:
    path: str
    label: str
    reason: str = "leak"  # or keyscan.REASON: key material, found whatever the needles


def scan_tree(site: Path, needles: Needles) -> tuple[Hit | None, int, int]:
    """(first hit or None, files scanned, bytes scanned) over every file under site: key
    material (:mod:`builder.leakscan.keyscan`) always, embargoed text when there are needles."""
    files = scanned = 0
    fragments = Fragments()  # a key split over two files
    paths = sorted(p for p in site.rglob("*") if p.is_file())
    for path in paths:
        data = path.read_bytes()
        files += 1
        scanned += len(data)
        rel = str(path.relative_to(site))
        key = key_material(data, rel, fragments)
        if key is not None:
            return Hit(rel, key, KEY_REASON), files, scanned
        label = None if needles.empty else needles.scan_file(data, path.name)
        if label:
            return Hit(rel, label), files, scanned
    # The files just scanned, read again only if some key's start was found: the generator's
    # list is made when it is, so a second listing of the tree cost 0.03 CPU-s a scan.
    split = fragments.joined((str(p.relative_to(site)), p.read_bytes()) for p in paths)
    if split is not None:
        return Hit(split[0], f"{split[1]}, split over two files", KEY_REASON), files, scanned
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


def _reject(state: BenchmarkState, bundle: VerifiedBundle, where: str, message: str) -> Rejection:
    return Rejection(
        where,
        "embargoed-text",
        f"{where}: {message}; the bundle was left out so that the site could be published",
        "remove item text and canaries from every field of the manifest and resubmit",
        state.config.id,
        bundle.manifest.lab,
    )


def _what(label: str) -> str:
    return "an item's canary" if label.startswith("canary") else "an embargoed item's question text"


def screen_lab_text(states: list[BenchmarkState], needles: Needles) -> tuple[list[BenchmarkState], list[Rejection]]:
    """The states without every bundle whose published facts hold embargoed text, and the
    rejections of those bundles.

    What is scanned is everything the site may publish about the bundle (its row of the
    submissions data before the publication gate, from which every page and board row
    takes its lab text) plus its path, so a field added to the output later is scanned
    without a change here. Each field is scanned as written (:meth:`Needles.scan_text`) and
    in every disguise (:func:`builder.leakscan.labtext.scan_alone`); then each lab's fields
    over all its bundles of the benchmark are read together
    (:func:`builder.leakscan.labtext.scan_together`). A benchmark whose sealed items are
    among the needles is marked ``lab_text_screened``: only then does the gate publish its
    lab free text under embargo.
    """
    if needles.empty:
        return states, []
    folded = lab_needles(needles.patterns, needles.labels)
    out: list[BenchmarkState] = []
    rejections: list[Rejection] = []
    for state in states:
        if state.embargoed_text:
            # the needles hold this benchmark's sealed items: its lab text is screened
            state = replace(state, lab_text_screened=True)
        found = _screen_benchmark(state, needles, folded)
        rejections += [r for _, r in found]
        leaky = {key for key, _ in found}
        out.append(restrict(state, {b.manifest.key for b in state.bundles} - leaky) if leaky else state)
    return out, rejections


def _screen_benchmark(state: BenchmarkState, needles: Needles, folded: Any) -> list[tuple[str, Rejection]]:
    """(bundle key, its rejection) for each bundle of one benchmark whose lab text holds
    embargoed text, field by field, then each lab's fields read together."""
    found: list[tuple[str, Rejection]] = []
    pieces: dict[str, list[Piece]] = {}  # lab -> its texts, for reading them together
    for bundle in state.bundles:
        row = submission_facts(bundle)
        fields = [("path", bundle.where), *_strings(row, "")]
        # Each field's word lists, read alone here and (when no field hit) together below:
        # made once (twice cost 0.05 CPU-s a demo build).
        read: list[list[list[str]]] = []
        for path, text in fields:
            label = needles.scan_text(text)
            if label is None:
                read.append(texts_of(text))
                label = scan_read(read[-1], folded)
            if label is None:
                continue
            where = f"{bundle.where}/{MANIFEST}" if path != "path" else bundle.where
            found.append((str(bundle.manifest.key), _reject(state, bundle, where, f"{path} contains {_what(label)}")))
            break
        else:
            key = bundle.manifest.key
            pieces.setdefault(bundle.manifest.lab, []).extend(
                Piece(key, path, tuple(ws)) for (path, _), ws_of in zip(fields, read) for ws in ws_of
            )
    by_key = {b.manifest.key: b for b in state.bundles}
    for lab in sorted(pieces):
        together = scan_together(pieces[lab], folded)
        if together is None:
            continue
        label, keys = together
        for key in keys:
            others = [k for k in keys if k != key]
            along = f" together with {', '.join(others)}" if others else ""
            message = f"its fields read together{along} spell {_what(label)}"
            found.append((str(key), _reject(state, by_key[key], f"{by_key[key].where}/{MANIFEST}", message)))
    return found


def withhold_embargoed_text(rejections: list[Rejection], needles: Needles) -> list[Rejection]:
    """The rejections as the site may list them: one whose message quotes embargoed item
    text (a field's value, an item id from results) replaced by one naming its place only."""
    out = []
    for r in rejections:
        if needles.empty or needles.scan_text(f"{r.where}\n{r.message}\n{r.hint or ''}") is None:
            out.append(r)
            continue
        where = r.where if needles.scan_text(r.where) is None else f"bundles/{r.benchmark}/{r.lab}/(name withheld)"
        message = f"{where}: the error message quoted embargoed item text and is withheld"
        out.append(replace(r, where=where, message=message, hint=None))
    return out
