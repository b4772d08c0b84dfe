"""``sealboard keys …`` through click's CliRunner: a registry's life from init to revocation."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from builder.cli.keys import keys
from builder.trust.registry import load_registry
from builder.trust.sshkeys import generate_ed25519

NOW = datetime.now(timezone.utc)


@pytest.fixture
def people(tmp_path: Path) -> dict[str, Path]:
    """Private key files (and their .pub) for three maintainers, a newcomer and a lab."""
    out = {}
    for name in ("alice", "bob", "carol", "dave", "acme"):
        data, public = generate_ed25519(name)
        path = tmp_path / "secrets" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        path.with_name(name + ".pub").write_text(public.openssh + f" {name}\n")
        out[name] = path
    return out


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(keys, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def root(tmp_path: Path, people: dict[str, Path]) -> Path:
    root = tmp_path / "inst"
    maintainers: list[str | Path] = []
    for name in ("alice", "bob", "carol"):
        maintainers += ["--maintainer", name, name.title(), people[name].with_suffix(".pub")]
    result = run("init", "--root", root, "--threshold", 2, "--expires", "2099-01-01", *maintainers)
    assert result.exit_code == 0, result.output
    assert "keys/registry/v0001.yaml" in result.output
    return root


def test_registry_life_cycle(root: Path, people: dict[str, Path]) -> None:
    pending = run("status", "--root", root)
    assert pending.exit_code == 1 and "0 of 2" in pending.output
    assert run("sign", "--root", root, "--key", people["alice"]).exit_code == 0
    result = run("sign", "--root", root, "--key", people["bob"])
    assert result.exit_code == 0 and "in force: v0001" in result.output
    assert run("status", "--root", root).exit_code == 0

    acme_pub = people["acme"].with_suffix(".pub")
    result = run("add-lab", "acme", "--root", root, "--name", "Acme AI", "--key", acme_pub, "--valid-before", "2098-01-01")
    assert result.exit_code == 0 and "v0002.yaml" in result.output
    for name in ("bob", "carol"):
        run("sign", "--root", root, "--key", people[name])
    registry = load_registry(root, NOW)
    assert registry.version == 2 and registry.labs[0].id == "acme"

    result = run("allowed-signers", "--root", root)
    assert result.exit_code == 0
    assert 'acme namespaces="sealboard-bundle",valid-before="20980101000000Z" ssh-ed25519' in result.output
    out = root / "allowed"
    assert run("allowed-signers", "--root", root, "--namespace", "sealboard-release", "--out", out).exit_code == 0
    assert "acme" not in out.read_text().split("\n", 1)[1] and "alice" in out.read_text()

    assert run("revoke", acme_pub, "--root", root, "--compromised", "--reason", "laptop lost").exit_code == 0
    assert run("add-maintainer", "dave", "--root", root, "--name", "Dave", "--key", people["dave"].with_suffix(".pub")).exit_code == 0
    assert run("renew", "--root", root, "--expires", "2099-06-30T00:00:00Z").exit_code == 0
    for name in ("alice", "carol"):
        run("sign", "--root", root, "--key", people[name])
    registry = load_registry(root, NOW)
    assert registry.version == 3  # the three changes form one proposal
    assert [m.id for m in registry.maintainers][-1] == "dave" and registry.revoked[0].reason == "laptop lost"
    assert format(registry.expires.year) == "2099" and registry.expires.month == 6


def test_sign_by_non_maintainer_fails_clearly(root: Path, people: dict[str, Path]) -> None:
    result = CliRunner().invoke(keys, ["sign", "--root", str(root), "--key", str(people["dave"])])
    assert result.exit_code == 1
    assert "may not sign" in result.output and "keys/registry/v0001.yaml" in result.output


def test_private_key_given_as_public_is_not_echoed(tmp_path: Path, people: dict[str, Path]) -> None:
    secret = people["alice"].read_text()
    result = CliRunner().invoke(
        keys, ["init", "--root", str(tmp_path / "x"), "--threshold", "1", "--maintainer", "alice", "Alice", str(people["alice"])]
    )
    assert result.exit_code == 2 and "private key" in result.output
    for line in secret.splitlines()[1:-1]:
        assert line[:20] not in result.output


def test_errors_become_one_line(root: Path, people: dict[str, Path]) -> None:
    result = CliRunner().invoke(keys, ["add-lab", "ghost", "--root", str(root), "--key", str(people["acme"].with_suffix(".pub"))])
    assert result.exit_code == 1 and "no lab 'ghost'" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(
        keys, ["init", "--root", str(root), "--threshold", "1", "--maintainer", "x", "X", str(people["dave"].with_suffix(".pub"))]
    )
    assert result.exit_code == 1 and "already exists" in result.output
    result = CliRunner().invoke(keys, ["renew", "--root", str(root), "--expires", "tomorrow"])
    assert result.exit_code == 2 and "not a UTC time" in result.output


def test_add_lab_for_an_existing_lab_says_how_to_add_a_key(root: Path, people: dict[str, Path]) -> None:
    # Found by tests/lifecycle: rotating a key as "keys add-lab acme --name … --key new.pub"
    # answered "add a key with add_lab_key", a Python function, not a command.
    first, new = str(people["acme"].with_suffix(".pub")), str(people["dave"].with_suffix(".pub"))
    assert CliRunner().invoke(keys, ["add-lab", "acme", "--root", str(root), "--name", "Acme AI", "--key", first]).exit_code == 0
    result = CliRunner().invoke(keys, ["add-lab", "acme", "--root", str(root), "--name", "Acme AI", "--key", new])
    assert result.exit_code == 1 and "lab 'acme' already exists" in result.output
    assert "leave out --name: 'sealboard keys add-lab acme --key NEW.pub'" in result.output and "add_lab_key" not in result.output
    assert CliRunner().invoke(keys, ["add-lab", "acme", "--root", str(root), "--key", new]).exit_code == 0


def test_status_without_registry(tmp_path: Path) -> None:
    result = run("status", "--root", tmp_path)
    assert result.exit_code == 1 and "sealboard keys init" in result.output


def _signed_lab(root: Path, people: dict[str, Path]) -> None:
    for name in ("alice", "bob"):
        run("sign", "--root", root, "--key", people[name])
    run("add-lab", "acme", "--root", root, "--name", "Acme AI", "--key", people["acme"].with_suffix(".pub"))
    for name in ("alice", "bob"):
        run("sign", "--root", root, "--key", people[name])


def test_revoke_says_which_and_refuses_unknown_keys(root: Path, people: dict[str, Path]) -> None:
    _signed_lab(root, people)
    acme_pub = str(people["acme"].with_suffix(".pub"))
    result = run("revoke", acme_pub, "--root", root, "--reason", "rotated")
    assert result.exit_code == 2 and "--retire (routine rotation, past bundles stay)" in result.output
    result = run("revoke", people["dave"].with_suffix(".pub"), "--root", root, "--compromised", "--reason", "x")
    assert result.exit_code == 1 and "is not in the registry" in result.output and "Traceback" not in result.output
    result = run("revoke", "SHA256:" + "A" * 43, "--root", root, "--retire")
    assert result.exit_code == 1 and "is not in the registry" in result.output
    result = run("revoke", people["alice"].with_suffix(".pub"), "--root", root, "--retire")
    assert result.exit_code == 1 and "remove-maintainer alice" in result.output
    result = run("revoke", acme_pub, "--root", root, "--compromised")
    assert result.exit_code == 2 and "needs --reason" in result.output

    # Retiring sets the key's valid_before (ssh-keygen's window); nothing is revoked.
    assert run("revoke", acme_pub, "--root", root, "--retire", "--at", "2098-05-01").exit_code == 0
    for name in ("alice", "bob"):
        run("sign", "--root", root, "--key", people[name])
    registry = load_registry(root, NOW)
    assert registry.revoked == () and registry.labs[0].keys[0].valid_before.isoformat() == "2098-05-01T00:00:00+00:00"
    assert run("revoke", acme_pub, "--root", root, "--compromised", "--reason", "laptop stolen").exit_code == 0
    for name in ("alice", "bob"):
        run("sign", "--root", root, "--key", people[name])
    assert load_registry(root, NOW).revoked[0].reason == "laptop stolen"


def test_set_recipient_is_threshold_signed(root: Path, people: dict[str, Path]) -> None:
    from builder.trust.seal import generate_identity

    _signed_lab(root, people)
    recipient = generate_identity().recipient
    result = run("set-recipient", "bob", recipient, "--root", root)
    assert result.exit_code == 0 and "v0003.yaml" in result.output
    run("sign", "--root", root, "--key", people["alice"])
    assert load_registry(root, NOW).maintainer_recipients == ()  # pending: not in force yet
    run("sign", "--root", root, "--key", people["carol"])
    assert load_registry(root, NOW).maintainer_recipients == (recipient,)
    result = run("set-recipient", "bob", "age1nope", "--root", root)
    assert result.exit_code == 1 and "not an age X25519 recipient" in result.output
    result = run("set-recipient", "zed", recipient, "--root", root)
    assert result.exit_code == 1 and "no maintainer 'zed'" in result.output


@pytest.mark.parametrize(
    "command",
    ["init", "add-lab", "add-maintainer", "revoke", "renew", "sign", "status", "allowed-signers", "set-recipient", "remove-maintainer"],
)
def test_every_command_has_an_example(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0 and "Example" in result.output and "sealboard keys" in result.output


def test_a_file_that_is_not_a_public_key_is_never_quoted(tmp_path: Path) -> None:
    from builder.trust.seal import generate_identity, identity_file_text

    secret_file = tmp_path / "identity.txt"
    secret_file.write_text(identity_file_text(generate_identity()))
    for path in (secret_file, Path("/etc/hostname")):
        result = run("init", "--root", tmp_path / "r", "--threshold", 1, "--maintainer", "a", "A", path)
        assert result.exit_code == 2 and "does not hold an OpenSSH public key" in result.output
        assert "SECRET-KEY" not in result.output and "created" not in result.output


def test_set_build_key_is_a_threshold_signed_change(root: Path, people: dict[str, Path], tmp_path: Path) -> None:
    """`keys set-build-key`: pending until the threshold signs; then the registry lists it and
    `allowed-signers --namespace sealboard-site` holds exactly it (what ssh-keygen -Y verify
    needs for a deploy's attestation). ECDSA is refused: its signatures are not deterministic."""
    import subprocess

    for name in ("alice", "bob"):
        run("sign", "--root", root, "--key", people[name])
    data, public = generate_ed25519("build")
    (tmp_path / "build_key.pub").write_text(public.openssh + "\n")
    result = run("set-build-key", "--root", root, tmp_path / "build_key.pub")
    assert result.exit_code == 0 and "v0002.yaml" in result.output
    assert load_registry(root, NOW).build_key is None  # pending: v0001 stays in force
    for name in ("bob", "carol"):
        run("sign", "--root", root, "--key", people[name])
    assert load_registry(root, NOW).build_key == public
    out = tmp_path / "allowed_signers"
    assert run("allowed-signers", "--root", root, "--namespace", "sealboard-site", "--out", out).exit_code == 0
    assert [line for line in out.read_text().splitlines() if not line.startswith("#")] == [
        f'sealboard-build namespaces="sealboard-site" {public.openssh}'
    ]
    # A maintainer key may not double as the build key (one key, one role).
    from builder.errors import BuilderError
    from builder.trust.registry_admin import set_build_key

    with pytest.raises(BuilderError) as exc:
        set_build_key(root, people["alice"].with_suffix(".pub").read_text())
    assert exc.value.reason == "duplicate" and "appears more than once" in exc.value.message
    ecdsa = tmp_path / "ecdsa"
    subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f", str(ecdsa)], check=True)
    with pytest.raises(BuilderError) as exc:
        set_build_key(root, ecdsa.with_suffix(".pub").read_text())
    assert exc.value.reason == "build-key-not-ed25519"
    refused = run("set-build-key", "--root", root, ecdsa.with_suffix(".pub"))
    assert refused.exit_code == 1 and "build_key must be an ssh-ed25519 key" in refused.output
    removed = run("set-build-key", "--root", root, "none")
    assert removed.exit_code == 0 and "v0003.yaml" in removed.output
