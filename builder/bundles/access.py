"""Item access for labs: the embargoed items, sealed to one registered lab's SSH key.

A lab runs its model on the items, so it must receive them; the embargo must still hold
for everyone else. The maintainers' threshold grants access in the registry (a lab's
``item_access``: benchmark and time granted), and a maintainer writes the copy::

    keys/access/<benchmark>/<version>/<lab>.jsonl.age

sealed with age to the lab's registered ``ssh-ed25519`` keys only (age's ssh-ed25519
recipient type; the lab opens it with ``age -d -i ~/.ssh/id_ed25519``). The copy holds the
dataset's items without their gold answers (and salts): the build grades every answer itself,
so a lab needs the questions. Only a grant with ``answers: true``, signed by the threshold
like any grant, gives it the salted items whole (checkable against the public commitments);
the site says which grants do.

Never the embargo key: a copy for a lab is not sealed to any X25519 recipient, so the
embargo identity, published after release, opens exactly what it opened before.

Every build checks every copy (``review``): the lab must hold a grant for that benchmark in
the registry in force, and every recipient stanza must be addressed to one of the lab's
unrevoked registered keys. A copy that fails is listed as a rejection, by path; the site
lists who has access and since when.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pyrage

from builder.bundles.ingest import Rejection
from builder.errors import BuilderError, SealError, TrustError
from builder.trust.registry import Registry
from builder.trust.registry_format import Lab, format_time
from builder.trust.seal import SCRYPT_LABEL, X25519_LABEL, parse_header
from builder.trust.sshkeys import PublicKey

ACCESS_DIR = "keys/access"
SUFFIX = ".jsonl.age"
# age spec, "ssh-ed25519 recipient stanza": args = "ssh-ed25519", tag, share; the tag is
# the first 4 bytes of SHA-256 over the SSH wire encoding of the public key, base64 (no padding).
SSH_ED25519_LABEL = b"ssh-ed25519"
GREASE_SUFFIX = b"-grease"  # rage adds one random "…-grease" stanza to every file
MAX_COPY_BYTES = 256 << 20


def access_path(benchmark: str, version: str, lab: str) -> str:
    return f"{ACCESS_DIR}/{benchmark}/{version}/{lab}{SUFFIX}"


def ssh_tag(key: PublicKey) -> bytes:
    return base64.b64encode(hashlib.sha256(key.blob).digest()[:4]).rstrip(b"=")


def _lab_keys(lab: Lab, registry: Registry) -> list[PublicKey]:
    revoked = {r.fingerprint for r in registry.revoked}
    return [k.key for k in lab.keys if k.key.algorithm == "ssh-ed25519" and k.key.fingerprint not in revoked]


def seal_for_lab(plaintext: bytes, lab: Lab, registry: Registry, benchmark: str) -> bytes:
    """Seal to the lab's unrevoked ssh-ed25519 keys, after checking its grant."""
    if not any(g.benchmark == benchmark for g in lab.item_access):
        raise TrustError(
            f"lab {lab.id!r} has no item access to {benchmark!r} in registry v{registry.version:04d}",
            where=registry.path,
            reason="access-not-granted",
            hint=f"propose it with 'sealboard keys grant-items {lab.id} {benchmark}' and sign it to the threshold",
        )
    keys = _lab_keys(lab, registry)
    if not keys:
        raise TrustError(
            f"lab {lab.id!r} has no unrevoked ssh-ed25519 key to seal to",
            where=registry.path,
            reason="no-ssh-recipient",
            hint="age seals to ssh-ed25519 keys: register one with 'sealboard keys add-lab'",
        )
    return pyrage.encrypt(bytes(plaintext), [pyrage.ssh.Recipient.from_str(k.openssh) for k in keys])


