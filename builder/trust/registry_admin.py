"""Maintainer operations on the trust registry: propose a new version, sign it, report status.

Pure file operations under `root/keys/registry`; each returns the path it wrote and
never prints. Nothing here can make a version trusted by itself: a proposal is an
unsigned file until a threshold of maintainers sign it (`builder.trust.registry` decides).

Proposals accumulate: while the newest version has no signatures at all, further changes
amend it in place, so "add a lab, revoke a key, renew" is one version and one signing
round. Once anyone has signed it, it is frozen (a change would void their signature).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from builder.errors import BuilderError, TrustError
from builder.trust.registry import Tally, describe_pending, in_force, read_chain, tally
from builder.trust.registry_format import (
    FORMAT,
    REGISTRY_DIR,
    SIG_SUFFIX,
    RegistryVersion,
    dump,
    format_time,
    parse_version,
    to_data,
    version_filename,
)
from builder.trust.sshkeys import PrivateKey, PublicKey, load_private_key, parse_public_key
from builder.trust.sshsig import NS_REGISTRY, sign

Mutator = Callable[[dict[str, Any]], Any]


def write_atomic(path: Path, data: bytes) -> None:
    """Write atomically so an interrupted command never leaves half a file (registry, dataset)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _validated(data: dict[str, Any], where: str) -> bytes:
    """Serialise and re-parse: nothing is written that load_registry would refuse to parse."""
    out = dump(data)
    parse_version(out, where)
    return out


def _key_line(key: str | PublicKey) -> str:
    return key.openssh if isinstance(key, PublicKey) else parse_public_key(key, "key argument").openssh


def _utc(value: datetime | None) -> str | None:
    return format_time(value) if value else None


def init_registry(root: Path | str, maintainers: Iterable[Mapping[str, Any]], threshold: int, expires: datetime) -> Path:
    """Write the genesis version v0001.yaml (unsigned): maintainers are {id, name, key[, age_recipient]}."""
    directory = Path(root) / REGISTRY_DIR
    if directory.exists() and any(directory.glob("v*.yaml")):
        raise TrustError(
            "a registry already exists",
            where=REGISTRY_DIR,
            reason="registry-exists",
            hint="change it with 'sealboard keys add-lab' and similar commands instead",
        )
    people = [{**m, "key": _key_line(m["key"])} for m in maintainers]
    data = {
        "format": FORMAT,
        "version": 1,
        "expires": _utc(expires),
        "threshold": threshold,
        "maintainers": people,
        "labs": [],
        "revoked": [],
    }
    path = directory / version_filename(1)
    write_atomic(path, _validated(data, f"{REGISTRY_DIR}/{path.name}"))
    return path


def _sig_blocks(path: Path) -> bool:
    sig = path.with_name(path.name + SIG_SUFFIX)
    return sig.exists() and bool(sig.read_bytes().strip())


def propose_next(root: Path | str, mutate_fn: Mutator) -> Path:
    """Apply mutate_fn to a copy of the newest version's data and write the proposal.

    mutate_fn edits the plain YAML structure (a dict) in place. Returns the path written:
    the amended newest version if it is still unsigned, else a new vN+1.yaml.
    """
    chain = read_chain(Path(root))
    doc = chain[-1][0]
    prev = chain[-2][0] if len(chain) > 1 else None
    directory = Path(root) / REGISTRY_DIR
    if not _sig_blocks(directory / version_filename(doc.version)):
        version = doc.version  # an unsigned proposal: amend it
    elif tally(prev, doc, chain[-1][2]).complete:
        version = doc.version + 1
    else:
        raise TrustError(
            f"version {doc.version} is partly signed; changing it now would void those signatures",
            where=doc.path,
            reason="proposal-signed",
            hint="finish signing it first, or delete its .sig file to start the proposal over",
        )
    data = to_data(doc)
    mutate_fn(data)
    data["version"] = version
    path = directory / version_filename(version)
    write_atomic(path, _validated(data, f"{REGISTRY_DIR}/{path.name}"))
    return path


def _find(items: list[dict[str, Any]], item_id: str, what: str) -> dict[str, Any]:
    for item in items:
        if item["id"] == item_id:
            return item
    raise TrustError(f"no {what} {item_id!r} in the registry", reason=f"unknown-{what}")


