"""``sealboard dataset …``: the maintainers' sealed, committed dataset bundles."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import click

from builder.cli.common import progress, root_option, translate_errors

if TYPE_CHECKING:  # the command imports builder.config when it runs (start-up time)
    from builder.config import BenchmarkConfig


@click.group("dataset")
def dataset() -> None:
    """Create and sign dataset bundles (the items and gold answers every score is graded against).

    \b
    A new benchmark version's dataset:
      sealboard dataset create soohak --items items.jsonl --key ~/.ssh/id_ed25519
      sealboard dataset sign soohak --key ~/.ssh/id_ed25519     # the other maintainers
    """


def _config(root: Path, benchmark: str) -> BenchmarkConfig:
    from builder.config import load_config
    from builder.errors import ConfigError

    path = root / "leaderboards" / f"{benchmark}.yaml"
    if not path.is_file():
        raise ConfigError(
            f"no leaderboard config for {benchmark!r}",
            where=f"leaderboards/{benchmark}.yaml",
            hint="write the benchmark's config first (see the 'Adding a benchmark' page)",
        )
    return load_config(path, root)


def _read(path: Path, limit: int) -> bytes:
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise click.BadParameter(f"{path} is larger than {limit >> 20} MiB")
    return data


def _signed(root: Path, directory: Path, key_path: Path, benchmark: str) -> None:
    from builder.bundles.dataset_create import sign_dataset
    from builder.trust.registry import load_registry, signature_count
    from builder.trust.sshkeys import load_private_key

    registry = load_registry(root, datetime.now(timezone.utc))
    count, needed = sign_dataset(directory, load_private_key(key_path), registry)
    click.echo(f"Signed: {signature_count(count, needed, 'maintainer signature(s)')} (registry v{registry.version:04d})")
    if count < needed:
        click.echo(
            f"The build ignores this dataset until {needed - count} more maintainer(s) run: sealboard dataset sign {benchmark} --key KEY"
        )


def _check_golds(config: BenchmarkConfig, items: list[dict], lines: list[int], where: str) -> None:
    """Every gold the regrade will compare must read as its answer type (a KCSAT choice gold
    may be stored as ``3``, ``③`` or ``C``): refused here, naming the line, not at the build."""
    from builder.errors import ParseError
    from builder.scoring.regrade import gold_problem

    regraded = set(config.scoring.regrade_types) if config.scoring is not None else set()
    for line, item in zip(lines, items):
        if item["answer_type"] not in regraded:
            continue
        for lang, gold in sorted(item["answer"].items()):
            problem = gold_problem(item["answer_type"], gold, choice_labels=item.get("choice_labels"))
            if problem is not None:
                raise ParseError(
                    f"item {item['id']!r} ({lang}): {problem}",
                    where=where,
                    line=line,
                    reason="bad-gold",
                    hint=f"write the gold as its answer_type {item['answer_type']!r} reads it",
                )


@dataset.command("create", short_help="Seal items.jsonl into a committed dataset bundle.")
@root_option
@click.argument("benchmark")
@click.option(
    "--items",
    "items_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="One item per line: id, split, question {lang: text}, answer {lang: text}, answer_type, metadata.",
)
@click.option(
    "--key",
    "key_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also sign it now with your maintainer key (unencrypted OpenSSH private key).",
)
@translate_errors
def create_command(root: Path, benchmark: str, items_path: Path, key_path: Path | None) -> None:
    """Seal ITEMS to the benchmark's embargo recipient and write its public manifest.

    Writes bundles/BENCHMARK/_dataset/VERSION/ (VERSION from leaderboards/BENCHMARK.yaml):
    items.jsonl.age (salted items, sealed to the embargo recipient only) and manifest.json
    (item ids, split counts, one SHA-256 commitment per item). The build uses it only once
    the registry's maintainer threshold has signed it.

    \b
    Example:
      sealboard dataset create soohak --items items.jsonl --key ~/.ssh/id_ed25519
    """
    from builder.bundles.dataset_create import MAX_ITEMS_BYTES, read_items, write_dataset

    config = _config(root, benchmark)
    progress(f"Reading {items_path}")
    data = _read(items_path, MAX_ITEMS_BYTES)
    items = read_items(data, str(items_path))
    lines = [n for n, line in enumerate(data.decode("utf-8").split("\n"), start=1) if line.strip()]  # as iter_jsonl counts
    _check_golds(config, items, lines, str(items_path))
    progress(f"Sealing {len(items)} item(s) to {benchmark}'s embargo recipient")
    directory = write_dataset(root, config, items, datetime.now(timezone.utc))
    splits: dict[str, int] = {}
    for item in items:
        splits[item["split"]] = splits.get(item["split"], 0) + 1
    listing = ", ".join(f"{k} {v}" for k, v in splits.items())
    click.echo(
        f"Wrote {directory.relative_to(root.resolve()) if directory.is_relative_to(root.resolve()) else directory}/ "
        f"({len(items)} items: {listing})"
    )
    if key_path is not None:
        _signed(root, directory, key_path, benchmark)
    else:
        click.echo(f"Unsigned: maintainers sign it with: sealboard dataset sign {benchmark} --key KEY")


@dataset.command("sign", short_help="Add your signature to a dataset bundle.")
@root_option
@click.argument("benchmark")
@click.option(
    "--key",
    "key_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="Your unencrypted OpenSSH private key file.",
)
@click.option("--version", help="Dataset version [default: the config's version].")
@translate_errors
def sign_command(root: Path, benchmark: str, key_path: Path, version: str | None) -> None:
    """Append your signature (namespace sealboard-dataset) to the dataset's manifest.json.sig.

    \b
    Example:
      sealboard dataset sign soohak --key ~/.ssh/id_ed25519
    \b
    The same with stock ssh-keygen (one block per maintainer, concatenated):
      ssh-keygen -Y sign -n sealboard-dataset -f KEY - \\
        < bundles/soohak/_dataset/1.0/manifest.json >> bundles/soohak/_dataset/1.0/manifest.json.sig
    """
    from builder.bundles.dataset_create import dataset_dir
    from builder.errors import BundleError

    directory = dataset_dir(root, benchmark, version or _config(root, benchmark).version)
    if not (directory / "manifest.json").is_file():
        raise BundleError(
            "no dataset bundle here",
            where=str(directory),
            reason="missing-file",
            hint=f"create it with 'sealboard dataset create {benchmark} --items items.jsonl'",
        )
    _signed(root, directory, key_path, benchmark)


@dataset.command("share", short_help="Seal the items for a lab granted access.")
@root_option
@click.argument("benchmark")
@click.option("--lab", "lab_id", required=True, help="The lab, granted access by 'sealboard keys grant-items'.")
@click.option(
    "--identity",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The embargo identity file (or set SEALBOARD_IDENTITY) to open the dataset.",
)
@translate_errors
def share_command(root: Path, benchmark: str, lab_id: str, identity: Path | None) -> None:
    """Write keys/access/BENCHMARK/VERSION/LAB.jsonl.age: the dataset's items sealed to the
    lab's registered ssh-ed25519 key(s) only.

    The lab's grant must be in the registry in force (threshold-signed). The items are the
    dataset's committed, salted items, so the lab can check each against the public
    manifest. The lab opens its copy with its SSH key:

    \b
      age -d -i ~/.ssh/id_ed25519 keys/access/soohak/1.0/acme.jsonl.age > items.jsonl
    \b
    Example:
      sealboard dataset share soohak --lab acme --identity /secure/embargo-identity.txt
    """
    import os

    from builder.bundles.access import access_path
    from builder.bundles.dataset_create import share_items
    from builder.trust.credentials import load_identities
    from builder.trust.registry import load_registry

    identities = load_identities(identity, os.environ.get("SEALBOARD_IDENTITY"))
    if not identities:
        raise click.UsageError("give the embargo identity: --identity FILE or SEALBOARD_IDENTITY")
    config = _config(root, benchmark)
    now = datetime.now(timezone.utc)
    progress(f"Opening {benchmark}'s dataset and sealing it to lab {lab_id!r}")
    count = share_items(root, config, load_registry(root, now), lab_id, identities, now)
    click.echo(f"Wrote {access_path(benchmark, config.version, lab_id)} ({count} items, sealed to lab {lab_id!r}'s SSH key)")
