"""DSSE envelopes (https://github.com/secure-systems-lab/dsse, protocol v1.0.2) around in-toto
statements, signed with the build key, so that stock supply-chain tools read a deploy's
attestation: in-toto's and securesystemslib's verifiers, cosign, anything that takes an
in-toto bundle (https://github.com/in-toto/attestation/blob/main/spec/v1/bundle.md).

The steps of protocol.md "Signature definition":

1. ``PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`` (`pae`);
2. the signature is ``Sign(PAE(UTF8(payloadType), SERIALIZED_BODY))``: Ed25519 signs those
   bytes as they are (RFC 8032, no pre-hash), so one key and one body give one signature,
   and two builds of one commit write the same envelope;
3. the envelope (envelope.md) holds ``payload`` (standard base64 of the body),
   ``payloadType`` and ``signatures: [{keyid, sig}]``.

The key is the build key the registry lists, the same that signs the SSHSIG files; only
Ed25519 qualifies (its signature is deterministic; ECDSA's is not). The ``keyid`` is the key's
SSH fingerprint (``SHA256:…``, as ``ssh-keygen -lf`` prints it): a hint for finding the key,
never trusted (protocol.md: "keyid … MUST NOT be used for any security decision"). The file
is the envelope as one line of canonical JSON and a newline, so it is also an in-toto bundle.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import orjson

from builder.attest.statement import AttestationError
from builder.errors import SignatureError
from builder.strict import loads_json
from builder.trust.sshkeys import ED25519, PrivateKey, PublicKey
from builder.trust.sshwire import WireReader, put_string

PAYLOAD_TYPE = "application/vnd.in-toto+json"  # in-toto spec/v1/envelope.md
PAE_PREFIX = b"DSSEv1"  # protocol.md: the PAE's literal first field
MAX_ENVELOPE = 128 << 20


def pae(payload_type: str, payload: bytes) -> bytes:
    """Step 1: Pre-Authentication Encoding; LEN is the byte count in ASCII decimal."""
    kind = payload_type.encode("utf-8")
    return b" ".join((PAE_PREFIX, str(len(kind)).encode(), kind, str(len(payload)).encode(), payload))


def sign_envelope(payload: bytes, key: PrivateKey, payload_type: str = PAYLOAD_TYPE) -> bytes:
    """Steps 2–3: the envelope file's bytes (one line of canonical JSON, then a newline)."""
    if key.public.algorithm != ED25519:
        raise AttestationError(
            f"the build key is {key.public.algorithm}; a DSSE envelope is signed with Ed25519 only",
            reason="attestation-bad-envelope",
            hint="set an Ed25519 build key (ssh-keygen -t ed25519)",
        )
    reader = WireReader(key.sign_ssh(pae(payload_type, payload)), "signature")
    reader.text()  # "ssh-ed25519": the SSH wrapper around the raw 64-byte RFC 8032 signature
    raw = reader.string()
    reader.done()
    envelope = {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [{"keyid": key.public.fingerprint, "sig": base64.b64encode(raw).decode("ascii")}],
    }
    return orjson.dumps(envelope, option=orjson.OPT_SORT_KEYS) + b"\n"


@dataclass(frozen=True)
class Envelope:
    """A parsed envelope whose one signature verified under the key given (`verify_envelope`)."""

    payload: bytes
    payload_type: str
    signer: PublicKey


def _b64(value: object, what: str, where: str) -> bytes:
    try:
        if not isinstance(value, str):
            raise binascii.Error
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise AttestationError(f"{what} is not standard base64", where=where, reason="attestation-bad-envelope") from None


def verify_envelope(data: bytes, key: PublicKey, where: str) -> Envelope:
    """Parse an envelope file strictly and verify its signature by ``key`` over the PAE
    (protocol.md "Verification": decode, PAE, verify; reject before reading the payload)."""
    if len(data) > MAX_ENVELOPE:
        raise AttestationError("is too large", where=where, reason="attestation-bad-envelope")
    obj = loads_json(data, where)
    if not isinstance(obj, dict) or obj.get("payloadType") != PAYLOAD_TYPE or set(obj) != {"payload", "payloadType", "signatures"}:
        raise AttestationError(
            f"is not a DSSE envelope with payloadType {PAYLOAD_TYPE}",
            where=where,
            reason="attestation-bad-envelope",
            hint="use the envelope a Sealboard build wrote",
        )
    sigs = obj["signatures"]
    if not isinstance(sigs, list) or len(sigs) != 1 or not isinstance(sigs[0], dict):
        raise AttestationError("must hold exactly one signature (the build key's)", where=where, reason="attestation-bad-envelope")
    payload = _b64(obj["payload"], "payload", where)
    sig = _b64(sigs[0].get("sig"), "signature", where)
    if key.algorithm != ED25519:
        raise AttestationError(f"the signer is {key.algorithm}; envelopes are Ed25519", where=where, reason="attestation-bad-envelope")
    try:
        key.verify_ssh_signature(put_string(ED25519) + put_string(sig), pae(PAYLOAD_TYPE, payload), where=where)
    except SignatureError:
        raise AttestationError(
            f"its signature does not verify under the build key {key.fingerprint}",
            where=where,
            reason="attestation-bad-envelope",
            hint="the envelope was changed after the build",
        ) from None
    return Envelope(payload, PAYLOAD_TYPE, key)
