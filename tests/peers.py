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
