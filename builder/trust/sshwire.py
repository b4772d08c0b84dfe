"""SSH wire encoding (RFC 4251 §5): uint32, string and mpint, read strictly.

Keys and signatures arrive from pull requests, so the reader refuses anything a lenient
parser would paper over: a length running past the end (`truncated`), bytes left over
once a structure is read (`trailing-bytes`), and mpints that are negative or carry
needless leading bytes (`bad-mpint`), since a second encoding of the same value would
make signatures malleable.
"""

from __future__ import annotations

import struct

from builder.errors import BuilderError, SignatureError

_U32 = struct.Struct(">I")


class WireReader:
    """Reads one SSH wire structure; errors are `error` (a BuilderError class) with a reason."""

    def __init__(
        self,
        data: bytes,
        what: str,
        *,
        where: str | None = None,
        error: type[BuilderError] = SignatureError,
    ) -> None:
        self._data = memoryview(bytes(data))
        self._pos = 0
        self._what = what
        self._where = where
        self._error = error

    def fail(self, message: str, reason: str) -> BuilderError:
        """An error about this structure, to be raised by the caller."""
        return self._error(f"{self._what}: {message}", where=self._where, reason=reason)

    @property
    def remaining(self) -> int:
        return len(self._data) - self._pos

    def raw(self, n: int) -> bytes:
        if n > self.remaining:
            raise self.fail(f"truncated: needs {n} bytes at offset {self._pos}, has {self.remaining}", "truncated")
        out = bytes(self._data[self._pos : self._pos + n])
        self._pos += n
        return out

    def uint32(self) -> int:
        return _U32.unpack(self.raw(4))[0]

    def string(self) -> bytes:
        return self.raw(self.uint32())

    def text(self) -> str:
        """A string field holding a name (algorithm, namespace): printable ASCII only."""
        value = self.string()
        if not all(0x20 < b < 0x7F for b in value):
            raise self.fail(f"name field {shown(value)} is not printable ASCII", "bad-encoding")
        return value.decode("ascii")

    def mpint(self) -> int:
        """A positive mpint in its one canonical form (RFC 4251 §5)."""
        value = self.string()
        if not value:
            raise self.fail("mpint is zero", "bad-mpint")
        if value[0] & 0x80:
            raise self.fail("mpint is negative", "bad-mpint")
        if value[0] == 0 and (len(value) == 1 or not value[1] & 0x80):
            raise self.fail("mpint has a needless leading zero byte", "bad-mpint")
        return int.from_bytes(value, "big")

    def done(self) -> None:
        """Require that the whole structure has been read."""
        if self.remaining:
            raise self.fail(f"{self.remaining} trailing bytes after the end", "trailing-bytes")


def shown(value: bytes, limit: int = 40) -> str:
    """A safe, short rendering of an untrusted name for error messages."""
    text = ascii(value[:limit].decode("ascii", "replace"))
    return text + ("…" if len(value) > limit else "")


def put_uint32(value: int) -> bytes:
    return _U32.pack(value)


def put_string(value: bytes | str) -> bytes:
    if isinstance(value, str):
        value = value.encode("utf-8")
    return _U32.pack(len(value)) + value


def put_mpint(value: int) -> bytes:
    """A non-negative integer as an mpint: big-endian, a 0x00 prefix when the top bit is set."""
    if value < 0:
        raise ValueError("negative mpint")
    if value == 0:
        return put_string(b"")
    body = value.to_bytes((value.bit_length() + 8) // 8, "big")  # +8 leaves room for the sign bit
    return put_string(body)
