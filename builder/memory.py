"""glibc's malloc, asked to keep the memory a build frees (mallopt(3)), and why.

A build frees and allocates large blocks over and over: each unseal worker allocates and
frees about the same few megabytes per bundle (plaintext, columns); the build process
drops the sealed results it read at ingest (as large as their plaintext) once they are
unsealed, and scoring then makes dozens of short-lived arrays of one value per result row.
By default glibc maps each block above a threshold (128 KiB, raised as such blocks are
freed, to at most 32 MiB) on its own, unmaps it on free, and hands the free top of its heap
back to the kernel, so the next block arrives as fresh pages: one page fault each, zeroed
by the kernel. Raising the mmap and trim thresholds keeps these blocks in the heap, where
the next allocation reuses them.

Measured on bench/bench_build.py's 300-submission instance (2.05 M rows): a worker takes
3 page faults a bundle instead of about 670 (8.0–8.3 instead of 8.85–9.2 ms a bundle); with
ingest reading each file at its own size (so the sealed results land in the heap), the
build's score stage took 0.54–0.57 s instead of 0.61–0.65 s (three builds each, fresh
processes), its peak RSS 640 instead of 614 MB.
Blocks of 64 MiB or more are still mapped on their own. A libc without mallopt (not glibc)
is left as it is.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
KEEP_MMAP_THRESHOLD = 64 << 20
KEEP_TRIM_THRESHOLD = 256 << 20
# After a build: where glibc's own adjustment takes the thresholds at most (mallopt(3):
# mmap up to DEFAULT_MMAP_THRESHOLD_MAX, 32 MiB on 64-bit; trim at twice that). Its
# adjustment cannot be switched back on once mallopt has set them.
AFTER_MMAP_THRESHOLD = 32 << 20
AFTER_TRIM_THRESHOLD = 64 << 20


@functools.cache
def _libc() -> Any | None:
    # The symbols already loaded into this process (dlopen(NULL)), the C library's among
    # them: ctypes.util.find_library would spawn `ldconfig -p` from every build process.
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def keep_freed_memory() -> bool:
    """Keep freed blocks below 64 MiB, and up to 256 MiB of free heap top, for reuse, for
    the rest of this process (an unseal worker's). False where the libc has no mallopt."""
    libc = _libc()
    if libc is None:
        return False
    libc.mallopt(M_MMAP_THRESHOLD, KEEP_MMAP_THRESHOLD)
    libc.mallopt(M_TRIM_THRESHOLD, KEEP_TRIM_THRESHOLD)
    return True


@contextmanager
def freed_memory_kept() -> Iterator[None]:
    """:func:`keep_freed_memory` for the span of a build, then the thresholds glibc's own
    adjustment would reach, with the kept free memory handed back to the kernel (malloc_trim)."""
    kept = keep_freed_memory()
    try:
        yield
    finally:
        libc = _libc()
        if kept and libc is not None:
            libc.mallopt(M_MMAP_THRESHOLD, AFTER_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, AFTER_TRIM_THRESHOLD)
            libc.malloc_trim(0)
