"""The threshold-signed trust registry: verify the whole chain, then answer "whose key is this?".

Every build re-verifies every transition from v0001 (genesis), so a skipped, rolled-back or
under-signed version is caught from the files alone, without git history:

- v0001 must be signed by `threshold` of its own unrevoked maintainers;
- vN (N > 1) must say `version: N`, and be signed by at least the threshold of v(N-1)'s
  unrevoked maintainers; when the maintainer set or threshold changes, also by its own
  new threshold of its own maintainers (so nobody is added without consenting keys);
- every signature block must verify and come from a maintainer; a key counts once;
- the version in force must not have expired at build time.

The version *in force* is the newest fully signed one. The newest file may be a proposal
still collecting signatures: it is reported (``Registry.pending``) and ignored, so a
proposal never stops a build. Only the newest file may be short of signatures; an
under-signed version followed by others is an error, as is any signature by a key that may
not sign (a stranger's signature is never "pending"). Deleting the newest signed version
(or its .sig) rolls the files back to an older state that verifies on its own; the PR
check catches it ("history-rewritten": a version in force on the base branch changed or
vanished), and the build summary and ``keys status`` print the version in force.

Key windows and revocations are judged at the time the builder passes (its clock), never
at a time the signer claims.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from builder.errors import BuilderError, SignatureError, TrustError
from builder.trust.registry_format import (
    MAX_FILE_BYTES,
    REGISTRY_DIR,
    SIG_SUFFIX,
    VERSION_FILE_RE,
    Lab,
    LabKey,
    Maintainer,
    RegistryVersion,
    Revocation,
    format_time,
    parse_version,
    ssh_time,
    version_filename,
)
from builder.trust.sshkeys import PublicKey
from builder.trust.sshsig import NS_BUNDLE, NS_DATASET, NS_REGISTRY, NS_RELEASE, NS_SITE, split_armored, verify

LAB_NAMESPACES = (NS_BUNDLE,)
MAINTAINER_NAMESPACES = (NS_DATASET, NS_RELEASE, NS_REGISTRY)
BUILD_NAMESPACES = (NS_SITE,)
# The principal of the build key in an exported allowed_signers file (ssh-keygen -Y verify -I).
BUILD_PRINCIPAL = "sealboard-build"
_IGNORED_FILES = ("README.md",)

__all__ = [
    "Lab",
    "LabKey",
    "Maintainer",
    "Registry",
    "Revocation",
    "Tally",
    "load_registry",
    "read_chain",
    "in_force",
    "describe_pending",
    "verify_signatures",
    "require_threshold",
    "tally",
    "signature_count",
    "verify_transition",
    "LAB_NAMESPACES",
    "MAINTAINER_NAMESPACES",
    "BUILD_NAMESPACES",
    "BUILD_PRINCIPAL",
]


def _utc_seconds(at: datetime) -> datetime:
    """Compare at whole seconds in UTC, as ssh-keygen does with allowed_signers windows."""
    if at.tzinfo is None:
        raise ValueError("registry times must be timezone-aware")
    return at.astimezone(timezone.utc).replace(microsecond=0)


@dataclass(frozen=True)
class Registry:
    """The latest registry version, after its whole chain verified. Get one from load_registry."""

    version: int
    expires: datetime
    threshold: int
    maintainers: tuple[Maintainer, ...]
    labs: tuple[Lab, ...]
    revoked: tuple[Revocation, ...]
    path: str
    pending: "Tally | None" = None  # the newest file, while it lacks signatures (not in force)
    build_key: PublicKey | None = None  # signs deploys' attestations (sealboard-site)

    @property
    def active_maintainers(self) -> dict[str, Maintainer]:
        """Maintainers whose key is not revoked, by key fingerprint (as RegistryVersion)."""
        revoked = {r.fingerprint for r in self.revoked}
        return {m.key.fingerprint: m for m in self.maintainers if m.key.fingerprint not in revoked}

    def lab(self, lab_id: str) -> Lab | None:
        return next((lab for lab in self.labs if lab.id == lab_id), None)

    def _revocation(self, key: PublicKey) -> Revocation | None:
        return next((r for r in self.revoked if r.fingerprint == key.fingerprint), None)

    def _revoked_error(self, key: PublicKey, revocation: Revocation, where: str | None) -> TrustError:
        return TrustError(
            f"key {key.fingerprint} was revoked on {format_time(revocation.revoked)} ({revocation.reason})",
            where=where,
            reason="key-revoked",
            hint="sign again with a current key registered in keys/registry",
        )

    def lab_key(self, lab_id: str, key: PublicKey, at: datetime, where: str | None = None) -> LabKey:
        """The registration of `key` for lab `lab_id`, valid at `at` (the build's clock)."""
        lab = next((lab for lab in self.labs if lab.id == lab_id), None)
        if lab is None:
            raise TrustError(
                f"lab {lab_id!r} is not in the registry ({self.path})",
                where=where,
                reason="unknown-lab",
                hint="maintainers add labs with 'sealboard keys add-lab' and sign the new registry version",
            )
        revocation = self._revocation(key)
        if revocation:
            raise self._revoked_error(key, revocation, where)
        entry = next((k for k in lab.keys if k.key == key), None)
        if entry is None:
            owner = next((other.id for other in self.labs for k in other.keys if k.key == key), None)
            if owner is not None:
                raise TrustError(
                    f"signature by key {key.fingerprint} is registered to lab {owner!r}, not {lab_id!r}",
                    where=where,
                    reason="key-of-other-lab",
                    hint=f"sign with a key of lab {lab_id!r}, or move the bundle under bundles/…/{owner}/",
                )
            raise TrustError(
                f"signature by key {key.fingerprint} is not registered to lab {lab_id!r}",
                where=where,
                reason="unregistered-key",
                hint="add the key with 'sealboard keys add-lab' and have maintainers sign the registry",
            )
        moment = _utc_seconds(at)
        if entry.valid_after and moment < entry.valid_after:
            raise TrustError(
                f"key {key.fingerprint} of lab {lab_id!r} is valid only from {format_time(entry.valid_after)}",
                where=where,
                reason="key-not-yet-valid",
            )
        if entry.valid_before and moment > entry.valid_before:
            raise TrustError(
                f"key {key.fingerprint} of lab {lab_id!r} expired at {format_time(entry.valid_before)}",
                where=where,
                reason="key-expired",
                hint="sign again with the lab's current key, or have maintainers extend the key's validity",
            )
        return entry

    def maintainer(self, key: PublicKey, at: datetime | str | None = None, where: str | None = None) -> Maintainer:
        """The maintainer holding `key`. Maintainers have no validity window; `at` exists
        for symmetry with lab_key, and a string second argument is taken as `where`."""
        if isinstance(at, str):
            at, where = None, at
        revocation = self._revocation(key)
        if revocation:
            raise self._revoked_error(key, revocation, where)
        found = next((m for m in self.maintainers if m.key == key), None)
        if found is None:
            raise TrustError(
                f"key {key.fingerprint} is not a maintainer key in {self.path}",
                where=where,
                reason="signer-not-maintainer",
            )
        return found

    @property
    def maintainer_recipients(self) -> tuple[str, ...]:
        """age recipients of unrevoked maintainers (files private even after release go here)."""
        revoked = {r.fingerprint for r in self.revoked}
        return tuple(m.age_recipient for m in self.maintainers if m.age_recipient and m.key.fingerprint not in revoked)

    def allowed_signers(self, namespaces: tuple[str, ...] | list[str] | None = None) -> str:
        """An OpenSSH allowed_signers file accepting exactly what the builder accepts.

        Check a bundle with: ssh-keygen -Y verify -f allowed_signers -I LAB -n sealboard-bundle
        -s manifest.json.sig -Overify-time=YYYYMMDDHHMMSSZ < manifest.json. Revoked keys are
        left out. Registry signatures are the exception: the builder checks those against
        the *previous* version's maintainers, which one file cannot express.
        """
        wanted = set(namespaces) if namespaces is not None else set(LAB_NAMESPACES + MAINTAINER_NAMESPACES + BUILD_NAMESPACES)
        revoked = {r.fingerprint for r in self.revoked}
        lines = [f"# sealboard allowed_signers from {self.path} (registry version {self.version}); generated, do not edit"]
        lab_ns = [ns for ns in LAB_NAMESPACES if ns in wanted]
        for lab in self.labs if lab_ns else ():
            for entry in lab.keys:
                if entry.key.fingerprint in revoked:
                    continue
                options = [f'namespaces="{",".join(lab_ns)}"']
                if entry.valid_after:
                    options.append(f'valid-after="{ssh_time(entry.valid_after)}"')
                if entry.valid_before:
                    options.append(f'valid-before="{ssh_time(entry.valid_before)}"')
                lines.append(f"{lab.id} {','.join(options)} {entry.key.openssh}")
        maintainer_ns = [ns for ns in MAINTAINER_NAMESPACES if ns in wanted]
        for m in self.maintainers if maintainer_ns else ():
            if m.key.fingerprint not in revoked:
                lines.append(f'{m.id} namespaces="{",".join(maintainer_ns)}" {m.key.openssh}')
        # The build key signs attestations only: one line, principal sealboard-build.
        if NS_SITE in wanted and self.build_key is not None and self.build_key.fingerprint not in revoked:
            lines.append(f'{BUILD_PRINCIPAL} namespaces="{NS_SITE}" {self.build_key.openssh}')
        return "\n".join(lines) + "\n"

    def revoked_keys(self) -> str:
        """Public keys of revoked fingerprints this registry still lists, one per line:
        usable as `ssh-keygen -Y verify -r FILE` (fingerprints of unknown keys cannot be)."""
        revoked = {r.fingerprint for r in self.revoked}
        keys = [m.key for m in self.maintainers] + [k.key for lab in self.labs for k in lab.keys]
        keys += [self.build_key] if self.build_key else []
        return "".join(key.openssh + "\n" for key in keys if key.fingerprint in revoked)


# --- verifying the chain --------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """How one version's signatures count against the rules above (never raises)."""

    doc: RegistryVersion | Registry  # what is signed: a registry version (or, for datasets, the one in force)
    signers: tuple[PublicKey, ...]  # distinct keys with a valid signature
    strangers: tuple[PublicKey, ...]  # valid signatures by keys that may not sign this version
    old_needed: int  # threshold of the previous version (of itself for genesis)
    old_signers: tuple[Maintainer, ...]
    new_needed: int | None  # own threshold, when maintainers or threshold changed
    new_signers: tuple[Maintainer, ...]

    @property
    def complete(self) -> bool:
        enough_new = self.new_needed is None or len(self.new_signers) >= self.new_needed
        return not self.strangers and len(self.old_signers) >= self.old_needed and enough_new


def _maintainer_set(doc: RegistryVersion | Registry) -> tuple[int, frozenset[tuple[str, str, str | None]]]:
    return doc.threshold, frozenset((m.id, fp, m.age_recipient) for fp, m in doc.active_maintainers.items())


def tally(prev: RegistryVersion | None, doc: RegistryVersion | Registry, signers: list[PublicKey]) -> Tally:
    distinct = tuple(dict.fromkeys(signers))  # each key counts once, first-seen order
    old = (prev or doc).active_maintainers
    changed = prev is not None and _maintainer_set(prev) != _maintainer_set(doc)
    new = doc.active_maintainers if changed else {}
    return Tally(
        doc=doc,
        signers=distinct,
        strangers=tuple(k for k in distinct if k.fingerprint not in old and k.fingerprint not in new),
        old_needed=(prev or doc).threshold,
        old_signers=tuple(old[k.fingerprint] for k in distinct if k.fingerprint in old),
        new_needed=doc.threshold if changed else None,
        new_signers=tuple(new[k.fingerprint] for k in distinct if k.fingerprint in new),
    )


def enforce(
    t: Tally,
    prev: RegistryVersion | None,
    *,
    where: str | None = None,
    base: str | None = None,
    sign_hint: str = "collect more signatures with 'sealboard keys sign'",
) -> None:
    """Raise the TrustError a Tally falls short with. `where` (the signed file) and `base`
    (whose maintainers count) default to a registry version's own."""
    where = where or t.doc.path
    base = base or (f"v{prev.version:04d}" if prev else "this version")
    if t.strangers:
        raise TrustError(
            f"holds a signature by {t.strangers[0].fingerprint}, which is not an unrevoked "
            f"maintainer of {'the previous version' if prev else base}",
            where=where + SIG_SUFFIX,
            reason="signer-not-maintainer",
            hint="remove that signature block; only maintainers of the previous version sign a new one"
            if prev
            else f"remove that signature block; only maintainers of {base} sign",
        )
    signed = ", ".join(k.fingerprint for k in t.signers) or "nobody"
    if len(t.old_signers) < t.old_needed:
        raise TrustError(
            f"{len(t.old_signers)} valid signature(s) of the {t.old_needed} required from maintainers of {base} (signed by: {signed})",
            where=where,
            reason="below-threshold",
            hint=sign_hint,
        )
    if t.new_needed is not None and len(t.new_signers) < t.new_needed:
        raise TrustError(
            f"maintainers or threshold changed, and only {len(t.new_signers)} of the {t.new_needed} signatures "
            f"required from the new maintainers are present (signed by: {signed})",
            where=where,
            reason="below-threshold",
            hint="the new maintainer set must also sign, so nobody joins without consenting keys",
        )


def verify_signatures(data: bytes, sig_text: bytes | None, where: str, namespace: str = NS_REGISTRY) -> list[PublicKey]:
    """Every block of a .sig file must verify over the exact file bytes; return the signers."""
    sig_where = where + SIG_SUFFIX
    if sig_text is None:
        return []
    signers = []
    blocks = _as_trust_error(lambda: split_armored(sig_text, sig_where))
    for i, block in enumerate(blocks, start=1):
        signers.append(_as_trust_error(functools.partial(verify, block, data, namespace, sig_where), f"signature {i}: "))
    return signers


def require_threshold(
    registry: Registry, data: bytes, sig_text: bytes | None, where: str, namespace: str, sign_hint: str
) -> tuple[Maintainer, ...]:
    """Maintainer-threshold signatures over a file other than the registry (a dataset
    manifest, a release statement): every block in ``where + ".sig"`` verifies under
    ``namespace``, comes from an unrevoked maintainer of the registry in force, and at least
    its threshold of distinct maintainers signed. Returns who signed; raises TrustError."""
    t = tally(None, registry, verify_signatures(data, sig_text, where, namespace))
    for stranger in t.strangers:  # the precise refusal: key-revoked or signer-not-maintainer
        registry.maintainer(stranger, where=where + SIG_SUFFIX)
    enforce(t, None, where=where, base=f"registry v{registry.version:04d}", sign_hint=sign_hint)
    return t.old_signers


T = TypeVar("T")


def _as_trust_error(call: Callable[[], T], prefix: str = "") -> T:
    try:
        return call()
    except SignatureError as exc:  # a registry problem is a trust problem, with the same reason
        raise TrustError(prefix + exc.message, where=exc.where, reason=exc.reason, hint=exc.hint) from None


def _read(path: Path, where: str) -> bytes:
    if path.is_symlink() or not path.is_file():
        raise TrustError("is not a regular file", where=where, reason="bad-file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise TrustError(f"is larger than {MAX_FILE_BYTES} bytes", where=where, reason="bad-file")
    return path.read_bytes()


def _parse(data: bytes, where: str) -> RegistryVersion:
    try:
        return parse_version(data, where)
    except TrustError:
        raise
    except BuilderError as exc:
        raise TrustError(exc.message, where=exc.where, line=exc.line, reason=exc.reason, hint=exc.hint) from None


def _version_files(root: Path) -> list[tuple[int, Path]]:
    directory = root / REGISTRY_DIR
    if not directory.is_dir():
        raise TrustError("no trust registry", where=REGISTRY_DIR, reason="no-registry", hint="create one with 'sealboard keys init'")
    found = []
    for path in sorted(directory.iterdir()):
        match = VERSION_FILE_RE.match(path.name)
        if match and path.name == version_filename(int(match.group(1))):
            found.append((int(match.group(1)), path))
        elif not (path.name.endswith(".yaml" + SIG_SUFFIX) or path.name.startswith(".") or path.name in _IGNORED_FILES):
            raise TrustError(
                "unexpected file in the registry",
                where=f"{REGISTRY_DIR}/{path.name}",
                reason="bad-file",
                hint="the registry holds only vNNNN.yaml files and their .sig files",
            )
    if not found:
        raise TrustError("no registry versions", where=REGISTRY_DIR, reason="no-registry", hint="create one with 'sealboard keys init'")
    return sorted(found)


def read_chain(root: Path) -> list[tuple[RegistryVersion, bytes, list[PublicKey]]]:
    """Parse every version in order with its verified signers; checks numbering, not counts."""
    chain: list[tuple[RegistryVersion, bytes, list[PublicKey]]] = []
    for number, path in _version_files(Path(root)):
        where = f"{REGISTRY_DIR}/{path.name}"
        expected = chain[-1][0].version + 1 if chain else 1
        if number != expected:
            raise TrustError(
                f"registry version {expected} is missing (next file is {path.name})",
                where=where,
                reason="version-skip",
                hint="versions rise by exactly one; restore the missing file",
            )
        data = _read(path, where)
        doc = _parse(data, where)
        _check_number(doc, expected, where)
        sig_path = path.with_name(path.name + SIG_SUFFIX)
        sig_text = _read(sig_path, where + SIG_SUFFIX) if sig_path.exists() or sig_path.is_symlink() else None
        chain.append((doc, data, verify_signatures(data, sig_text, where)))
    return chain


def _check_number(doc: RegistryVersion, expected: int, where: str) -> None:
    if doc.version < expected:
        raise TrustError(
            f"says version {doc.version}, expected {expected}",
            where=where,
            reason="version-rollback",
            hint="a new registry version must carry the next version number",
        )
    if doc.version > expected:
        raise TrustError(
            f"says version {doc.version}, expected {expected}", where=where, reason="version-skip", hint="versions rise by exactly one"
        )


def in_force(chain: list[tuple[RegistryVersion, bytes, list[PublicKey]]]) -> tuple[RegistryVersion | None, Tally | None]:
    """The newest fully signed version and the newest file's tally if it is still pending.

    Raises for anything but missing signatures on the newest file (see the module doc).
    Returns (None, tally) while the genesis version itself is not fully signed.
    """
    prev: RegistryVersion | None = None
    for i, (doc, _data, signers) in enumerate(chain):
        t = tally(prev, doc, signers)
        if not t.complete:
            if i == len(chain) - 1 and not t.strangers:
                return prev, t
            enforce(t, prev)
        prev = doc
    return prev, None


def signature_count(counted: int, needed: int, what: str = "signatures") -> str:
    """How many distinct maintainers signed, against the threshold: '1 of 2 signatures' while
    short of it, '3 signatures, threshold 2' once met ('3 of 2' read like an error; each
    maintainer counts once however often they signed)."""
    if counted < needed:
        return f"{counted} of {needed} {what}"
    return f"{counted} {what}, threshold {needed}"


def describe_pending(t: Tally) -> str:
    """One line for a proposal still collecting signatures (build summary, keys status)."""
    names = ", ".join(m.id for m in t.old_signers) or "none"
    line = f"v{t.doc.version:04d} is pending: {signature_count(len(t.old_signers), t.old_needed)} ({names})"
    if t.new_needed is not None:
        line += f"; maintainers changed, {signature_count(len(t.new_signers), t.new_needed, 'from the new set')}"
    return line


def load_registry(root: Path | str, now: datetime) -> Registry:
    """Verify the registry chain under root/keys/registry; return the version in force."""
    prev, pending = in_force(read_chain(Path(root)))
    if prev is None:
        if pending is not None:  # the genesis version lacks signatures: nothing is in force
            enforce(pending, None)
        raise TrustError("no registry versions", where=REGISTRY_DIR, reason="no-registry")
    if _utc_seconds(now) >= prev.expires:
        extra = f"; {describe_pending(pending)}" if pending else ""
        raise TrustError(
            f"registry version {prev.version} expired at {format_time(prev.expires)}{extra}",
            where=prev.path,
            reason="registry-expired",
            hint="maintainers renew it with 'sealboard keys renew' and sign the new version",
        )
    return Registry(
        prev.version, prev.expires, prev.threshold, prev.maintainers, prev.labs, prev.revoked, prev.path, pending, prev.build_key
    )


def verify_transition(
    old_bytes: bytes,
    old_sigs: bytes | None,
    new_bytes: bytes,
    new_sigs: bytes | None,
    *,
    old_where: str = "base registry",
    new_where: str = "new registry",
) -> RegistryVersion:
    """Check that new is a valid successor of old (for a PR check comparing base and head).

    Old is trusted as the base; when it is the genesis version and old_sigs is given, its own
    signatures are checked too. Returns the parsed new version.
    """
    old = _parse(old_bytes, old_where)
    if old.version == 1 and old_sigs is not None:
        enforce(tally(None, old, verify_signatures(old_bytes, old_sigs, old_where)), None)
    new = _parse(new_bytes, new_where)
    _check_number(new, old.version + 1, new_where)
    enforce(tally(old, new, verify_signatures(new_bytes, new_sigs, new_where)), old)
    return new
