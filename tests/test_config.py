"""``leaderboards/<benchmark>.yaml``: the keys builder/config.py validates (here: ``hf_dataset``)."""

from __future__ import annotations

import pytest

from builder.config import parse_config
from builder.demo.instance import _config_text
from builder.errors import ConfigError
from builder.trust.seal import generate_identity


def _text(extra: str = "") -> bytes:
    return (_config_text("soohak", "v1", generate_identity().recipient, private=generate_identity().recipient) + extra).encode()


@pytest.mark.parametrize("value", ["my-org/putnam-lite", "Org_1/data.set-2", "a/b"])
def test_hf_dataset_is_a_hub_dataset_id(value: str) -> None:
    assert parse_config(_text(f"hf_dataset: {value}\n"), "leaderboards/soohak.yaml", "soohak").hf_dataset == value
    assert parse_config(_text(), "leaderboards/soohak.yaml", "soohak").hf_dataset is None  # optional: then no .eval_results


@pytest.mark.parametrize(
    "value",
    [
        "soohak",
        "org/",
        "/name",
        "org/name/extra",
        "org/na me",
        "org/-name",
        "org/name.",
        "org--x/name",
        "org/na..me",
        "org/name.git",
        "https://huggingface.co/datasets/org/name",
        "o/" + "n" * 95,
        "123",
        "true",
    ],
)
def test_hf_dataset_that_is_not_a_hub_id_is_refused_naming_the_key(value: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_config(_text(f"hf_dataset: {value}\n"), "leaderboards/soohak.yaml", "soohak")
    assert exc.value.where == "leaderboards/soohak.yaml"
    assert "hf_dataset:" in exc.value.message and (
        "is not a Hugging Face dataset id" in exc.value.message or "must be a string" in exc.value.message
    )
