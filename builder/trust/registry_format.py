"""The trust registry file format, `sealboard-registry/1`: parse one version strictly, write one.

One file per version, `keys/registry/vNNNN.yaml` (layout in ARCHITECTURE.md). This module
only reads and writes a single version; whether a version is *trusted* (its signatures,
its place in the chain) is `builder.trust.registry`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import yaml

from builder.errors import BuilderError, ParseError, TrustError
from builder.strict import check_fields, check_identifier, clean_display_name, loads_yaml
from builder.trust.sshkeys import PublicKey, parse_public_key

FORMAT = "sealboard-registry/1"
REGISTRY_DIR = "keys/registry"
VERSION_FILE_RE = re.compile(r"v(\d{4,})\.yaml\Z")
SIG_SUFFIX = ".sig"
MAX_FILE_BYTES = 1 << 20  # a registry of thousands of labs is still far below this

# Whole seconds only: ssh-keygen's allowed_signers times have second resolution, and the
# export must mean exactly what the builder enforces.
_TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z")
_FINGERPRINT_RE = re.compile(r"SHA256:[A-Za-z0-9+/]{43}\Z")
_AGE_RECIPIENT_RE = re.compile(r"age1[02-9ac-hj-np-z]{58}\Z")  # X25519 recipient, bech32


def version_filename(version: int) -> str:
    return f"v{version:04d}.yaml"


def format_time(value: datetime) -> str:
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def ssh_time(value: datetime) -> str:
    """ssh-keygen's allowed_signers form, explicitly UTC: YYYYMMDDHHMMSSZ."""
    return value.astimezone(timezone.utc).strftime("%Y%m%d%H%M%SZ")


def parse_time(value: Any, where: str, field: str) -> datetime:
    """RFC 3339 UTC with a literal 'Z' and whole seconds, e.g. 2027-06-30T00:00:00Z."""
    if not isinstance(value, str) or not _TIME_RE.match(value):
        raise ParseError(
            f"{field} must be an RFC 3339 UTC time like 2027-06-30T00:00:00Z, not {value!r}"[:200],
            where=where,
            reason="bad-time",
        )
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        raise ParseError(f"{field} {value!r} is not a real date and time", where=where, reason="bad-time") from None


@dataclass(frozen=True)
class Maintainer:
    id: str
    name: str
    key: PublicKey
    age_recipient: str | None = None


@dataclass(frozen=True)
class LabKey:
    """A key registered to a lab, valid from valid_after to valid_before inclusive (as ssh-keygen)."""

    lab: str
    key: PublicKey
    valid_after: datetime | None = None
    valid_before: datetime | None = None


@dataclass(frozen=True)
class ItemAccess:
    """The maintainers' threshold granted this lab the embargoed items of `benchmark` (sealed
    to its SSH key under keys/access/) from `granted` on."""

    benchmark: str
    granted: datetime
    # Gold answers go with the items only when the threshold granted them too (design
    # invariant 11): the build grades every answer type itself, so a lab needs the questions.
    answers: bool = False


@dataclass(frozen=True)
class Lab:
    id: str
    name: str
    keys: tuple[LabKey, ...]
    item_access: tuple[ItemAccess, ...] = ()


@dataclass(frozen=True)
class Revocation:
    fingerprint: str
    reason: str
    revoked: datetime


@dataclass(frozen=True)
class RegistryVersion:
    """One parsed registry file. Parsed is not trusted: see builder.trust.registry.load_registry."""

    version: int
    expires: datetime
    threshold: int
    maintainers: tuple[Maintainer, ...]
    labs: tuple[Lab, ...]
    revoked: tuple[Revocation, ...]
    path: str
    # The key the authorised build signs each deploy's attestation with (namespace
    # sealboard-site, builder.attest); None: this instance's deploys are not signed.
    build_key: PublicKey | None = None

    @property
    def revoked_fingerprints(self) -> frozenset[str]:
        return frozenset(r.fingerprint for r in self.revoked)

    @property
    def active_maintainers(self) -> dict[str, Maintainer]:
        """Maintainers whose key is not revoked, by key fingerprint."""
        revoked = self.revoked_fingerprints
        return {m.key.fingerprint: m for m in self.maintainers if m.key.fingerprint not in revoked}


def _int(value: Any, where: str, field: str, minimum: int) -> int:
    if type(value) is not int or value < minimum:  # bool is an int subclass; refuse it
        raise ParseError(f"{field} must be an integer >= {minimum}, not {value!r}"[:200], where=where, reason="wrong-type")
    return value


