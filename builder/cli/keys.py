"""``sealboard keys …``: maintain the threshold-signed trust registry in keys/registry.

Each command is a thin client of builder.trust.registry_admin: it proposes or signs a registry
version and says which file it wrote. Nothing becomes trusted until a threshold of
maintainers has run ``sealboard keys sign``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import click

from builder.cli.common import TIME, root_option, translate_errors


def _public_key(value: str) -> str:
    """A key given inline ('ssh-ed25519 AAAA…') or as a .pub file path."""
    if value.startswith(("ssh-", "ecdsa-")):
        return value
    path = Path(value).expanduser()
    try:
        text = path.read_text(encoding="ascii", errors="replace")[:16384]
    except OSError as exc:
        raise click.BadParameter(f"cannot read {value}: {exc.strerror}") from None
    if "PRIVATE KEY" in text:
        # Never echo it; just point at the public half.
        raise click.BadParameter(f"{value} is a private key; pass the public key ({value}.pub)")
    if not text.lstrip().startswith(("ssh-", "ecdsa-")):
        # Not a public key file: say so without quoting it (it could be any file, a secret one too).
        raise click.BadParameter(f"{value} does not hold an OpenSSH public key (a line like 'ssh-ed25519 AAAA…')")
    return text.strip()


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _proposed(path: Path, root: Path) -> None:
    click.echo(f"Wrote {_rel(path, root)} (unsigned until maintainers run 'sealboard keys sign').")


@click.group("keys")
def keys() -> None:
    """Maintain the trust registry: maintainers, labs, their SSH keys, revocations.

    \b
    A typical change:
      sealboard keys add-lab acme --name "Acme AI" --key acme.pub
      sealboard keys sign --key ~/.ssh/id_ed25519     # each of M maintainers
      sealboard keys status
    \b
    Rotation: add the new key, then 'keys revoke OLD.pub --retire' (past bundles stay);
    a leaked key: 'keys revoke KEY --compromised --reason …' (its bundles leave the boards).
    """


@keys.command("init", short_help="Write the genesis registry version.")
@root_option
@click.option(
    "--maintainer",
    "maintainers",
    nargs=3,
    multiple=True,
    required=True,
    metavar="ID NAME PUBKEY",
    help="A maintainer: id, display name, public key file or line. Repeat.",
)
@click.option("--threshold", type=click.IntRange(min=1), required=True, help="Signatures (M of N) every change needs.")
@click.option("--expires", type=TIME, help="When the registry expires [default: one year from now].")
@translate_errors
def init_command(root: Path, maintainers: tuple[tuple[str, str, str], ...], threshold: int, expires: datetime | None) -> None:
    """Write the genesis registry version keys/registry/v0001.yaml.

    \b
    Example:
      sealboard keys init --threshold 2 \\
        --maintainer alice "Alice Ng" alice.pub \\
        --maintainer bob "Bob Roy" bob.pub --maintainer carol "Carol Diaz" carol.pub
    """
    from builder.trust.registry_admin import init_registry

    people = [{"id": i, "name": n, "key": _public_key(k)} for i, n, k in maintainers]
    expires = expires or datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=365)
    _proposed(init_registry(root, people, threshold, expires), root)


@keys.command("add-lab", short_help="Propose a lab, or a key for one.")
@root_option
@click.argument("lab_id", metavar="LAB")
@click.option("--name", help="Display name; give it to add a new lab, omit it to add keys to an existing one.")
@click.option("--key", "key_args", multiple=True, required=True, help="Public key file or line. Repeat for several.")
@click.option("--valid-after", type=TIME, help="Key not valid before this UTC time.")
@click.option("--valid-before", type=TIME, help="Key not valid after this UTC time.")
@translate_errors
def add_lab_command(
    root: Path, lab_id: str, name: str | None, key_args: tuple[str, ...], valid_after: datetime | None, valid_before: datetime | None
) -> None:
    """Propose a new lab, or a new key for an existing lab.

    \b
    Examples:
      sealboard keys add-lab acme --name "Acme AI" --key acme_signing.pub
      sealboard keys add-lab acme --key new.pub --valid-after 2026-07-01   # rotation
    """
    from builder.trust.registry_admin import add_lab, add_lab_key

    lines = [_public_key(k) for k in key_args]
    if name is not None:
        path = add_lab(root, lab_id, name, lines, valid_after, valid_before)
    else:
        for line in lines:
            path = add_lab_key(root, lab_id, line, valid_after, valid_before)
    _proposed(path, root)


@keys.command("add-maintainer", short_help="Propose a new maintainer.")
@root_option
@click.argument("maintainer_id", metavar="ID")
@click.option("--name", required=True, help="Display name.")
@click.option("--key", "key_arg", required=True, help="Public key file or line.")
@click.option("--age-recipient", help="age1… recipient for files that stay private after release.")
@click.option("--threshold", type=click.IntRange(min=1), help="New threshold, if it changes.")
@translate_errors
def add_maintainer_command(
    root: Path, maintainer_id: str, name: str, key_arg: str, age_recipient: str | None, threshold: int | None
) -> None:
    """Propose a new maintainer. The current and the new maintainer set both sign it.

    \b
    Example:
      sealboard keys add-maintainer dave --name "Dave Ito" --key dave.pub --threshold 3
    """
    from builder.trust.registry_admin import add_maintainer

    _proposed(add_maintainer(root, maintainer_id, name, _public_key(key_arg), age_recipient, threshold), root)


@keys.command("revoke", short_help="Propose retiring a key (rotation) or revoking it (compromise).")
@root_option
@click.argument("key_or_fingerprint", metavar="FINGERPRINT|PUBKEY")
@click.option(
    "--retire", "mode", flag_value="retire", help="Routine rotation: the key signs nothing new; bundles admitted while it was valid stay."
)
@click.option(
    "--compromised", "mode", flag_value="compromised", help="The key leaked: every bundle it signed, past ones too, leaves the boards."
)
@click.option("--reason", help="Why, for the record (required with --compromised, e.g. 'laptop stolen').")
@click.option("--at", "when", type=TIME, help="Retire from this UTC time [default: now].")
@translate_errors
def revoke_command(root: Path, key_or_fingerprint: str, mode: str | None, reason: str | None, when: datetime | None) -> None:
    """Propose retiring or revoking a key registered in keys/registry.

    Choose one: --retire for routine rotation (the key's valid_before becomes now, so
    bundles admitted while it was valid stay on the boards), or --compromised when the
    private key may be in someone else's hands (every bundle it signed is rejected).
    Maintainer keys are not retired but removed: 'sealboard keys remove-maintainer'.

    \b
    Examples:
      sealboard keys add-lab acme --key acme-2027.pub      # rotation: add the new key...
      sealboard keys revoke acme-2026.pub --retire         # ...and retire the old one
      sealboard keys revoke SHA256:3Yx…Q --compromised --reason "laptop stolen"
    """
    from builder.trust.registry_admin import retire, revoke

    target = key_or_fingerprint if key_or_fingerprint.startswith("SHA256:") else _public_key(key_or_fingerprint)
    if mode is None:
        raise click.UsageError(
            "say which: --retire (routine rotation, past bundles stay) or --compromised (the key leaked, past bundles are rejected)"
        )
    if mode == "retire":
        if reason:
            raise click.UsageError("--reason is recorded for --compromised only; a retired key just stops being valid")
        _proposed(retire(root, target, when), root)
        return
    if not reason:
        raise click.UsageError("--compromised needs --reason (it is recorded in the registry)")
    if when is not None:
        raise click.UsageError("--at applies to --retire; a compromised key is distrusted for every bundle, whenever signed")
    _proposed(revoke(root, target, reason), root)


@keys.command("set-recipient", short_help="Propose a maintainer's age recipient.")
@root_option
@click.argument("maintainer_id", metavar="ID")
@click.argument("recipient", metavar="AGE_RECIPIENT|none")
@translate_errors
def set_recipient_command(root: Path, maintainer_id: str, recipient: str) -> None:
    """Propose giving an existing maintainer an age recipient (age1…), or 'none' to remove it.

    Every bundle file is also sealed to maintainers' recipients, so maintainers can audit
    it, including what a lab keeps private (sealed to the benchmark's private results key,
    never to the embargo key). Like any change, the threshold signs it.

    \b
    Example:
      age-keygen -o ~/.config/sealboard/alice.age       # prints the age1… recipient
      sealboard keys set-recipient alice age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
    """
    from builder.trust.registry_admin import set_recipient

    _proposed(set_recipient(root, maintainer_id, None if recipient == "none" else recipient), root)


@keys.command("set-build-key", short_help="Propose the key that signs each deploy's attestation.")
@root_option
@click.argument("key_arg", metavar="PUBKEY|none")
@translate_errors
def set_build_key_command(root: Path, key_arg: str) -> None:
    """Propose the build key: the authorised build signs each deploy's attestation
    (site/attestation/, namespace sealboard-site) with its private half, passed to
    'sealboard build --build-key FILE' or SEALBOARD_BUILD_KEY. 'none' removes it (deploys
    are then unsigned). Like any change, the threshold signs it. Ed25519 only (its
    signatures are deterministic, so the attestation is byte-reproducible).

    \b
    Example:
      ssh-keygen -t ed25519 -N '' -C sealboard-build -f build_key
      sealboard keys set-build-key build_key.pub
      sealboard keys sign --key ~/.ssh/id_ed25519           # M maintainers
      sealboard keys allowed-signers --namespace sealboard-site --out allowed_signers
    """
    from builder.trust.registry_admin import set_build_key

    _proposed(set_build_key(root, None if key_arg == "none" else _public_key(key_arg)), root)


@keys.command("grant-items", short_help="Propose giving a lab the embargoed items.")
@root_option
@click.argument("lab_id", metavar="LAB")
@click.argument("benchmark")
@click.option("--withdraw", is_flag=True, help="End the lab's access instead (delete its copy under keys/access/ too).")
@click.option(
    "--with-answers",
    "answers",
    is_flag=True,
    help="Grant the gold answers too (and the salts). Without it the lab's copy holds the questions only; the site says which grants include answers.",
)
@translate_errors
def grant_items_command(root: Path, lab_id: str, benchmark: str, withdraw: bool, answers: bool) -> None:
    """Propose giving LAB the embargoed items of BENCHMARK, so it can run its model on them:
    the questions, without the gold answers unless --with-answers (the build grades answers itself).

    Once the threshold has signed, a maintainer writes the lab's copy (sealed to the lab's
    registered ssh-ed25519 key only) with 'sealboard dataset share'. The site lists every
    grant on its "Item access for labs" page.

    \b
    Example:
      sealboard keys grant-items acme soohak
      sealboard keys sign --key ~/.ssh/id_ed25519           # M maintainers
      sealboard dataset share soohak --lab acme --identity embargo-identity.txt
    """
    from builder.trust.registry_admin import grant_items, withdraw_items

    if withdraw:
        _proposed(withdraw_items(root, lab_id, benchmark), root)
    else:
        _proposed(grant_items(root, lab_id, benchmark, answers=answers), root)


@keys.command("remove-maintainer", short_help="Propose removing a maintainer.")
@root_option
@click.argument("maintainer_id", metavar="ID")
@click.option("--threshold", type=click.IntRange(min=1), help="New threshold, if it changes.")
@translate_errors
def remove_maintainer_command(root: Path, maintainer_id: str, threshold: int | None) -> None:
    """Propose removing a maintainer (their key then signs nothing). Dataset bundles they
    signed count one signature fewer: re-sign them with 'sealboard dataset sign'.

    \b
    Example:
      sealboard keys remove-maintainer carol --threshold 2
    """
    from builder.trust.registry_admin import remove_maintainer

    _proposed(remove_maintainer(root, maintainer_id, threshold), root)


@keys.command("renew", short_help="Propose a new expiry time.")
@root_option
@click.option("--expires", type=TIME, required=True, help="The new expiry time.")
@translate_errors
def renew_command(root: Path, expires: datetime) -> None:
    """Propose a new expiry: an expired registry stops every build.

    \b
    Example:
      sealboard keys renew --expires 2028-06-30
    """
    from builder.trust.registry_admin import renew

    _proposed(renew(root, expires), root)


@keys.command("sign", short_help="Sign the newest registry version.")
@root_option
@click.option(
    "--key",
    "key_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="Your unencrypted OpenSSH private key file.",
)
@click.option("--version", "version", type=click.IntRange(min=1), help="Version to sign [default: the newest].")
@translate_errors
def sign_command(root: Path, key_path: Path, version: int | None) -> None:
    """Add your signature to the newest registry version (namespace sealboard-registry).

    \b
    Example:
      sealboard keys sign --key ~/.ssh/id_ed25519
    \b
    The same with stock ssh-keygen (the .sig file holds one block per maintainer):
      ssh-keygen -Y sign -n sealboard-registry -f KEY - \\
        < keys/registry/v0002.yaml >> keys/registry/v0002.yaml.sig
    """
    from builder.trust.registry_admin import sign_registry, status
    from builder.trust.sshkeys import load_private_key

    private = load_private_key(key_path)
    path = sign_registry(root, private, version)
    click.echo(f"Signed as {private.public.fingerprint}: {_rel(path, root)}")
    for line in status(root, datetime.now(timezone.utc)).lines():
        click.echo(line)


@keys.command("status", short_help="Show trusted and pending versions.")
@root_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@translate_errors
def status_command(root: Path, as_json: bool) -> None:
    """Show the trusted version, its expiry, and signatures a pending version still needs.

    Exits 1 when the registry has an error or has expired.

    \b
    Example:
      sealboard keys status --root .
    """
    from builder.trust.registry_admin import status

    report = status(root, datetime.now(timezone.utc))
    if as_json:
        import orjson

        click.echo(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        for line in report.lines():
            click.echo(line)
    if report.error or report.expired or report.trusted is None:
        raise click.exceptions.Exit(1)


@keys.command("allowed-signers", short_help="Export an OpenSSH allowed_signers file.")
@root_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
@click.option(
    "--namespace",
    "namespaces",
    multiple=True,
    type=click.Choice(["sealboard-bundle", "sealboard-dataset", "sealboard-release", "sealboard-registry", "sealboard-site"]),
    help="Only keys for these namespaces [default: all].",
)
@click.option(
    "--revoked-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write revoked public keys here, for ssh-keygen -Y verify -r.",
)
@translate_errors
def allowed_signers_command(root: Path, out: Path | None, namespaces: tuple[str, ...], revoked_out: Path | None) -> None:
    """Export the verified registry as an OpenSSH allowed_signers file.

    ssh-keygen then accepts exactly the bundle signatures the builder accepts, and with
    --namespace sealboard-site exactly the registry's build key (principal sealboard-build).

    \b
    Example:
      sealboard keys allowed-signers --out allowed_signers
      ssh-keygen -Y verify -f allowed_signers -I acme -n sealboard-bundle \\
        -s manifest.json.sig < manifest.json
    """
    from builder.trust.registry import load_registry

    registry = load_registry(root, datetime.now(timezone.utc))
    text = registry.allowed_signers(namespaces or None)
    if out:
        out.write_text(text)
        click.echo(f"Wrote {out}", err=True)
    else:
        click.echo(text, nl=False)
    if revoked_out:
        revoked_out.write_text(registry.revoked_keys())
