"""Drive real peers from tests: the `age` CLI, including `age -p` through a terminal."""

from __future__ import annotations

import os
import pty
import select
import shutil
import time
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def need_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        msg = f"'{name}' not found (apt-get install age)"
        if IN_CI:
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return path


def age_passphrase_encrypt(plain: Path, out: Path, passphrase: bytes, timeout: float = 60) -> None:
    """`age -p` reads the passphrase from the terminal: drive it through a pty."""
    age = need_tool("age")
    pid, fd = pty.fork()
    if pid == 0:  # child
        try:
            os.execv(age, [age, "-p", "-o", str(out), str(plain)])
        finally:
            os._exit(127)
    answered = 0
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                pytest.fail(f"age -p timed out; terminal said {seen!r}")
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1024)
            except OSError:  # EIO: child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            # prompts: "Enter passphrase …" then "Confirm passphrase:"
            while answered < 2 and seen.lower().count(b"passphrase") > answered:
                os.write(fd, passphrase + b"\n")
                answered += 1
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen


# The official Every Eval Ever validator (PyPI every_eval_ever; Python >= 3.12, so in its own
# virtualenv, which .ci/run makes and names in SEALBOARD_EEE_VALIDATOR).
EEE_VALIDATOR_ENV = "SEALBOARD_EEE_VALIDATOR"
EEE_VALIDATOR_DEFAULT = Path.home() / ".cache" / "sealboard" / "eee-venv-0.3.0" / "bin" / "every_eval_ever"


def eee_validator() -> str:
    """The validator's executable: $SEALBOARD_EEE_VALIDATOR, else the venv .ci/run makes.
    Missing: a failure in CI (CI=true), a skip elsewhere."""
    path = os.environ.get(EEE_VALIDATOR_ENV) or str(EEE_VALIDATOR_DEFAULT)
    if not os.access(path, os.X_OK):
        msg = f"the Every Eval Ever validator is not at {path} (set {EEE_VALIDATOR_ENV}, or run .ci/run, which installs every_eval_ever in a Python 3.12 venv)"
        if IN_CI:
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return path


def eee_validate(files: list[Path]) -> list[dict]:
    """``every_eval_ever validate --format json`` over ``files`` (absolute paths under a ``data/``
    folder, so the validator checks datastore paths and companions): one report per file."""
    import json
    import subprocess

    assert files, "nothing to validate"
    exe = eee_validator()
    reports: list[dict] = []
    for start in range(0, len(files), 500):  # bounded command lines
        chunk = [str(f) for f in files[start : start + 500]]
        done = subprocess.run([exe, "validate", "--format", "json", *chunk], capture_output=True, text=True, timeout=900)
        assert done.returncode in (0, 1, 2), f"validator exited {done.returncode}: {done.stderr[-2000:]}"
        reports += json.loads(done.stdout)
    assert len(reports) == len(files)
    return reports


def eee_findings(reports: list[dict]) -> list[str]:
    """Every error and warning, one line each, naming the file."""
    return [f"{r['file']}: {kind}: {f.get('loc')}: {f.get('msg')}" for r in reports for kind in ("errors", "warnings") for f in r[kind]]
