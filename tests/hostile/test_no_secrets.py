"""Security invariant 4: secrets are never printed, logged, written or embedded in errors.

The CLI is driven as a maintainer or lab would, with hostile or broken inputs next to real
secrets (the embargo identity, SSH private keys). Neither the identity's
``AGE-SECRET-KEY-1…`` text nor any window of a private key's body may appear in the
output, in any file of the built site or the instance, or in any exception's message.
"""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import builder.cli.build
import builder.cli.keys
from builder.cli import main
from builder.errors import BuilderError
from builder.trust.registry_admin import add_lab
from builder.trust.seal import generate_identity, identity_file_text
from hostile.support import (
    ACME,
    BETA,
    NOW,
    Instance,
    assert_no_secret,
    flip,
    identity_fragments,
    new_key,
    private_key_fragments,
    run,
    where_of,
)

pytestmark = pytest.mark.slow  # CLI builds


class _FixedClock(datetime):
    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        return NOW if tz is None else NOW.astimezone(tz)


@pytest.fixture(autouse=True)
def build_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI reads the wall clock; pin it to the corpus's build time."""
    monkeypatch.setattr(builder.cli.build, "datetime", _FixedClock)
    monkeypatch.setattr(builder.cli.keys, "datetime", _FixedClock)


@pytest.fixture
def secrets(inst: Instance) -> tuple[list[str], list[str]]:
    keys = [p.read_bytes() for p in inst.lab_key_paths.values()]
    keydir = inst.lab_key_paths["acme"].parent
    keys += [p.read_bytes() for p in keydir.iterdir() if p.name.startswith("m")]
    return identity_fragments(inst.identity), [f for k in keys for f in private_key_fragments(k)]


def _identity_file(inst: Instance, tmp_path: Path) -> Path:
    path = tmp_path / "identity.txt"
    path.write_text(identity_file_text(inst.identity))
    path.chmod(0o600)
    return path


def _check(result: Result, secrets: tuple[list[str], list[str]]) -> None:
    assert_no_secret(result.output, *secrets)
    if result.stderr_bytes is not None:
        assert_no_secret(result.stderr_bytes, *secrets)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert_no_secret(repr(result.exception) + str(result.exception), *secrets)


def _scan_tree(root: Path, secrets: tuple[list[str], list[str]], skip: tuple[Path, ...] = ()) -> int:
    count = 0
    for path in root.rglob("*"):
        if path.is_file() and not any(path.is_relative_to(s) for s in skip):
            assert_no_secret(path.read_bytes(), *secrets)
            count += 1
    return count


def test_cli_build_with_a_bad_bundle(inst: Instance, tmp_path: Path, secrets) -> None:
    flip(inst.bundles[ACME] / "results.jsonl.age", 100)
    out = tmp_path / "site"
    result = CliRunner().invoke(
        main, ["build", "--root", str(inst.root), "--out", str(out), "--identity", str(_identity_file(inst, tmp_path))]
    )
    _check(result, secrets)
    assert result.exit_code == 0, result.output
    assert f"{where_of(ACME, 'results.jsonl.age')}: SHA-256 does not match" in result.output
    assert _scan_tree(out, secrets) > 10
    assert _scan_tree(inst.root, secrets) > 5  # nothing left behind in the instance either


def test_cli_strict_build_from_environment(inst: Instance, tmp_path: Path, secrets) -> None:
    (inst.bundles[ACME] / "notes.txt").write_text("x")
    env = {"SEALBOARD_IDENTITY": identity_file_text(inst.identity)}
    result = CliRunner().invoke(main, ["build", "--root", str(inst.root), "--out", str(tmp_path / "site"), "--strict"], env=env)
    _check(result, secrets)
    assert result.exit_code == 1 and "rejected" in result.output


def _near_miss(inst: Instance) -> str:
    """The identity file with one character of the key changed (a typo): still secret."""
    text = identity_file_text(inst.identity)
    line = next(line for line in text.splitlines() if line.startswith("AGE-SECRET-KEY-1"))
    i = len(line) // 2
    typo = line[:i] + ("Q" if line[i] != "Q" else "P") + line[i + 1 :]
    return text.replace(line, typo)


