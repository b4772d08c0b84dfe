"""``sealboard demo``."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click

from builder.cli.common import progress, translate_errors


@click.command("demo")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default="demo", show_default=True, help="Where to write the demo instance."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the synthetic data.")
@click.option(
    "--history",
    is_flag=True,
    help="Give the demo a past: commit it embargoed first, deploy and record that "
    "(signed attestation under attestations/), then the releases, then run 'sealboard audit --release kcsat-ml' "
    "and record its result, which the site shows (about a minute more).",
)
@translate_errors
def demo_command(out: Path, seed: int, history: bool) -> None:
    """Write a complete demo instance (throwaway keys, signed and sealed synthetic bundles
    for SOOHAK, LiveMathematicianBench and KCSAT-ML) and build it authorised into OUT/site.
    Without --history, its git history holds two earlier deploys, signed and recorded, which the site's
    Snapshots page and changelog show.

    \b
    Example:
      sealboard demo --out demo && python -m http.server -d demo/site 8000
      sealboard demo --out demo --history && sealboard audit --release kcsat-ml --root demo
    """
    from builder.cli.build import summarise
    from builder.demo.instance import BUILD_KEY, write_demo
    from builder.pipeline.build import build, load_build_key, load_identities

    made = write_demo(out, seed=seed, progress=progress, history=history)
    if history:
        from builder.demo.history import audit_released, deploy_embargoed

        deploy_embargoed(out.resolve(), progress)
        click.echo(audit_released(out.resolve(), progress).sentence())
    identity = out / "keys" / "demo" / "identity.txt"
    report = build(
        out,
        out / "site",
        identities=load_identities(identity, None),
        now=datetime.now(timezone.utc),
        progress=progress,
        build_key=load_build_key(out / "keys" / "demo" / BUILD_KEY, None),
    )
    summarise(report)
    click.echo(f"Demo instance in {made['root']}; open {report.out / 'index.html'} or run: mkdocs serve -f {out / 'mkdocs.yml'}")
