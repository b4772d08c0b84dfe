"""``sealboard release flip|sign|status|verify|publish-identity|identity-due``."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import click
import orjson

from builder.cli.common import TIME, root_option, translate_errors
from builder.errors import ReleaseError


def _time(value: datetime | None) -> datetime:
    return value if value is not None else datetime.now(timezone.utc)


@click.group("release")
def release() -> None:
    """Schedule, sign, check and complete the release of an embargoed benchmark.

    \b
    A release statement (leaderboards/BENCHMARK.release/NAME.yaml) takes effect when a
    threshold of maintainers signed it and the build's clock is at or past not_before;
    the scheduled authorised build then publishes it.

    \b
    Example (two of three maintainers):
      sealboard release flip soohak --not-before 2027-01-15T09:00:00Z
      sealboard release sign soohak --key ~/.ssh/id_ed25519
      ssh-keygen -Y sign -n sealboard-release -f ~/.ssh/id_ed25519 \
        < leaderboards/soohak.release/NAME.yaml >> leaderboards/soohak.release/NAME.yaml.sig
      sealboard release status
      sealboard build --as-of 2027-01-15T09:00:00Z --identity identity.txt   # rehearse it
    """


@release.command("flip")
@root_option
@click.argument("benchmark")
@click.option("--not-before", "not_before", type=TIME, required=True, help="UTC time the release takes effect, e.g. 2027-01-15T09:00:00Z.")
@click.option("--scope", default="all", show_default=True, help="all | splits:NAME[,NAME…] | editions-through:YYYY-MM.")
@click.option(
    "--publish",
    "publish",
    default="items,results,transcripts",
    show_default=True,
    help="What becomes public: items (text, gold answers), results (per-item, opted-in submissions), transcripts (opted-in).",
)
@click.option("--name", help="Statement file name (default: from the time and scope).")
@click.option(
    "--timelock",
    is_flag=True,
    help="Also time-lock the embargo identity to the drand beacon round at or after --not-before (NAME.tle beside the "
    "statement, tle/tlock-js format): the release then happens with no maintainer at release time. Needs --identity.",
)
@click.option(
    "--chain-info",
    "chain_info",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With --timelock: the drand chain's /info JSON [default: drand's quicknet, pinned].",
)
@click.option(
    "--identity",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With --timelock: the embargo identity file (or SEALBOARD_IDENTITY).",
)
@translate_errors
def flip_command(
    root: Path,
    benchmark: str,
    not_before: datetime,
    scope: str,
    publish: str,
    name: str | None,
    timelock: bool,
    chain_info: Path | None,
    identity: Path | None,
) -> None:
    """Write a release statement for BENCHMARK's current version.

    It flips the switch at --not-before; it publishes nothing by itself and counts only
    once a threshold of maintainers signed it. With --timelock the embargo identity is
    encrypted to the drand beacon round due at --not-before: once the statement is signed,
    any build opens it after that round, with no maintainer and no secret.

    \b
    Examples:
      sealboard release flip kcsat-ml --not-before 2027-01-15T09:00:00Z
      sealboard release flip livemathematicianbench --not-before 2026-12-01T00:00:00Z --scope editions-through:2026-01
      sealboard release flip soohak --not-before 2027-03-01T00:00:00Z --scope splits:mini --publish items,results
      sealboard release flip kcsat-ml --not-before 2027-01-15T09:00:00Z --timelock --identity /secure/identity.txt
    """
    from builder.release.admin import flip, parse_publish, parse_scope

    chain = None
    identities = None
    if timelock:
        from builder.strict import loads_json
        from builder.timelock.chain import QUICKNET, parse_info
        from builder.trust.credentials import load_identities

        chain = parse_info(loads_json(chain_info.read_bytes(), str(chain_info)), str(chain_info)) if chain_info else QUICKNET
        identities = load_identities(identity, os.environ.get("SEALBOARD_IDENTITY"))
    elif chain_info or identity:
        raise ReleaseError("--chain-info and --identity go with --timelock", where="release flip", reason="bad-timelock")
    path = flip(
        root.resolve(),
        benchmark,
        _time(not_before),
        parse_scope(scope),
        parse_publish(publish),
        datetime.now(timezone.utc),
        name,
        timelock=chain,
        identities=identities,
    )
    if chain is not None:
        from builder.release.statement import parse_statement

        tl = parse_statement(path.read_bytes(), str(path), path.stem).timelock
        if tl is None:
            raise AssertionError()
        click.echo(f"Wrote {path.with_suffix('.tle')}: the embargo identity, {tl.describe()} of chain {chain.hash[:16]}…")
    click.echo(f"Wrote {path}; now have a threshold of maintainers sign it: sealboard release sign {benchmark} --key KEY")


@release.command("sign")
@root_option
@click.argument("benchmark")
@click.option(
    "--key", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The maintainer's OpenSSH private key."
)
@click.option(
    "--statement",
    "name",
    help="Which statement (its file name without .yaml), when several lack signatures [default: the only one short of the threshold].",
)
@translate_errors
def sign_command(root: Path, benchmark: str, key: Path, name: str | None) -> None:
    """Add a maintainer's signature (SSHSIG, namespace sealboard-release) to a statement.

    \b
    Examples:
      sealboard release sign soohak --key ~/.ssh/id_ed25519
      sealboard release sign livemathematicianbench --key ~/.ssh/id_ed25519 --statement 20261201-0000-through-2026-01
    Equivalent with stock OpenSSH (appends one armored block):
      ssh-keygen -Y sign -n sealboard-release -f ~/.ssh/id_ed25519 < NAME.yaml >> NAME.yaml.sig
    """
    from builder.release.admin import sign_statement

    click.echo(f"Signed: {sign_statement(root.resolve(), benchmark, key, name)}")


@release.command("status")
@root_option
@click.argument("benchmark", required=False)
@click.option("--as-of", "as_of", type=TIME, help="Judge at this UTC time instead of now (e.g. 2027-01-15T09:00:00Z).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@translate_errors
def status_command(root: Path, benchmark: str | None, as_of: datetime | None, as_json: bool) -> None:
    """Every benchmark's release state: embargoed / scheduled / partly released / released,
    signatures against the threshold, and the time left.

    \b
    Examples:
      sealboard release status
      sealboard release status soohak --as-of 2027-01-15T09:00:00Z
    """
    from builder.config import load_configs
    from builder.release.status import release_states
    from builder.trust.registry import load_registry, signature_count

    root = root.resolve()
    clock = _time(as_of)
    configs = [c for c in load_configs(root) if benchmark in (None, c.id)]
    if not configs:
        raise ReleaseError(f"no benchmark {benchmark!r}", where="leaderboards/", reason="unknown-benchmark")
    now = datetime.now(timezone.utc)
    states = release_states(root, configs, load_registry(root, now), clock, now=now)
    if as_json:
        click.echo(orjson.dumps({k: v.to_dict() for k, v in states.items()}, option=orjson.OPT_INDENT_2).decode())
        return
    for bid, state in states.items():
        click.echo(f"{bid} {state.version}: {state.summary()}")
        for v in state.verdicts:
            signed = f" [{signature_count(len(v.signers), v.needed)}]" if v.needed else ""
            click.echo(f"  {v.state}{signed}: {v.message}")
            if v.statement is not None and v.statement.timelock is not None:
                click.echo(f"    {v.statement.timelock.describe()}, chain {v.statement.timelock.chain.hash[:16]}…")


@release.command("verify")
@root_option
@click.option("--site", type=click.Path(exists=True, file_okay=False, path_type=Path), help="Check a built site instead of the repository.")
@translate_errors
def verify_command(root: Path, site: Path | None) -> None:
    """Re-check a release with no secret: published items against the commitments made
    during the embargo; a rehearsal (--as-of) output is refused (the deploy path runs this).

    \b
    Examples:
      sealboard release verify --site site      # a built site (before deploying it)
      sealboard release verify --root .         # statements, and published identities
    """
    from builder.release.check import verify_repo, verify_site

    lines = verify_site(site.resolve(), root.resolve()) if site else verify_repo(root.resolve(), datetime.now(timezone.utc))
    for line in lines:
        click.echo(line)
    click.echo("OK")


@release.command("publish-identity")
@root_option
@click.argument("benchmark")
@click.option(
    "--identity", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The embargo identity file (or SEALBOARD_IDENTITY)."
)
@translate_errors
def publish_identity_command(root: Path, benchmark: str, identity: Path | None) -> None:
    """After a FULL release is in force, publish BENCHMARK's embargo identity in
    keys/released/ so anyone can rebuild the released site with no secret. Refused before.

    \b
    Example (a maintainer, or the scheduled workflow, then commits the file):
      sealboard release publish-identity kcsat-ml --identity /secure/identity.txt
      git add keys/released && git commit -m "Publish the kcsat-ml embargo identity"
    """
    from builder.config import load_configs
    from builder.release.identity import publish_identity
    from builder.release.status import release_states
    from builder.trust.credentials import load_identities
    from builder.trust.registry import load_registry

    root = root.resolve()
    now = datetime.now(timezone.utc)
    configs = [c for c in load_configs(root) if c.id == benchmark]
    if not configs:
        raise ReleaseError(f"no benchmark {benchmark!r}", where="leaderboards/", reason="unknown-benchmark")
    states = release_states(root, configs, load_registry(root, now), now)
    path = publish_identity(root, configs[0], states[benchmark], load_identities(identity, os.environ.get("SEALBOARD_IDENTITY")))
    click.echo(f"Wrote {path.relative_to(root)}; commit it so builds without a secret reproduce the release")


@release.command("identity-due")
@root_option
@click.option("--as-of", "as_of", type=TIME, help="Judge at this UTC time instead of now (e.g. 2027-01-15T09:00:00Z).")
@translate_errors
def identity_due_command(root: Path, as_of: datetime | None) -> None:
    """Print (space-separated, on one line) the benchmarks whose release in force authorises
    everything the embargo identity opens (the whole version, with items, results and
    transcripts) but whose identity is not published in keys/released/ yet. Needs no secret:
    the scheduled workflow runs it to decide whether to run publish-identity.

    \b
    Example:
      sealboard release identity-due          # e.g. "kcsat-ml", or an empty line
    """
    from builder.config import load_configs
    from builder.release.identity import identity_path
    from builder.release.status import release_states
    from builder.trust.registry import load_registry

    root = root.resolve()
    clock = _time(as_of)
    configs = load_configs(root)
    now = datetime.now(timezone.utc)
    states = release_states(root, configs, load_registry(root, now), clock, now=now)
    due = [c.id for c in configs if states[c.id].identity_authorised and not identity_path(root, c.id, c.version).exists()]
    click.echo(" ".join(due))


@release.command("open-timelock")
@root_option
@click.argument("benchmark")
@click.option(
    "--beacon-relay",
    "beacon_relay",
    envvar="SEALBOARD_BEACON_RELAY",
    help="A drand relay URL to fetch the round signature from (e.g. https://api.drand.sh); verified, never trusted.",
)
@translate_errors
def open_timelock_command(root: Path, benchmark: str, beacon_relay: str | None) -> None:
    """After the beacon round of a time-locked release, with no secret: verify the round's
    signature, open the time-locked embargo identity and write it to keys/released/ (as
    publish-identity would), with the round's signature as NAME.beacon.json for offline builds.

    \b
    Example (anyone, e.g. the scheduled workflow, then commits both files):
      sealboard release open-timelock kcsat-ml --beacon-relay https://api.drand.sh
      git add keys/released leaderboards/kcsat-ml.release && git commit -m "Open the kcsat-ml time-lock"
    """
    from builder.config import load_configs
    from builder.release.identity import identity_path, released_identity_text
    from builder.release.status import release_states
    from builder.release.timelock import open_timelock, save_beacon
    from builder.trust.registry import load_registry

    root = root.resolve()
    now = datetime.now(timezone.utc)
    configs = [c for c in load_configs(root) if c.id == benchmark]
    if not configs:
        raise ReleaseError(f"no benchmark {benchmark!r}", where="leaderboards/", reason="unknown-benchmark")
    config, state = configs[0], release_states(root, configs, load_registry(root, now), now)[benchmark]
    locked = sorted((v.statement for v in state.effective if v.statement and v.statement.timelock), key=lambda st: st.not_before)
    if not state.identity_authorised or not locked:
        raise ReleaseError(
            f"{benchmark} {config.version} has no time-locked release in force that authorises the identity ({state.summary()})",
            where=f"leaderboards/{benchmark}.release",
            reason="not-released",
        )
    st = locked[-1]
    opened = open_timelock(root, config, st, now, beacon_relay)
    if opened.from_relay:
        click.echo(f"Wrote {save_beacon(root, st, opened.signature).relative_to(root)} (round signature, verified)")
    path = identity_path(root, config.id, config.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(released_identity_text(config, opened.identity))
    click.echo(f"Wrote {path.relative_to(root)}; commit it so builds without a secret reproduce the release")
