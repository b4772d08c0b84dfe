"""Key material in the output fails the build (design, invariant 8; issue 20).

An age identity, an OpenSSH or a PEM private key anywhere in the site's bytes (a page of
``site_src``, a theme override, a copied file) fails the build with ``key-material``,
naming the file and never the key; the output is removed. Controls: the format's name as
the docs write it ("AGE-SECRET-KEY-1…", a PEM header named in prose without its dashes),
public keys and recipients pass.
"""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

import pytest

from builder.errors import LeakError
from builder.leakscan.keyscan import key_material
from builder.leakscan.scan import Needles, scan_tree
from builder.trust.agekeys import generate_identity
from hostile.support import Instance

pytestmark = pytest.mark.slow  # builds sites


def _throwaway_age_secret() -> str:
    import pyrage

    return str(pyrage.x25519.Identity.generate())


def _throwaway_ssh_key(tmp_path: Path, kind: str, fmt: list[str]) -> bytes:
    path = tmp_path / f"key-{kind}-{len(fmt)}"
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "throwaway", "-f", str(path), *fmt], check=True)
    return path.read_bytes()


def test_a_page_holding_an_age_secret_key_fails_the_build(inst: Instance, tmp_path: Path) -> None:
    from builder.pipeline.build import build

    secret = _throwaway_age_secret()
    (inst.root / "site_src" / "robots-notes.md").write_text(f"# Notes\n\nkey: {secret}\n")
    out = tmp_path / "site"
    with pytest.raises(LeakError) as caught:
        build(inst.root, out, identities=[inst.identity])
    err = caught.value
    assert err.reason == "key-material"
    assert err.where == "robots-notes.html"
    text = f"{err} {err.hint}"
    assert secret not in text and secret.lower() not in text.lower() and "age secret key" in text
    assert not out.exists(), "the output was removed"


@pytest.mark.parametrize("kind,fmt,label", [
    ("ed25519", [], "an OpenSSH private key"),
    ("rsa", ["-m", "PEM", "-b", "2048"], "a PEM private key"),
    ("ecdsa", ["-m", "PKCS8"], "a PEM private key"),
])  # fmt: skip
def test_private_keys_are_key_material(tmp_path: Path, kind: str, fmt: list[str], label: str) -> None:
    key = _throwaway_ssh_key(tmp_path, kind, fmt)
    assert key_material(b"<pre>" + key + b"</pre>", "page.html") == label
    # As mkdocs' search index holds it: JSON, newlines escaped.
    assert key_material(b'{"text": "' + key.replace(b"\n", b"\\n") + b'"}', "search_index.json") == label
    assert key_material(gzip.compress(key), "sitemap.xml.gz") == label


def test_age_secret_key_in_any_case_and_in_a_tree(tmp_path: Path) -> None:
    secret = _throwaway_age_secret()
    assert key_material(secret.encode(), "a.html") == "an age secret key (AGE-SECRET-KEY-1…)"
    assert key_material(secret.lower().encode(), "a.txt") is not None
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    (site / "index.html").write_text("<p>fine</p>")
    (site / "data" / "x.json").write_text(f'{{"k": "{secret}"}}')
    hit, files, _ = scan_tree(site, Needles())  # no needles (an unauthorised build): still scanned
    assert hit is not None and (hit.path, hit.reason) == ("data/x.json", "key-material") and files == 1  # the first file (sorted) holds it


def test_controls_format_names_and_public_keys_pass(tmp_path: Path) -> None:
    identity = generate_identity()
    public = _throwaway_ssh_key(tmp_path, "ed25519", [])
    pub_line = (tmp_path / "key-ed25519-0.pub").read_bytes()
    assert public  # the private half exists, but only the public line is published below
    page = (
        "An identity file holds one line, AGE-SECRET-KEY-1…, and the recipient "
        f"{identity.recipient}; labs sign with {pub_line.decode()}; "
        "a key file begins with BEGIN OPENSSH PRIVATE KEY, which is never published."
    ).encode()
    assert key_material(page, "keys.html") is None
    site = tmp_path / "site"
    site.mkdir()
    (site / "keys.html").write_bytes(page)
    assert scan_tree(site, Needles())[0] is None
