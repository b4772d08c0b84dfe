"""SSHSIG signatures (OpenSSH PROTOCOL.sshsig), signed and verified strictly.

Labs sign with stock `ssh-keygen -Y sign`; this module verifies those signatures without
running ssh-keygen, and signs in the same format for maintainers and tests. It is stricter
than ssh-keygen where leniency buys nothing: only version 1, nothing but whitespace around
the armor, canonical base64, no trailing bytes. Checks raise, never `assert` (python -O).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

from builder.errors import SignatureError
from builder.trust.sshkeys import PrivateKey, PublicKey, public_key_from_blob
from builder.trust.sshwire import WireReader, put_string, put_uint32, shown

NS_BUNDLE = "sealboard-bundle"
NS_DATASET = "sealboard-dataset"
NS_RELEASE = "sealboard-release"
NS_REGISTRY = "sealboard-registry"
NS_SITE = "sealboard-site"  # a deploy's attestation (builder.attest), signed by the registry's build key
NAMESPACES = (NS_BUNDLE, NS_DATASET, NS_RELEASE, NS_REGISTRY, NS_SITE)

# PROTOCOL.sshsig §2 "Blob format": MAGIC_PREAMBLE "SSHSIG", SIG_VERSION 0x01.
MAGIC = b"SSHSIG"
SIG_VERSION = 1
# PROTOCOL.sshsig §4: "sha256" and "sha512"; ssh-keygen signs with sha512 by default.
HASH_ALGORITHMS = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
# PROTOCOL.sshsig §1 "Armored format".
ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----"
ARMOR_END = "-----END SSH SIGNATURE-----"
ARMOR_WIDTH = 70  # ssh-keygen (sshbuf_dtob64) wraps base64 at 70 columns
MAX_ARMORED = 65536  # far above any accepted key's signature (RSA-16384 is ~6 KiB armored)

_BLOCK_RE = re.compile(re.escape(ARMOR_BEGIN) + r"(.*?)" + re.escape(ARMOR_END), re.DOTALL)
_B64_LINE_RE = re.compile(r"[A-Za-z0-9+/=]+\Z")


def _fail(message: str, reason: str, where: str | None, hint: str | None = None) -> SignatureError:
    return SignatureError(message, where=where, reason=reason, hint=hint)


def _signed_data(namespace: str, hash_alg: str, message: bytes) -> bytes:
    """PROTOCOL.sshsig §3 "Signed Data": what the key actually signs.

    The reserved field is always empty here, as in ssh-keygen: §3 says implementations
    ignore a non-empty reserved field, so its contents are never covered by a signature.
    """
    digest = HASH_ALGORITHMS[hash_alg](message).digest()
    return MAGIC + put_string(namespace) + put_string(b"") + put_string(hash_alg) + put_string(digest)


def armor(blob: bytes) -> str:
    """PROTOCOL.sshsig §1: armor a blob byte-for-byte as ssh-keygen does."""
    b64 = base64.b64encode(blob).decode("ascii")
    lines = [b64[i : i + ARMOR_WIDTH] for i in range(0, len(b64), ARMOR_WIDTH)]
    return ARMOR_BEGIN + "\n" + "\n".join(lines) + "\n" + ARMOR_END + "\n"


def dearmor(armored: bytes | str, where: str | None = None) -> bytes:
    """Undo `armor`, refusing anything but whitespace outside it and non-canonical base64."""
    if isinstance(armored, bytes):
        if len(armored) > MAX_ARMORED:
            raise _fail("signature file is too large", "bad-armor", where)
        try:
            armored = armored.decode("ascii")
        except UnicodeDecodeError:
            raise _fail("signature file is not ASCII", "bad-armor", where) from None
    if len(armored) > MAX_ARMORED or not armored.isascii():
        raise _fail("signature is too large or not ASCII", "bad-armor", where)
    # ssh-keygen refuses CR line ends and anything before BEGIN; so do we, so that
    # `ssh-keygen -Y verify` with the exported allowed_signers agrees with the builder.
    if "\r" in armored:
        raise _fail("signature has CR line ends", "bad-armor", where, hint="save the .sig file with LF line ends (check git's autocrlf)")
    text = armored.rstrip()
    if not text.startswith(ARMOR_BEGIN + "\n"):
        raise _fail(
            f"signature must start with {ARMOR_BEGIN!r} on its own line",
            "bad-armor",
            where,
            hint="use the .sig file exactly as 'ssh-keygen -Y sign' wrote it",
        )
    if not text.endswith("\n" + ARMOR_END):
        raise _fail(f"signature must end with {ARMOR_END!r}", "bad-armor", where, hint="nothing may follow the armor")
    body_lines = [line for line in text[len(ARMOR_BEGIN) : -len(ARMOR_END)].split("\n") if line]
    if not body_lines or not all(_B64_LINE_RE.match(line) for line in body_lines):
        raise _fail("signature body is not base64 (one block per file, nothing inside the armor else)", "bad-armor", where)
    body = "".join(body_lines)
    try:
        blob = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise _fail("signature body is not valid base64", "bad-armor", where) from None
    # One byte string, one encoding: refuse stray padding bits or missing/extra '='.
    if base64.b64encode(blob).decode("ascii") != body:
        raise _fail("signature body is not canonical base64", "bad-armor", where)
    return blob


def split_armored(text: bytes | str, where: str | None = None) -> list[str]:
    """Split a file of concatenated armored signatures into blocks (each re-armored text).

    Only whitespace may sit between, before or after the blocks.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError:
            raise _fail("signature file is not ASCII", "bad-armor", where) from None
    blocks: list[str] = []
    pos = 0
    for match in _BLOCK_RE.finditer(text):
        if text[pos : match.start()].strip():
            raise _fail(f"unexpected text before signature block {len(blocks) + 1}", "bad-armor", where)
        blocks.append(match.group(0) + "\n")
        pos = match.end()
    if text[pos:].strip():
        raise _fail("unexpected text after the last signature block", "bad-armor", where)
    return blocks


