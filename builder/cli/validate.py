"""``sealboard validate`` — the pull-request check."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import click
import orjson

from builder.cli.common import root_option
from builder.errors import BuilderError


@click.command("validate")
@root_option
@click.option("--base", default="origin/main", show_default=True, help="The revision the pull request targets.")
@click.option("--head", default="HEAD", show_default=True, help="The pull request's revision.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the Markdown report here (e.g. $GITHUB_STEP_SUMMARY).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the report as JSON (status, problems with reason codes, verified bundles) instead of Markdown.",
)
def validate_command(root: Path, base: str, head: str, report_path: Path | None, as_json: bool) -> None:
    """Check a pull request offline, without secrets: the tree merging --head into --base
    would produce (git merge-tree), compared with --base: which files it touches, registry
    transitions, and every new bundle, by the build's own admission rules (signature,
    tombstones, immutability of merged bundles, submission budget, duplicates). Run it at
    the top of the leaderboard's own git repository. Prints a Markdown report (or JSON with
    --json); exits 0 if it passed, 1 if it failed, 3 if it needs a maintainer's review (it
    touches anything but one lab's own new bundles).

    \b
    Examples:
      sealboard validate --base origin/main --report "$GITHUB_STEP_SUMMARY"
      sealboard validate --base origin/main --json
    """
    from builder.validate.pr import REVIEW, validate

    try:
        report = validate(root, base, head, now=datetime.now(timezone.utc))
    except BuilderError as exc:
        if as_json:
            click.echo(
                orjson.dumps(
                    {"status": "error", "reason": exc.reason, "where": exc.where, "message": exc.message, "hint": exc.hint},
                    option=orjson.OPT_INDENT_2,
                ).decode()
            )
            raise SystemExit(1) from None
        raise click.ClickException(f"{exc} [{exc.reason}]") from None
    text = report.markdown()
    click.echo(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode() if as_json else text)
    target = report_path or (Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None)
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text)
    if not report.ok:
        raise SystemExit(3 if report.status == REVIEW else 1)
