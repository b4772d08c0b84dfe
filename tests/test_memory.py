"""builder.memory against the real glibc: freed blocks are reused while kept, and handed
back after. Each case runs in a fresh interpreter, since malloc's settings are process-wide."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from builder import memory
from builder.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent

# Faults taken by each of three rounds of "allocate 48 MiB, touch every page, free". 48 MiB is
# above the most glibc ever raises its own mmap threshold to (32 MiB) and below builder.memory's.
ROUNDS = """
import json, resource, sys
from builder import memory

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def rounds():
    out = []
    for _ in range(3):
        before = faults()
        block = b"x" * (48 << 20)
        out.append(faults() - before)
        del block
    return out

mode = sys.argv[1]
if mode == "default":
    print(json.dumps({"during": rounds()}))
else:
    with memory.freed_memory_kept():
        during = rounds()
    print(json.dumps({"during": during, "after": rounds()}))
"""

PAGES = (48 << 20) // 4096


def _rounds(mode: str) -> dict[str, list[int]]:
    out = subprocess.run([sys.executable, "-c", ROUNDS, mode], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


pytestmark = pytest.mark.skipif(memory._libc() is None, reason="needs glibc's mallopt and malloc_trim")


def test_by_default_every_large_block_arrives_as_fresh_pages():
    """The cost builder.memory exists for: glibc maps a large block on its own and unmaps it
    on free, so each round faults in every page again."""
    assert all(f >= PAGES * 0.9 for f in _rounds("default")["during"])


def test_kept_memory_is_reused_then_handed_back():
    got = _rounds("kept")
    first, *again = got["during"]
    assert first >= PAGES * 0.9  # the first block is new memory either way
    assert all(f < PAGES * 0.1 for f in again)  # later ones reuse the freed block's pages
    # After the build: the thresholds glibc's own adjustment reaches at most, and malloc_trim,
    # so a block above them is mapped (and faulted in) on its own again rather than kept.
    assert all(f >= PAGES * 0.9 for f in got["after"])


def test_the_build_keeps_freed_memory_only_while_it_runs(monkeypatch, tmp_path):
    """build() runs inside freed_memory_kept (builder.pipeline.build._memory_policy)."""
    import builder.pipeline.build as build_module

    events: list[str] = []

    class Recorder:
        def __enter__(self) -> None:
            events.append("keep")

        def __exit__(self, *exc: object) -> None:
            events.append("restore")

    monkeypatch.setattr(build_module, "freed_memory_kept", Recorder)
    with pytest.raises(ConfigError, match="no leaderboards/ directory"):  # stops at config, still restored
        build_module.build(tmp_path)
    assert events == ["keep", "restore"]
