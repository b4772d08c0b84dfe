"""Helpers for the hostile corpus: make, copy, tamper with and build real instances.

Everything here works on real files with real keys: a hostile case changes bytes on disk
exactly as an attacker (or a careless lab) could, then runs the builder's own pipeline.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from builder.bundles.ingest import DATASET_DIR
from builder.bundles.manifest import MANIFEST, SIGNATURE, dump_manifest
from builder.pipeline.build import BuildReport, build
from builder.trust.seal import Identity, seal
from builder.trust.sshkeys import PrivateKey, generate_ed25519, load_private_key
from builder.trust.sshsig import NS_BUNDLE, sign
from builder.trust.sshwire import WireReader
from tests.factory import NOW, VERSION, Instance, make_instance, results_for, soohak_items
from tests.peers import age_passphrase_encrypt  # noqa: F401  (re-exported for the corpus)
from tests.sshsig_forge import fields as sig_fields  # noqa: F401  (re-exported for the corpus)
from tests.sshsig_forge import forge, rearm  # noqa: F401  (re-exported for the corpus)

__all__ = ["NOW", "VERSION", "Instance"]

BENCH = "soohak"
ACME = "acme/run-1"
BETA = "beta/run-2"
VALID = (ACME, BETA)
DATASET = f"bundles/{BENCH}/{DATASET_DIR}/{VERSION}"

ITEMS = soohak_items()
# Both languages: the SOOHAK config has an en/ko contrast board.
VALID_ROWS = results_for(ITEMS, {it["id"]: [True, True, False] for it in ITEMS[::2]}, langs=("en", "ko"))
BETA_ROWS = results_for(ITEMS, {it["id"]: [True, True, True] for it in ITEMS}, langs=("en", "ko"))


def rows_bytes(rows: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in rows)


def where_of(key: str, name: str | None = None) -> str:
    """Instance-relative location of a result bundle (or one of its files)."""
    return f"bundles/{BENCH}/{key}" + (f"/{name}" if name else "")


# --- instances ------------------------------------------------------------------------------


def make_base(root: Path) -> Instance:
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", VALID_ROWS)
    inst.add_submission("beta", "run-2", BETA_ROWS)
    return inst


def clone(inst: Instance, root: Path) -> Instance:
    """Copy an instance's directory (not its keys, which live in memory) to root."""
    shutil.copytree(inst.root, root, symlinks=True)
    out = copy.copy(inst)
    out.root = root
    out.bundles = {k: root / v.relative_to(inst.root) for k, v in inst.bundles.items()}
    return out


def new_key(directory: Path, name: str) -> tuple[PrivateKey, Path]:
    private_bytes, _ = generate_ed25519(f"{name}@hostile")
    path = directory / name
    path.write_bytes(private_bytes)
    path.chmod(0o600)
    return load_private_key(path), path


# --- running the builder --------------------------------------------------------------------


def pipeline(root: Path, identities: list[Identity] | None, out: Path | None = None) -> BuildReport:
    """Run the builder (no site) on root at NOW; registry/config failures raise, bundles reject."""
    return build(root, out or root.parent / "site", identities=identities, now=NOW, render=False)


def run(inst: Instance, identities: list[Identity] | None = None) -> BuildReport:
    return pipeline(inst.root, [inst.identity] if identities is None else identities)


def outcome(report: BuildReport) -> set[tuple[str, str]]:
    return {(r.where, r.reason) for r in report.rejections}


def verified(report: BuildReport) -> set[str]:
    return {b.manifest.key for state in report.benchmarks for b in state.bundles}


def published(report: BuildReport) -> set[str]:
    """Submissions whose results were unsealed and appear on a board."""
    out: set[str] = set()
    for state in report.benchmarks:
        unsealed = set(state.results["submission"]) if state.results is not None else set()
        out |= unsealed & {row.submission for board in state.boards for row in board.rows}
    return out


def assert_rejected(report: BuildReport, *expected: tuple[str, str], publishes: Iterable[str] = VALID) -> None:
    """Exactly these (where, reason) rejections, and every bundle in `publishes` published."""
    assert outcome(report) == set(expected), [(r.where, r.reason, r.message) for r in report.rejections]
    for rejection in report.rejections:
        if rejection.reason != "missing-dataset":  # a benchmark-level note, not a file's error
            assert rejection.where in rejection.message, rejection  # the message names the file
    publishes = set(publishes)
    assert publishes <= verified(report), (publishes, verified(report))
    assert publishes <= published(report), (publishes, published(report))


# --- tampering --------------------------------------------------------------------------------


def flip(path: Path, index: int, mask: int = 0x01) -> None:
    data = bytearray(path.read_bytes())
    data[index] ^= mask
    path.write_bytes(bytes(data))


def write_manifest(bundle: Path, data: bytes, key: PrivateKey | None, namespace: str = NS_BUNDLE) -> None:
    """Write manifest bytes as given and (unless key is None) a valid signature over them."""
    (bundle / MANIFEST).write_bytes(data)
    if key is not None:
        (bundle / SIGNATURE).write_text(sign(key, data, namespace))


