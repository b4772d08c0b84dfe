"""``sealboard demo``."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click

from builder.cli.common import progress, translate_errors


@click.command("demo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default="demo", show_default=True, help="Where to write the demo instance.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the synthetic data.")
@translate_errors
def demo_command(out: Path, seed: int) -> None:
    """Write a complete demo instance (throwaway keys, signed and sealed synthetic bundles
    for SOOHAK, LiveMathematicianBench and KCSAT-ML) and build it authorised into OUT/site.

    \b
    Example:
      sealboard demo --out demo && python -m http.server -d demo/site 8000
    """
    from builder.cli.build import summarise
    from builder.demo.instance import BUILD_KEY, write_demo
    from builder.pipeline.build import build, load_build_key, load_identities

    made = write_demo(out, seed=seed, progress=progress)
    identity = out / "keys" / "demo" / "identity.txt"
    report = build(out, out / "site", identities=load_identities(identity, None), now=datetime.now(timezone.utc), progress=progress,
                   build_key=load_build_key(out / "keys" / "demo" / BUILD_KEY, None))
    summarise(report)
    click.echo(f"Demo instance in {made['root']}; open {report.out / 'index.html'} or run: mkdocs serve -f {out / 'mkdocs.yml'}")