@pytest.mark.parametrize("how", ["file", "environment"])
def test_cli_build_with_a_mistyped_identity(how: str, inst: Instance, tmp_path: Path, secrets) -> None:
    text = _near_miss(inst)
    args = ["build", "--root", str(inst.root), "--out", str(tmp_path / "site")]
    env = {}
    if how == "file":
        path = tmp_path / "identity.txt"
        path.write_text(text)
        args += ["--identity", str(path)]
    else:
        env["SEALBOARD_IDENTITY"] = text
    result = CliRunner().invoke(main, args, env=env)
    _check(result, secrets)
    typo_line = next(line for line in text.splitlines() if line.startswith("AGE-SECRET-KEY-1"))
    assert typo_line.lower()[16:40] not in result.output.lower()
    assert result.exit_code == 1 and "not a valid age secret key" in result.output


def test_cli_build_with_a_foreign_identity(inst: Instance, tmp_path: Path, secrets) -> None:
    other = generate_identity()
    path = tmp_path / "other.txt"
    path.write_text(identity_file_text(other))
    result = CliRunner().invoke(main, ["build", "--root", str(inst.root), "--out", str(tmp_path / "site"), "--identity", str(path)])
    _check(result, (identity_fragments(other) + secrets[0], secrets[1]))
    assert result.exit_code == 1


def test_cli_build_with_ssh_key_as_identity(inst: Instance, tmp_path: Path, secrets) -> None:
    result = CliRunner().invoke(
        main, ["build", "--root", str(inst.root), "--out", str(tmp_path / "site"), "--identity", str(inst.lab_key_paths["acme"])]
    )
    _check(result, secrets)
    assert result.exit_code == 1


# --- signing with keys that cannot be used ---------------------------------------------------


@pytest.fixture
def encrypted_key(tmp_path: Path) -> Path:
    path = tmp_path / "id_encrypted"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "hunter2-passphrase", "-C", "enc", "-f", str(path)], check=True)
    return path


def _damaged(inst: Instance, tmp_path: Path) -> Path:
    text = inst.lab_key_paths["acme"].read_text().splitlines()
    text[3] = text[3][:20] + ("A" if text[3][20] != "A" else "B") + text[3][21:]
    path = tmp_path / "id_damaged"
    path.write_text("\n".join(text) + "\n")
    return path


def _truncated(inst: Instance, tmp_path: Path) -> Path:
    lines = inst.lab_key_paths["acme"].read_text().splitlines()
    path = tmp_path / "id_truncated"
    path.write_text("\n".join(lines[:4] + lines[-1:]) + "\n")
    return path


def _identity_as_key(inst: Instance, tmp_path: Path) -> Path:
    return _identity_file(inst, tmp_path)


KEY_FILES = {
    "encrypted": lambda inst, tmp, enc: enc,
    "damaged-body": lambda inst, tmp, enc: _damaged(inst, tmp),
    "truncated": lambda inst, tmp, enc: _truncated(inst, tmp),
    "age-identity-as-key": lambda inst, tmp, enc: _identity_as_key(inst, tmp),
    "public-key-as-key": lambda inst, tmp, enc: enc.with_suffix(".pub"),
}


@pytest.mark.parametrize("kind", list(KEY_FILES), ids=list(KEY_FILES))
def test_bundle_sign_with_an_unusable_key(kind: str, inst: Instance, tmp_path: Path, encrypted_key: Path, secrets) -> None:
    key = KEY_FILES[kind](inst, tmp_path, encrypted_key)
    body = [*secrets[1], *private_key_fragments(encrypted_key.read_bytes())]
    result = CliRunner().invoke(main, ["bundle", "sign", str(inst.bundles[ACME]), "--key", str(key)])
    _check(result, (secrets[0], body))
    assert result.exit_code == 1, result.output
    if kind == "encrypted":
        assert "encrypted with a passphrase" in result.output


