"""A lab follows the labs page's install words, literally, in a fresh virtualenv on a board
`sealboard init` scaffolded with the real Sealboard wheel (issue 42, item 5): the hash-locked
dependencies (with the importers extra), then the vendored wheel checked against its sha256,
and the installed `sealboard` then works on that board. The other two places that give these
words (the scaffold's README, `sealboard init`'s checklist) are held to the same lines by
tests/scaffold/test_install_docs.py.

Slow: it installs the whole lock from the package index, not byte-compiled (about 20 CPU-s;
pip's cache makes a second run cheaper), and builds the wheel once."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scaffold.test_init import keygen, run

ROOT = Path(__file__).resolve().parents[2]
LABS_PAGE = ROOT / "builder/render/site_template/docs/labs.md"

pytestmark = [pytest.mark.slow, pytest.mark.long_running]  # a fresh venv installed from the lock: about half a minute


def install_words() -> str:
    """The shell block under the labs page's "Install Sealboard" heading, as a lab copies it."""
    text = LABS_PAGE.read_text(encoding="utf-8")
    section = text.split("## 0. Install Sealboard", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"{LABS_PAGE}: no ```sh block under '## 0. Install Sealboard'"
    return block.group(1)


def build_wheel(directory: Path) -> Path:
    """The real wheel, built from a copy of the source (a build writes into its tree)."""
    source = directory / "src"
    shutil.copytree(ROOT / "builder", source / "builder", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, source / name)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(directory / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (directory / "dist").glob("sealboard-*.whl")
    return wheel


def python311(bin_dir: Path) -> None:
    """`python3.11` on PATH, as the words assume: the machine's, or this interpreter if it is one."""
    if shutil.which("python3.11"):
        return
    if sys.version_info[:2] != (3, 11):
        pytest.skip("the lock is made for Python 3.11 and this machine has none")
    bin_dir.mkdir()
    (bin_dir / "python3.11").symlink_to(sys.executable)


def test_a_lab_installs_sealboard_by_the_labs_page_words(tmp_path: Path) -> None:
    words = install_words()
    assert "--require-hashes" in words and "sealboard --help" in words
    ada = keygen(tmp_path, "ada")
    made = run(
        "init",
        tmp_path / "board",
        "--threshold",
        1,
        "--maintainer",
        "ada",
        "Ada",
        f"{ada}.pub",
        "--identity-out",
        tmp_path / "secure" / "identity.txt",
        "--wheel",
        build_wheel(tmp_path),
    )
    assert made.exit_code == 0, made.output
    board = tmp_path / "board"
    python311(tmp_path / "bin")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # Byte-compiling every installed module is most of an install's CPU and not what is
    # tested. pip reads a `--no-X` option's variable as the value of X, so "0" is what turns
    # compiling off (PIP_NO_COMPILE=1 turns it on: 45.4 against 18.4 CPU-s for this lock's
    # install in a fresh venv, one run each); the check after the run holds it so.
    env["PIP_NO_COMPILE"] = "0"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # The lab's words, then the README's first step with what was installed (the maintainer
    # signs the genesis registry, which is then in force), and the importers extra
    # (zstd-compressed inspect_ai logs on 3.11).
    script = (
        "set -euo pipefail\n"
        + words
        + f"sealboard keys sign --key {ada}\n"
        + "sealboard keys status\n"
        + 'python -c "import zstandard, builder; print(builder.__file__)"\n'
    )
    done = subprocess.run(["bash", "-c", script], cwd=board, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert "Usage: sealboard" in done.stdout
    assert "in force: v0001" in done.stdout, done.stdout[-2000:]
    # Sealboard came from the vendored wheel into the fresh venv, not from this checkout.
    installed_from = done.stdout.strip().splitlines()[-1]
    assert installed_from.startswith(str(board / ".venv")), installed_from
    # Nothing above imports sympy.physics (math-verify's sympy, unused by these commands): a
    # compiled module there is pip's doing.
    (physics,) = (board / ".venv").glob("lib/python3*/site-packages/sympy/physics")
    assert not any(physics.rglob("*.pyc")), "pip byte-compiled the packages (PIP_NO_COMPILE not read as meant)"
