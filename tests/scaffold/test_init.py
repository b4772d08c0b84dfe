"""`sealboard init` → signed registry → first build → a validated pull request, on a real
git repository with ssh-keygen keys; the scaffold's workflows are the project's."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.scaffold.init import adapt_workflow
from builder.validate.pr import validate
from tests.scaffold.wheel import make_wheel

ROOT = Path(__file__).resolve().parents[2]


def run(*args: object):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def keygen(directory: Path, name: str) -> Path:
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    directory = tmp_path / "keys"
    directory.mkdir()
    return {name: keygen(directory, name) for name in ("ada", "emmy", "sofia", "acme")}


def init(tmp_path: Path, keys: dict[str, Path], *extra: str):  # type: ignore[no-untyped-def]
    people = [a for name in ("ada", "emmy", "sofia") for a in ("--maintainer", name, name.title(), f"{keys[name]}.pub")]
    return run(
        "init",
        tmp_path / "board",
        "--title",
        "Test Board",
        "--threshold",
        2,
        *people,
        "--identity-out",
        tmp_path / "secure" / "identity.txt",
        "--wheel",
        make_wheel(tmp_path / "dist"),
        *extra,
    )


def test_init_then_first_build_and_validation(tmp_path: Path, keys: dict[str, Path]) -> None:
    result = init(tmp_path, keys)
    assert result.exit_code == 0, result.output
    board, identity = tmp_path / "board", tmp_path / "secure" / "identity.txt"
    assert stat.S_IMODE(identity.stat().st_mode) == 0o600
    secret = [line for line in identity.read_text().splitlines() if line.startswith("AGE-SECRET-KEY-1")][0]
    assert not any(secret.encode() in p.read_bytes() for p in board.rglob("*") if p.is_file())
    assert secret not in result.output

    # Not in force until the threshold signs; then the public build works.
    assert "not fully signed" in run("keys", "status", "--root", board).output
    for name in ("ada", "emmy"):
        assert run("keys", "sign", "--root", board, "--key", keys[name]).exit_code == 0
    result = run("build", "--root", board)
    assert result.exit_code == 0, result.output
    assert "registry: v0001 in force" in result.output and (board / "site" / "index.html").is_file()

    # A git repository on main; a maintainers' PR registering a lab validates.
    git(board, "init", "-q", "-b", "main")
    git(board, "add", "-A")
    git(board, "commit", "-q", "-m", "init")
    git(board, "checkout", "-q", "-b", "add-acme")
    run("keys", "add-lab", "acme", "--root", board, "--name", "Acme AI", "--key", f"{keys['acme']}.pub")
    for name in ("ada", "sofia"):
        run("keys", "sign", "--root", board, "--key", keys[name])
    git(board, "add", "-A")
    git(board, "commit", "-q", "-m", "register acme")
    report = validate(board, "main", "add-acme", now=datetime.now(timezone.utc))
    assert report.registry and "version 2 verifies" in report.registry
    assert {p.reason for p in report.problems} <= {"outside-lab", "maintainer-review-required"}  # a maintainers' PR

    # The dataset, by the threshold; then the authorised build scores the benchmark.
    items = tmp_path / "items.jsonl"
    items.write_bytes(
        b"".join(
            orjson.dumps(
                {
                    "id": f"m{i}",
                    "split": "mini",
                    "question": {"en": f"Q{i}?", "ko": f"문제 {i}?"},
                    "answer": {"en": str(i), "ko": str(i)},
                    "answer_type": "integer",
                    "msc": "11",
                    "problem_type": "olympiad",
                }
            )
            + b"\n"
            for i in range(6)
        )
    )
    assert run("dataset", "create", "soohak", "--root", board, "--items", items, "--key", keys["ada"]).exit_code == 0
    assert "2 maintainer signature(s), threshold 2" in run("dataset", "sign", "soohak", "--root", board, "--key", keys["emmy"]).output
    result = run("build", "--root", board, "--identity", identity)
    assert result.exit_code == 0, result.output
    assert "soohak: embargoed, 0 submission(s)" in result.output
    assert "rejected:" not in result.output


def test_scaffold_workflows_are_the_projects(tmp_path: Path, keys: dict[str, Path]) -> None:
    assert init(tmp_path, keys).exit_code == 0
    project = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert [p.name for p in project] == sorted(p.name for p in (tmp_path / "board" / ".github" / "workflows").iterdir())
    for path in project:
        ours = (tmp_path / "board" / ".github" / "workflows" / path.name).read_text()
        assert ours == adapt_workflow(path.read_text()), f"{path.name}: run the refresh in builder/scaffold/init.py's doc"
        assert "pip install ." not in ours and "-r requirements/sealboard.txt" in ours
    board = tmp_path / "board"
    assert (board / "requirements/build.txt").read_text() == (ROOT / "requirements/build.txt").read_text()
    wheel = (board / "vendor/sealboard-0.1.0-py3-none-any.whl").read_bytes()
    assert (
        f"./vendor/sealboard-0.1.0-py3-none-any.whl --hash=sha256:{hashlib.sha256(wheel).hexdigest()}"
        in (board / "requirements/sealboard.txt").read_text()
    )


def _pip_pinned(board: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The exact command the scaffolded workflows run for Sealboard itself (dry run: nothing
    # installed; --ignore-installed: CI's fresh Python has no Sealboard, this one has).
    build = (board / ".github/workflows/build.yml").read_text()
    assert "python -m pip install --require-hashes --no-deps --no-index -r requirements/sealboard.txt" in build
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--require-hashes",
            "--no-deps",
            "--no-index",
            "-r",
            "requirements/sealboard.txt",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ci_installs_the_pinned_wheel_and_refuses_another(tmp_path: Path, keys: dict[str, Path]) -> None:
    assert init(tmp_path, keys).exit_code == 0
    board = tmp_path / "board"
    validate_yml = (board / ".github/workflows/validate.yml").read_text()
    assert "(cd trusted && python -m pip install --require-hashes --no-deps --no-index -r requirements/sealboard.txt)" in validate_yml
    ok = _pip_pinned(board, board)
    assert ok.returncode == 0 and "Would install sealboard-0.1.0" in ok.stdout, ok.stderr
    # A wheel swapped in vendor/ (same name, other bytes) is refused by the hash in the lock.
    make_wheel(board / "vendor", marker="swapped")
    bad = _pip_pinned(board, board)
    assert bad.returncode != 0 and "THESE PACKAGES DO NOT MATCH THE HASHES" in bad.stderr
    # Upgrading: pin-wheel replaces the wheel and its hash; the old one is gone.
    result = run("pin-wheel", make_wheel(tmp_path / "dist2", version="0.2.0"), "--root", board)
    assert result.exit_code == 0, result.output
    assert [p.name for p in (board / "vendor").iterdir()] == ["sealboard-0.2.0-py3-none-any.whl"]
    ok = _pip_pinned(board, board)
    assert ok.returncode == 0 and "Would install sealboard-0.2.0" in ok.stdout, ok.stderr


def test_init_refuses_what_it_must(tmp_path: Path, keys: dict[str, Path]) -> None:
    people = ["--maintainer", "ada", "Ada", f"{keys['ada']}.pub", "--wheel", make_wheel(tmp_path / "dist")]
    result = run("init", tmp_path / "b1", "--threshold", 1, *people, "--identity-out", tmp_path / "b1" / "id.txt")
    assert result.exit_code == 1 and "must not be written inside the repository" in result.output
    (tmp_path / "b2").mkdir()
    (tmp_path / "b2" / "x").write_text("x")
    result = run("init", tmp_path / "b2", "--threshold", 1, *people, "--identity-out", tmp_path / "id2.txt")
    assert result.exit_code == 1 and "not an empty directory" in result.output
    result = run("init", tmp_path / "b3", "--threshold", 2, *people, "--identity-out", tmp_path / "id3.txt")
    assert result.exit_code == 1 and "threshold 2 exceeds the 1 maintainer(s)" in result.output
    assert not (tmp_path / "id3.txt").exists()
    result = run("init", tmp_path / "b4", "--threshold", 1, "--benchmark", "Bad Id", *people, "--identity-out", tmp_path / "id4.txt")
    assert result.exit_code == 1 and "Traceback" not in result.output
