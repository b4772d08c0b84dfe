"""``sealboard status``: what happened to each of a lab's bundles."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click
import orjson

from builder.cli.common import root_option, translate_errors


@click.command("status")
@root_option
@click.option("--lab", help="Only this lab's bundles (its id in the key registry). [default: every lab]")
@click.option(
    "--site",
    type=click.Path(file_okay=False, path_type=Path),
    help="The last authorised build's site (a download of the deployed one, or a local build). [default: ROOT/site]",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@translate_errors
def status_command(root: Path, lab: str | None, site: Path | None, as_json: bool) -> None:
    """What happened to each bundle: rejected (reason and hint), withdrawn, published, or
    pending the next authorised build. Needs no secret: it runs the checks that need none,
    and reads what the last authorised build decided from its site data.

    \b
    Examples:
      sealboard status --lab acme
      sealboard status --lab acme --json | jq '.bundles[] | select(.status == "rejected")'
    """
    from builder.pipeline.lab_status import lab_status

    site = site or root / "site"
    found = lab_status(root, lab=lab, site=site, now=datetime.now(timezone.utc))
    if as_json:
        out = {"lab": lab, "site": str(site) if (site / "data").is_dir() else None, "bundles": [s.to_dict() for s in found]}
        click.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return
    if not found:
        click.echo(f"no bundles{f' of lab {lab!r}' if lab else ''} under {root / 'bundles'}")
    for s in found:
        line = f"{s.where}: {s.status}"
        if s.reason:
            line += f" ({s.reason}, by the {s.decided_by})"
        if s.message and s.status != "pending":
            line += f" — {s.message}"
        elif s.status == "pending":
            line += f" — {s.message}"
        click.echo(line)
        if s.hint:
            click.echo(f"  hint: {s.hint}")