@pytest.mark.parametrize("kind", list(KEY_FILES), ids=list(KEY_FILES))
def test_keys_sign_with_an_unusable_key(kind: str, inst: Instance, tmp_path: Path, encrypted_key: Path, secrets) -> None:
    add_lab(inst.root, "gamma", "Gamma Lab", [new_key(tmp_path, "gamma")[0].public])
    key = KEY_FILES[kind](inst, tmp_path, encrypted_key)
    body = [*secrets[1], *private_key_fragments(encrypted_key.read_bytes())]
    result = CliRunner().invoke(main, ["keys", "sign", "--root", str(inst.root), "--key", str(key)])
    _check(result, (secrets[0], body))
    assert result.exit_code == 1, result.output


def test_keys_and_bundle_sign_with_good_keys_print_no_secret(inst: Instance, tmp_path: Path, secrets) -> None:
    add_lab(inst.root, "gamma", "Gamma Lab", [new_key(tmp_path, "gamma")[0].public])
    keydir = inst.lab_key_paths["acme"].parent
    for m in ("m1", "m2"):
        result = CliRunner().invoke(main, ["keys", "sign", "--root", str(inst.root), "--key", str(keydir / m)])
        _check(result, secrets)
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["bundle", "sign", str(inst.bundles[ACME]), "--key", str(inst.lab_key_paths["acme"])])
    _check(result, secrets)
    assert result.exit_code == 0, result.output
    assert _scan_tree(inst.root, secrets) > 5


# --- the library: every rejection and error of the corpus is secret-free ------------------------


def test_rejections_and_report_are_secret_free(inst: Instance, tmp_path: Path, secrets) -> None:
    flip(inst.bundles[ACME] / "manifest.json.sig", 40)
    (inst.bundles[BETA] / "extra").write_text("x")
    report = run(inst)
    assert len(report.rejections) == 2
    for r in report.rejections:
        assert_no_secret(f"{r!r} {r.message} {r.hint}", *secrets)
    assert_no_secret(repr(report), *secrets)


def test_identity_is_not_in_reprs_or_errors_of_unseal(inst: Instance, secrets) -> None:
    from builder.trust.seal import load_identity, unseal

    with pytest.raises(BuilderError) as info:
        unseal(b"age-encryption.org/v1\n-> X25519 AAAA\n", [inst.identity], "x.age")
    assert_no_secret(str(info.value) + repr(info.value) + repr(inst.identity) + str(inst.identity), *secrets)
    with pytest.raises(BuilderError) as info:
        load_identity(_near_miss(inst), "identity.txt")
    assert_no_secret(str(info.value) + repr(info.value.args), *secrets)
    assert info.value.__cause__ is None and (info.value.__context__ is None or info.value.__suppress_context__)


def test_the_detector_finds_real_leaks(inst: Instance, tmp_path: Path, encrypted_key: Path, secrets) -> None:
    """Control: the scanners above would notice each form of leak they look for."""
    import base64

    key_text = inst.lab_key_paths["acme"].read_text()
    body = "".join(line for line in key_text.splitlines() if not line.startswith("-----"))
    leaks = [
        inst.identity.reveal_secret(),
        inst.identity.reveal_secret().split("\n")[1].lower()[16:50],  # part of the key, lower case
        key_text,
        "error near " + body[210:270],  # a slice of the body over the secret seed, without the armor
        base64.b64decode(body)[161:193].hex(),  # the seed as hex
    ]
    for leak in leaks:
        with pytest.raises(AssertionError):
            assert_no_secret(leak, *secrets)
    with pytest.raises(AssertionError):
        assert_no_secret(encrypted_key.read_text().splitlines()[3], [], private_key_fragments(encrypted_key.read_bytes()))
    # …while the public halves, printed on purpose, are not flagged.
    assert_no_secret(inst.identity.recipient + " " + inst.lab_keys["acme"].public.openssh, *secrets)