def check_copy(data: bytes, lab: Lab, registry: Registry, where: str) -> None:
    """Every stanza addressed to one of the lab's keys (grease aside); none to an age key."""
    header = parse_header(data, where)
    tags = {ssh_tag(k) for k in _lab_keys(lab, registry)}
    addressed = 0
    for st in header.stanzas:
        label = st.args[0]
        if label in (X25519_LABEL.encode(), SCRYPT_LABEL.encode()):
            raise SealError(
                f"is sealed to an age {label.decode()} recipient; a lab's copy is sealed to the lab's SSH key only",
                where=where,
                reason="access-wrong-recipient",
                hint="never seal a lab's copy to the embargo key: rewrite it with 'sealboard dataset share'",
            )
        if label == SSH_ED25519_LABEL:
            if len(st.args) != 3 or st.args[1] not in tags:
                raise SealError(
                    f"holds an ssh-ed25519 stanza for a key that is not an unrevoked key of lab {lab.id!r}",
                    where=where,
                    reason="access-wrong-recipient",
                    hint="rewrite it with 'sealboard dataset share'",
                )
            addressed += 1
        elif not label.endswith(GREASE_SUFFIX):
            raise SealError(
                f"holds a {label.decode('ascii', 'replace')!r} stanza",
                where=where,
                reason="access-wrong-recipient",
                hint="rewrite it with 'sealboard dataset share'",
            )
    if not addressed:
        raise SealError(
            "is addressed to none of the lab's keys",
            where=where,
            reason="access-wrong-recipient",
            hint="rewrite it with 'sealboard dataset share'",
        )


@dataclass(frozen=True)
class AccessEntry:
    """One grant, as the site lists it."""

    lab: str
    lab_name: str
    benchmark: str
    granted: str
    copy: str | None  # path of the sealed copy for the current version, if written
    answers: bool = False  # the threshold granted the gold answers too (else the copy has none)


def _read(path: Path, where: str) -> bytes:
    st = path.lstat()
    if not stat.S_ISREG(st.st_mode):
        raise SealError("is not a regular file", where=where, reason="not-a-file")
    if st.st_size > MAX_COPY_BYTES:
        raise SealError(f"is larger than {MAX_COPY_BYTES} bytes", where=where, reason="oversize")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        return fh.read(MAX_COPY_BYTES + 1)


def review(root: Path, registry: Registry, versions: dict[str, str]) -> tuple[list[AccessEntry], list[Rejection]]:
    """Check every copy under keys/access/ against the registry in force; list the grants.

    `versions` maps benchmark id to the version being scored."""
    rejections: list[Rejection] = []
    present: set[str] = set()
    top = Path(root) / ACCESS_DIR
    for path in sorted(top.rglob("*")) if top.is_dir() else ():
        rel = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            continue
        parts = rel[len(ACCESS_DIR) + 1 :].split("/")
        try:
            if len(parts) != 3 or not parts[2].endswith(SUFFIX):
                raise SealError(
                    "is not keys/access/<benchmark>/<version>/<lab>.jsonl.age",
                    where=rel,
                    reason="bad-path",
                    hint="only lab copies written by 'sealboard dataset share' live here",
                )
            benchmark, _version, name = parts
            lab = registry.lab(name[: -len(SUFFIX)])
            if lab is None or not any(g.benchmark == benchmark for g in lab.item_access):
                raise TrustError(
                    f"no grant in registry v{registry.version:04d} gives this lab the items of {benchmark!r}",
                    where=rel,
                    reason="access-not-granted",
                    hint="remove the file, or grant access with 'sealboard keys grant-items' (threshold-signed)",
                )
            check_copy(_read(path, rel), lab, registry, rel)
            present.add(rel)
        except BuilderError as exc:
            rejections.append(Rejection(exc.where or rel, exc.reason, str(exc), exc.hint))
    entries = []
    for lab in registry.labs:
        for grant in lab.item_access:
            version = versions.get(grant.benchmark)
            copy = access_path(grant.benchmark, version, lab.id) if version else None
            entries.append(
                AccessEntry(lab.id, lab.name, grant.benchmark, format_time(grant.granted), copy if copy in present else None, grant.answers)
            )
    return entries, rejections
