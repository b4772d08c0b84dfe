"""SSHSIG: interop with real ssh-keygen both ways, and hostile signatures refused by name."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.errors import SignatureError
from builder.trust.sshkeys import ECDSA_P256, ED25519, RSA, PrivateKey, generate_ed25519, load_private_key, parse_public_key
from builder.trust.sshsig import NS_BUNDLE, NS_REGISTRY, dearmor, sign, split_armored, verify
from builder.trust.sshwire import WireReader, put_string
from tests.sshsig_forge import fields, forge, rearm

KEYGEN_ARGS = {ED25519: ["-t", "ed25519"], ECDSA_P256: ["-t", "ecdsa", "-b", "256"], RSA: ["-t", "rsa", "-b", "3072"]}
MESSAGE = b'{"format": "sealboard-bundle/1", "lab": "acme"}\n'


def keygen(directory: Path, name: str, *args: str) -> Path:
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", *args, "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("sigkeys")
    return {alg: keygen(directory, alg.replace("-", "_"), *args) for alg, args in KEYGEN_ARGS.items()}


def keygen_sign(key: Path, message: bytes, namespace: str, *options: str) -> str:
    target = key.parent / "message"
    target.write_bytes(message)
    sig = target.with_name("message.sig")
    sig.unlink(missing_ok=True)
    subprocess.run(["ssh-keygen", "-Y", "sign", "-n", namespace, "-f", str(key), *options, str(target)], check=True, capture_output=True)
    return sig.read_text()


def keygen_verify(public_line: str, armored: str, message: bytes, namespace: str, directory: Path) -> bool:
    allowed = directory / "allowed_signers"
    allowed.write_text(f'signer namespaces="{namespace}" {public_line}\n')
    sig = directory / "check.sig"
    sig.write_text(armored)
    result = subprocess.run(
        ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", "signer", "-n", namespace, "-s", str(sig)],
        input=message,
        capture_output=True,
    )
    return result.returncode == 0


def signed_data(namespace: str, hash_alg: str, message: bytes) -> bytes:
    """PROTOCOL.sshsig "Signed Data", written out independently of the implementation."""
    digest = hashlib.new(hash_alg, message).digest()
    return b"SSHSIG" + put_string(namespace) + put_string(b"") + put_string(hash_alg) + put_string(digest)


def reason_of(armored: str, message: bytes = MESSAGE, namespace: str = NS_BUNDLE) -> str:
    with pytest.raises(SignatureError) as info:
        verify(armored, message, namespace, "manifest.json.sig")
    assert info.value.where == "manifest.json.sig"
    return info.value.reason


# --- interop ------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", list(KEYGEN_ARGS))
def test_verifies_ssh_keygen_signatures(keys: dict[str, Path], algorithm: str) -> None:
    armored = keygen_sign(keys[algorithm], MESSAGE, NS_BUNDLE)
    signer = verify(armored, MESSAGE, NS_BUNDLE)
    assert signer == parse_public_key(keys[algorithm].with_suffix(".pub").read_text())
    assert reason_of(armored, MESSAGE + b" ") == "bad-signature"


def test_verifies_ssh_keygen_rsa_sha256(keys: dict[str, Path]) -> None:
    armored = keygen_sign(keys[RSA], MESSAGE, NS_BUNDLE, "-O", "hashalg=sha256")
    assert fields(armored)["hash"] == b"sha256"
    assert verify(armored, MESSAGE, NS_BUNDLE).algorithm == RSA


@pytest.mark.parametrize("hash_alg", ["sha512", "sha256"])
@pytest.mark.parametrize("algorithm", list(KEYGEN_ARGS))
def test_ssh_keygen_verifies_our_signatures(keys: dict[str, Path], algorithm: str, hash_alg: str, tmp_path: Path) -> None:
    private = load_private_key(keys[algorithm])
    armored = sign(private, MESSAGE, NS_BUNDLE, hash_alg)
    assert keygen_verify(private.public.openssh, armored, MESSAGE, NS_BUNDLE, tmp_path)
    assert not keygen_verify(private.public.openssh, armored, MESSAGE + b"x", NS_BUNDLE, tmp_path)
    assert verify(armored, MESSAGE, NS_BUNDLE) == private.public


def test_rsa_signs_with_rsa_sha2_512(keys: dict[str, Path]) -> None:
    armored = sign(load_private_key(keys[RSA]), MESSAGE, NS_BUNDLE)
    assert WireReader(fields(armored)["signature"], "s").string() == b"rsa-sha2-512"  # type: ignore[arg-type]


def test_ed25519_armor_is_byte_identical_to_ssh_keygen(keys: dict[str, Path]) -> None:
    # Ed25519 is deterministic, so the whole file must match, armor and wrapping included.
    for message in (MESSAGE, b"", b"x" * 10000):
        assert sign(load_private_key(keys[ED25519]), message, NS_REGISTRY) == keygen_sign(keys[ED25519], message, NS_REGISTRY)


# --- hostile signatures, each refused for its own reason ----------------------------------


@pytest.fixture(scope="module")
def good(keys: dict[str, Path]) -> str:
    return keygen_sign(keys[ED25519], MESSAGE, NS_BUNDLE)


def test_flipped_signature_byte(good: str) -> None:
    signature = bytearray(fields(good)["signature"])  # type: ignore[arg-type]
    signature[-5] ^= 0x01
    assert reason_of(forge(good, signature=bytes(signature))) == "bad-signature"


def test_wrong_namespace(good: str) -> None:
    assert reason_of(good, namespace="sealboard-dataset") == "wrong-namespace"
    # Rewriting the namespace field does not help: it is covered by the signature.
    assert reason_of(forge(good, namespace=b"sealboard-dataset"), namespace="sealboard-dataset") == "bad-signature"


@pytest.mark.parametrize("hash_alg", [b"sha1", b"md5", b"sha384", b"SHA512", b""])
def test_refused_hash_algorithm(good: str, hash_alg: bytes) -> None:
    with pytest.raises(SignatureError) as info:
        verify(forge(good, hash=hash_alg), MESSAGE, NS_BUNDLE)
    assert info.value.reason == "bad-hash-alg"
    assert repr(hash_alg.decode()) in str(info.value)


def test_hash_algorithm_swap_between_accepted_ones(good: str) -> None:
    assert reason_of(forge(good, hash=b"sha256")) == "bad-signature"


@pytest.mark.parametrize("version", [0, 2, 0xFFFFFFFF])
def test_other_versions(good: str, version: int) -> None:
    assert reason_of(forge(good, version=version)) == "bad-version"


def test_bad_magic(good: str) -> None:
    assert reason_of(forge(good, magic=b"SSHSIH")) == "bad-magic"
    assert reason_of(rearm(b"SSH")) == "bad-magic"


def test_trailing_bytes_in_blob(good: str) -> None:
    assert reason_of(forge(good, trailing=b"\x00")) == "trailing-bytes"


def test_trailing_bytes_in_signature_field(good: str) -> None:
    assert reason_of(forge(good, signature=fields(good)["signature"] + b"\x00")) == "trailing-bytes"  # type: ignore[operator]


def test_truncated_blob(good: str) -> None:
    blob = dearmor(good)
    for cut in (8, 30, len(blob) - 1):
        assert reason_of(rearm(blob[:cut])) == "truncated"


@pytest.mark.parametrize(
    "text",
    [
        "garbage\n{sig}",
        "{sig}trailing garbage\n",
        "{sig}{sig}",
        "{sig_no_end}",
        "{sig_no_begin}",
        "-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n",
        "{sig_space_in_body}",
        "{sig_bad_char}",
        "",
    ],
    ids=["before", "after", "two-blocks", "no-end", "no-begin", "empty-body", "space-inside", "bad-char", "empty"],
)
def test_bad_armor(good: str, text: str) -> None:
    lines = good.splitlines()
    armored = text.format(
        sig=good,
        sig_no_end="\n".join(lines[:-1]) + "\n",
        sig_no_begin="\n".join(lines[1:]) + "\n",
        sig_space_in_body="\n".join([lines[0], lines[1][:10] + " " + lines[1][10:], *lines[2:]]),
        sig_bad_char="\n".join([lines[0], "*" + lines[1][1:], *lines[2:]]),
    )
    assert reason_of(armored) == "bad-armor"


def test_non_canonical_base64(good: str) -> None:
    # Size the (unsigned, ignored) reserved field so the blob ends in "==": 4 spare bits.
    padding_size = (1 - len(dearmor(good))) % 3
    canonical = forge(good, reserved=b"r" * padding_size)
    assert verify(canonical, MESSAGE, NS_BUNDLE)
    lines = canonical.splitlines()
    last = lines[-2]
    assert last.endswith("==")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    bumped = alphabet[alphabet.index(last[-3]) + 1]  # same bytes, nonzero padding bits
    altered = "\n".join([*lines[:-2], last[:-3] + bumped + "==", lines[-1]]) + "\n"
    assert base64.b64decode("".join(altered.splitlines()[1:-1])) == dearmor(canonical)
    assert reason_of(altered) == "bad-armor"
    no_padding = "\n".join([*lines[:-2], last.rstrip("="), lines[-1]]) + "\n"
    assert reason_of(no_padding) == "bad-armor"


def test_trailing_whitespace_accepted_but_not_leading_or_crlf(good: str, keys: dict[str, Path]) -> None:
    # As ssh-keygen -Y verify: blank lines after END are fine; anything before BEGIN and CR
    # line ends are refused (so allowed_signers + ssh-keygen agree with the builder).
    expected = parse_public_key(keys[ED25519].with_suffix(".pub").read_text())
    assert verify(good + "\n\n", MESSAGE, NS_BUNDLE) == expected
    assert reason_of("\n\n  " + good) == "bad-armor"
    assert reason_of(good.replace("\n", "\r\n")) == "bad-armor"


def test_rsa_sha1_signature_refused(keys: dict[str, Path], tmp_path: Path) -> None:
    private = load_private_key(keys[RSA])
    good_rsa = sign(private, MESSAGE, NS_BUNDLE)
    raw = private._crypto.sign(signed_data(NS_BUNDLE, "sha512", MESSAGE), padding.PKCS1v15(), hashes.SHA1())
    sha1 = forge(good_rsa, signature=put_string("ssh-rsa") + put_string(raw))
    assert reason_of(sha1) == "bad-sig-alg"
    assert not keygen_verify(private.public.openssh, sha1, MESSAGE, NS_BUNDLE, tmp_path)  # ssh-keygen agrees


def test_signature_algorithm_must_match_key(good: str, keys: dict[str, Path]) -> None:
    inner = WireReader(fields(good)["signature"], "s")  # type: ignore[arg-type]
    inner.string()
    raw = inner.string()
    for alg in (b"rsa-sha2-512", b"ecdsa-sha2-nistp256", b"ssh-ed448"):
        assert reason_of(forge(good, signature=put_string(alg) + put_string(raw))) == "bad-sig-alg"
    ecdsa = keygen_sign(keys[ECDSA_P256], MESSAGE, NS_BUNDLE)
    assert reason_of(forge(ecdsa, signature=put_string(b"ssh-ed25519") + put_string(raw))) == "bad-sig-alg"


def test_key_swapped_for_another(good: str) -> None:
    _, other = generate_ed25519()
    assert reason_of(forge(good, key=other.blob)) == "bad-signature"


def test_unsupported_key_in_signature(tmp_path: Path) -> None:
    small = keygen(tmp_path, "small", "-t", "rsa", "-b", "1024")
    armored = keygen_sign(small, MESSAGE, NS_BUNDLE)
    assert reason_of(armored) == "unsupported-key"
    p384 = keygen(tmp_path, "p384", "-t", "ecdsa", "-b", "384")
    assert reason_of(keygen_sign(p384, MESSAGE, NS_BUNDLE)) == "unsupported-key"


def test_reserved_field_is_ignored_like_ssh_keygen(good: str, keys: dict[str, Path], tmp_path: Path) -> None:
    # PROTOCOL.sshsig: implementations ignore a non-empty reserved field; it is not signed.
    stuffed = forge(good, reserved=b"future")
    public = parse_public_key(keys[ED25519].with_suffix(".pub").read_text())
    assert verify(stuffed, MESSAGE, NS_BUNDLE) == public
    assert keygen_verify(public.openssh, stuffed, MESSAGE, NS_BUNDLE, tmp_path)


def test_checks_survive_python_O(good: str, tmp_path: Path) -> None:
    """Nothing relies on `assert`: a forged signature is still refused under -O."""
    forged = tmp_path / "forged.sig"
    forged.write_text(forge(good, hash=b"md5"))
    code = (
        "import sys; from builder.trust.sshsig import verify; from builder.errors import SignatureError\n"
        "try:\n verify(open(sys.argv[1]).read(), b'', 'sealboard-bundle')\n"
        "except SignatureError as e:\n print(e.reason)\n"
    )
    out = subprocess.run([sys.executable, "-O", "-c", code, str(forged)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "bad-hash-alg"


# --- several signatures in one file -------------------------------------------------------


def test_split_armored(keys: dict[str, Path]) -> None:
    sigs = [sign(load_private_key(keys[alg]), MESSAGE, NS_REGISTRY) for alg in KEYGEN_ARGS]
    blocks = split_armored("\n".join(sigs) + "\n\n")
    assert blocks == sigs
    assert [verify(b, MESSAGE, NS_REGISTRY).algorithm for b in blocks] == list(KEYGEN_ARGS)
    assert split_armored("") == [] and split_armored(b"  \n") == []
    with pytest.raises(SignatureError) as info:
        split_armored(sigs[0] + "oops\n" + sigs[1])
    assert info.value.reason == "bad-armor"


# --- properties ---------------------------------------------------------------------------

PROPERTY_KEY: PrivateKey = load_private_key(generate_ed25519()[0])
namespaces = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.@", min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(message=st.binary(max_size=2000), namespace=namespaces, hash_alg=st.sampled_from(["sha256", "sha512"]))
def test_sign_verify_round_trip(message: bytes, namespace: str, hash_alg: str) -> None:
    armored = sign(PROPERTY_KEY, message, namespace, hash_alg)
    assert verify(armored, message, namespace) == PROPERTY_KEY.public
    assert split_armored(armored + armored) == [armored, armored]
    with pytest.raises(SignatureError) as info:
        verify(armored, message, namespace + "x")
    assert info.value.reason == "wrong-namespace"
    with pytest.raises(SignatureError) as info:
        verify(armored, message + b"\x00", namespace)
    assert info.value.reason == "bad-signature"
