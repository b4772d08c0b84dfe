"""SSH public and private keys: parse, fingerprint, and the raw sign/verify primitives.

Key blobs follow RFC 4253 §6.6 (ssh-rsa), RFC 8709 (ssh-ed25519) and RFC 5656 §3.1
(ecdsa-sha2-nistp256); signature algorithms follow RFC 8332 (rsa-sha2-256/512). Only
the three algorithms below are accepted: Ed25519 is what labs are asked for, P-256 and
RSA (2048 bits or more, never SHA-1 signatures) are there because labs already have them.
SSHSIG itself, the envelope around these primitives, lives in `builder.trust.sshsig`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from builder.errors import BuilderError, ParseError, SecretError, SignatureError
from builder.trust.sshwire import WireReader, put_mpint, put_string, shown

ED25519 = "ssh-ed25519"
ECDSA_P256 = "ecdsa-sha2-nistp256"
RSA = "ssh-rsa"
KEY_ALGORITHMS = (ED25519, ECDSA_P256, RSA)
ECDSA_P256_CURVE = "nistp256"  # RFC 5656 §6.1 curve identifier inside the key blob

# Signature algorithm each key type may sign with. SHA-1 "ssh-rsa" signatures are
# refused: RFC 8332 deprecates them and ssh-keygen -Y refuses them too.
SIGNATURE_ALGORITHMS: dict[str, tuple[str, ...]] = {
    ED25519: ("ssh-ed25519",),
    ECDSA_P256: ("ecdsa-sha2-nistp256",),
    RSA: ("rsa-sha2-512", "rsa-sha2-256"),
}
_RSA_HASHES = {"rsa-sha2-512": hashes.SHA512, "rsa-sha2-256": hashes.SHA256}
RSA_MIN_BITS = 2048
RSA_MAX_BITS = 16384  # OpenSSH's own ceiling; larger keys only cost verification time

PRIVATE_KEY_BEGIN = b"-----BEGIN OPENSSH PRIVATE KEY-----"
PRIVATE_KEY_MAGIC = b"openssh-key-v1\x00"  # PROTOCOL.key: AUTH_MAGIC
MAX_KEY_LINE = 16384
MAX_PRIVATE_KEY_FILE = 65536
_B64_RE = re.compile(r"[A-Za-z0-9+/]+={0,2}\Z")


@dataclass(frozen=True, repr=False)
class PublicKey:
    """A public key, identified by its SSH wire blob; equal keys have equal blobs."""

    algorithm: str
    blob: bytes
    crypto: Any = field(compare=False, repr=False)

    @property
    def fingerprint(self) -> str:
        """As `ssh-keygen -lf` prints it: SHA256 of the blob, unpadded base64."""
        digest = hashlib.sha256(self.blob).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    @property
    def openssh(self) -> str:
        """The `algo base64` form used in authorized_keys and allowed_signers files."""
        return f"{self.algorithm} {base64.b64encode(self.blob).decode('ascii')}"

    def __str__(self) -> str:
        return f"{self.algorithm} {self.fingerprint}"

    def __repr__(self) -> str:
        return f"PublicKey({self.algorithm} {self.fingerprint})"

    def verify_ssh_signature(self, signature: bytes, data: bytes, *, where: str | None = None) -> str:
        """Check an SSH signature blob (`string alg, string sig`) over data; return alg.

        Raises SignatureError: `bad-sig-alg` when the algorithm does not belong to this key
        type (or is SHA-1 RSA), `bad-signature` when the signature does not verify.
        """
        reader = WireReader(signature, "signature", where=where)
        sig_alg = reader.text()
        sig = reader.string()
        reader.done()
        if sig_alg not in SIGNATURE_ALGORITHMS[self.algorithm]:
            raise SignatureError(
                f"signature algorithm {sig_alg!r} is not accepted for a {self.algorithm} key",
                where=where,
                reason="bad-sig-alg",
                hint=f"sign with {' or '.join(SIGNATURE_ALGORITHMS[self.algorithm])} (stock ssh-keygen -Y sign does)",
            )
        try:
            if self.algorithm == ED25519:
                self.crypto.verify(sig, data)
            elif self.algorithm == ECDSA_P256:
                # RFC 5656 §3.1.2: the signature blob holds mpint r, mpint s.
                inner = WireReader(sig, "ECDSA signature", where=where)
                r, s = inner.mpint(), inner.mpint()
                inner.done()
                self.crypto.verify(encode_dss_signature(r, s), data, ec.ECDSA(hashes.SHA256()))
            else:
                # RFC 8332 §3: exactly the modulus length. OpenSSH also zero-pads shorter
                # ones; we refuse them so each signature has one byte encoding.
                if len(sig) != (self.crypto.key_size + 7) // 8:
                    raise InvalidSignature
                self.crypto.verify(sig, data, padding.PKCS1v15(), _RSA_HASHES[sig_alg]())
        except InvalidSignature:
            raise SignatureError(
                f"signature by {self.fingerprint} does not verify",
                where=where,
                reason="bad-signature",
                hint="the signed bytes changed after signing, or the signature was damaged; sign again",
            ) from None
        return sig_alg


def _reject_key(message: str, where: str | None, error: type[BuilderError], reason: str = "unsupported-key") -> BuilderError:
    return error(
        message,
        where=where,
        reason=reason,
        hint="use an Ed25519 key: ssh-keygen -t ed25519 (ECDSA P-256 and RSA >= 2048 bits are also accepted)",
    )


def public_key_from_blob(blob: bytes, *, where: str | None = None, error: type[BuilderError] = SignatureError) -> PublicKey:
    """Decode a public key blob strictly; unsupported types raise reason `unsupported-key`."""
    reader = WireReader(blob, "public key", where=where, error=error)
    algorithm = reader.text()
    try:
        if algorithm == ED25519:
            raw = reader.string()
            reader.done()
            if len(raw) != 32:
                raise _reject_key(f"Ed25519 key is {len(raw)} bytes, not 32", where, error, "bad-key")
            crypto: Any = ed25519.Ed25519PublicKey.from_public_bytes(raw)
        elif algorithm == ECDSA_P256:
            curve = reader.text()
            point = reader.string()
            reader.done()
            if curve != ECDSA_P256_CURVE:
                raise _reject_key(f"ECDSA key names curve {curve!r}, expected {ECDSA_P256_CURVE}", where, error, "bad-key")
            if len(point) != 65 or point[0] != 4:
                raise _reject_key("ECDSA key is not an uncompressed P-256 point", where, error, "bad-key")
            crypto = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        elif algorithm == RSA:
            e, n = reader.mpint(), reader.mpint()
            reader.done()
            if not RSA_MIN_BITS <= n.bit_length() <= RSA_MAX_BITS:
                raise _reject_key(f"RSA key has {n.bit_length()} bits; {RSA_MIN_BITS} to {RSA_MAX_BITS} are accepted", where, error)
            crypto = rsa.RSAPublicNumbers(e, n).public_key()
        else:
            raise _reject_key(f"key type {shown(algorithm.encode())} is not accepted", where, error)
    except ValueError:
        # cryptography refuses points off the curve, even exponents and the like.
        raise _reject_key(f"{algorithm} key is not a valid public key", where, error, "bad-key") from None
    return PublicKey(algorithm, bytes(blob), crypto)


def parse_public_key(line: str, where: str | None = None, *, error: type[BuilderError] = ParseError) -> PublicKey:
    """Parse `algo base64 [comment]` (one authorized_keys-style line, without options)."""
    if not isinstance(line, str):
        raise error("public key must be a string like 'ssh-ed25519 AAAA…'", where=where, reason="bad-key")
    if len(line) > MAX_KEY_LINE:
        raise error("public key line is too long", where=where, reason="bad-key")
    parts = line.strip().split(None, 2)
    if len(parts) < 2:
        raise error(
            "public key must look like 'ssh-ed25519 AAAA… [comment]'",
            where=where,
            reason="bad-key",
            hint="paste the single line of the .pub file",
        )
    algorithm, b64 = parts[0], parts[1]
    if algorithm not in KEY_ALGORITHMS:
        raise _reject_key(f"key type {shown(algorithm.encode())} is not accepted", where, error)
    try:
        if not _B64_RE.match(b64):
            raise binascii.Error
        blob = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise error("public key is not valid base64", where=where, reason="bad-key") from None
    key = public_key_from_blob(blob, where=where, error=error)
    if key.algorithm != algorithm:
        raise error(f"public key line says {algorithm} but its blob is {key.algorithm}", where=where, reason="bad-key")
    return key


@dataclass(frozen=True)
class PrivateKey:
    """A loaded private key. Its repr and errors never show the secret."""

    public: PublicKey
    _crypto: Any = field(repr=False, compare=False)

    def sign_ssh(self, data: bytes) -> bytes:
        """Sign data; return the SSH signature blob `string alg, string sig`."""
        algorithm = self.public.algorithm
        if algorithm == ED25519:
            return put_string(ED25519) + put_string(self._crypto.sign(data))
        if algorithm == ECDSA_P256:
            r, s = decode_dss_signature(self._crypto.sign(data, ec.ECDSA(hashes.SHA256())))
            return put_string(ECDSA_P256) + put_string(put_mpint(r) + put_mpint(s))
        # RSA: rsa-sha2-512, as ssh-keygen -Y sign does (RFC 8332).
        sig = self._crypto.sign(data, padding.PKCS1v15(), hashes.SHA512())
        return put_string("rsa-sha2-512") + put_string(sig)


def _public_from_crypto(key: Any, where: str | None) -> PublicKey:
    raw = key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return parse_public_key(raw.decode("ascii"), where, error=SecretError)


def _check_unencrypted(data: bytes, where: str | None) -> None:
    """Read just far enough into PROTOCOL.key to tell an encrypted key from a damaged one."""
    body = data.strip()
    end = body.find(b"-----END OPENSSH PRIVATE KEY-----")
    try:
        blob = base64.b64decode(b"".join(body[len(PRIVATE_KEY_BEGIN) : end].split()), validate=True)
    except (binascii.Error, ValueError):
        blob = b""
    if end < 0 or not blob.startswith(PRIVATE_KEY_MAGIC):
        raise SecretError("private key file is damaged (not an OpenSSH private key)", where=where, reason="bad-private-key")
    reader = WireReader(blob[len(PRIVATE_KEY_MAGIC) :], "private key", where=where, error=SecretError)
    ciphername, kdfname = reader.string(), reader.string()
    if ciphername != b"none" and kdfname == b"bcrypt":  # PROTOCOL.key: the only KDF ssh-keygen uses
        raise SecretError(
            "private key is encrypted with a passphrase",
            where=where,
            reason="encrypted-key",
            hint="sign with 'ssh-keygen -Y sign' (it asks for the passphrase), or use an unencrypted copy "
            "made with 'ssh-keygen -p -N \"\" -f COPY' kept off shared disks",
        )


def load_private_key(path_or_bytes: str | Path | bytes, where: str | None = None) -> PrivateKey:
    """Load an unencrypted OpenSSH private key file (as `ssh-keygen -N ''` writes)."""
    if isinstance(path_or_bytes, str) and path_or_bytes.lstrip().startswith("-----BEGIN"):
        path_or_bytes = path_or_bytes.encode("ascii", "replace")  # key text, not a path: never echo it
    if isinstance(path_or_bytes, (str, Path)):
        where = where or str(path_or_bytes)
        try:
            with open(path_or_bytes, "rb") as handle:
                data = handle.read(MAX_PRIVATE_KEY_FILE + 1)
        except OSError as exc:
            raise SecretError(f"cannot read private key: {exc.strerror}", where=where, reason="unreadable") from None
    else:
        data = bytes(path_or_bytes)
    if len(data) > MAX_PRIVATE_KEY_FILE or not data.lstrip().startswith(PRIVATE_KEY_BEGIN):
        raise SecretError(
            "not an OpenSSH private key file",
            where=where,
            reason="bad-private-key",
            hint="pass the private key file (e.g. ~/.ssh/id_ed25519), not the .pub file",
        )
    _check_unencrypted(data, where)
    try:
        crypto = serialization.load_ssh_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        # The library's message may quote the key material; say only what failed.
        raise SecretError("private key file is damaged or of an unsupported type", where=where, reason="bad-private-key") from None
    if not isinstance(crypto, (ed25519.Ed25519PrivateKey, ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)):
        raise _reject_key("private key type is not accepted", where, SecretError)
    if isinstance(crypto, ec.EllipticCurvePrivateKey) and not isinstance(crypto.curve, ec.SECP256R1):
        raise _reject_key(f"ECDSA curve {crypto.curve.name} is not accepted", where, SecretError)
    return PrivateKey(_public_from_crypto(crypto.public_key(), where), crypto)


def generate_ed25519(comment: str = "") -> tuple[bytes, PublicKey]:
    """A fresh Ed25519 key: (OpenSSH private key file bytes, its PublicKey). For demos and tests."""
    private = ed25519.Ed25519PrivateKey.generate()
    data = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
    if comment:
        # cryptography writes an empty comment; ssh-keygen shows it with -l, so fill it in
        # by re-encoding the private section (PROTOCOL.key: string comment before padding).
        data = _with_comment(data, comment)
    return data, _public_from_crypto(private.public_key(), None)


def _with_comment(pem: bytes, comment: str) -> bytes:
    lines = pem.strip().splitlines()
    blob = base64.b64decode(b"".join(lines[1:-1]))
    reader = WireReader(blob[len(PRIVATE_KEY_MAGIC) :], "private key", error=SecretError)
    cipher, kdf, kdfopts, count, pub = reader.string(), reader.string(), reader.string(), reader.uint32(), reader.string()
    section = WireReader(reader.string(), "private section", error=SecretError)
    check1, check2, alg, pk, sk = section.uint32(), section.uint32(), section.string(), section.string(), section.string()
    body = check1.to_bytes(4, "big") + check2.to_bytes(4, "big") + put_string(alg) + put_string(pk) + put_string(sk) + put_string(comment)
    body += bytes(range(1, 1 + (-len(body)) % 8))  # PROTOCOL.key: pad to the cipher block size (8 for none)
    out = PRIVATE_KEY_MAGIC + put_string(cipher) + put_string(kdf) + put_string(kdfopts) + count.to_bytes(4, "big")
    out += put_string(pub) + put_string(body)
    b64 = base64.b64encode(out).decode("ascii")
    wrapped = "\n".join(b64[i : i + 70] for i in range(0, len(b64), 70))
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{wrapped}\n-----END OPENSSH PRIVATE KEY-----\n".encode("ascii")
