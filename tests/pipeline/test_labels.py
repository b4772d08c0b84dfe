"""Two submissions with the same model name stay distinguishable on every board."""

from __future__ import annotations

import pandas as pd

from builder.pipeline.labels import distinct_models


def _frame(*rows: dict) -> pd.DataFrame:
    base = {"lab": "acme", "reasoning": "high", "thinking": True, "tts": False, "temperature": 1.0, "max_output_tokens": 32768}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_unique_names_are_left_alone() -> None:
    f = _frame({"submission": "acme/a", "model": "A"}, {"submission": "acme/b", "model": "B"})
    assert list(distinct_models(f)) == ["A", "B"]


def test_first_setting_that_differs_qualifies_the_name() -> None:
    f = _frame(
        {"submission": "acme/a", "model": "Acme 2", "reasoning": "high"},
        {"submission": "acme/b", "model": "Acme 2", "reasoning": "low"},
        {"submission": "acme/c", "model": "Other"},
    )
    assert list(distinct_models(f)) == ["Acme 2 (reasoning high)", "Acme 2 (reasoning low)", "Other"]


def test_tts_and_lab_distinguish_when_reasoning_does_not() -> None:
    f = _frame({"submission": "acme/a", "model": "M", "tts": False}, {"submission": "acme/b", "model": "M", "tts": True})
    assert list(distinct_models(f)) == ["M (TTS off)", "M (TTS on)"]
    g = _frame({"submission": "acme/a", "model": "M"}, {"submission": "beta/a", "model": "M", "lab": "beta"})
    assert list(distinct_models(g)) == ["M (by acme)", "M (by beta)"]


def test_identical_settings_fall_back_to_submission_id() -> None:
    f = _frame(
        {"submission": "acme/run-1", "model": "M"},
        {"submission": "acme/run-2", "model": "M"},
        {"submission": "acme/run-3", "model": "M", "reasoning": "low"},
    )
    labels = list(distinct_models(f))
    assert labels == ["M (acme/run-1)", "M (acme/run-2)", "M (acme/run-3)"]
    assert len(set(labels)) == 3