def _list(value: Any, where: str, field: str, *, allow_empty: bool) -> list[Any]:
    if not isinstance(value, list) or (not value and not allow_empty):
        raise ParseError(f"{field} must be a {'' if allow_empty else 'non-empty '}list", where=where, reason="wrong-type")
    return value


def _key(value: Any, where: str, field: str) -> PublicKey:
    try:
        return parse_public_key(value, where)
    except BuilderError as exc:
        raise ParseError(f"{field}: {exc.message}", where=where, reason=exc.reason, hint=exc.hint) from None


def _maintainer(obj: Any, where: str, field: str) -> Maintainer:
    check_fields(obj, {"id", "name", "key"}, {"age_recipient"}, where=where, context=field)
    recipient = obj.get("age_recipient")
    if recipient is not None and (not isinstance(recipient, str) or not _AGE_RECIPIENT_RE.match(recipient)):
        raise ParseError(f"{field}.age_recipient is not an age X25519 recipient (age1…)", where=where, reason="bad-recipient")
    return Maintainer(
        id=check_identifier(obj["id"], where=where, field=f"{field}.id"),
        name=clean_display_name(obj["name"], where=where, field=f"{field}.name"),
        key=_key(obj["key"], where, f"{field}.key"),
        age_recipient=recipient,
    )


def _item_access(value: Any, where: str, field: str) -> tuple[ItemAccess, ...]:
    grants = []
    for i, entry in enumerate(_list(value, where, field, allow_empty=True)):
        sub = f"{field}[{i}]"
        check_fields(entry, {"benchmark", "granted"}, {"answers"}, where=where, context=sub)
        answers = entry.get("answers", False)
        if not isinstance(answers, bool):
            raise ParseError(f"{sub}.answers must be true or false", where=where, reason="wrong-type")
        grants.append(
            ItemAccess(
                check_identifier(entry["benchmark"], where=where, field=f"{sub}.benchmark"),
                parse_time(entry["granted"], where, f"{sub}.granted"),
                answers,
            )
        )
    _unique([g.benchmark for g in grants], where, f"{field} benchmark")
    return tuple(grants)


def _lab(obj: Any, where: str, field: str) -> Lab:
    check_fields(obj, {"id", "name", "keys"}, {"item_access"}, where=where, context=field)
    lab_id = check_identifier(obj["id"], where=where, field=f"{field}.id")
    keys = []
    for i, entry in enumerate(_list(obj["keys"], where, f"{field}.keys", allow_empty=False)):
        sub = f"{field}.keys[{i}]"
        check_fields(entry, {"key"}, {"valid_after", "valid_before"}, where=where, context=sub)
        after = parse_time(entry["valid_after"], where, f"{sub}.valid_after") if "valid_after" in entry else None
        before = parse_time(entry["valid_before"], where, f"{sub}.valid_before") if "valid_before" in entry else None
        if after and before and after >= before:
            raise ParseError(f"{sub}: valid_after must be before valid_before", where=where, reason="bad-time")
        keys.append(LabKey(lab_id, _key(entry["key"], where, f"{sub}.key"), after, before))
    access = _item_access(obj["item_access"], where, f"{field}.item_access") if "item_access" in obj else ()
    return Lab(lab_id, clean_display_name(obj["name"], where=where, field=f"{field}.name"), tuple(keys), access)


def _revocation(obj: Any, where: str, field: str) -> Revocation:
    check_fields(obj, {"fingerprint", "reason", "revoked"}, where=where, context=field)
    fingerprint = obj["fingerprint"]
    if not isinstance(fingerprint, str) or not _FINGERPRINT_RE.match(fingerprint):
        raise ParseError(
            f"{field}.fingerprint must look like SHA256:… (43 base64 characters)",
            where=where,
            reason="bad-fingerprint",
            hint="copy it from 'ssh-keygen -lf KEY.pub'",
        )
    reason = clean_display_name(obj["reason"], where=where, field=f"{field}.reason", max_len=500)
    return Revocation(fingerprint, reason, parse_time(obj["revoked"], where, f"{field}.revoked"))