def _lab_key(key: str | PublicKey, valid_after: datetime | None, valid_before: datetime | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"key": _key_line(key)}
    if valid_after:
        entry["valid_after"] = _utc(valid_after)
    if valid_before:
        entry["valid_before"] = _utc(valid_before)
    return entry


def add_lab(
    root: Path | str,
    lab_id: str,
    name: str,
    keys: Iterable[str | PublicKey],
    valid_after: datetime | None = None,
    valid_before: datetime | None = None,
) -> Path:
    """Propose a new lab with its keys."""
    entries = [_lab_key(k, valid_after, valid_before) for k in keys]

    def change(data: dict[str, Any]) -> None:
        if any(lab["id"] == lab_id for lab in data["labs"]):
            raise TrustError(
                f"lab {lab_id!r} already exists",
                where="keys/registry",
                reason="duplicate",
                hint=f"to add a key to it (rotation), leave out --name: 'sealboard keys add-lab {lab_id} --key NEW.pub'",
            )
        data["labs"].append({"id": lab_id, "name": name, "keys": entries})

    return propose_next(root, change)


def add_lab_key(
    root: Path | str, lab_id: str, key: str | PublicKey, valid_after: datetime | None = None, valid_before: datetime | None = None
) -> Path:
    """Propose one more key for an existing lab (key rotation: add, then revoke the old one)."""
    entry = _lab_key(key, valid_after, valid_before)
    return propose_next(root, lambda data: _find(data["labs"], lab_id, "lab")["keys"].append(entry))


def add_maintainer(
    root: Path | str, maintainer_id: str, name: str, key: str | PublicKey, age_recipient: str | None = None, threshold: int | None = None
) -> Path:
    """Propose a new maintainer (and optionally a new threshold)."""
    person = {"id": maintainer_id, "name": name, "key": _key_line(key)}
    if age_recipient:
        person["age_recipient"] = age_recipient

    def change(data: dict[str, Any]) -> None:
        data["maintainers"].append(person)
        if threshold is not None:
            data["threshold"] = threshold

    return propose_next(root, change)


def remove_maintainer(root: Path | str, maintainer_id: str, threshold: int | None = None) -> Path:
    """Propose removing a maintainer (and optionally a new threshold)."""

    def change(data: dict[str, Any]) -> None:
        data["maintainers"].remove(_find(data["maintainers"], maintainer_id, "maintainer"))
        if threshold is not None:
            data["threshold"] = threshold

    return propose_next(root, change)


def _fingerprint(key_or_fingerprint: str | PublicKey) -> str:
    if isinstance(key_or_fingerprint, PublicKey):
        return key_or_fingerprint.fingerprint
    if key_or_fingerprint.startswith("SHA256:"):
        return key_or_fingerprint
    return parse_public_key(key_or_fingerprint, "key argument").fingerprint


def _holder(data: dict[str, Any], fingerprint: str) -> tuple[str, dict[str, Any]]:
    """("maintainer", entry) or ("lab", key entry) for a key in the registry data, or refuse."""
    for person in data["maintainers"]:
        if parse_public_key(person["key"], "registry").fingerprint == fingerprint:
            return "maintainer", person
    for lab in data["labs"]:
        for entry in lab["keys"]:
            if parse_public_key(entry["key"], "registry").fingerprint == fingerprint:
                return "lab", entry
    if data.get("build_key") and parse_public_key(data["build_key"], "registry").fingerprint == fingerprint:
        return "build", {"id": "build_key", "key": data["build_key"]}  # revocable (a leaked build key), not retired
    raise TrustError(
        f"key {fingerprint} is not in the registry",
        where=REGISTRY_DIR,
        reason="unknown-key",
        hint="'sealboard keys status' and the newest keys/registry/vNNNN.yaml list the registered keys",
    )


