"""Key material in the output: an age identity, an OpenSSH or PEM private key (design,
security invariant 8; issue 20).

Every build scans every output byte for it, with or without an identity (the embargoed-text
scan needs needles; this one does not): a theme override, an extra template or a page that
copies an identity file or ``SEALBOARD_IDENTITY`` into the site fails the build, and the
output is removed (:func:`builder.pipeline.publish.publish`).

What counts, in the file's bytes (and a ``.gz`` file's inflated bytes):

- ``AGE-SECRET-KEY-1`` in any case followed by at least 20 Bech32 characters (a real
  identity has 58): the bare prefix, as the docs write it ("AGE-SECRET-KEY-1…"), names the
  format and holds no secret;
- a PEM armour header ``-----BEGIN <words> PRIVATE KEY-----`` (OpenSSH's
  ``-----BEGIN OPENSSH PRIVATE KEY-----`` is one), in any case.

The message names the kind of key and the file, never the key. Cost: one ``bytes.lower``
and two ``bytes.find`` over each file (memchr speed); the patterns are checked only where
their fixed part occurs.
"""

from __future__ import annotations

import gzip
import re

AGE_PREFIX = b"age-secret-key-1"
PEM_TAIL = b"private key-----"
# Bech32's alphabet (lower case: the bytes were lowered).
_AGE_BODY = re.compile(rb"[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{20}")
_PEM_HEADER = re.compile(rb"-----begin [a-z0-9 ]{0,40}private key-----$")
REASON = "key-material"


def _found(low: bytes) -> str | None:
    at = low.find(AGE_PREFIX)
    while at >= 0:
        if _AGE_BODY.match(low, at + len(AGE_PREFIX)):
            return "an age secret key (AGE-SECRET-KEY-1…)"
        at = low.find(AGE_PREFIX, at + 1)
    at = low.find(PEM_TAIL)
    while at >= 0:
        end = at + len(PEM_TAIL)
        if _PEM_HEADER.search(low[max(0, at - 60) : end]):
            return "an OpenSSH private key" if b"openssh" in low[max(0, at - 60) : at] else "a PEM private key"
        at = low.find(PEM_TAIL, at + 1)
    return None


def key_material(data: bytes, name: str) -> str | None:
    """What kind of private key ``data`` (the file ``name``) holds, or None."""
    found = _found(data.lower())
    if found is None and name.endswith(".gz"):
        try:
            found = _found(gzip.decompress(data).lower())
        except (OSError, EOFError):
            pass
    return found
