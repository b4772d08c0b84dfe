"""Board labels: two submissions of one benchmark never show the same model name.

Labs submit the same model under several configurations (reasoning effort, TTS, budget)
and name them alike. Boards, charts and the data files show the ``model`` column, so it is
made unique here, once, for every consumer: a name shared within a benchmark gets the
first run setting that tells the submissions apart, e.g. ``Acme Math 2 (reasoning high)``
and ``Acme Math 2 (reasoning low)``; failing that, the lab, then the submission id.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

# (column, how a value reads in a label); the first column that differs inside a group wins.
_DISTINGUISHERS: tuple[tuple[str, Any], ...] = (
    ("reasoning", lambda v: f"reasoning {v}"),
    ("thinking", lambda v: "thinking" if v else "no thinking"),
    ("tts", lambda v: "TTS on" if v else "TTS off"),
    ("temperature", lambda v: f"T={v:g}"),
    ("max_output_tokens", lambda v: f"max {int(v)} tokens"),
    ("lab", lambda v: f"by {v}"),
)


def _text(value: Any, fmt: Any) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "unset"
    return fmt(value)


def distinct_models(frame: pd.DataFrame) -> pd.Series:
    """The ``model`` column with every name shared by several submissions qualified."""
    labels = frame["model"].astype(object).copy()
    for _, group in frame.groupby("model", sort=False):
        if len(group) < 2:
            continue
        for column, fmt in _DISTINGUISHERS:
            if column in group and group[column].astype(str).nunique(dropna=False) == len(group):
                for index, value in group[column].items():
                    labels[index] = f"{frame.at[index, 'model']} ({_text(value, fmt)})"
                break
        else:
            for index in group.index:
                labels[index] = f"{frame.at[index, 'model']} ({frame.at[index, 'submission']})"
    return labels
