"""``sealboard bundle create | sign | verify`` — the lab's side."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click
import orjson

from builder.cli.common import progress, root_option, translate_errors

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.group("bundle")
def bundle() -> None:
    """Make, sign and check a result bundle before opening a pull request."""


@bundle.command("create")
@root_option
@click.option("--benchmark", required=True, help="Benchmark id, e.g. soohak.")
@click.option("--lab", required=True, help="Your lab id as registered in keys/.")
@click.option("--submission", required=True, help="A new submission id, e.g. gpt-5-2026-11.")
@click.option("--results", "results_path", type=_FILE, required=True, help="results.jsonl: one line per sample.")
@click.option(
    "--describe", "description_path", type=_FILE, required=True, help="YAML/JSON with model, config, harness, judge, publish_on_release."
)
@click.option("--transcripts", "transcripts_path", type=_FILE, help="Optional transcripts.jsonl.gz to seal too.")
@translate_errors
def create_command(
    root: Path, benchmark: str, lab: str, submission: str, results_path: Path, description_path: Path, transcripts_path: Path | None
) -> None:
    """Validate results, seal them and write the manifest.

    Files you opt to publish (publish_on_release) are sealed to the benchmark's embargo
    key, published at a full release; the rest to its private results key, never published.

    \b
    Example:
      sealboard bundle create --benchmark soohak --lab acme --submission run-1 \\
          --results out/results.jsonl --describe run.yaml
    """
    from builder.bundles.create import benchmark_config, blame_description, load_description
    from builder.bundles.manifest import MANIFEST
    from builder.bundles.sealing import sealed_to
    from builder.errors import BuilderError
    from builder.leakscan.labkeys import refuse_key_text
    from builder.trust.registry import load_registry

    config = benchmark_config(root, benchmark)
    registry = load_registry(root, datetime.now(timezone.utc))
    if registry.lab(lab) is None:
        # The build would refuse it after merge (unknown lab); say so before anything is sealed.
        known = ", ".join(sorted(x.id for x in registry.labs)) or "none yet"
        raise BuilderError(
            f"lab {lab!r} is not registered in the key registry v{registry.version:04d} (registered labs: {known})",
            where=registry.path,
            reason="unknown-lab",
            hint=f"check --lab, or ask the maintainers to register your key: sealboard keys add-lab {lab} --name NAME --key KEY.pub, signed by the threshold",
        )
    described = load_description(description_path)
    progress(f"Checking {results_path} against {config.id} dataset {config.version}, then sealing…")
    try:
        # Key-shaped text would refuse the bundle in every check (builder.leakscan.labkeys): say so before sealing.
        refuse_key_text(orjson.dumps(described), f"bundles/{config.id}/{lab}/{submission}")
        target = _create(root, config, lab, submission, results_path, described, transcripts_path, registry)
    except BuilderError as exc:
        if exc.where is not None and exc.where.endswith(MANIFEST):
            raise blame_description(exc, description_path) from None
        raise
    click.echo(f"results: {sealed_to(config, described.publish_results)}")
    if transcripts_path:
        click.echo(f"transcripts: {sealed_to(config, described.publish_transcripts)}")
    click.echo(f"Wrote {target}. Next: sealboard bundle sign {target} --key ~/.ssh/id_ed25519")


def _create(root, config, lab, submission, results_path, described, transcripts_path, registry):
    from builder.bundles.create import create_bundle

    return create_bundle(
        root=root,
        benchmark=config.id,
        config=config,
        lab=lab,
        submission=submission,
        results=results_path.read_bytes(),
        description=described,
        transcripts=transcripts_path.read_bytes() if transcripts_path else None,
        maintainer_recipients=tuple(registry.maintainer_recipients),
        results_where=str(results_path),
    )


@bundle.command("sign")
@click.argument("bundle_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--key", "key_path", type=_FILE, required=True, help="Your OpenSSH private key (unencrypted; or sign with ssh-keygen -Y sign)."
)
@translate_errors
def sign_command(bundle_dir: Path, key_path: Path) -> None:
    """Sign BUNDLE_DIR/manifest.json with your SSH key (namespace sealboard-bundle).

    \b
    Example:
      sealboard bundle sign bundles/soohak/acme/run-1 --key ~/.ssh/id_ed25519
    Equivalent with OpenSSH (works with passphrase-protected keys and agents):
      ssh-keygen -Y sign -n sealboard-bundle -f ~/.ssh/id_ed25519 bundles/soohak/acme/run-1/manifest.json
    """
    from builder.bundles.create import sign_bundle
    from builder.trust.sshkeys import load_private_key

    path = sign_bundle(bundle_dir, load_private_key(key_path, str(key_path)))
    click.echo(f"Wrote {path}")


@bundle.command("verify")
@root_option
@click.argument("bundle_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@translate_errors
def verify_command(root: Path, bundle_dir: Path) -> None:
    """Run the build's checks on a bundle: layout, signature, registered key, digests, and
    its signed coverage summary against the benchmark's dataset (everything but decryption).

    \b
    Example:
      sealboard bundle verify bundles/soohak/acme/run-1
    """
    from builder.bundles.create import check_bundle, require_instance
    from builder.bundles.manifest import MANIFEST
    from builder.leakscan.labkeys import refuse_key_text
    from builder.trust.registry import load_registry

    require_instance(root)
    now = datetime.now(timezone.utc)
    progress(f"Checking {bundle_dir}: signature, registered key, digests, coverage…")
    manifest = bundle_dir / MANIFEST
    # Key-shaped text first, as the build and validate check it (builder.leakscan.labkeys).
    refuse_key_text(manifest.read_bytes() if manifest.is_file() else b"", bundle_dir.as_posix())
    verified = check_bundle(root, bundle_dir, load_registry(root, now), now)
    m = verified.manifest
    c = m.coverage
    if c is None:  # check_bundle refuses a manifest without a coverage summary
        raise AssertionError()
    click.echo(
        f"OK: {verified.where} — {m.model.name} by lab {m.lab}, signed by {verified.signer}, {len(m.files)} sealed file(s) match the manifest"
    )
    variants = f" × {len(c.variants)} variant(s)" if c.variants else ""
    click.echo(
        f"Coverage: {c.items} items of dataset {c.dataset} × {', '.join(c.languages)}{variants} × {c.samples} sample(s) = {c.rows} rows, complete"
    )
