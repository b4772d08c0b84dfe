"""One isolation boundary per submission at every stage (unseal, score, render).

A bundle is untrusted input from one lab; nothing it holds may take down another lab's
boards. The stages are vectorised across submissions (one scoring pass over every
submission's rows, one render of every board), so a failure cannot always be caught
where one submission is handled. The boundary is therefore generic:

- unseal runs bundle by bundle; any exception becomes that bundle's :class:`Rejection`;
- a stage that works on a *set* of submissions is retried on subsets when it raises:
  first with no submission at all (if that fails too, the benchmark itself is at fault and
  it alone fails, named), then by halving (group testing) down to the submissions whose
  presence alone makes it raise. Those are rejected by name; the rest are scored again
  and published. A failure that only a combination of submissions triggers is not
  traceable to one of them: that benchmark alone fails, named.

Messages of unexpected exceptions are never shown: they may quote an embargoed answer
(a ``ValueError`` repeating its input). Only the exception's type and the stage are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from builder.bundles.ingest import Rejection
from builder.errors import BuilderError
from builder.report.records import BenchmarkState, BuildReport, restrict

K = TypeVar("K")
T = TypeVar("T")


def rejection(exc: BaseException, *, where: str, stage: str, benchmark: str | None, lab: str | None) -> Rejection:
    """The Rejection for an error raised while `stage` handled the bundle at `where`."""
    if isinstance(exc, BuilderError):
        exc.at(where)
        return Rejection(exc.where or where, exc.reason, str(exc), exc.hint, benchmark, lab)
    if lab is None:  # the benchmark as a whole (its dataset or config), not one submission
        message = f"{where}: {stage} raised {type(exc).__name__} for benchmark {benchmark}; it publishes no scores, the other benchmarks do"
        hint = "maintainers: rerun the build locally with the identity to see the traceback"
    else:
        message = (
            f"{where}: {stage} raised {type(exc).__name__} on this submission; it was left out and every other submission was published"
        )
        hint = "check the bundle's results against the bundle format (answers, numbers, fields) and resubmit"
    return Rejection(where, f"{stage}-failed", message, hint, benchmark, lab)


def culprits(keys: Sequence[K], fails: Callable[[list[K]], bool]) -> list[K]:
    """The keys that make ``fails`` true on their own, given that it is true on all of them.

    Halving: a group that passes holds no culprit; a failing group is split until single
    keys remain. With c culprits among n keys this costs O(c log n) calls. Keys that fail
    only together are not found (each half passes): the caller sees an empty list.
    """

    def search(group: list[K]) -> list[K]:
        if len(group) == 1:
            return group
        mid = len(group) // 2
        out: list[K] = []
        for half in (group[:mid], group[mid:]):
            if fails(half):
                out += search(half)
        return out

    group = list(keys)
    return search(group) if group else []


def error_of(attempt: Callable[[], object]) -> Exception | None:
    """The exception `attempt()` raises (any: this subset still breaks the stage), or None."""
    try:
        attempt()
    except Exception as exc:
        return exc
    return None


def isolate(
    state: BenchmarkState,
    run: Callable[[BenchmarkState], BenchmarkState],
    *,
    stage: str,
    rejections: list[Rejection],
) -> BenchmarkState:
    """``run(state)``; if it raises, reject the submissions that make it raise and rerun.

    Raises the original exception when the failure is not traceable to submissions
    (the stage fails with no submission at all, or only a combination triggers it).
    """
    try:
        return run(state)
    except Exception as first:
        keys = sorted(b.manifest.key for b in state.bundles)

        def attempt(group: list[str]) -> Exception | None:
            return error_of(lambda: run(restrict(state, set(group))))

        if not keys or attempt([]) is not None:
            raise
        bad = culprits(keys, lambda group: attempt(group) is not None)
        if not bad:
            raise
        for key in bad:
            bundle = next(b for b in state.bundles if b.manifest.key == key)
            own = attempt([key]) or first  # the culprit's own error, for its message
            rejections.append(rejection(own, where=bundle.where, stage=stage, benchmark=state.config.id, lab=bundle.manifest.lab))
        return run(restrict(state, set(keys) - set(bad)))


def isolate_render(
    report: BuildReport,
    render: Callable[[BuildReport], T],
    rescore: Callable[[list[BenchmarkState]], tuple[list[BenchmarkState], list[Rejection]]],
) -> tuple[BuildReport, T]:
    """``render(report)``, and the report it rendered; if it raises, reject the submissions
    that make it raise, rescore their benchmarks without them and render again (the same
    search as :func:`isolate`, over every benchmark's submissions at once: the site is
    rendered as a whole). The report rendered then lists those rejections (and the
    rescore's) and holds the benchmarks without them."""
    try:
        return report, render(report)
    except Exception as first:
        pairs = [(i, b.manifest.key) for i, st in enumerate(report.benchmarks) for b in sorted(st.bundles, key=lambda b: b.manifest.key)]

        def trial(group: list[tuple[int, str]]) -> BuildReport:
            keep: dict[int, set[str]] = {}
            for i, key in group:
                keep.setdefault(i, set()).add(key)
            states = [restrict(st, keep.get(i, set())) for i, st in enumerate(report.benchmarks)]
            return replace(report, benchmarks=states, rejections=list(report.rejections))

        def attempt(group: list[tuple[int, str]]) -> Exception | None:
            return error_of(lambda: render(trial(group)))

        if not pairs or attempt([]) is not None:
            raise
        bad = culprits(pairs, lambda group: attempt(group) is not None)
        if not bad:
            raise
        touched = set()
        rejections = list(report.rejections)
        for i, key in bad:
            state = report.benchmarks[i]
            bundle = next(b for b in state.bundles if b.manifest.key == key)
            own = attempt([(i, key)]) or first
            rejections.append(rejection(own, where=bundle.where, stage="render", benchmark=state.config.id, lab=bundle.manifest.lab))
            touched.add(i)
        gone = set(bad)
        states = [
            restrict(st, {b.manifest.key for b in st.bundles if (i, b.manifest.key) not in gone}) for i, st in enumerate(report.benchmarks)
        ]
        rescored, unscored = rescore([states[i] for i in sorted(touched)])
        for i, st in zip(sorted(touched), rescored):
            states[i] = st
        rendered = replace(report, benchmarks=states, rejections=[*rejections, *unscored])
        return rendered, render(rendered)
