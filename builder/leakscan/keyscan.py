"""Key material in the output: an age identity, an OpenSSH or PEM private key (design,
security invariant 8; issues 20 and 44).

Every build scans every output byte for it, with or without an identity (the embargoed-text
scan needs needles; this one does not): a theme override, an extra template or a page that
copies an identity file or ``SEALBOARD_IDENTITY`` into the site fails the build, and the
output is removed (:func:`builder.pipeline.publish.publish`).

What counts, in each file read as a browser or a reader decodes it:

- ``AGE-SECRET-KEY-1`` in any case followed by at least 20 Bech32 characters (a real
  identity has 58): the bare prefix, as the docs write it ("AGE-SECRET-KEY-1…"), names the
  format and holds no secret;
- a PEM armour header ``-----BEGIN <words> PRIVATE KEY-----`` (OpenSSH's
  ``-----BEGIN OPENSSH PRIVATE KEY-----`` is one), in any case;
- a key's body without its armour: a base64 run that decodes to an OpenSSH private key
  (``openssh-key-v1``) or to a DER private key that ``cryptography`` loads.

The readings of a file: its bytes; a ``.gz`` file inflated (bounded); HTML character
references decoded; markup removed and white space dropped (an SVG whose ``<tspan>``
elements split a key, a key broken over lines); the text chunks of a PNG
(``tEXt``, ``zTXt``, ``iTXt``, compressed ones inflated); and every base64 run (a
``data:`` URI, a PEM body) decoded, to depth 2, each decoding read again.

A key split over files (:class:`Fragments`): an age identity's start cut short in one file
(the prefix and fewer than 58 Bech32 characters) is joined with every Bech32 run of every
file and accepted only if the Bech32 checksum holds (a real identity; never a guess); a base64
run that begins a key's body (OpenSSH's magic, a DER private key's header) but does not load
is joined with every base64 run of the other files, and accepted if the join loads.

The message names the kind of key and the file, never the key.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import re
import struct
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import ahocorasick_rs

from builder.leakscan.gunzip import gunzip

AGE_PREFIX = b"age-secret-key-1"
PEM_TAIL = b"private key-----"
# Bech32's alphabet (lower case: the bytes were lowered).
_BECH32 = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_AGE_BODY = re.compile(rb"[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{20}")
_AGE_BODY_LEN = 58  # 52 data characters (32 bytes) and a 6-character checksum
_AGE_CUT = re.compile(rb"age-secret-key-1([qpzry9x8gf2tvdw0s3jn54khce6mua7l]{0,57})(?![qpzry9x8gf2tvdw0s3jn54khce6mua7l])")
_PEM_HEADER = re.compile(rb"-----begin ?[a-z0-9 ]{0,40}private ?key-----$")
_PEM_TAIL_COMPACT = b"privatekey-----"
_TAG = re.compile(rb"<[^<>]{0,2000}>")
# Numeric character references: a named one spells no letter or digit a key holds.
_ENTITY = re.compile(rb"&#(?:[0-9]{1,8}|[xX][0-9a-fA-F]{1,6});?")
_MAX_CONTINUATION = 8192  # base64 characters read of a file for the rest of a key body (a 4096-bit RSA key: 3,200)
_OPENSSH_MAGIC = b"openssh-key-v1\0"
_PNG = b"\x89PNG\r\n\x1a\n"
DECODE_DEPTH = 2
REASON = "key-material"
AGE_KIND = "an age secret key (AGE-SECRET-KEY-1…)"
_OPENSSH_KIND = "an OpenSSH private key"
_PEM_KIND = "a PEM private key"


def _found(low: bytes) -> str | None:
    at = low.find(AGE_PREFIX)
    while at >= 0:
        if _AGE_BODY.match(low, at + len(AGE_PREFIX)):
            return AGE_KIND
        at = low.find(AGE_PREFIX, at + 1)
    for tail in (PEM_TAIL, _PEM_TAIL_COMPACT):
        at = low.find(tail)
        while at >= 0:
            end = at + len(tail)
            if _PEM_HEADER.search(low[max(0, at - 60) : end]):
                return _OPENSSH_KIND if b"openssh" in low[max(0, at - 60) : at] else _PEM_KIND
            at = low.find(tail, at + 1)
    return None


# --- Bech32 (BIP 173), for an age identity joined from pieces ------------------------------------


def _polymod(values: Iterable[int]) -> int:
    generator = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= generator[i] if (top >> i) & 1 else 0
    return chk


def is_age_identity(low: bytes) -> bool:
    """Whether lowered bytes are exactly an age identity with a valid Bech32 checksum."""
    if not low.startswith(AGE_PREFIX) or len(low) != len(AGE_PREFIX) + _AGE_BODY_LEN:
        return False
    hrp, body = low[: len(AGE_PREFIX) - 1], low[len(AGE_PREFIX) :]
    if any(c not in _BECH32 for c in body):
        return False
    values = [c >> 5 for c in hrp] + [0] + [c & 31 for c in hrp] + [_BECH32.index(c) for c in body]
    return _polymod(values) == 1


# --- a key's body without armour ------------------------------------------------------------------


def _b64(run: bytes) -> bytes | None:
    body = run.rstrip(b"=")
    for alt in (None, b"-_"):
        try:
            return base64.b64decode(body + b"=" * (-len(body) % 4), altchars=alt, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


def _der_head(raw: bytes) -> bool:
    """DER that begins like a private key: SEQUENCE, then INTEGER 0 (PKCS#1, PKCS#8) or 1
    (SEC1 EC keys)."""
    if len(raw) < 8 or raw[0] != 0x30:
        return False
    n = raw[1]
    at = 2 + (n & 0x7F if n & 0x80 else 0)
    return raw[at : at + 3] in (b"\x02\x01\x00", b"\x02\x01\x01")


def _loads_as_key(raw: bytes) -> str | None:
    if raw.startswith(_OPENSSH_MAGIC):
        return _OPENSSH_KIND if len(raw) > 100 else None
    if not _der_head(raw):
        return None
    n = raw[1]
    if n & 0x80:  # the declared length: what follows it (a continuation's tail) is not the key's
        width = n & 0x7F
        raw = raw[: 2 + width + int.from_bytes(raw[2 : 2 + width], "big")]
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    try:
        load_der_private_key(raw, password=None)
    except (ValueError, TypeError):  # not a key, or an unsupported algorithm
        return None
    except Exception:  # noqa: BLE001 - cryptography's UnsupportedAlgorithm and friends: not a key we can tell
        return None
    return _PEM_KIND


def _key_head(raw: bytes) -> bool:
    """A decoding that begins a key's body (cut short: it does not load on its own)."""
    return raw.startswith(_OPENSSH_MAGIC) or (_der_head(raw) and raw[1] & 0x80 != 0)


# --- readings of one file -------------------------------------------------------------------------


def _png_texts(data: bytes) -> list[bytes]:
    """The text of a PNG's tEXt, zTXt and iTXt chunks (compressed ones inflated, bounded)."""
    texts, at = [], len(_PNG)
    while at + 8 <= len(data):
        (length,), kind = struct.unpack(">I", data[at : at + 4]), data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        try:
            if kind == b"tEXt":
                texts.append(body.partition(b"\0")[2])
            elif kind == b"zTXt":
                texts.append(zlib.decompressobj().decompress(body.partition(b"\0")[2][1:], 16 << 20))
            elif kind == b"iTXt":
                rest = body.partition(b"\0")[2]
                compressed, rest = rest[:1] == b"\1", rest[2:]
                text = rest.split(b"\0", 2)[-1]  # after the language tag and the translated keyword
                texts.append(zlib.decompressobj().decompress(text, 16 << 20) if compressed else text)
        except zlib.error:
            continue
        if kind == b"IEND":
            break
    return texts


def _shown(data: bytes) -> list[bytes]:
    """Entities decoded; and then markup removed too (text a page shows), if it has any."""
    if b"&#" in data:
        data = _ENTITY.sub(lambda m: html.unescape(m.group().decode("ascii")).encode("utf-8", "replace"), data)
    return [data, _TAG.sub(b"", data)] if b"<" in data else [data]


def _compact(data: bytes) -> bytes:
    """White space dropped: no key holds any (a key broken over lines, split by markup)."""
    return data.translate(None, b" \t\r\n\f\v")


def _stable(marker: bytes) -> set[bytes]:
    """The part of ``marker``'s base64 that is the same wherever it sits in the encoded text
    (at each of the three alignments)."""
    out = set()
    for off in range(3):
        encoded = base64.b64encode(b"\0" * off + marker)
        out.add(encoded[(off * 8 + 5) // 6 : ((off + len(marker)) // 3) * 4])
    return out


@functools.cache
def _markers() -> tuple[ahocorasick_rs.BytesAhoCorasick, int]:
    """What the start of a key looks like in base64, and in base64 of base64, at any
    alignment: a base64 run is decoded only where one occurs (secret scanners do the same),
    so the site's many runs (digests, fonts, images) cost one automaton pass."""
    plain = [AGE_PREFIX, AGE_PREFIX.upper(), b"-----BEGIN ", b"-----begin ", _OPENSSH_MAGIC]
    once = {m for p in plain for m in _stable(p)}
    twice = {m for p in once for m in _stable(p)}
    markers = sorted(once | twice)
    return ahocorasick_rs.BytesAhoCorasick(markers), len(markers)


_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_WS = frozenset(b" \t\r\n")
# A DER private key's body (a PEM without armour) begins a run: "M" (SEQUENCE), at a boundary.
# (A literal first: ``re`` finds it at memchr speed; the boundary is checked after.)
_DER_START = re.compile(rb"M[A-Za-z0-9+/]{39}")


def _run_at(text: bytes, at: int) -> bytes:
    """The base64 run holding ``text[at]``, lines joined: back over whole lines (16+
    characters), forward until a line ends in padding or is shorter than the one before."""
    start = at
    while start > 0 and text[start - 1] in _B64_CHARS:
        start -= 1
    end = at
    while end < len(text) and text[end] in _B64_CHARS:
        end += 1
    for _ in range(2):  # "=" padding ends a run
        if end < len(text) and text[end] == 0x3D:
            end += 1
    before = _lines_before(text, start)
    return b"".join([*before, text[start:end], *_lines_after(text, end, text[start:end], len(before))])


def _lines_before(text: bytes, left: int) -> list[bytes]:
    """The whole base64 lines (16+ characters, no padding) just before ``text[left]``."""
    pieces: list[bytes] = []
    while left > 0 and text[left - 1] in _WS:  # lines before, as long as they are whole lines
        j = left
        while j > 0 and text[j - 1] in _WS:
            j -= 1
        k = j
        while k > 0 and text[k - 1] in _B64_CHARS:
            k -= 1
        if j - k < 16 or b"=" in text[k:j]:
            break
        pieces.insert(0, text[k:j])
        left = k
    return pieces


def _lines_after(text: bytes, right: int, first: bytes, before: int) -> list[bytes]:
    """The base64 lines after the run's line `first` (ending at ``text[right]``, `before`
    whole lines before it): until a line ends in padding, is longer than the one before
    (once the run has two lines), or is shorter (the last)."""
    pieces = [first]
    while not pieces[-1].endswith(b"=") and right < len(text) and text[right] in _WS:
        j = right
        while j < len(text) and text[j] in _WS:
            j += 1
        k = j
        while k < len(text) and text[k] in _B64_CHARS:
            k += 1
        while k < len(text) and text[k] == 0x3D:
            k += 1
        if k == j or (k - j > len(pieces[-1]) and before + len(pieces) > 1):
            break
        pieces.append(text[j:k])
        right = k
        if k - j < len(pieces[-2]):
            break  # a short line: the last one
    return pieces[1:]


def _decode_run(run: bytes) -> bytes | None:
    body = run.rstrip(b"=")
    return _b64(body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body)


def _candidates(text: bytes) -> Iterator[tuple[bytes, bytes]]:
    """Decodings of the base64 runs of ``text`` that may hold a key (a marker, or a DER
    body's start), each once."""
    automaton, _ = _markers()
    seen: set[tuple[int, int]] = set()
    starts = [m.start() for m in _DER_START.finditer(text) if m.start() == 0 or text[m.start() - 1] not in _B64_CHARS]
    starts += [start for _, start, _ in automaton.find_matches_as_indexes(text, overlapping=True)]
    for at in starts:
        run = _run_at(text, at)
        key = (hash(run), len(run))
        if key in seen:
            continue
        seen.add(key)
        raw = _decode_run(run)
        if raw is not None:
            yield run, raw


def _in_decodings(texts: list[bytes], fragments: Fragments | None, path: str) -> str | None:
    layer = texts
    for _ in range(DECODE_DEPTH):
        found = []
        for t in layer:
            for run, raw in _candidates(t):
                kind = _found(raw.lower()) or _loads_as_key(raw)
                if kind is not None:
                    return kind
                if fragments is not None and _key_head(raw):
                    fragments.body_heads.append((path, run))
                found.append(raw)
        layer = found
    return None


def key_material(data: bytes, name: str, fragments: Fragments | None = None) -> str | None:
    """What kind of private key ``data`` (the file ``name``) holds, or None; ``fragments``
    collects the starts of keys cut short (:meth:`Fragments.joined` at the end)."""
    low = data.lower()
    found = _found(low)
    if found is not None:
        return found
    base = [data]
    if name.endswith(".gz"):
        base.append(gunzip(data))
    if data.startswith(_PNG):
        base += _png_texts(data)
    shown = [v for b in base for v in _shown(b)]
    compact = [_compact(v).lower() for v in shown]
    for form in [*(b.lower() for b in base[1:]), *compact]:
        found = _found(form)
        if found is not None:
            return found
    if fragments is not None:
        for form in compact:
            # Every match begins with the prefix, so the search starts at its first place (none:
            # no match): bytes.find gets there faster than the expression's own search (0.12-0.17
            # -> 0.05 CPU-s over the demo site's forms).
            at = form.find(AGE_PREFIX)
            if at >= 0:
                fragments.age_heads += [(name, m.group()) for m in _AGE_CUT.finditer(form, at)]
    # Base64 is case-sensitive: decoded from the unlowered forms.
    return _in_decodings(shown, fragments, name)


# --- a key split over files -------------------------------------------------------------------------


@dataclass
class Fragments:
    """The starts of keys cut short in a tree's files (by :func:`key_material`)."""

    age_heads: list[tuple[str, bytes]] = field(default_factory=list)  # (file, prefix + body so far)
    body_heads: list[tuple[str, bytes]] = field(default_factory=list)  # (file, base64 of a body's start)

    def joined(self, files: Iterable[tuple[str, bytes]]) -> tuple[str, str] | None:
        """(the file holding the key's start, the kind) for a key whose rest is in another of
        ``files`` (read only when some start was found): an age identity completed by a
        Bech32 run whose checksum holds, a body completed by a base64 run so that it loads."""
        if not self.age_heads and not self.body_heads:
            return None
        needs = {len(AGE_PREFIX) + _AGE_BODY_LEN - len(head) for _, head in self.age_heads}
        runs = re.compile(rb"(?<![%s])[%s]{%d,%d}(?![%s])" % (_BECH32, _BECH32, min(needs), max(needs), _BECH32)) if needs else None
        for path, data in files:
            compact = [_compact(v) for v in _shown(data)]
            for form in compact:
                for m in runs.finditer(form.lower()) if runs is not None else ():
                    for head_path, head in self.age_heads:
                        if head_path != path and is_age_identity(head + m.group()):
                            return head_path, AGE_KIND
            for head_path, head in self.body_heads:
                if head_path == path:
                    continue
                for form in [*compact, *_shown(data)]:
                    for m in re.finditer(rb"[A-Za-z0-9+/_-]{4,}={0,2}", form[: 2 * _MAX_CONTINUATION]):
                        raw = _decode_run(head + m.group())
                        if raw is not None and (kind := _loads_as_key(raw)):
                            return head_path, kind
        return None
