"""Forge SSHSIG blobs for hostile tests: decode into PROTOCOL.sshsig fields, change some,
re-encode. Written independently of builder.trust.sshsig's encoder (only the wire helpers and
the armor decoder are shared)."""

from __future__ import annotations

import base64
from typing import Any

from builder.trust.sshsig import dearmor
from builder.trust.sshwire import WireReader, put_string, put_uint32


def fields(armored: str | bytes) -> dict[str, Any]:
    blob = dearmor(armored)
    reader = WireReader(blob[6:], "t")
    return {
        "magic": blob[:6],
        "version": reader.uint32(),
        "key": reader.string(),
        "namespace": reader.string(),
        "reserved": reader.string(),
        "hash": reader.string(),
        "signature": reader.string(),
    }


def rearm(blob: bytes, width: int = 70) -> str:
    b64 = base64.b64encode(blob).decode()
    lines = "\n".join(b64[i : i + width] for i in range(0, len(b64), width))
    return "-----BEGIN SSH SIGNATURE-----\n" + lines + "\n-----END SSH SIGNATURE-----\n"


def forge(armored: str | bytes, trailing: bytes = b"", **changes: Any) -> str:
    f = {**fields(armored), **changes}
    blob = f["magic"] + put_uint32(f["version"])
    for name in ("key", "namespace", "reserved", "hash", "signature"):
        blob += put_string(f[name])
    return rearm(blob + trailing)