def revoke(root: Path | str, fingerprint: str | PublicKey, reason: str, when: datetime | None = None) -> Path:
    """Propose revoking a key for COMPROMISE: every bundle it ever signed is rejected, past
    ones too. Routine rotation is `retire`. The key must be in the registry."""
    fingerprint = _fingerprint(fingerprint)
    moment = _utc(when or datetime.now(timezone.utc))

    def change(data: dict[str, Any]) -> None:
        _holder(data, fingerprint)
        if any(r["fingerprint"] == fingerprint for r in data["revoked"]):
            raise TrustError(f"{fingerprint} is already revoked", reason="duplicate")
        data["revoked"].append({"fingerprint": fingerprint, "reason": reason, "revoked": moment})

    return propose_next(root, change)


def retire(root: Path | str, fingerprint: str | PublicKey, when: datetime | None = None) -> Path:
    """Propose retiring a lab key (routine rotation): it signs nothing new after `when`, and
    bundles admitted to the repository while it was valid stay (its valid_before becomes
    `when`, so ssh-keygen's allowed_signers says the same). Maintainer keys are retired by
    removing the maintainer."""
    fingerprint = _fingerprint(fingerprint)
    moment = when or datetime.now(timezone.utc).replace(microsecond=0)

    def change(data: dict[str, Any]) -> None:
        kind, entry = _holder(data, fingerprint)
        if kind == "build":
            raise TrustError(
                f"key {fingerprint} is the build key",
                where=REGISTRY_DIR,
                reason="build-key-rotation",
                hint="rotate it with 'sealboard keys set-build-key NEW.pub'; a leaked one: 'keys revoke KEY --compromised'",
            )
        if kind == "maintainer":
            raise TrustError(
                f"key {fingerprint} belongs to maintainer {entry['id']!r}",
                where=REGISTRY_DIR,
                reason="maintainer-key",
                hint=f"retire a maintainer with 'sealboard keys remove-maintainer {entry['id']}' (or add-maintainer with a new key first)",
            )
        current = entry.get("valid_before")
        if current is not None and current <= _utc(moment):
            raise TrustError(f"key {fingerprint} already stops being valid at {current}", reason="duplicate")
        entry["valid_before"] = _utc(moment)

    return propose_next(root, change)


def set_recipient(root: Path | str, maintainer_id: str, age_recipient: str | None) -> Path:
    """Propose giving a maintainer an age recipient (files that stay private after release
    are sealed to maintainers' recipients), or removing it with None."""

    def change(data: dict[str, Any]) -> None:
        person = _find(data["maintainers"], maintainer_id, "maintainer")
        if age_recipient is None:
            person.pop("age_recipient", None)
        else:
            person["age_recipient"] = age_recipient

    return propose_next(root, change)


def set_build_key(root: Path | str, key: str | PublicKey | None) -> Path:
    """Propose the build key (the public half of what the authorised build signs each
    deploy's attestation with, namespace sealboard-site), or removing it with None.
    Threshold-signed like any change: a build key nobody approved signs nothing trusted."""
    line = _key_line(key) if key is not None else None

    def change(data: dict[str, Any]) -> None:
        if line is None:
            if "build_key" not in data:
                raise TrustError("the registry lists no build key", reason="duplicate")
            data.pop("build_key")
        else:
            data["build_key"] = line

    return propose_next(root, change)


def grant_items(root: Path | str, lab_id: str, benchmark: str, when: datetime | None = None, *, answers: bool = False) -> Path:
    """Propose giving a lab the embargoed items of a benchmark (a copy sealed to its SSH
    key, written by 'sealboard dataset share'), without their gold answers unless `answers`.
    Threshold-signed like any change."""
    moment = _utc(when or datetime.now(timezone.utc))

    def change(data: dict[str, Any]) -> None:
        lab = _find(data["labs"], lab_id, "lab")
        grants = lab.setdefault("item_access", [])
        if any(g["benchmark"] == benchmark for g in grants):
            raise TrustError(f"lab {lab_id!r} already has access to {benchmark!r}", reason="duplicate")
        grants.append({"benchmark": benchmark, "granted": moment} | ({"answers": True} if answers else {}))

    return propose_next(root, change)


def withdraw_items(root: Path | str, lab_id: str, benchmark: str) -> Path:
    """Propose ending a lab's item access (its copy under keys/access/ must go too; what it
    already decrypted cannot be taken back)."""

    def change(data: dict[str, Any]) -> None:
        lab = _find(data["labs"], lab_id, "lab")
        grants = [g for g in lab.get("item_access", []) if g["benchmark"] != benchmark]
        if len(grants) == len(lab.get("item_access", [])):
            raise TrustError(f"lab {lab_id!r} has no access to {benchmark!r}", reason="unknown-grant")
        lab["item_access"] = grants

    return propose_next(root, change)


