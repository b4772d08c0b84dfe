"""Publishing the embargo identity after a full release, and reading it back.

The identity opens everything sealed to the embargo key: every item and gold answer, every
opted-in results file and transcript. So it is published only when the statements in force
authorise all of that (``ReleaseState.identity_authorised``: a whole-version statement
publishing items, results and transcripts, and no statement as new narrowing it); a
release that publishes less publishes the opened files themselves (items.jsonl, the
matrix, transcripts: builder.release.outputs) for what it authorises, and the identity
stays private. Once authorised, a maintainer (or the scheduled workflow, which holds the
identity) runs ``sealboard release publish-identity BENCHMARK``.
It writes ``keys/released/<benchmark>-<version>.txt``: only that version's embargo key,
even when the identity file given holds several. From then on a build with no secret at
all unseals that version from the repository and reproduces the released boards.

The build honours a published identity only for a benchmark whose release at its clock
authorises it: a file committed early is reported and ignored (the embargo is
then broken anyway — rotate the embargo key — but the site never treats it as a release).

A release scheduled with ``--timelock`` needs no one at release time: its statement carries
the identity encrypted to a drand beacon round, and once that round is signed any build
opens it (builder.release.timelock) and uses it exactly as a published one; ``sealboard
release open-timelock`` then writes the file here, as publish-identity would.

Nothing else opens with it: results and transcripts a lab does not opt to publish are
sealed to the benchmark's private results key, never published (builder.bundles.sealing),
and each benchmark version has its own embargo key. Only the embargo key is written here,
and a published file holding any other key is ignored.
"""

from __future__ import annotations

from pathlib import Path

from builder.config import BenchmarkConfig
from builder.errors import BuilderError, ReleaseError, SecretError
from builder.release.identity_file import released_identity_text
from builder.release.status import RELEASED, ReleaseState
from builder.release.timelock import open_timelock
from builder.trust.seal import Identity, load_identity

RELEASED_KEYS_DIR = Path("keys") / "released"
MAX_IDENTITY_BYTES = 4096


def identity_path(root: Path, benchmark: str, version: str) -> Path:
    return root / RELEASED_KEYS_DIR / f"{benchmark}-{version}.txt"


def publish_identity(root: Path, config: BenchmarkConfig, state: ReleaseState, identities: list[Identity]) -> Path:
    """Write the published identity of `config`'s version; refuses unless fully released."""
    if state.state != RELEASED:
        raise ReleaseError(
            f"{config.id} {config.version} is not released in full ({state.summary()}); the identity stays secret",
            where=config.path,
            reason="not-released",
            hint="a statement with scope `all` must be signed by the threshold and its not_before passed",
        )
    if not state.identity_authorised:
        raise ReleaseError(
            f"the release of {config.id} {config.version} in force does not publish everything its embargo key opens "
            "(items, results and transcripts); the identity stays secret",
            where=config.path,
            reason="identity-not-authorised",
            hint="the site publishes what the release authorises itself; to publish the key, sign a statement "
            "with scope `all` and publish items, results and transcripts all true",
        )
    key = next((ident for ident in identities if config.embargo_recipient in ident.recipients), None)
    if key is None:
        raise SecretError(
            f"the identity given does not hold the embargo key of {config.id} ({config.embargo_recipient})",
            where="--identity / SEALBOARD_IDENTITY",
            reason="wrong-identity",
        )
    path = identity_path(root, config.id, config.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(released_identity_text(config, key))
    return path


def published_identities(
    root: Path, configs: list[BenchmarkConfig], states: dict[str, ReleaseState], relay: str | None = None
) -> tuple[list[Identity], list[BuilderError]]:
    """Identities published for releases that authorise them, and problems: the file in
    keys/released/, else the time-lock of a statement in force (round signature from the
    repository, or from ``relay`` when given)."""
    found: list[Identity] = []
    problems: list[BuilderError] = []
    for config in configs:
        path = identity_path(root, config.id, config.version)
        rel = str(path.relative_to(root))
        if not (path.exists() or path.is_symlink()):
            state = states.get(config.id)
            if state is not None and state.identity_authorised:
                opened, problem = _timelocked(root, config, state, relay)
                found += opened
                problems += problem
            continue
        state = states.get(config.id)
        if state is None or not state.identity_authorised:
            problems.append(
                ReleaseError(
                    f"a published identity exists but the release of {config.id} {config.version} in force does not "
                    "authorise it (a whole-version release publishing items, results and transcripts); it is ignored",
                    where=rel,
                    reason="identity-before-release",
                    hint="remove it and rotate the embargo key: the embargo is broken for anyone who read it",
                )
            )
            continue
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_IDENTITY_BYTES:
                raise ReleaseError("is not a small regular file", where=rel, reason="bad-file")
            ident = load_identity(path.read_bytes(), rel)
        except BuilderError as exc:
            problems.append(exc)
            continue
        if ident.recipients != (config.embargo_recipient,):
            problems.append(
                ReleaseError(
                    f"holds keys other than exactly the embargo key of {config.id} ({config.embargo_recipient}); it is ignored",
                    where=rel,
                    reason="wrong-identity",
                    hint="publish it with 'sealboard release publish-identity'",
                )
            )
            continue
        found.append(ident)
    return found, problems


def _timelocked(root: Path, config: BenchmarkConfig, state: ReleaseState, relay: str | None) -> tuple[list[Identity], list[BuilderError]]:
    """The identity out of the newest time-locked statement in force that opens (or why none does)."""
    locked = sorted(
        (v.statement for v in state.effective if v.statement and v.statement.timelock), key=lambda st: st.not_before, reverse=True
    )
    problems: list[BuilderError] = []
    for st in locked:
        try:
            return [open_timelock(root, config, st, state.clock, relay).identity], []
        except BuilderError as exc:
            problems.append(exc)
    return [], problems
