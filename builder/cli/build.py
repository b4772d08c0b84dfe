"""``sealboard build``."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import click

from builder.cli.common import TIME, progress, root_option, translate_errors

if TYPE_CHECKING:  # the command imports the pipeline when it runs (start-up time)
    from builder.report.records import BuildReport


@click.command("build")
@root_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output directory [default: ROOT/site].")
@click.option(
    "--identity",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The embargo identity file (or set SEALBOARD_IDENTITY to its text). Without it the site is built with every score sealed.",
)
@click.option(
    "--build-key",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The build key (an unencrypted ssh-ed25519 private key; or set SEALBOARD_BUILD_KEY to its text): signs the "
    "deploy's attestation (site/attestation/) under sealboard-site. It must be the key the registry lists "
    "('sealboard keys set-build-key'). Without it the attestation is written unsigned.",
)
@click.option("--strict", is_flag=True, help="Fail if any bundle is rejected (PR validation).")
@click.option(
    "--as-of",
    "as_of",
    type=TIME,
    help="Rehearse the site as it will be at this UTC time (e.g. 2027-01-15T09:00:00Z): authorised only; every page "
    "says so and carries noindex, and 'sealboard release verify --site' refuses to pass it for deployment. "
    "[default --out: a folder outside the repository, in the system's temporary directory, printed at the end: "
    "a rehearsal holds embargoed item text and answers]",
)
@click.option(
    "--site-generator",
    type=click.Choice(["mkdocs", "zensical"]),
    default="mkdocs",
    show_default=True,
    help="Which generator builds the staged site: mkdocs-material, or Zensical (its 0.0.73, Sealboard's zensical extra, "
    "installed beside Sealboard; "
    "see the maintainers' page for what differs).",
)
@click.option(
    "--beacon-relay",
    "beacon_relay",
    envvar="SEALBOARD_BEACON_RELAY",
    help="A drand relay URL (e.g. https://api.drand.sh) to fetch the round signature of a time-locked release whose "
    "<name>.beacon.json is not committed yet; the signature is verified against the chain the statement names, never trusted.",
)
@translate_errors
def build_command(
    root: Path,
    out: Path | None,
    identity: Path | None,
    build_key: Path | None,
    strict: bool,
    as_of: datetime | None,
    site_generator: str,
    beacon_relay: str | None,
) -> None:
    """Verify, unseal, score and publish the site.

    \b
    Examples:
      sealboard build --root . --identity /secure/identity.txt
      SEALBOARD_IDENTITY="$(cat identity.txt)" sealboard build
      sealboard build --out public-site      # no identity: the sealed public site
      sealboard build --identity id.txt --as-of 2027-01-15T09:00:00Z   # rehearse a release
      sealboard build --identity id.txt --site-generator zensical
      sealboard build --identity id.txt --build-key /secure/build_key   # a signed deploy
      sealboard build --beacon-relay https://api.drand.sh   # open a time-locked release, no secret
    """
    from builder.pipeline.build import build, load_build_key, load_identities

    rehearsal = as_of
    if rehearsal is not None and out is None:
        out = rehearsal_dir(root)  # never site/, never inside the repository
    identities = load_identities(identity, os.environ.get("SEALBOARD_IDENTITY"))
    key = load_build_key(build_key, os.environ.get("SEALBOARD_BUILD_KEY"))
    report = build(
        root,
        out,
        identities=identities,
        now=datetime.now(timezone.utc),
        strict=strict,
        progress=progress,
        as_of=rehearsal,
        site_generator=site_generator,
        build_key=key,
        beacon_relay=beacon_relay,
    )
    del key
    summarise(report)


def rehearsal_dir(root: Path) -> Path:
    """Where a rehearsal goes by default: outside the repository (it holds embargoed text
    that a `git add -A` must never pick up), one folder per repository, reused by reruns."""
    import hashlib
    import tempfile

    resolved = root.resolve()
    tag = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"sealboard-rehearsal-{resolved.name}-{tag}"


def summarise(report: BuildReport) -> None:
    from builder.render.hf_results import site_base
    from builder.render.site_tree import site_address
    from builder.trust.registry import describe_pending

    if report.registry is not None:
        pending = report.registry.pending
        click.echo(
            f"registry: v{report.registry.version:04d} in force"
            + (f"; {describe_pending(pending)} (not in force until signed)" if pending else "")
        )
    for state in report.benchmarks:
        click.echo(f"{state.config.id}: {state.status}, {len(state.bundles)} submission(s), {len(state.boards)} board(s)")
        if state.release is not None:
            click.echo(f"  release: {state.release.summary()}")
    for rejection in report.rejections:
        click.echo(f"rejected: {rejection.message}" + (f" — hint: {rejection.hint}" if rejection.hint else ""), err=True)
    named = [s.config.id for s in report.benchmarks if s.config.hf_dataset]
    if named and site_base(site_address(report.root)) is None:  # builder.render.hf_results: the Hub needs absolute links
        click.echo(
            f"hugging face: no .eval_results written for {', '.join(named)}: mkdocs.yml sets no site_url (https://…), "
            "and the Hub shows only entries with an absolute source URL",
            err=True,
        )
    written = report.attestation
    if written is not None:
        if written.signed:
            click.echo(f"attestation: signed with the build key, {written.files} files (statement sha256 {written.digest})")
        else:
            why = "no build key given" if report.registry is None or report.registry.build_key else "the registry lists no build key"
            click.echo(
                f"attestation: NOT signed ({why}); site/attestation/ lists {written.files} files' sha256, "
                "but 'sealboard verify-site' refuses an unsigned deploy"
            )
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items() if not k.startswith("leak_scan_"))
    click.echo(f"Site written to {report.out} ({stages})")