def renew(root: Path | str, expires: datetime) -> Path:
    """Propose a new expiry date (a registry that is not renewed stops every build)."""
    return propose_next(root, lambda data: data.update(expires=_utc(expires)))


def sign_registry(root: Path | str, private_key: PrivateKey | str | Path, version: int | None = None) -> Path:
    """Append this maintainer's signature over vNNNN.yaml (default: newest) to vNNNN.yaml.sig."""
    key = private_key if isinstance(private_key, PrivateKey) else load_private_key(private_key)
    chain = read_chain(Path(root))
    index = len(chain) - 1 if version is None else version - 1
    if not 0 <= index < len(chain):
        raise TrustError(f"there is no registry version {version}", where=REGISTRY_DIR, reason="unknown-version")
    doc, data, signers = chain[index]
    prev = chain[index - 1][0] if index else None
    sig_path = Path(root) / REGISTRY_DIR / (version_filename(doc.version) + SIG_SUFFIX)
    if key.public in signers:
        return sig_path  # already signed: each key counts once anyway
    if key.public in tally(prev, doc, [key.public]).strangers:
        raise TrustError(
            f"key {key.public.fingerprint} may not sign version {doc.version}: it is not an unrevoked maintainer "
            f"of {'version ' + str(prev.version) if prev else 'this version'}" + (" or of the new set" if prev else ""),
            where=doc.path,
            reason="signer-not-maintainer",
        )
    existing = sig_path.read_bytes() if sig_path.exists() else b""
    if existing and not existing.endswith(b"\n"):
        existing += b"\n"
    write_atomic(sig_path, existing + sign(key, data, NS_REGISTRY).encode("ascii"))
    return sig_path


@dataclass(frozen=True)
class RegistryStatus:
    latest: int | None  # newest version on disk
    trusted: RegistryVersion | None  # the version in force: newest whose whole chain verifies
    pending: Tally | None  # the newest version, while it lacks signatures
    expired: bool
    error: str | None  # anything wrong besides missing signatures

    def lines(self) -> list[str]:
        out = []
        if self.trusted is None and self.pending:
            out.append("in force: none yet (the genesis version is not fully signed)")
        if self.trusted:
            state = "EXPIRED" if self.expired else "valid"
            out.append(f"in force: v{self.trusted.version:04d}, {state} until {format_time(self.trusted.expires)}")
        if self.pending:
            out.append(f"{describe_pending(self.pending)} (not in force until signed)")
        if self.error:
            out.append(f"error: {self.error}")
        return out or ["no registry"]

    def to_dict(self) -> dict[str, Any]:
        """What `sealboard keys status --json` prints (the same facts as lines())."""

        def version(doc: RegistryVersion) -> dict[str, Any]:
            return {
                "version": doc.version,
                "expires": format_time(doc.expires),
                "threshold": doc.threshold,
                "maintainers": [m.id for m in doc.maintainers],
                "labs": [lab.id for lab in doc.labs],
            }

        pending = None
        if self.pending is not None:
            t = self.pending
            pending = {
                "version": t.doc.version,
                "signed_by": [m.id for m in t.old_signers],
                "needed": t.old_needed,
                "new_set_signed_by": [m.id for m in t.new_signers] if t.new_needed is not None else None,
                "new_set_needed": t.new_needed,
                "complete": t.complete,
            }
        return {
            "latest": self.latest,
            "in_force": version(self.trusted) if self.trusted else None,
            "expired": self.expired,
            "pending": pending,
            "error": self.error,
        }


def status(root: Path | str, now: datetime) -> RegistryStatus:
    """Summarise the registry: the version in force and its expiry, a pending proposal, any error."""
    try:
        chain = read_chain(Path(root))
        trusted, pending = in_force(chain)
    except BuilderError as exc:
        return RegistryStatus(None, None, None, False, str(exc))
    expired = trusted is not None and now >= trusted.expires
    return RegistryStatus(chain[-1][0].version, trusted, pending, expired, None)
