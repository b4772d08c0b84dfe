"""Unsealing in worker processes: a worker that dies is a rejection or a retry, never a hang.

The out-of-memory killer ends a process with SIGKILL, which no Python code can catch. Here
a worker SIGKILLs itself while unsealing one chosen bundle (a monkeypatch the forked
workers inherit; nothing in the builder knows about it), and the build must still finish.
"""

from __future__ import annotations

import faulthandler
import os
import signal
from pathlib import Path

import pytest

import builder.bundles.unseal
from builder.bundles.manifest import RESULTS
from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for

pytestmark = pytest.mark.slow  # builds sites

SUBMISSIONS = [f"p-{i}" for i in range(9)]  # at least MIN_PARALLEL_BUNDLES


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory):
    inst = make_instance(tmp_path_factory.mktemp("unseal") / "inst")
    for i, name in enumerate(SUBMISSIONS):
        inst.add_submission(
            "acme" if i % 2 else "beta", name, results_for(inst.items, {it["id"]: [i % 2 == 0, True, False] for it in inst.items[i:]})
        )
    return inst


@pytest.fixture(autouse=True)
def no_hang():
    # A safety net, not a timing: if the pool ever hangs again, the run ends with every
    # thread's stack printed instead of waiting forever.
    faulthandler.dump_traceback_later(600, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def _kill_worker_on(monkeypatch: pytest.MonkeyPatch, submission: str, times: int | None, marks: Path) -> None:
    """Make a worker process SIGKILL itself when it starts on ``submission`` (``times`` times)."""
    parent = os.getpid()
    real = builder.bundles.unseal.unseal_results

    def dying(bundle, *args):
        if os.getpid() != parent and bundle.manifest.submission == submission:
            deaths = len(list(marks.iterdir()))
            if times is None or deaths < times:
                (marks / str(deaths)).touch()
                os.kill(os.getpid(), signal.SIGKILL)
        return real(bundle, *args)

    monkeypatch.setattr(builder.bundles.unseal, "unseal_results", dying)


def _build(inst, out: Path):
    report = build(inst.root, out, identities=[inst.identity], now=NOW, render=False)
    [state] = report.benchmarks
    published = set(state.results["submission"]) if state.results is not None else set()
    return report, published


@pytest.mark.parametrize("workers", ["2", "3"])
def test_a_bundle_that_kills_its_worker_is_rejected_and_the_rest_build(instance, tmp_path, monkeypatch, workers):
    monkeypatch.setenv("SEALBOARD_WORKERS", workers)
    marks = tmp_path / "deaths"
    marks.mkdir()
    _kill_worker_on(monkeypatch, "p-3", None, marks)
    report, published = _build(instance, tmp_path / "site")
    where = f"bundles/soohak/acme/p-3/{RESULTS}"
    assert [(r.where, r.reason) for r in report.rejections] == [(where, "worker-died")]
    assert "signal SIGKILL" in report.rejections[0].message and where in report.rejections[0].message
    assert published == {f"{lab}/{name}" for lab, name in _labs()} - {"acme/p-3"}
    assert len(list(marks.iterdir())) == 2  # in the pool, then alone


def test_a_worker_that_dies_once_costs_a_retry_not_a_bundle(instance, tmp_path, monkeypatch):
    monkeypatch.setenv("SEALBOARD_WORKERS", "1")
    serial_report, serial = _build(instance, tmp_path / "serial")

    monkeypatch.setenv("SEALBOARD_WORKERS", "2")
    marks = tmp_path / "deaths"
    marks.mkdir()
    _kill_worker_on(monkeypatch, "p-5", 1, marks)
    report, published = _build(instance, tmp_path / "site")
    assert report.rejections == [] and published == serial
    assert len(list(marks.iterdir())) == 1
    key = ["submission", "item", "lang", "sample"]
    expected = serial_report.benchmarks[0].results.sort_values(key).reset_index(drop=True)
    got = report.benchmarks[0].results.sort_values(key).reset_index(drop=True)
    __import__("pandas").testing.assert_frame_equal(got, expected)


def _labs():
    return [("acme" if i % 2 else "beta", name) for i, name in enumerate(SUBMISSIONS)]


def test_columns_travel_from_workers_as_the_frame_holds_them():
    """A worker ships its rows as arrays (UnsealedBundle.columns) and concat_results joins
    them: each must be what the checked frame holds, dtype and nulls included (ints and
    bools with nulls come from pandas as float and object)."""
    import pandas as pd

    from builder.bundles.results import frame_columns, parse_table
    from builder.bundles.unseal import _array

    data = (
        b'{"item":"m1","lang":"en","sample":0,"answer":null,"correct":true,"refused":false,"budget":3,"sketch":true,"variant":"a"}\n'
        b'{"item":"m1","lang":"en","sample":1,"answer":"x","correct":false,"refused":false,"latency_s":1.5}\n'
    )
    columns = frame_columns(parse_table(data, "r", {"budget": "int", "sketch": "bool", "variant": ("a", "b")}))
    frame = pd.DataFrame(columns, copy=False)
    for name, value in columns.items():
        held = frame[name]
        expected = held.array if isinstance(held.dtype, pd.api.extensions.ExtensionDtype) else held.to_numpy()
        shipped = _array(value)
        assert type(shipped) is type(expected) and shipped.dtype == expected.dtype, name
        assert pd.Series(shipped).equals(pd.Series(expected)), name
    codes = pd.Categorical(["b", "a", "b"], categories=["a", "b"])
    assert _array(codes).tolist() == [1, 0, 1]
