"""The strict YAML reader has two parsers: libyaml (PyYAML's C parser, used where PyYAML has
it) and PyYAML's own Python parser (the reference, where it has not). Both give the same
values and refuse the same documents for the same reasons (builder/strict.py). Two
differences, both pinned: libyaml reads some documents the Python parser calls invalid (a
tab after a value, which YAML allows there), and libyaml's C composer would recurse into any
nesting, so the C path refuses more than MAX_YAML_DEPTH levels first. The wording of a
syntax error ("invalid-yaml") is each parser's own, and a document with bad syntax and a
refused construct (a tag) is refused by both, each naming the one its parser meets first."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.errors import ParseError
from builder.strict import LIBYAML, MAX_YAML_DEPTH, loads_yaml
from tests.factory import make_instance

pytestmark = pytest.mark.skipif(not LIBYAML, reason="this PyYAML has no libyaml: only the Python parser runs")

ROOT = Path(__file__).resolve().parents[2]


def _read(text: str | bytes, c: bool) -> object:
    try:
        return loads_yaml(text, "x.yaml", c=c)
    except ParseError as exc:
        return ("refused", exc.reason, exc.line if exc.reason != "invalid-yaml" else None)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab:-[]{}&*!? \n\t'\"#|>%@`,.0123456789<", max_size=160))
def test_both_parsers_give_the_same_values_and_refusals(text: str) -> None:
    python, c = _read(text, c=False), _read(text, c=True)
    if isinstance(c, tuple) and c[:2] == ("refused", "too-deep"):
        assert text.count("[") + text.count("{") + text.count("-") + text.count("?") > MAX_YAML_DEPTH, text
        return
    if isinstance(python, tuple) and python[:2] == ("refused", "invalid-yaml"):
        return  # libyaml may read it (see above), and then its checks and constructors ran
    if isinstance(python, tuple) and isinstance(c, tuple) and "invalid-yaml" in (python[1], c[1]):
        return  # refused by both: bad syntax and a refused construct, each parser meets one first
    assert python == c, text


def test_libyaml_reads_a_tab_the_python_parser_refuses() -> None:
    assert _read("0\t", c=False) == ("refused", "invalid-yaml", None)
    assert _read("0\t", c=True) == 0


def test_every_yaml_sealboard_ships_and_writes_reads_the_same(tmp_path: Path) -> None:
    inst = make_instance(tmp_path / "board")
    files = [*ROOT.joinpath("builder").rglob("*.yaml"), *inst.root.joinpath("leaderboards").glob("*.yaml")]
    files += sorted(inst.root.joinpath("keys", "registry").glob("*.yaml"))
    assert len(files) >= 6, files
    for path in files:
        data = path.read_bytes()
        assert loads_yaml(data, str(path), c=True) == loads_yaml(data, str(path), c=False), path


@pytest.mark.parametrize(
    "text, reason, line",
    [
        ("x: &a 1\n", "yaml-alias", 1),
        ("a: 1\nb: *a\n", "yaml-alias", 2),
        ("x: {<<: {a: 1}}\n", "yaml-alias", 1),
        ("a: 1\nx: !!python/name:os.system ''\n", "yaml-tag", 2),
        ("x: !custom 1\n", "yaml-tag", 1),
        ("a: 1\na: 2\n", "duplicate-key", 2),
        ("1: a\n", "yaml-key", 1),
        ("x: .inf\n", "non-finite", 1),
        ("x: 9007199254740993\n", "big-int", 1),
        ("[" * 100_000 + "]" * 100_000, "too-deep", 1),
        ("{a: " * (MAX_YAML_DEPTH + 1) + "1" + "}" * (MAX_YAML_DEPTH + 1), "too-deep", 1),
        ("x:\n" + "".join("  " * i + "- \n" for i in range(1, MAX_YAML_DEPTH + 2)), "too-deep", MAX_YAML_DEPTH + 1),
    ],
    ids=[
        "anchor",
        "alias",
        "merge-key",
        "python-tag",
        "local-tag",
        "duplicate",
        "int-key",
        "inf",
        "big-int",
        "deep-flow",
        "deep-mapping",
        "deep-block",
    ],  # fmt: skip
)
def test_the_c_path_refuses_what_the_strict_loader_refuses(text: str, reason: str, line: int) -> None:
    with pytest.raises(ParseError) as info:
        loads_yaml(text, "leaderboards/soohak.yaml", c=True)
    assert (info.value.reason, info.value.line, info.value.where) == (reason, line, "leaderboards/soohak.yaml")


def test_nesting_up_to_the_limit_reads() -> None:
    text = "[" * MAX_YAML_DEPTH + "1" + "]" * MAX_YAML_DEPTH
    value = loads_yaml(text, "x.yaml", c=True)
    for _ in range(MAX_YAML_DEPTH):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == 1
