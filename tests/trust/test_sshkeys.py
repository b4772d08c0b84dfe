"""SSH keys: parsing, fingerprints and private key loading, checked against real ssh-keygen."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.errors import ParseError, SecretError
from builder.trust.sshkeys import (
    ECDSA_P256,
    ED25519,
    RSA,
    generate_ed25519,
    load_private_key,
    parse_public_key,
    public_key_from_blob,
)
from builder.trust.sshwire import WireReader, put_mpint, put_string

KEYGEN_ARGS = {ED25519: ["-t", "ed25519"], ECDSA_P256: ["-t", "ecdsa", "-b", "256"], RSA: ["-t", "rsa", "-b", "2048"]}


def keygen(directory: Path, name: str, *args: str, passphrase: str = "") -> Path:
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", *args, "-N", passphrase, "-C", f"{name}@test", "-f", str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("keys")
    return {alg: keygen(directory, alg.replace("-", "_"), *args) for alg, args in KEYGEN_ARGS.items()}


def keygen_fingerprint(path: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", str(path)], check=True, capture_output=True, text=True).stdout
    return out.split()[1]


@pytest.mark.parametrize("algorithm", list(KEYGEN_ARGS))
def test_public_key_matches_ssh_keygen(keys: dict[str, Path], algorithm: str) -> None:
    line = keys[algorithm].with_suffix(".pub").read_text()
    key = parse_public_key(line, "k.pub")
    assert key.algorithm == algorithm
    assert key.fingerprint == keygen_fingerprint(keys[algorithm].with_suffix(".pub"))
    assert key.openssh == " ".join(line.split()[:2])
    assert parse_public_key(key.openssh) == key
    assert key.fingerprint in repr(key)


@pytest.mark.parametrize("algorithm", list(KEYGEN_ARGS))
def test_private_key_loads_with_matching_public(keys: dict[str, Path], algorithm: str) -> None:
    private = load_private_key(keys[algorithm])
    assert private.public == parse_public_key(keys[algorithm].with_suffix(".pub").read_text())
    assert private == load_private_key(keys[algorithm].read_bytes())
    assert private == load_private_key(keys[algorithm].read_text())  # text, not a path
    # The repr is safe to log: no key material.
    assert "PRIVATE" not in repr(private) and "crypto" not in repr(private)


def test_generated_key_is_read_by_ssh_keygen(tmp_path: Path) -> None:
    data, public = generate_ed25519("demo@sealboard")
    path = tmp_path / "id"
    path.write_bytes(data)
    path.chmod(0o600)
    out = subprocess.run(["ssh-keygen", "-y", "-f", str(path)], check=True, capture_output=True, text=True).stdout
    assert out.split()[:2] == public.openssh.split()
    assert out.split()[2] == "demo@sealboard"
    assert load_private_key(data).public == public
    assert generate_ed25519()[1] != public


def test_encrypted_private_key_is_refused_with_hint(tmp_path: Path) -> None:
    path = keygen(tmp_path, "enc", "-t", "ed25519", passphrase="correct horse")
    with pytest.raises(SecretError) as info:
        load_private_key(path)
    assert info.value.reason == "encrypted-key"
    assert "passphrase" in str(info.value) and info.value.hint
    assert_no_key_material(str(info.value), path.read_text())


def assert_no_key_material(message: str, file_text: str) -> None:
    for line in file_text.splitlines()[1:-1]:
        assert line[:16] not in message


@pytest.mark.parametrize(
    "content",
    [
        b"not a key",
        b"-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
        b"-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + base64.b64encode(b"openssh-key-v1\x00" + b"\x00" * 40)
        + b"\n-----END OPENSSH PRIVATE KEY-----\n",
    ],
    ids=["garbage", "short", "damaged"],
)
def test_damaged_private_key_is_refused(content: bytes) -> None:
    with pytest.raises(SecretError) as info:
        load_private_key(content, "id")
    assert info.value.reason == "bad-private-key"
    assert info.value.where == "id"


def test_public_key_file_given_as_private_key(keys: dict[str, Path]) -> None:
    pub = keys[ED25519].with_suffix(".pub")
    with pytest.raises(SecretError) as info:
        load_private_key(pub)
    assert info.value.reason == "bad-private-key" and ".pub" in (info.value.hint or "")


def test_corrupted_private_key_body_does_not_echo_secret(keys: dict[str, Path]) -> None:
    text = keys[ED25519].read_text()
    lines = text.splitlines()
    body = base64.b64decode("".join(lines[1:-1]))
    broken = body[:-40]  # cut the private section short
    b64 = base64.b64encode(broken).decode()
    damaged = "\n".join([lines[0], b64, lines[-1]]) + "\n"
    with pytest.raises(SecretError) as info:
        load_private_key(damaged.encode(), "id")
    assert_no_key_material(str(info.value), text)


def test_missing_private_key_file(tmp_path: Path) -> None:
    with pytest.raises(SecretError) as info:
        load_private_key(tmp_path / "nope")
    assert info.value.reason == "unreadable"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("ssh-dss AAAAB3NzaC1kc3MAAACBAP==", "unsupported-key"),
        ("ssh-ed25519", "bad-key"),
        ("ssh-ed25519 not*base64", "bad-key"),
        ("ssh-ed25519 " + base64.b64encode(put_string("ssh-ed25519") + put_string(b"x" * 31)).decode(), "bad-key"),
        ("ssh-ed25519 " + base64.b64encode(put_string("ssh-ed25519") + put_string(b"x" * 32) + b"!").decode(), "trailing-bytes"),
        ("ssh-ed25519 " + base64.b64encode(put_string("ssh-ed25519") + b"\x00\x00\x00\x20abc").decode(), "truncated"),
        # The line names one algorithm, the blob another: refuse rather than guess.
        ("ssh-rsa " + base64.b64encode(put_string("ssh-ed25519") + put_string(b"x" * 32)).decode(), "bad-key"),
        (
            "ecdsa-sha2-nistp256 "
            + base64.b64encode(put_string(ECDSA_P256) + put_string("nistp384") + put_string(b"\x04" + b"\x01" * 64)).decode(),
            "bad-key",
        ),
        (
            "ecdsa-sha2-nistp256 "
            + base64.b64encode(put_string(ECDSA_P256) + put_string("nistp256") + put_string(b"\x04" + b"\x01" * 64)).decode(),
            "bad-key",
        ),
    ],
    ids=["dsa", "no-blob", "bad-base64", "short-ed25519", "trailing", "truncated", "mismatch", "p384-curve", "off-curve"],
)
def test_hostile_public_keys(line: str, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_public_key(line, "registry.yaml")
    assert info.value.reason == reason
    assert info.value.where == "registry.yaml"


def test_small_rsa_key_refused(tmp_path: Path) -> None:
    path = keygen(tmp_path, "small", "-t", "rsa", "-b", "1024")
    with pytest.raises(ParseError) as info:
        parse_public_key(path.with_suffix(".pub").read_text())
    assert info.value.reason == "unsupported-key" and "1024" in str(info.value)


def test_ecdsa_p384_refused(tmp_path: Path) -> None:
    path = keygen(tmp_path, "p384", "-t", "ecdsa", "-b", "384")
    with pytest.raises(ParseError) as info:
        parse_public_key(path.with_suffix(".pub").read_text())
    assert info.value.reason == "unsupported-key"
    with pytest.raises(SecretError) as info2:
        load_private_key(path)
    assert info2.value.reason == "unsupported-key"


def test_rsa_blob_with_non_canonical_mpint(keys: dict[str, Path]) -> None:
    key = parse_public_key(keys[RSA].with_suffix(".pub").read_text())
    reader = WireReader(key.blob, "k")
    reader.string()
    e, n = reader.mpint(), reader.mpint()
    padded_e = put_string(b"\x00" + e.to_bytes(3, "big"))  # needless leading zero
    blob = put_string("ssh-rsa") + padded_e + put_mpint(n)
    with pytest.raises(ParseError) as info:
        public_key_from_blob(blob, error=ParseError)
    assert info.value.reason == "bad-mpint"
    assert public_key_from_blob(put_string("ssh-rsa") + put_mpint(e) + put_mpint(n)) == key


@given(st.integers(min_value=1, max_value=2**4096))
def test_mpint_round_trip(value: int) -> None:
    reader = WireReader(put_mpint(value), "n")
    assert reader.mpint() == value
    reader.done()


@given(st.binary(max_size=300))
def test_string_round_trip(value: bytes) -> None:
    reader = WireReader(put_string(value) + put_string(b"x"), "s")
    assert reader.string() == value and reader.string() == b"x"
    reader.done()
