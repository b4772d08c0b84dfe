"""Key material in shipped static files, as a browser decodes them (issue 44, class 7).

A reviewed ``site_src/`` change ships an asset holding the identity lightly encoded: a PNG
whose compressed text chunk holds it, an SVG that splits it over ``<tspan>`` elements, a
stylesheet's ``data:`` URI, a PEM body without its armour lines, a key split over two
files. Each fails the build with ``key-material`` naming the file, never the key, and the
output is removed. Control: assets holding public keys and ordinary images publish.
"""

from __future__ import annotations

import base64
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from builder.errors import LeakError
from hostile.support import Instance


def _png_ztxt(text: bytes) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"zTXt", b"Comment\0\0" + zlib.compress(text))
        + chunk(b"IDAT", zlib.compress(b"\0\0"))
        + chunk(b"IEND", b"")
    )


def _assets(case: str, secret: str, tmp_path: Path) -> dict[str, bytes]:
    if case == "png-compressed-text-chunk":
        return {"logo.png": _png_ztxt(secret.encode())}
    if case == "svg-split-by-tspan":
        parts = "".join(f'<tspan x="0" dy="1.2em">{secret[i : i + 10]}</tspan>\n' for i in range(0, len(secret), 10))
        return {"diagram.svg": f'<svg xmlns="http://www.w3.org/2000/svg"><text>{parts}</text></svg>'.encode()}
    if case == "css-data-uri":
        return {"extra.css": b".k{background:url(data:text/plain;base64," + base64.b64encode(secret.encode()) + b")}"}
    if case == "html-character-references":
        return {"about.html": ("<p>" + "".join(f"&#{ord(c)};" for c in secret) + "</p>").encode()}
    if case == "pem-body-without-armour":
        key = tmp_path / "k"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", str(key)], check=True)
        body = b"\n".join(line for line in key.read_bytes().splitlines() if not line.startswith(b"-----"))
        return {"build.txt": b"checksum:\n" + body + b"\n"}
    if case == "age-key-split-over-two-files":
        cut = len("AGE-SECRET-KEY-1") + 8
        return {"a.js": f'window.a = "{secret[:cut]}";'.encode(), "b.js": f'window.b = "{secret[cut:]}";'.encode()}
    raise AssertionError(case)


CASES = [
    "png-compressed-text-chunk",
    "svg-split-by-tspan",
    "css-data-uri",
    "html-character-references",
    "pem-body-without-armour",
    "age-key-split-over-two-files",
]


@pytest.mark.parametrize("case", CASES)
def test_a_key_in_a_shipped_asset_fails_the_build(inst: Instance, tmp_path: Path, case: str) -> None:
    from builder.pipeline.build import build

    secret = inst.identity.reveal_secret().strip()
    assets = inst.root / "site_src" / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name, data in _assets(case, secret, tmp_path).items():
        (assets / name).write_bytes(data)
    out = tmp_path / "site"
    with pytest.raises(LeakError) as caught:
        build(inst.root, out, identities=[inst.identity])
    err = caught.value
    assert err.reason == "key-material"
    assert err.where.startswith("assets/"), err.where
    assert secret.lower() not in f"{err} {err.hint}".lower()
    assert not out.exists()


def test_control_assets_with_public_keys_publish(inst: Instance, tmp_path: Path) -> None:
    from builder.pipeline.build import build

    key = tmp_path / "k"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", str(key)], check=True)
    assets = inst.root / "site_src" / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    pub = (tmp_path / "k.pub").read_bytes()
    (assets / "keys.txt").write_bytes(pub + b"\n" + base64.b64encode(pub) + b"\n" + inst.identity.recipient.encode() + b"\n")
    (assets / "logo.png").write_bytes(_png_ztxt(b"made with Inkscape; AGE-SECRET-KEY-1... names the format"))
    build(inst.root, tmp_path / "site", identities=[inst.identity])
    assert (tmp_path / "site" / "assets" / "keys.txt").is_file()