def sign(private: PrivateKey, message: bytes, namespace: str, hash_alg: str = "sha512") -> str:
    """Sign message under namespace; return the armored SSHSIG text ssh-keygen would write."""
    if not namespace:
        raise ValueError("PROTOCOL.sshsig requires a non-empty namespace")
    if hash_alg not in HASH_ALGORITHMS:
        raise ValueError(f"hash algorithm must be one of {sorted(HASH_ALGORITHMS)}")
    signature = private.sign_ssh(_signed_data(namespace, hash_alg, message))
    # PROTOCOL.sshsig §2: MAGIC, version, publickey, namespace, reserved, hash_algorithm, signature.
    blob = (
        MAGIC
        + put_uint32(SIG_VERSION)
        + put_string(private.public.blob)
        + put_string(namespace)
        + put_string(b"")
        + put_string(hash_alg)
        + put_string(signature)
    )
    return armor(blob)


def verify(armored: bytes | str, message: bytes, namespace: str, where: str | None = None) -> PublicKey:
    """Verify an armored SSHSIG over message under namespace; return the signer's key.

    Who the key belongs to is the registry's question, not this function's. Raises
    SignatureError with reason bad-armor, bad-magic, bad-version, truncated,
    trailing-bytes, unsupported-key, wrong-namespace, bad-hash-alg, bad-sig-alg or
    bad-signature.
    """
    blob = dearmor(armored, where)
    # §2 step 1: the magic preamble.
    if blob[: len(MAGIC)] != MAGIC:
        raise _fail("not an SSH signature (bad magic preamble)", "bad-magic", where)
    reader = WireReader(blob[len(MAGIC) :], "SSH signature", where=where)
    # §2 step 2: the version; only 1 exists, and a future one may mean something else.
    version = reader.uint32()
    if version != SIG_VERSION:
        raise _fail(f"signature version {version} is not supported (only {SIG_VERSION})", "bad-version", where)
    key_blob = reader.string()
    got_namespace = reader.string()
    reader.string()  # §2 reserved: ignored per §3 (and by ssh-keygen); never signed
    got_hash = reader.string()
    signature = reader.string()
    reader.done()
    key = public_key_from_blob(key_blob, where=where)
    # §2: the namespace prevents a signature for one purpose being replayed for another.
    if got_namespace != namespace.encode("utf-8"):
        raise _fail(
            f"signature is for namespace {shown(got_namespace)}, expected {namespace!r}",
            "wrong-namespace",
            where,
            hint=f"sign with: ssh-keygen -Y sign -n {namespace} -f KEY FILE",
        )
    hash_alg = got_hash.decode("ascii", "replace")
    if hash_alg not in HASH_ALGORITHMS:
        raise _fail(
            f"hash algorithm {shown(got_hash)} is not accepted (only sha256 or sha512)",
            "bad-hash-alg",
            where,
            hint="sign with stock ssh-keygen -Y sign (sha512)",
        )
    key.verify_ssh_signature(signature, _signed_data(namespace, hash_alg, message), where=where)
    return key