def _unique(values: list[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ParseError(f"{what} {value} appears more than once", where=where, reason="duplicate")
        seen.add(value)


def parse_version(data: bytes, where: str) -> RegistryVersion:
    """Parse and check one registry file's bytes. Raises ParseError naming file and field."""
    obj = check_fields(
        loads_yaml(data, where),
        {"format", "version", "expires", "threshold", "maintainers"},
        {"labs", "revoked", "build_key"},
        where=where,
        context="registry",
    )
    if obj["format"] != FORMAT:
        raise ParseError(f"format must be {FORMAT!r}, not {obj['format']!r}"[:200], where=where, reason="bad-format")
    maintainers = tuple(
        _maintainer(m, where, f"maintainers[{i}]") for i, m in enumerate(_list(obj["maintainers"], where, "maintainers", allow_empty=False))
    )
    labs = tuple(_lab(lab, where, f"labs[{i}]") for i, lab in enumerate(_list(obj.get("labs", []), where, "labs", allow_empty=True)))
    revoked = tuple(
        _revocation(r, where, f"revoked[{i}]") for i, r in enumerate(_list(obj.get("revoked", []), where, "revoked", allow_empty=True))
    )
    build_key = _key(obj["build_key"], where, "build_key") if "build_key" in obj else None
    if build_key is not None and build_key.algorithm != "ssh-ed25519":
        # Ed25519 signs deterministically, so two builds of one commit sign the same bytes
        # (ECDSA would not: the attestation must be byte-reproducible like the site).
        raise ParseError(
            f"build_key must be an ssh-ed25519 key, not {build_key.algorithm}",
            where=where,
            reason="build-key-not-ed25519",
            hint="make one with: ssh-keygen -t ed25519 -N '' -f build_key",
        )
    _unique([m.id for m in maintainers], where, "maintainer id")
    _unique([lab.id for lab in labs], where, "lab id")
    _unique([r.fingerprint for r in revoked], where, "revoked fingerprint")
    # One key, one role: otherwise a maintainer key could sign bundles for a lab, or a
    # key could be claimed by two labs and the ledger would not say whose results they are.
    _unique(
        [m.key.fingerprint for m in maintainers]
        + [k.key.fingerprint for lab in labs for k in lab.keys]
        + ([build_key.fingerprint] if build_key else []),
        where,
        "key",
    )
    doc = RegistryVersion(
        version=_int(obj["version"], where, "version", 1),
        expires=parse_time(obj["expires"], where, "expires"),
        threshold=_int(obj["threshold"], where, "threshold", 1),
        maintainers=maintainers,
        labs=labs,
        revoked=revoked,
        path=where,
        build_key=build_key,
    )
    if doc.threshold > len(doc.active_maintainers):
        raise TrustError(
            f"threshold {doc.threshold} exceeds the {len(doc.active_maintainers)} unrevoked maintainer(s)",
            where=where,
            reason="bad-threshold",
            hint="lower the threshold or add maintainers; otherwise no later version could ever be signed",
        )
    return doc


def to_data(doc: RegistryVersion) -> dict[str, Any]:
    """The plain YAML structure of a version (what `dump` writes and mutators edit)."""

    def lab_key(k: LabKey) -> dict[str, Any]:
        out: dict[str, Any] = {"key": k.key.openssh}
        if k.valid_after:
            out["valid_after"] = format_time(k.valid_after)
        if k.valid_before:
            out["valid_before"] = format_time(k.valid_before)
        return out

    def maintainer(m: Maintainer) -> dict[str, Any]:
        out = {"id": m.id, "name": m.name, "key": m.key.openssh}
        return out | ({"age_recipient": m.age_recipient} if m.age_recipient else {})

    def lab_data(lab: Lab) -> dict[str, Any]:
        out: dict[str, Any] = {"id": lab.id, "name": lab.name, "keys": [lab_key(k) for k in lab.keys]}
        if lab.item_access:
            out["item_access"] = [
                {"benchmark": g.benchmark, "granted": format_time(g.granted)} | ({"answers": True} if g.answers else {})
                for g in lab.item_access
            ]
        return out

    data: dict[str, Any] = {
        "format": FORMAT,
        "version": doc.version,
        "expires": format_time(doc.expires),
        "threshold": doc.threshold,
        "maintainers": [maintainer(m) for m in doc.maintainers],
        "labs": [lab_data(lab) for lab in doc.labs],
        "revoked": [{"fingerprint": r.fingerprint, "reason": r.reason, "revoked": format_time(r.revoked)} for r in doc.revoked],
    }
    return data | ({"build_key": doc.build_key.openssh} if doc.build_key else {})


def dump(data: dict[str, Any]) -> bytes:
    """Serialise registry data as YAML. Times stay strings; the strict loader reads them back."""
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=4096)
    return text.encode("utf-8")
