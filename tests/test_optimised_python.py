"""The code behaves the same under `python -O` (issue 39 replaced the hostile corpus's second
run under -O with this invariant, checked for every line rather than the paths the corpus
takes): -O strips `assert` statements (ruff's S101 refuses them in builder/, pyproject.toml)
and sets ``__debug__`` and ``sys.flags.optimize``, which nothing in builder/ may read."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

BUILDER = Path(__file__).resolve().parents[1] / "builder"


def _reads_of_optimisation(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "__debug__":
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "optimize":
            lines.append(node.lineno)
        elif isinstance(node, ast.Assert):
            lines.append(node.lineno)
    return lines


def test_nothing_in_builder_asserts_or_reads_the_optimisation_level():
    found = [
        f"{p.relative_to(BUILDER.parent)}:{line}"
        for p in sorted(BUILDER.rglob("*.py"))
        for line in _reads_of_optimisation(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_check_sees_each_form():
    planted = "assert x\nif __debug__:\n    pass\nimport sys\nsys.flags.optimize\n"
    assert sorted(_reads_of_optimisation(ast.parse(planted))) == [1, 2, 5]


def _ruff(source: str, as_path: str) -> subprocess.CompletedProcess[str]:
    # From stdin under a path of the repository: the path picks the per-file settings, and
    # nothing is written where another test could read it.
    cmd = [sys.executable, "-m", "ruff", "check", "--no-cache", "--stdin-filename", as_path, "-"]
    return subprocess.run(cmd, cwd=BUILDER.parent, input=source, capture_output=True, text=True, timeout=60)


def test_ruff_refuses_an_assert_in_builder_and_allows_it_in_tests():
    """The lint CI runs: an assert in a builder module fails `ruff check` with S101; a test's passes."""
    source = "def f(x):\n    assert x\n"
    refused = _ruff(source, "builder/planted.py")
    assert refused.returncode == 1 and "S101" in refused.stdout, refused.stdout + refused.stderr
    allowed = _ruff(source, "tests/test_planted.py")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
