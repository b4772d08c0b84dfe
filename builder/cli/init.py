"""``sealboard init``: scaffold a new leaderboard repository."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click

from builder.cli.common import translate_errors
from builder.cli.keys import _public_key


@click.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--title", default="Leaderboard", show_default=True, help="The site's title.")
@click.option(
    "--benchmark",
    default="soohak",
    show_default=True,
    help="The first benchmark: a shipped preset (soohak, livemathematicianbench, kcsat-ml) or a new id.",
)
@click.option(
    "--maintainer",
    "maintainers",
    nargs=3,
    multiple=True,
    required=True,
    metavar="ID NAME PUBKEY",
    help="A maintainer: id, display name, public key file or line. Repeat.",
)
@click.option("--threshold", type=click.IntRange(min=1), required=True, help="Signatures (M of N) every registry change and dataset needs.")
@click.option(
    "--identity-out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the new embargo identity (SECRET; outside the repository).",
)
@click.option(
    "--wheel",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The Sealboard wheel the repository's CI installs, pinned by sha256 (build it from the Sealboard "
    "commit to run: python -m pip wheel --no-deps <sealboard checkout> -w dist).",
)
@translate_errors
def init_command(
    directory: Path,
    title: str,
    benchmark: str,
    maintainers: tuple[tuple[str, str, str], ...],
    threshold: int,
    identity_out: Path,
    wheel: Path,
) -> None:
    """Scaffold a new leaderboard repository in DIRECTORY: mkdocs config, one benchmark
    config, the genesis registry, GitHub workflows, CODEOWNERS and a README for its
    maintainers. It builds and validates as it is, once the maintainers sign the registry.

    \b
    Example:
      sealboard init my-board --title "My Board" --benchmark soohak --threshold 2 \\
        --maintainer ada "Ada" ada.pub --maintainer emmy "Emmy" emmy.pub \\
        --identity-out ~/secure/my-board-identity.txt --wheel dist/sealboard-0.1.0-py3-none-any.whl
      cd my-board && sealboard keys sign --key ~/.ssh/id_ed25519   # 2 maintainers
      sealboard build
    """
    from builder.scaffold.init import scaffold

    people = [{"id": i, "name": n, "key": _public_key(k)} for i, n, k in maintainers]
    made = scaffold(
        directory,
        title=title,
        benchmark=benchmark,
        maintainers=people,
        threshold=threshold,
        identity_out=identity_out,
        now=datetime.now(timezone.utc).replace(microsecond=0),
        wheel=wheel,
    )
    click.echo(f"Wrote {len(made.files)} files to {made.root}")
    click.echo(f"Embargo identity (SECRET, keep it out of the repository): {made.identity_file}")
    click.echo(f"  its recipient {made.recipient} is in leaderboards/{made.benchmark}.yaml")
    click.echo(f"Next: {threshold} maintainer(s) run 'sealboard keys sign --root {directory} --key KEY'; then see {directory}/README.md")
    # Everyone installs Sealboard as the repository's CI does: no package index holds it.
    click.echo("Install Sealboard (maintainers and labs) from the repository, as its CI does, never from a package index:")
    click.echo("  python -m pip install --require-hashes --no-deps -r requirements/build.txt")
    click.echo("  python -m pip install --require-hashes --no-deps --no-index -r requirements/sealboard.txt")


@click.command("pin-wheel")
@click.argument("wheel", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--root", type=click.Path(file_okay=False, path_type=Path), default=".", show_default=True, help="The leaderboard repository."
)
@translate_errors
def pin_wheel_command(wheel: Path, root: Path) -> None:
    """Upgrade the Sealboard a leaderboard repository's CI installs: copy WHEEL into vendor/
    (replacing the old one) and pin its sha256 in requirements/sealboard.txt.

    \b
    Example:
      python -m pip wheel --no-deps ~/src/sealboard -w dist     # at the commit to run
      sealboard pin-wheel dist/sealboard-0.2.0-py3-none-any.whl
      git add -A vendor requirements && git commit -m "Sealboard 0.2.0"
    """
    from builder.scaffold.init import lock_wheel

    for path in lock_wheel(root.resolve(), wheel):
        click.echo(f"wrote {path}")