def manifest_obj(bundle: Path) -> dict[str, Any]:
    return orjson.loads((bundle / MANIFEST).read_bytes())


def edit_manifest(bundle: Path, mutate: Callable[[dict[str, Any]], Any], key: PrivateKey, namespace: str = NS_BUNDLE) -> bytes:
    obj = manifest_obj(bundle)
    mutate(obj)
    data = dump_manifest(obj)
    write_manifest(bundle, data, key, namespace)
    return data


def set_field(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A manifest mutation for edit_manifest: set the dotted field (``config.notes``) to value."""

    def mutate(obj: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for p in parents:
            obj = obj[p]
        obj[last] = value

    return mutate


def file_entry(name: str, data: bytes) -> dict[str, Any]:
    return {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "sealed": True}


def set_payload(bundle: Path, name: str, data: bytes, key: PrivateKey) -> None:
    """Replace (or add) a sealed file and make the signed manifest vouch for exactly it."""
    (bundle / name).write_bytes(data)

    def change(obj: dict[str, Any]) -> None:
        obj["files"] = [f for f in obj["files"] if f["path"] != name] + [file_entry(name, data)]
        obj["files"].sort(key=lambda f: f["path"])

    edit_manifest(bundle, change, key)


def reseal(inst: Instance, key: str, plaintext: bytes, recipients: list[str] | None = None, signer: str | None = None) -> None:
    """Seal plaintext as the bundle's results (to the embargo key by default), re-sign."""
    lab = key.split("/")[0]
    sealed = seal(plaintext, recipients or [inst.identity.recipient])
    set_payload(inst.bundles[key], "results.jsonl.age", sealed, inst.lab_keys[signer or lab])


# --- SSHSIG blobs (decode into PROTOCOL.sshsig fields and re-encode, as tests/test_sshsig.py) --


def ssh_keygen_verify(allowed: Path, principal: str, namespace: str, sig: bytes, message: bytes, workdir: Path) -> bool:
    """Stock `ssh-keygen -Y verify` at the build time NOW (UTC)."""
    sig_path = workdir / "check.sig"
    sig_path.write_bytes(sig)
    result = subprocess.run(
        [
            "ssh-keygen",
            "-Y",
            "verify",
            "-f",
            str(allowed),
            "-I",
            principal,
            "-n",
            namespace,
            "-s",
            str(sig_path),
            f"-Overify-time={NOW:%Y%m%d%H%M%S}",
        ],
        input=message,
        capture_output=True,
        env={**os.environ, "TZ": "UTC"},
        timeout=30,
    )
    return result.returncode == 0


# --- secrets --------------------------------------------------------------------------------


def identity_fragments(identity: Identity) -> list[str]:
    """Substrings of an identity's secret that must never appear anywhere (case-folded)."""
    lines = [line for line in identity.reveal_secret().splitlines() if line and not line.startswith("#")]
    out = []
    for line in lines:
        data = line.split("1", 1)[1]
        out += [line, data, data[:20], data[20:40]]
    return [s.lower() for s in out]


def private_key_fragments(key_file: bytes) -> list[str]:
    """Forms in which an OpenSSH Ed25519 private key's secret could leak.

    The file's base64 also carries the public key (twice), which may legitimately be
    printed, so only text that encodes secret bytes counts: the file's base64 over the
    32-byte seed (or, for a passphrase-encrypted key, over the whole encrypted private
    section) in 16-character windows, and for a plain key the seed in base64 and hex.
    """
    lines = [line.strip() for line in key_file.decode("ascii").splitlines() if line and not line.startswith("-----")]
    body = "".join(lines)
    blob = base64.b64decode(body)
    reader = WireReader(blob[len(b"openssh-key-v1\0") :], "key")
    cipher = reader.string()
    reader.string(), reader.string(), reader.uint32(), reader.string()  # kdf, kdf options, count, public key
    private = reader.string()
    extra: list[str] = []
    if cipher == b"none":
        section = WireReader(private, "private section")
        section.uint32(), section.uint32(), section.string(), section.string()
        secret = section.string()[:32]
        extra = [base64.b64encode(secret).decode()[:24], secret.hex()[:24], secret.hex()[24:48]]
    else:
        secret = private
    offset = blob.index(secret)
    first, last = -(-offset // 3) * 4, (offset + len(secret)) // 3 * 4  # base64 chars encoding only secret bytes
    return [*(body[i : i + 16] for i in range(first, last - 16 + 1, 4)), *extra]


def assert_no_secret(text: str | bytes, identity_parts: list[str], key_parts: list[str] = ()) -> None:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    assert "AGE-SECRET-KEY-1" not in text.upper()
    assert "PRIVATE KEY-----" not in text
    folded = text.lower()
    for part in identity_parts:
        assert part not in folded
    for part in key_parts:
        assert part not in text
