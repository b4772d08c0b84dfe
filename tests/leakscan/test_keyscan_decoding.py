"""The key scan reads shipped files as a browser decodes them (issue 44, class 7): HTML
character references, base64 (data: URIs), PNG text chunks, SVG text split by <tspan>, a
PEM body without its armour lines, a key split over two files. Each is ``key-material``
naming the file; controls (public keys, the format's name, ordinary images and data URIs)
pass."""

from __future__ import annotations

import base64
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from builder.leakscan.keyscan import AGE_KIND, is_age_identity, key_material
from builder.leakscan.scan import Needles, scan_tree
from builder.trust.agekeys import generate_identity


@pytest.fixture(scope="module")
def age_secret() -> str:
    import pyrage

    return str(pyrage.x25519.Identity.generate())


def _ssh_key(tmp_path: Path, kind: str, fmt: list[str]) -> bytes:
    path = tmp_path / f"k-{kind}"
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "throwaway", "-f", str(path), *fmt], check=True)
    return path.read_bytes()


def _png(chunks: list[tuple[bytes, bytes]]) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + b"".join(chunk(k, b) for k, b in chunks)
        + chunk(b"IDAT", zlib.compress(b"\0\0"))
        + chunk(b"IEND", b"")
    )


def _body(pem: bytes) -> bytes:
    """A PEM's base64 body without its armour lines."""
    return b"\n".join(line for line in pem.splitlines() if line and not line.startswith(b"-----"))


def test_age_key_as_html_character_references(age_secret: str) -> None:
    decimal = "".join(f"&#{ord(c)};" for c in age_secret)
    hexa = "".join(f"&#x{ord(c):x};" for c in age_secret[:20]) + age_secret[20:]
    assert key_material(f"<p>{decimal}</p>".encode(), "page.html") == AGE_KIND
    assert key_material(f"<p>{hexa}</p>".encode(), "page.html") == AGE_KIND


def test_age_key_in_base64_and_in_a_data_uri(age_secret: str) -> None:
    encoded = base64.b64encode(age_secret.encode())
    assert key_material(b"token: " + encoded, "notes.txt") == AGE_KIND
    css = b".x{background:url(data:text/plain;charset=utf-8;base64," + encoded + b")}"
    assert key_material(css, "assets/extra.css") == AGE_KIND
    twice = base64.b64encode(b"k=" + encoded)
    assert key_material(b'<img src="data:image/svg+xml;base64,' + twice + b'">', "x.html") == AGE_KIND


@pytest.mark.parametrize("chunk", ["tEXt", "zTXt", "iTXt-compressed", "iTXt-plain"])
def test_age_key_in_a_png_text_chunk(age_secret: str, chunk: str) -> None:
    text = age_secret.encode()
    body = {
        "tEXt": b"Comment\0" + text,
        "zTXt": b"Comment\0\0" + zlib.compress(text),
        "iTXt-compressed": b"Comment\0\1\0en\0\0" + zlib.compress(text),
        "iTXt-plain": b"Comment\0\0\0en\0\0" + text,
    }[chunk]
    assert key_material(_png([(chunk[:4].encode(), body)]), "assets/logo.png") == AGE_KIND


def test_age_key_in_svg_split_by_tspan(age_secret: str) -> None:
    parts = [age_secret[i : i + 9] for i in range(0, len(age_secret), 9)]
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><text x="0" y="10">'
        + "\n".join(f'<tspan x="0" dy="{i}">{p}</tspan>' for i, p in enumerate(parts))
        + "</text></svg>"
    )
    assert key_material(svg.encode(), "assets/diagram.svg") == AGE_KIND


@pytest.mark.parametrize("kind,fmt,label", [
    ("ed25519", [], "an OpenSSH private key"),
    ("rsa", ["-m", "PEM", "-b", "2048"], "a PEM private key"),
    ("ecdsa", ["-m", "PKCS8"], "a PEM private key"),
])  # fmt: skip
def test_pem_body_without_its_armour(tmp_path: Path, kind: str, fmt: list[str], label: str) -> None:
    body = _body(_ssh_key(tmp_path, kind, fmt))
    assert key_material(b"<pre>\n" + body + b"\n</pre>", "page.html") == label
    assert key_material(b'{"k": "' + body.replace(b"\n", b"") + b'"}', "data.json") == label


def test_age_key_split_over_two_files(tmp_path: Path, age_secret: str) -> None:
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    cut = len("AGE-SECRET-KEY-1") + 10  # fewer than the 20 body characters one file needs
    (site / "assets" / "a.js").write_text(f'const part = "{age_secret[:cut]}";\n')
    (site / "assets" / "z.css").write_text(f'.k::after {{ content: "{age_secret[cut:]}" }}\n')
    assert key_material((site / "assets" / "a.js").read_bytes(), "a.js") is None
    hit, _, _ = scan_tree(site, Needles())
    assert hit is not None and (hit.path, hit.reason) == ("assets/a.js", "key-material")
    assert hit.label == AGE_KIND + ", split over two files"


def test_pem_body_split_over_two_files(tmp_path: Path) -> None:
    body = _body(_ssh_key(tmp_path, "rsa", ["-m", "PEM", "-b", "2048"])).replace(b"\n", b"")
    site = tmp_path / "site"
    site.mkdir()
    (site / "one.txt").write_bytes(b"data " + body[:801])
    (site / "two.txt").write_bytes(body[801:] + b" end")
    hit, _, _ = scan_tree(site, Needles())
    assert hit is not None and (hit.path, hit.label) == ("one.txt", "a PEM private key, split over two files")


def test_controls_pass(tmp_path: Path, age_secret: str) -> None:
    identity = generate_identity()
    public = _ssh_key(tmp_path, "ed25519", [])
    pub_line = (tmp_path / "k-ed25519.pub").read_bytes()
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text(
        f"<p>Keys look like <code>AGE-SECRET-KEY-1…</code>; recipients: {identity.recipient}</p><p>&#65;&#71;&#69; and &amp; &lt;b&gt;</p>"
    )
    (site / "assets" / "pub.txt").write_bytes(pub_line + base64.b64encode(pub_line))
    (site / "assets" / "logo.png").write_bytes(_png([(b"tEXt", b"Software\0Inkscape 1.3")]))
    (site / "assets" / "icon.svg").write_text("<svg><text><tspan>age</tspan> <tspan>recipients</tspan></text></svg>")
    (site / "assets" / "x.css").write_text(
        ".i{background:url(data:image/png;base64," + base64.b64encode(bytes(range(256)) * 4).decode() + ")}"
    )
    (site / "assets" / "digest.txt").write_text(base64.b64encode(bytes(range(48))).decode())
    assert scan_tree(site, Needles())[0] is None
    assert public  # the private half was made, never written to the site
    assert is_age_identity(age_secret.lower().encode()) and not is_age_identity(
        age_secret.lower()[:-1].encode() + b"q" if age_secret.lower()[-1] != "q" else b"x"
    )
