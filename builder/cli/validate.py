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
    """Check a pull request offline, without secrets: the PR's own change since its merge
    base with --base, which files it touches, registry transitions, and every new or changed
    bundle (signature, tombstones, submission budget). Prints a Markdown report; exits 0 if
    it passed, 1 if it failed, 3 if it needs a maintainer's review (it touches anything but
    one lab's own bundles).

    \b
    Example (in CI):
      sealboard validate --base origin/main --report "$GITHUB_STEP_SUMMARY"
    """
    from builder.validate.pr import REVIEW, validate

    report = validate(root, base, head, now=datetime.now(timezone.utc))
    text = report.markdown()
    click.echo(text)
    target = report_path or (Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None)
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text)
    if not report.ok:
        raise SystemExit(3 if report.status == REVIEW else 1)
