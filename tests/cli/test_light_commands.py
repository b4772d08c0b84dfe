"""Commands that only read a benchmark's config, the registry or a manifest start without the
scoring kernel's pandas and pyarrow (about 0.4 CPU-s an invocation, more than the command's own
work): `release status`, `release identity-due`, `release verify --root`, `bundle sign`,
`bundle verify` (it checks the signed coverage summary, not the sealed rows). Each runs in a
fresh interpreter on a real instance, and succeeds there, before the check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.factory import make_instance, results_for

HEAVY = ("pandas", "pyarrow")

# Runs the commands in-process (one fresh interpreter), then names the heavy modules loaded.
SCRIPT = """
import sys
from builder.cli import main
for args in {commands!r}:
    try:
        main(args, standalone_mode=False)
    except SystemExit as exc:
        assert not exc.code, (args, exc.code)
print("loaded:", ",".join(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    inst = make_instance(tmp_path_factory.mktemp("light") / "board")
    inst.add_submission("acme", "run-1", results_for(inst.items))
    return inst


def _loaded(commands: list[list[str]], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(commands=commands, heavy=HEAVY)], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def test_release_and_signing_commands_do_not_import_the_scoring_kernel(instance) -> None:  # type: ignore[no-untyped-def]
    root = str(instance.root)
    bundle = str(instance.bundles["acme/run-1"])
    commands = [
        ["release", "status", "--root", root],
        ["release", "identity-due", "--root", root],
        ["release", "verify", "--root", root],
        ["bundle", "sign", bundle, "--key", str(instance.lab_key_paths["acme"])],
        ["bundle", "verify", bundle, "--root", root],
    ]
    assert _loaded(commands, instance.root) == "loaded:"


def test_the_check_sees_a_command_that_needs_the_kernel(instance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Control: `bundle create` parses the lab's results (pandas), and the same probe names it."""
    from tests.cli.test_bundle_cli import _files

    results, describe = _files(instance, tmp_path)
    create = ["bundle", "create", "--root", str(instance.root), "--benchmark", "soohak", "--lab", "acme", "--submission", "run-2"]
    loaded = _loaded([[*create, "--results", str(results), "--describe", str(describe)]], instance.root)
    assert "pandas" in loaded and "pyarrow" in loaded
