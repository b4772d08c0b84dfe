"""``sealboard export eee``: the site's published results in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import click

from builder.cli.common import root_option, translate_errors


@click.group("export")
def export_group() -> None:
    """Write a built site's published results in other tools' formats."""


@export_group.command("eee")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--site", type=click.Path(exists=True, file_okay=False, path_type=Path), help="The built site (default: ROOT/site).")
@root_option
@translate_errors
def eee_command(out: Path, site: Path | None, root: Path) -> None:
    """Copy the site's Every Eval Ever records into one datastore at OUT:
    OUT/data/<benchmark>/<developer>/<model>/<uuid4>.json, with <uuid4>_samples.jsonl beside
    a record whose released samples the lab opted in to publish. Names come from each
    bundle's digest: exporting again writes the same bytes, and a file already there with
    other bytes stops the export before anything is written.

    \b
    Example:
      sealboard export eee eee-out --site site
      every_eval_ever validate 'eee-out/data/*/*/*/*'
    """
    from builder.render.eee_export import export_eee

    done = export_eee(site or root / "site", out)
    click.echo(
        f"{out / 'data'}: {done.records} record(s), {done.samples} samples file(s); "
        f"{done.written} written, {done.unchanged} already there with the same bytes"
    )
