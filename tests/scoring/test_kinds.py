"""The board-kind registry (builder.scoring.kinds): one module per kind, an Enum made from them."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import builder.scoring.kinds as kinds
from builder.errors import ConfigError
from builder.scoring import default_spec, parse_scoring_config
from builder.scoring.config import load_preset
from builder.scoring.config_boards import _COMMON
from builder.scoring.kinds import REGISTRY, BoardKind


def test_every_kind_module_is_registered_under_its_name():
    modules = sorted(m.name for m in pkgutil.iter_modules(kinds.__path__) if not m.name.startswith("_"))
    assert sorted(k.value for k in BoardKind) == modules == sorted(k.name for k in REGISTRY.values())
    for kind, spec in REGISTRY.items():
        assert importlib.import_module(f"builder.scoring.kinds.{kind.value}").KIND is spec
        assert not spec.keys & _COMMON  # a kind's own keys never shadow the common ones


@pytest.mark.parametrize("name", ["soohak", "kcsat-ml", "livemathematicianbench"])
def test_each_board_carries_its_kinds_typed_params(name):
    for board in default_spec(name).boards:
        assert isinstance(board.kind, BoardKind) and board.kind == board.kind.value  # compares as its YAML name
        assert type(board.params) is importlib.import_module(f"builder.scoring.kinds.{board.kind.value}").Params


def test_an_unknown_kind_or_a_key_of_another_kind_names_file_and_key():
    raw = load_preset("soohak")
    raw["boards"] = [{"id": "x", "kind": "histogram", "metrics": ["avg@3"]}]
    with pytest.raises(ConfigError) as exc:
        parse_scoring_config(raw, "leaderboards/soohak.yaml")
    assert "leaderboards/soohak.yaml" in str(exc.value) and "boards.x.kind: must be one of table, breakdown" in str(exc.value)
    raw["boards"] = [{"id": "x", "kind": "table", "metrics": ["avg@3"], "by": "problem_type"}]
    with pytest.raises(ConfigError) as exc:
        parse_scoring_config(raw, "leaderboards/soohak.yaml")
    # a table board may not take a breakdown's key: the allowed keys are the table kind's
    assert "boards.x.by: unknown key (allowed: contamination, description, id, items, kind, metrics, notes, rank_by," in str(exc.value)
