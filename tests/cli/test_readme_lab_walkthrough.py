"""The README's lab section, walked literally on a fresh instance.

The commands are read from README.md's "For labs" section and run as a shell would run
them, in a git clone of the leaderboard on a pull-request branch that is *behind* main
(another lab's bundle landed after the branch was made): results.jsonl shaped like the
README's example row, `bundle create`, `ssh-keygen -Y sign` with ~/.ssh/id_ed25519 (HOME
is a test directory holding the lab's registered key), `bundle verify`, then the PR check
(`sealboard validate` against main), the merge and the authorised build: the row appears.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.factory import RUN, make_instance, results_for

pytestmark = pytest.mark.slow  # the README's lab section as a shell would run it, builds included

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
LAB_SECTION = README.split("## For labs", 1)[1].split("\n## ", 1)[0]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip


def readme_commands() -> list[str]:
    """Every command of the lab section's ```sh blocks, continuation lines joined."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", LAB_SECTION, re.S):
        text = re.sub(r"\\\n\s*", "", block)
        commands += [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    return commands


def example_row() -> dict[str, Any]:
    (row,) = re.findall(r"`(\{\"item\".*?\})`", LAB_SECTION)
    return json.loads(row)


def sh(cmd: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # `~` expands as a shell expands it, against the test HOME.
    argv = [env["HOME"] + a[1:] if a.startswith("~/") else a for a in shlex.split(cmd)]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env={**os.environ, **GIT_ENV}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("ssh-keygen") is None or shutil.which("git") is None, reason="needs ssh-keygen and git")
# A PR behind main passes: validate judges the tree the merge would produce, not main's tip.
def test_readme_lab_section_literally(tmp_path: Path) -> None:
    commands = readme_commands()
    create = next(c for c in commands if c.startswith("sealboard bundle create"))
    sign = next(c for c in commands if c.startswith("ssh-keygen -Y sign"))
    verify = next(c for c in commands if c.startswith("sealboard bundle verify"))
    bench = re.search(r"--benchmark (\S+)", create)[1]
    lab = re.search(r"--lab (\S+)", create)[1]
    submission = re.search(r"--submission (\S+)", create)[1]

    # A fresh instance with the README's lab registered; main holds it as the first commit.
    inst = make_instance(tmp_path / "leaderboard", labs=(lab, "beta"))
    root = inst.root
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "leaderboard")
    git(root, "checkout", "-q", "-b", "acme-pr")  # the lab's PR branch starts here…
    git(root, "checkout", "-q", "main")
    inst.add_submission("beta", "beta-run", results_for(inst.items, langs=("en", "ko")))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "beta's bundle lands on main")  # …and falls behind main
    git(root, "checkout", "-q", "acme-pr")
    assert not (root / "bundles/soohak/beta/beta-run").exists()

    # The lab's machine: HOME with the registered key as ~/.ssh/id_ed25519.
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(inst.lab_key_paths[lab], home / ".ssh" / "id_ed25519")
    (home / ".ssh" / "id_ed25519").chmod(0o600)
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO)}

    # Step 1: results.jsonl, each line shaped like the README's example row, every item × 3.
    template = example_row()
    assert template["lang"] in ("en", "ko")  # a language SOOHAK declares
    rows = []
    for r in results_for(inst.items):
        rows.append({**template, **{k: r.get(k) for k in ("item", "lang", "sample", "answer", "correct", "refused")}})
    (root / "results.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    # Step 2: run.yaml with exactly the fields the README lists.
    described = {
        "model": {
            "id": "gpt-x",
            "name": "GPT-X",
            "family": "GPT",
            "open_weights": False,
            "params_b": None,
            "active_params_b": None,
            "training_cutoff": "2025-06-30",
            "release_date": "2026-10-01",
        },
        "config": dict(RUN),
        "harness": {"name": "acme-eval", "version": "1.0"},
        "judge": "judge-1",
        "publish_on_release": {"results": True, "transcripts": False},
    }
    (root / "run.yaml").write_text(yaml.safe_dump(described))
    for field in (
        "id",
        "name",
        "family",
        "open_weights",
        "params_b",
        "active_params_b",
        "training_cutoff",
        "release_date",
        "reasoning_effort",
        "thinking",
        "temperature",
        "max_output_tokens",
        "tts",
        "notes",
    ):
        assert f"`{field}`" in LAB_SECTION

    # Steps 3–5, as written.
    outputs = {}
    for name, cmd in (("create", create), ("sign", sign), ("verify", verify)):
        done = sh(cmd, root, env)
        assert done.returncode == 0, f"{cmd}\n{done.stdout}\n{done.stderr}"
        outputs[name] = done.stdout + done.stderr
    bundle = root / "bundles" / bench / lab / submission
    assert (bundle / "manifest.json.sig").read_text().startswith("-----BEGIN SSH SIGNATURE-----")
    assert "Coverage: 18 items of dataset test-1 × en × 3 sample(s) = 54 rows, complete" in outputs["verify"]
    assert "Traceback" not in "".join(outputs.values())

    # The pull request adds only the bundle; the PR check judges it against main.
    (root / "results.jsonl").unlink()
    (root / "run.yaml").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "acme: gpt-x")
    done = subprocess.run(
        ["sealboard", "validate", "--root", str(root), "--base", "main", "--head", "HEAD"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "removed-bundle" not in done.stdout

    # Merged; the authorised build publishes the row.
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-edit", "acme-pr")
    identity = tmp_path / "leaderboard-keys" / "identity.txt"
    done = subprocess.run(
        ["sealboard", "build", "--root", str(root), "--identity", str(identity), "--out", str(tmp_path / "site")],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rejected:" not in done.stderr, done.stderr
    board = json.loads(next((tmp_path / "site" / "data" / bench).glob("mini.json")).read_text())
    models = {row["model"] for row in board["rows"]}
    assert "GPT-X" in models, models
