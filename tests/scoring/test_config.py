"""The scoring declaration: presets parse; every problem is reported at once."""

from __future__ import annotations

import pytest

from builder.errors import ConfigError
from builder.scoring import default_spec, parse_scoring_config
from builder.scoring.config import load_preset

PRESETS = ["soohak", "livemathematicianbench", "kcsat-ml"]

BOARDS = {
    "soohak": ["mini", "challenge", "human-set", "refusal", "refusal-calibration", "composite", "msc", "problem-type", "languages", "grading"],
    "livemathematicianbench": [
        "overall", "overall-all", "editions", "editions-all", "categories", "categories-all",
        "substitution", "substitution-all", "sketch", "sketch-all", "grading",
    ],
    "kcsat-ml": ["core", "full", "tiers", "points", "years", "tts", "drg", "calibration", "grading"],
}  # fmt: skip


@pytest.mark.parametrize("name", PRESETS)
def test_presets_parse(name):
    spec = default_spec(name)
    assert spec.benchmark == name
    assert spec.board_ids() == BOARDS[name]
    assert spec.min_cell_items == 5


def test_results_extras_match_the_results_parser_vocabulary():
    assert default_spec("livemathematicianbench").results_extras() == {"sketch": "bool", "variant": ("standard", "substitution")}
    assert default_spec("kcsat-ml").results_extras() == {"budget": "int"}


def test_drg_board_has_exactly_the_papers_columns():
    spec = default_spec("kcsat-ml")
    drg = next(b for b in spec.boards if b.id == "drg")
    assert drg.rank_by == "drg" and drg.params.easy == "easy" and drg.params.hard == "hard"


def test_extends_a_preset_and_overrides_keys():
    spec = parse_scoring_config({"extends": "soohak", "min_cell_items": 10}, "leaderboards/soohak.yaml")
    assert spec.min_cell_items == 10 and spec.benchmark == "soohak"


def test_every_problem_is_listed_in_one_error():
    raw = load_preset("soohak")
    raw["samples"] = 0
    raw["colour"] = "blue"
    raw["boards"][0]["metrics"] = ["pass@5", "avg@x"]
    raw["boards"][0]["items"] = {"split": "minii"}
    board = {b["id"]: b for b in raw["boards"]}
    board["composite"]["metrics"][0]["mean_of"] = ["nope/pass@3"]
    board["msc"]["by"] = "colour"
    with pytest.raises(ConfigError) as exc:
        parse_scoring_config(raw, "leaderboards/soohak.yaml")
    err = exc.value
    assert err.where == "leaderboards/soohak.yaml"
    for fragment in (
        "samples: must be an integer",
        "colour: unknown key",
        "boards.mini.metrics[1]: unknown measure 'avg@x'",
        "boards.mini.items.split: 'minii' is not one of mini, challenge, refusal",
        "'nope/pass@3' must name a metric of an earlier table board",
        "boards.msc.by: must name an item field",
    ):
        assert fragment in err.message, fragment


def test_pass_at_k_beyond_samples_is_refused():
    raw = load_preset("soohak")
    raw["boards"][0]["metrics"] = ["pass@5"]
    with pytest.raises(ConfigError, match="pass@5 needs 5 samples per item but samples is 3"):
        parse_scoring_config(raw, "x.yaml")


def test_bins_must_cover_the_unit_interval_exactly_once():
    raw = load_preset("kcsat-ml")
    raw["item_bins"]["tier"]["bins"][1] = {"value": "medium", "above": 0.50, "max": 0.76}  # overlaps Hard at 76%
    with pytest.raises(ConfigError, match="76.00% falls in 2 bins"):
        parse_scoring_config(raw, "x.yaml")
    raw["item_bins"]["tier"]["bins"][1] = {"value": "medium", "above": 0.51, "below": 0.76}  # gap (50%, 51%]
    with pytest.raises(ConfigError, match="50.01% falls in 0 bins"):
        parse_scoring_config(raw, "x.yaml")


def test_board_ids_must_be_unique_including_twins():
    raw = load_preset("livemathematicianbench")
    raw["boards"].append({"id": "overall-all", "metrics": ["accuracy"], "contamination": False})
    with pytest.raises(ConfigError, match="repeats another board's id"):
        parse_scoring_config(raw, "x.yaml")


def test_benchmark_must_match_the_caller():
    with pytest.raises(ConfigError, match="is 'soohak' but the config is for 'kcsat-ml'"):
        parse_scoring_config(load_preset("soohak"), "x.yaml", benchmark="kcsat-ml")


def test_result_field_cannot_shadow_a_standard_column():
    raw = load_preset("kcsat-ml")
    raw["result_fields"] = {"answer": "string"}
    with pytest.raises(ConfigError, match="result_fields.answer"):
        parse_scoring_config(raw, "x.yaml")


def test_unknown_preset():
    with pytest.raises(ConfigError, match="no scoring preset 'nope'"):
        parse_scoring_config({"extends": "nope"}, "x.yaml")
