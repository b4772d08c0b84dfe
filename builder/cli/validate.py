"""``sealboard validate`` — the pull-request check."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import click

from builder.cli.common import root_option, translate_errors


@click.command("validate")
@root_option
@click.option("--base", default="origin/main", show_default=True, help="The revision the pull request targets.")
@click.option("--head", default="HEAD", show_default=True, help="The pull request's revision.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the Markdown report here (e.g. $GITHUB_STEP_SUMMARY).")
@translate_errors
def validate_command(root: Path, base: str, head: str, report_path: Path | None) -> None:
    """Check a pull request offline, without secrets: registry transitions, which files a
    lab's change touches, and every new or changed bundle. Prints a Markdown report and
    exits 1 on any problem.

    \b
    Example (in CI):
      sealboard validate --base origin/main --report "$GITHUB_STEP_SUMMARY"
    """
    from builder.validate.pr import validate

    report = validate(root, base, head, now=datetime.now(timezone.utc))
    text = report.markdown()
    click.echo(text)
    target = report_path or (Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None)
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text)
    if not report.ok:
        raise SystemExit(1)
