"""The build's records are values: BuildReport is frozen and fully typed, and the regrade's
verdicts reach scoring as an argument, not through a module cache (issue 40, items 4-5)."""

from __future__ import annotations

import dataclasses
import typing
from fractions import Fraction

import pandas as pd
import pytest

from builder.release.status import ReleaseState
from builder.report.records import BenchmarkState, BuildReport
from builder.scoring import regrade
from builder.scoring.regrade import Verdict, grade

# What records.py imports for type checking only: the release verdicts' type (builder.release is
# a layer above) and pandas (a command that only reads records need not load it).
TYPE_CHECKING_NAMES = {"ReleaseState": ReleaseState, "pd": pd}


def _mentions_any(hint: object) -> bool:
    return hint is typing.Any or any(_mentions_any(arg) for arg in typing.get_args(hint))


def test_build_report_is_frozen_and_no_field_is_any() -> None:
    assert BuildReport.__dataclass_params__.frozen  # type: ignore[attr-defined]
    hints = typing.get_type_hints(BuildReport, localns=TYPE_CHECKING_NAMES)
    assert [name for name, hint in hints.items() if _mentions_any(hint)] == []
    report = BuildReport(root=None, out=None, now=None, authorised=False, as_of=None, registry=None)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.rejections = []  # type: ignore[misc]


def test_verdicts_are_an_argument_and_leave_nothing_behind() -> None:
    pair = ("expression", "2\\sqrt{2}", "\\sqrt{8}", Fraction(0))
    assert grade(*pair[:3]).correct  # math-verify's own verdict: equal
    given = Verdict(False, False, "refused", "timeout")  # as a child over its budget would say
    assert grade(*pair[:3], verdicts={pair: given}) == given
    assert grade(*pair[:3]).correct  # nothing was cached from the call before
    assert not hasattr(regrade, "seed") and not hasattr(regrade, "_SEEDED")


def test_a_state_without_release_verdicts_says_so_when_they_are_read() -> None:
    assert typing.get_type_hints(BenchmarkState, localns=TYPE_CHECKING_NAMES)["release"] == ReleaseState | None
    state = BenchmarkState(
        config=type("C", (), {"id": "soohak"})(), status="sealed", bundles=(), dataset_where=None, dataset_commitments={}
    )  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="soohak: this state has no release verdicts"):
        state.verdicts.publishes("results")
