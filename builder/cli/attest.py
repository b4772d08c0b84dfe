"""``sealboard verify-site`` and ``sealboard record-attestation``: a deploy's signed attestation."""

from __future__ import annotations

from pathlib import Path

import click

from builder.cli.common import root_option, translate_errors


@click.command("verify-site")
@click.argument("site", type=click.Path(exists=True, file_okay=False, path_type=Path))
@root_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@translate_errors
def verify_site_command(site: Path, root: Path, as_json: bool) -> None:
    """Check a deployed site against its signed attestation, offline: the signature
    (sealboard-site) by the build key the registry in ROOT lists, not a rehearsal, the DSSE
    envelopes (the statement and its SLSA provenance, signed by the same key), every
    file's sha256, nothing missing and nothing extra.

    \b
    Example (in a clone of the board's repository, with the site downloaded to ./site):
      sealboard verify-site site --root .
    """
    from builder.attest.verify import verify_site

    done = verify_site(site, root)
    pred = done.statement.predicate
    if as_json:
        import orjson

        click.echo(
            orjson.dumps(
                {
                    "verified": True,
                    "files": done.files,
                    "signer": done.signer.fingerprint,
                    "statement_sha256": done.statement.digest,
                    "commit": pred.get("commit"),
                    "registry_version": done.statement.registry_version,
                },
                option=orjson.OPT_INDENT_2,
            ).decode()
        )
        return
    click.echo(
        f"verified: {done.files} files match the attestation (SSH signatures and DSSE envelopes) signed by the build key {done.signer.fingerprint} "
        f"(registry v{done.statement.registry_version:04d}), commit {pred.get('commit')}, built {pred.get('built')}"
    )


@click.command("record-attestation")
@click.argument("site", type=click.Path(exists=True, file_okay=False, path_type=Path))
@root_option
@translate_errors
def record_attestation_command(site: Path, root: Path) -> None:
    """Keep SITE's signed attestation and its board files in the repository
    (attestations/<built>-<digest>/), when it shows anything new since the newest recorded
    one; prints the folder written, or nothing. The scheduled build opens a pull request
    with it; the site's Snapshots page shows each recorded deploy's boards.

    \b
    Example:
      sealboard record-attestation site --root .
    """
    from builder.attest.record import record

    written = record(site, root)
    if written is not None:
        click.echo(written.relative_to(root.resolve()) if written.is_relative_to(root.resolve()) else written)


@click.command("audit")
@root_option
@click.option("--release", "benchmark", required=True, metavar="BENCHMARK", help="The released benchmark to audit.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (every differing cell).")
@click.option("--record", is_flag=True, help="Also write attestations/audits/BENCHMARK.json, which the released site shows.")
@translate_errors
def audit_command(root: Path, benchmark: str, as_json: bool, record: bool) -> None:
    """After a full release, re-derive every figure shown while BENCHMARK was embargoed:
    every deploy recorded under attestations/ must be whole as the build key signed it
    (statement, folder, every board copy) and none may be gone; then each embargoed deploy's
    commit is rebuilt with the published identity (keys/released/) and compared cell by
    cell. Exits 1 when any deploy differs or the record has any finding.

    \b
    Example:
      sealboard audit --release kcsat-ml --root .
      sealboard audit --release kcsat-ml --json --record
    """
    from builder.audit.run import audit
    from builder.cli.common import progress
    from builder.release.audit_record import write_audit

    result = audit(root, benchmark, progress=progress)
    if record:
        write_audit(root.resolve(), benchmark, result.summary())
    if as_json:
        import orjson

        click.echo(orjson.dumps(result.to_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        for d in result.deploys:
            extra = f" ({d.reason})" if d.reason else ""
            cells = sum(b.agree for b in d.boards)
            differ = [c | {"board": b.board} for b in d.boards for c in b.differ]
            click.echo(
                f"{d.attestation}: commit {(d.commit or '?')[:12]}, {d.status}: {d.verdict}{extra}; "
                f"{len(d.boards)} board(s), {cells} cell(s) agree, {len(differ)} differ, "
                f"{sum(b.unverified for b in d.boards)} not re-derivable"
            )
            for c in differ[:20]:
                click.echo(
                    f"  {c['board']}: {c['submission']} {c['metric'] or ''} {c['field']}: shown {c['shown']}, rebuilt {c['rebuilt']}"
                )
        for f in result.findings:
            click.echo(f"finding {f.reason}: {f.message}")
        click.echo(result.sentence())
    if result.verdict in ("differs", "incomplete"):
        raise click.exceptions.Exit(1)
