"""Maintainers' write operations on release statements: flip (write) and sign."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from builder.config import BenchmarkConfig, load_configs
from builder.errors import BuilderError, ReleaseError
from builder.release.statement import SIG_SUFFIX, Publish, Scope, parse_statement, read_statements, release_dir, statement_text
from builder.release.status import dataset_facts, registry_docs
from builder.trust.registry import load_registry
from builder.trust.sshkeys import PrivateKey, PublicKey, load_private_key
from builder.trust.sshsig import NS_RELEASE, sign, split_armored, verify

if TYPE_CHECKING:
    from builder.timelock.chain import Chain
    from builder.trust.agekeys import Identity

PUBLISH_WORDS = ("items", "results", "transcripts")


def parse_scope(text: str) -> Scope:
    """`all`, `splits:mini,challenge` or `editions-through:2026-01` (command-line form)."""
    kind, _, value = text.partition(":")
    if text == "all":
        return Scope()
    if kind == "splits" and value:
        return Scope(splits=tuple(s.strip() for s in value.split(",") if s.strip()))
    if kind == "editions-through" and value:
        return Scope(editions_through=value)
    raise ReleaseError(f"unknown scope {text!r}", reason="bad-scope", hint="use all, splits:NAME[,NAME…] or editions-through:YYYY-MM")


def parse_publish(text: str) -> Publish:
    words = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in words if w not in PUBLISH_WORDS]
    if unknown:
        raise ReleaseError(f"unknown --publish word {unknown[0]!r}", reason="bad-publish", hint=f"choose from {', '.join(PUBLISH_WORDS)}")
    return Publish(**{w: w in words for w in PUBLISH_WORDS})


def _config(root: Path, benchmark: str) -> BenchmarkConfig:
    config = next((c for c in load_configs(root) if c.id == benchmark), None)
    if config is None:
        raise ReleaseError(f"no benchmark {benchmark!r}", where="leaderboards/", reason="unknown-benchmark")
    return config


def flip(
    root: Path,
    benchmark: str,
    not_before: datetime,
    scope: Scope,
    publish: Publish,
    now: datetime,
    name: str | None = None,
    *,
    timelock: Chain | None = None,
    identities: list[Identity] | None = None,
) -> Path:
    """Write a release statement for the benchmark's current version (unsigned).

    With ``timelock`` (a drand chain), the embargo identity from ``identities`` is also
    time-locked to the chain's first round at or after ``not_before`` and written beside the
    statement as ``<name>.tle`` (builder.release.timelock); the statement binds it."""
    config = _config(root, benchmark)
    facts = dataset_facts(root, config.id, config.version)
    if facts is None or facts.manifest_sha256 is None:
        raise ReleaseError(
            f"no dataset bundle for {benchmark} version {config.version}",
            where=f"bundles/{benchmark}/_dataset/{config.version}",
            reason="missing-dataset",
            hint="the statement pins the dataset bundle's manifest digest",
        )
    bad = [s for s in scope.splits if s not in facts.splits]
    if bad:
        raise ReleaseError(
            f"dataset {config.version} has no split {bad[0]!r} (it has {', '.join(sorted(facts.splits))})", reason="bad-scope"
        )
    registry = load_registry(root, now)
    name = name or f"{not_before:%Y%m%d-%H%M}-" + ("all" if scope.whole else "-".join(scope.splits) or f"through-{scope.editions_through}")
    directory = release_dir(root, config.id)
    path = directory / f"{name}.yaml"
    if path.exists():
        raise ReleaseError(
            "already exists", where=str(path.relative_to(root)), reason="exists", hint="choose another --name, or delete it first"
        )
    locked = None
    if timelock is not None:
        from builder.release.timelock import seal_identity

        if not scope.whole or not (publish.items and publish.results and publish.transcripts):
            raise ReleaseError(
                "--timelock releases the embargo identity, which opens everything: it needs --scope all and "
                "--publish items,results,transcripts",
                reason="bad-timelock",
            )
        locked = seal_identity(config, identities or [], timelock, not_before, name)
    text = statement_text(
        config.id, config.version, facts.manifest_sha256, registry.version, not_before, scope, publish, locked[0] if locked else None
    )
    parse_statement(text.encode(), str(path.relative_to(root)), name)  # what we write, we can read
    directory.mkdir(parents=True, exist_ok=True)
    if locked is not None:
        (directory / locked[0].ciphertext).write_bytes(locked[1])
    path.write_text(text)
    return path


def _signers(sig: bytes, data: bytes, where: str) -> list[PublicKey]:
    found: list[PublicKey] = []
    try:
        blocks = split_armored(sig, where)
    except BuilderError:
        return []
    for block in blocks:
        try:
            found.append(verify(block, data, NS_RELEASE, where))
        except BuilderError:
            continue  # a bad block counts zero at verification; signing again adds a good one
    return found


def _threshold_met(root: Path, path: str, data: bytes, name: str) -> bool:
    """Whether a statement already holds its registry version's threshold of maintainers."""
    try:
        doc = registry_docs(root).get(parse_statement(data, path, name).registry_version)
    except BuilderError:
        return False
    sig_path = root / (path + SIG_SUFFIX)
    if doc is None or not sig_path.is_file():
        return False
    signers = {k.fingerprint for k in _signers(sig_path.read_bytes(), data, str(sig_path))}
    return len(signers & set(doc.active_maintainers)) >= doc.threshold


def sign_statement(root: Path, benchmark: str, key: PrivateKey | Path, name: str | None = None) -> Path:
    """Append this maintainer's SSHSIG (namespace sealboard-release) to <name>.yaml.sig.

    Without `name`, the benchmark must have exactly one statement, or exactly one still short
    of its threshold (a new statement beside releases already signed)."""
    private = key if isinstance(key, PrivateKey) else load_private_key(key)
    files = [f for f in read_statements(root, benchmark) if f.data is not None]
    chosen = [f for f in files if name is None or f.name == name]
    if name is None and len(chosen) > 1:
        open_ = [f for f in chosen if f.data is not None and not _threshold_met(root, f.path, f.data, f.name)]
        chosen = open_ if len(open_) == 1 else chosen
    if len(chosen) != 1:
        names = ", ".join(f.name for f in files) or "none"
        raise ReleaseError(
            f"{'no' if not chosen else 'more than one'} statement to sign (statements: {names})",
            where=f"leaderboards/{benchmark}.release",
            reason="which-statement",
            hint="name one with --statement NAME",
        )
    st = chosen[0]
    if st.data is None:
        raise AssertionError()
    parsed = parse_statement(st.data, st.path, st.name)
    doc = registry_docs(root).get(parsed.registry_version)
    if doc is None or private.public.fingerprint not in doc.active_maintainers:
        raise ReleaseError(
            f"key {private.public.fingerprint} is not a maintainer of registry v{parsed.registry_version:04d}",
            where=st.path,
            reason="signer-not-maintainer",
        )
    sig_path = root / (st.path + SIG_SUFFIX)
    existing = sig_path.read_bytes() if sig_path.exists() else b""
    if existing and private.public in _signers(existing, st.data, str(sig_path)):
        return sig_path  # already signed: a maintainer counts once anyway
    if existing and not existing.endswith(b"\n"):
        existing += b"\n"
    sig_path.write_bytes(existing + sign(private, st.data, NS_RELEASE).encode("ascii"))
    return sig_path
