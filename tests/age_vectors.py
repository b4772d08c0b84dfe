"""Locate and parse the official C2SP age test vectors (npm package ``cctv-age``).

Where the vectors come from, first match wins:

1. ``$SEALBOARD_AGE_VECTORS`` — a directory of vector files (must exist and hold them);
2. ``tests/.age-vectors/`` (gitignored) — filled by ``tests/fetch_age_vectors.sh``;
3. otherwise ``tests/fetch_age_vectors.sh`` is run (npm install cctv-age into a cache
   directory, then the vectors are copied out into ``tests/.age-vectors/``).

If none works, :func:`vectors_or_skip` fails the test when ``CI=true`` and skips it
otherwise.

Vector file format (cctv-age README): ``key: value`` lines, an empty line, then the age
file (zlib-compressed when ``compressed: zlib``). Keys: ``expect`` (``success``,
``no match``, ``HMAC failure``, ``header failure``, ``payload failure``,
``armor failure``), ``payload`` (sha256 hex), ``identity`` / ``passphrase``
(repeatable), ``armored``, ``compressed``, ``file key``, ``comment``.
"""

from __future__ import annotations

import os
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE / ".age-vectors"
FETCH_SCRIPT = HERE / "fetch_age_vectors.sh"
MIN_VECTORS = 100  # cctv-age 0.2.0 ships 143; fewer means a broken extraction

KNOWN_KEYS = {
    "expect",
    "payload",
    "identity",
    "passphrase",
    "armored",
    "compressed",
    "file key",
    "comment",
}
EXPECTS = {
    "success",
    "no match",
    "HMAC failure",
    "header failure",
    "payload failure",
    "armor failure",
}


@dataclass(frozen=True)
class Vector:
    name: str
    expect: str
    payload_sha256: str | None
    identities: tuple[str, ...]
    passphrases: tuple[str, ...]
    armored: bool
    comment: str | None
    data: bytes  # the age file, decompressed


def parse_vector(name: str, raw: bytes) -> Vector:
    head, sep, body = raw.partition(b"\n\n")
    if not sep:
        raise ValueError(f"vector {name}: no blank line after the textual header")
    fields: dict[str, list[str]] = {}
    for line in head.decode("utf-8").split("\n"):
        key, colon, value = line.partition(": ")
        if not colon:
            raise ValueError(f"vector {name}: bad header line {line!r}")
        fields.setdefault(key, []).append(value)
    unknown = set(fields) - KNOWN_KEYS
    if unknown:
        # README: "Files with unknown keys should be ignored." We would rather know.
        raise ValueError(f"vector {name}: unknown keys {sorted(unknown)}")
    expect = fields["expect"][0]
    if expect not in EXPECTS:
        raise ValueError(f"vector {name}: unknown expect {expect!r}")
    compressed = fields.get("compressed", [None])[0]
    if compressed == "zlib":
        body = zlib.decompress(body)
    elif compressed is not None:
        raise ValueError(f"vector {name}: unknown compression {compressed!r}")
    return Vector(
        name=name,
        expect=expect,
        payload_sha256=fields.get("payload", [None])[0],
        identities=tuple(fields.get("identity", [])),
        passphrases=tuple(fields.get("passphrase", [])),
        armored=fields.get("armored", ["no"])[0] == "yes",
        comment=fields.get("comment", [None])[0],
        data=body,
    )


def _vector_files(d: Path) -> list[Path]:
    return sorted(p for p in d.iterdir() if p.is_file() and not p.name.startswith(".") and p.name != "VERSION")


def locate() -> tuple[Path | None, str]:
    """(directory, explanation). The directory is None when vectors are unavailable."""
    env = os.environ.get("SEALBOARD_AGE_VECTORS")
    if env:
        d = Path(env)
        if d.is_dir() and len(_vector_files(d)) >= MIN_VECTORS:
            return d, f"SEALBOARD_AGE_VECTORS={d}"
        return None, f"SEALBOARD_AGE_VECTORS={d} is not a directory of >= {MIN_VECTORS} vectors"
    if DEFAULT_DIR.is_dir() and (DEFAULT_DIR / "VERSION").is_file():
        return DEFAULT_DIR, str(DEFAULT_DIR)
    try:
        proc = subprocess.run(
            ["bash", str(FETCH_SCRIPT), str(DEFAULT_DIR)],
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"running {FETCH_SCRIPT.name} failed: {e}"
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-800:]
        return None, f"{FETCH_SCRIPT.name} exited {proc.returncode}: {tail}"
    return DEFAULT_DIR, f"fetched into {DEFAULT_DIR}"


def load_all(d: Path) -> list[Vector]:
    return [parse_vector(p.name, p.read_bytes()) for p in _vector_files(d)]


_CACHE: list[Vector] | None = None


def vectors_or_skip() -> list[Vector]:
    """All vectors; pytest.fail under CI=true when unavailable, else pytest.skip."""
    import pytest

    global _CACHE
    if _CACHE is not None:
        return _CACHE
    d, why = locate()
    if d is None:
        msg = (
            "C2SP age test vectors unavailable: " + why + ". Run tests/fetch_age_vectors.sh "
            "(needs node+npm and the npm registry) or set SEALBOARD_AGE_VECTORS to a "
            "directory of cctv-age vector files."
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    vectors = load_all(d)
    if len(vectors) < MIN_VECTORS:
        pytest.fail(f"only {len(vectors)} age vectors in {d} (expected >= {MIN_VECTORS})")
    _CACHE = vectors
    return vectors
