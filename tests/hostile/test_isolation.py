"""One bundle never takes down the build: any error in unseal, score or render for one
submission becomes that bundle's rejection (exact reason), and every other one publishes.

The stages are vectorised across submissions, so these cases make the stage raise for one
submission in ways no `try` around a known input would catch (a real regrade crash, and
injected exceptions of arbitrary types standing for whatever a future regrader raises).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import builder.scoring
import builder.scoring.frames
from builder.errors import BuilderError
from builder.pipeline.build import build
from builder.pipeline.isolation import culprits
from hostile.support import ACME, BETA, DATASET, NOW, VALID_ROWS, assert_rejected, published, reseal, rows_bytes, run, where_of
from tests.factory import make_instance, own_wrong_answers, results_for, soohak_items

pytestmark = pytest.mark.slow  # builds sites


def test_fraction_answer_1e9999_is_isolated(tmp_path: Path) -> None:
    # A fraction item: the exact regrader turns 1e9999 into a 10 000-digit integer, whose
    # str() raises ValueError inside the vectorised regrade of every submission at once.
    items = soohak_items()
    items[0] = dict(items[0], answer={"en": "3", "ko": "3"}, answer_type="fraction")  # "3" = 3/1
    inst = make_instance(tmp_path / "frac", items=items)
    inst.add_submission("acme", "run-1", results_for(items, langs=("en", "ko")))
    inst.add_submission("beta", "run-2", results_for(items, {it["id"]: [True] * 3 for it in items}, langs=("en", "ko")))
    rows = results_for(items, langs=("en", "ko"))
    for row in rows:
        if row["item"] == items[0]["id"]:
            row["answer"] = "1e9999"
    inst.add_submission("acme", "huge", rows)
    report = run(inst)
    assert {ACME, BETA} <= published(report)
    # The regrader may learn to read 1e9999 (then it is just a wrong answer); if it raises,
    # the boundary turns it into this bundle's rejection and nothing else.
    for r in report.rejections:
        assert (r.where, r.reason) == (where_of("acme/huge"), "score-failed"), r
        assert "ValueError" in r.message and "1e9999" not in r.message


@pytest.fixture
def boom(monkeypatch: pytest.MonkeyPatch):
    """Make the vectorised regrade raise `exc` whenever an answer equals the marker."""

    def install(exc: Exception, marker: str = "BOOM") -> None:
        real = builder.scoring.frames.regrade_pairs

        def regrade_pairs(answers, *args, **kwargs):
            if (answers == marker).any():
                raise exc
            return real(answers, *args, **kwargs)

        monkeypatch.setattr(builder.scoring.frames, "regrade_pairs", regrade_pairs)

    return install


def _poison(inst, key: str, marker: str = "BOOM") -> None:
    rows = own_wrong_answers(VALID_ROWS, key)  # each poisoned run its own, not a clone of another
    rows[0]["answer"] = marker
    reseal(inst, key, rows_bytes(rows))


@pytest.mark.parametrize(
    "exc", [ValueError("x"), KeyError("gold 42"), ZeroDivisionError(), RecursionError(), OverflowError(), MemoryError()]
)
def test_any_exception_in_scoring_rejects_only_its_submission(inst, boom, exc) -> None:
    boom(exc)
    inst.add_submission("acme", "run-9", VALID_ROWS)
    _poison(inst, "acme/run-9")
    report = run(inst)
    assert_rejected(report, (where_of("acme/run-9"), "score-failed"))
    message = report.rejections[0].message
    assert type(exc).__name__ in message and "gold 42" not in message  # the type, never the text


def test_a_builder_error_in_scoring_keeps_its_own_reason(inst, boom) -> None:
    boom(BuilderError("training cutoff is not a date", reason="scoring-input"))
    _poison(inst, BETA)
    report = run(inst)
    assert_rejected(report, (where_of(BETA), "scoring-input"), publishes=[ACME])


def test_two_culprits_among_many_are_both_found(inst, boom) -> None:
    boom(RuntimeError())
    for i in range(6):
        inst.add_submission("acme", f"run-{10 + i}", VALID_ROWS)
    _poison(inst, "acme/run-12")
    _poison(inst, BETA)
    report = run(inst)
    assert_rejected(report, (where_of("acme/run-12"), "score-failed"), (where_of(BETA), "score-failed"), publishes=[ACME, "acme/run-15"])


def test_failure_without_any_submission_fails_only_that_benchmark(inst, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise ArithmeticError("dataset is inconsistent")

    monkeypatch.setattr(builder.scoring, "score_benchmark", broken)
    report = run(inst)
    (rej,) = report.rejections
    assert (rej.reason, rej.lab, rej.benchmark) == ("score-failed", None, "soohak") and rej.where.endswith("soohak.yaml")
    assert "benchmark soohak" in rej.message and "inconsistent" not in rej.message
    assert report.benchmarks[0].boards == ()


def test_failure_only_in_combination_is_the_benchmarks(inst, monkeypatch) -> None:
    # Neither submission fails alone; together they do: not traceable to one, so the
    # benchmark fails (named) rather than an innocent lab being blamed.
    real = builder.scoring.score_benchmark

    def pairwise(spec, items, results, subs, **kw):
        if {ACME, BETA} <= set(subs["submission"]):
            raise RuntimeError()
        return real(spec, items, results, subs, **kw)

    monkeypatch.setattr(builder.scoring, "score_benchmark", pairwise)
    report = run(inst)
    assert [(r.reason, r.lab) for r in report.rejections] == [("score-failed", None)]


def test_any_exception_in_unseal_rejects_only_its_bundle(inst, monkeypatch) -> None:
    import builder.bundles.unseal as unseal

    real = unseal.parse_table

    def parse(plaintext, where, extras, *limits, **options):
        if "beta" in where:
            raise IndexError("row 3")
        return real(plaintext, where, extras, *limits, **options)

    monkeypatch.setattr(unseal, "parse_table", parse)
    report = run(inst)
    assert_rejected(report, (where_of(BETA), "unseal-failed"), publishes=[ACME])


def test_any_exception_in_unsealing_the_dataset_rejects_the_benchmark(inst, monkeypatch) -> None:
    # Not a BuilderError: the benchmark-level note takes the generic failure's hint (it once
    # read `.hint` off the exception itself, and the build died of AttributeError here).
    import builder.pipeline.stages as stages

    def broken(dataset, keys):
        raise ValueError("corrupt")

    monkeypatch.setattr(stages, "unseal_items", broken)
    report = run(inst)
    assert_rejected(report, (DATASET, "unseal-failed"), (DATASET, "missing-dataset"), publishes=())
    failed, missing = report.rejections
    assert (failed.reason, missing.reason) == ("unseal-failed", "missing-dataset")
    assert missing.hint == failed.hint and missing.hint
    assert "ValueError" in failed.message and "corrupt" not in failed.message


def test_any_exception_in_render_rejects_only_its_bundle(inst, monkeypatch, tmp_path) -> None:
    import builder.render.pages as pages

    real = pages.submissions_page

    def page(bench, subs, *rest):
        if any(r["submission"] == BETA for r in subs["rows"]):
            raise TypeError()
        return real(bench, subs, *rest)

    monkeypatch.setattr(pages, "submissions_page", page)
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert [(r.where, r.reason) for r in report.rejections] == [(where_of(BETA), "render-failed")]
    assert (tmp_path / "site" / "data" / "soohak" / "submissions.json").read_text().count('"submission"') == 1
    assert ACME in (tmp_path / "site" / "data" / "soohak" / "submissions.json").read_text()


def test_a_board_row_that_cannot_be_written_rejects_only_its_bundle(inst, monkeypatch, tmp_path) -> None:
    # Data files are serialised by the render stage (not rehearsed in the score stage): a
    # row whose cells cannot be written rejects its submission there, and the rest publish.
    import builder.scoring.tables as tables

    real = tables.BoardRow.to_dict

    def to_dict(row, *args, **kwargs):
        if row.submission == BETA:
            raise OverflowError()
        return real(row, *args, **kwargs)

    monkeypatch.setattr(tables.BoardRow, "to_dict", to_dict)
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert [(r.where, r.reason) for r in report.rejections] == [(where_of(BETA), "render-failed")]
    boards = [p.read_text() for p in (tmp_path / "site" / "data" / "soohak").glob("*.json") if p.name != "submissions.json"]
    assert not any(BETA in text for text in boards)
    assert any(ACME in text for text in boards)


def test_strict_fails_on_a_rejection_from_the_score_stage(inst, boom, tmp_path) -> None:
    boom(ValueError())
    _poison(inst, BETA)
    with pytest.raises(BuilderError) as err:
        build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, strict=True, render=False)
    assert err.value.reason == "rejected" and "score raised ValueError" in str(err.value)


def test_culprit_search_finds_exactly_the_failing_keys() -> None:
    calls = []

    def fails(group):
        calls.append(group)
        return bool({3, 17} & set(group))

    assert culprits(list(range(32)), fails) == [3, 17]
    assert len(calls) <= 2 * 2 * 5 + 2  # O(c log n)
    assert culprits(list(range(4)), lambda g: len(g) == 4) == []  # only the whole set fails
