"""gzip opened for the scans, bounded: a bomb committed to the repository (the checkout scan
reads what a lab's PR adds) must not exhaust the scan's memory."""

from __future__ import annotations

import zlib

MAX_GUNZIP = 256 << 20  # bytes of contents read; the rest of a larger file is not scanned


def gunzip(data: bytes, limit: int = MAX_GUNZIP) -> bytes:
    """A gzip file's contents (every member, as ``gzip.decompress`` reads them), at most
    ``limit`` bytes; ``data`` itself if it does not open as gzip."""
    out: list[bytes] = []
    total, rest = 0, data
    try:
        while rest and total < limit:
            inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            chunk = inflate.decompress(rest, limit - total)
            out.append(chunk)
            total += len(chunk)
            if not inflate.eof:
                break  # truncated, or the limit reached
            rest = inflate.unused_data.lstrip(b"\0")  # gzip allows zero padding between members
    except zlib.error:
        if not out:
            return data
    return b"".join(out)
