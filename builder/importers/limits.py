"""Limits on harness logs: the importers read files a lab did not write by hand and may
not trust (issue 22, "Hostile logs and answers"). Every limit is a ParseError with its own
reason, never a traceback:

- ``too-deep``: JSON nested deeper than ``MAX_DEPTH`` (200,000-deep nesting raised
  RecursionError in the standard library's parser; orjson stops at 1,024 levels itself,
  and the depth is then checked without recursion);
- ``number-out-of-range``: a number a double cannot hold (``epoch: 1e999``; OverflowError
  before), and an epoch that is not a whole number from 1 to ``MAX_EPOCH``;
- ``oversize`` (containers): more JSON objects and arrays than one per ``BYTES_PER_CONTAINER``
  bytes of the text (outside strings), beyond ``MIN_CONTAINERS``: a 24 MiB sample of
  ``{},`` built 8 million dicts, 20x its size in memory; at the bound a log holds at most
  about 5x its size (an empty dict is 64 bytes). Checked before parsing;
- ``id-too-long``: an id (log sample id, ``--map`` cell) over ``MAX_ID_CHARS`` characters;
- ``zip-member-size``: a ``.eval`` member whose inflated bytes are not the size its entry
  declares (a member claiming 1 KiB that inflates to 256 MiB is stopped at 1 KiB + its
  CRC; nothing beyond the declared size is ever inflated), or declared beyond ``MAX_MEMBER``;
- ``colliding-ids``: two different ids of the log naming one item (after ``--map``, or
  ``1`` against ``"1"``): their samples would have merged into one item silently.

Memory: orjson builds the objects straight from the bytes (no decoded copy of the text),
and each ``.eval`` sample is read, converted and dropped one at a time.

:func:`shown` escapes control characters (terminal escape sequences, bidi controls) in
anything echoed from a log, so a log id cannot drive the terminal.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from typing import Any

import orjson

from builder.errors import ParseError

MAX_DEPTH = 64
BYTES_PER_CONTAINER = 16
MIN_CONTAINERS = 10_000
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"')
_NESTED = re.compile(rb"(?:[\[{][^\[\]{}]{0,64}){%d}" % (MAX_DEPTH + 1))  # openers with no closer between
MAX_ID_CHARS = 256
MAX_EPOCH = 1_000_000
MAX_MEMBER = 256 << 20  # one .eval member (a sample with its transcript) inflated
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """Text with every control character (but tab and newline) escaped as ``\\xNN`` / ``\\uNNNN``."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def check_containers(data: bytes, where: str, line: int | None = None) -> None:
    """Refuse JSON text with more objects and arrays than its size allows (before parsing:
    the parse is what would fill the memory). Braces inside strings (TeX) do not count."""
    if data.count(b"{") + data.count(b"[") <= max(MIN_CONTAINERS, len(data) // BYTES_PER_CONTAINER):
        return  # the common case: no need to look past the strings
    bare = _JSON_STRING.sub(b"", data)
    containers = bare.count(b"{") + bare.count(b"[")
    if containers > max(MIN_CONTAINERS, len(data) // BYTES_PER_CONTAINER) and _NESTED.search(bare):
        raise ParseError(
            f"nests JSON more than {MAX_DEPTH} levels deep",
            where=where,
            line=line,
            reason="too-deep",
            hint="a harness log nests a few levels; this one is not a log",
        )
    if containers > max(MIN_CONTAINERS, len(data) // BYTES_PER_CONTAINER):
        raise ParseError(
            f"holds {containers} JSON objects and arrays in {len(data)} bytes; at most one per {BYTES_PER_CONTAINER} bytes is read",
            where=where,
            line=line,
            reason="oversize",
            hint="a harness log holds samples with their fields; this one is mostly empty containers",
        )


def load_json(data: bytes, where: str, line: int | None = None, what: str = "JSON") -> Any:
    check_containers(data, where, line)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc) or "recursion" in str(exc):  # orjson's own limit (1,024 levels), below Python's stack
            raise ParseError(f"nests JSON more than {MAX_DEPTH} levels deep", where=where, line=line, reason="too-deep") from None
        if "infinity" in str(exc) or "NaN" in str(exc):
            raise ParseError(
                "holds a number a double cannot hold (as 1e999)", where=where, line=line, reason="number-out-of-range"
            ) from None
        raise ParseError(
            f"is not {what} ({str(exc).split(':')[0]})", where=where, line=line or getattr(exc, "lineno", None), reason="bad-log"
        ) from None
    check_depth(value, where, line)
    return value


def check_depth(value: Any, where: str, line: int | None = None) -> None:
    """No recursion: a stack of (container, depth)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ParseError(
                f"nests JSON more than {MAX_DEPTH} levels deep",
                where=where,
                line=line,
                reason="too-deep",
                hint="a harness log nests a few levels; this one is not a log",
            )
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))


def check_id(value: Any, where: str, what: str, line: int | None = None) -> str:
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if text is None:
        raise ParseError(f"{what} is {type(value).__name__}, not a string or an integer", where=where, line=line, reason="bad-log")
    if len(text) > MAX_ID_CHARS:
        raise ParseError(
            f"{what} is {len(text)} characters long; ids are at most {MAX_ID_CHARS}", where=where, line=line, reason="id-too-long"
        )
    return text


def check_epoch(value: Any, where: str) -> int:
    if value is None:
        return 1
    # The range first: it is False for NaN and infinity, before int() could raise on them.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= MAX_EPOCH or value != int(value):
        raise ParseError(
            f"epoch {shown(repr(value))} is not a whole number from 1 to {MAX_EPOCH}", where=where, reason="number-out-of-range"
        )
    return int(value)


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> bytes:
    """A member inflated to its declared size and no further, checked against its CRC."""
    if info.file_size > MAX_MEMBER:
        raise ParseError(
            f"member {shown(info.filename)} declares {info.file_size} bytes; members larger than {MAX_MEMBER} are not imported",
            where=where,
            reason="oversize",
        )
    try:
        with archive.open(info) as fh:
            data = fh.read(info.file_size + 1)  # zipfile stops at the declared size, then checks the CRC
    except zipfile.BadZipFile:
        raise ParseError(
            f"member {shown(info.filename)} does not inflate to the {info.file_size} bytes its entry declares (or fails its CRC)",
            where=where,
            reason="zip-member-size",
            hint="a damaged or crafted archive; export the log again",
        ) from None
    except (NotImplementedError, RuntimeError, zlib.error, EOFError, OSError) as exc:
        raise ParseError(f"member {shown(info.filename)} cannot be read ({type(exc).__name__})", where=where, reason="bad-log") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise ParseError(
            f"member {shown(info.filename)} does not inflate to the {info.file_size} bytes its entry declares",
            where=where,
            reason="zip-member-size",
        )
    return data


class ItemSources:
    """Which id of the log each item came from: two different ids naming one item are
    refused (``1`` and ``"1"`` are different ids: they were different samples)."""

    def __init__(self) -> None:
        self.first: dict[str, tuple[str, str]] = {}

    def add(self, item: str, source: Any, where: str) -> None:
        key = (type(source).__name__, str(source))
        seen = self.first.setdefault(item, key)
        if seen != key:
            a, b = (f"{shown(repr(s if t == 'str' else int(s)))}" for t, s in (seen, key))
            raise ParseError(
                f"ids {a} and {b} of the logs both name item {shown(repr(item))}; their samples would merge into one item",
                where=where,
                reason="colliding-ids",
                hint="map each id of the log to its own item (--map), or fix the ids in the log",
            )
