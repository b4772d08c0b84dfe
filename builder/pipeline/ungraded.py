"""Samples a lab left ungraded (``correct: null``): the build's regrade decides them, or the
bundle is left out.

A lab granted the questions but not the gold answers (builder.bundles.access) cannot grade
its own samples; on the answer types Sealboard regrades (the benchmark's ``regrade.types``,
under ``regrade.when``) it need not, since the boards count Sealboard's verdict there
anyway. A null verdict on any other row would have nothing to count, so the bundle is
rejected (``ungraded-not-regraded``) and the rest of the site publishes. The grading board
counts the ungraded samples apart, and compares the lab's verdicts with Sealboard's only
where the lab gave one (builder.scoring.kinds.grading).

The message names how many samples, never which items: which item is of which answer type
is dataset metadata, embargoed, and the Rejected page is public.
"""

from __future__ import annotations

from builder.bundles.ingest import Rejection
from builder.pipeline.left_out import left_out
from builder.report.records import BenchmarkState, restrict
from builder.scoring.row_verdicts import regraded_rows


def refuse_ungraded(states: list[BenchmarkState]) -> tuple[list[BenchmarkState], list[Rejection]]:
    """Each state without the bundles that left a row Sealboard does not regrade ungraded,
    and the rejections of those bundles."""
    out: list[BenchmarkState] = []
    rejections: list[Rejection] = []
    for state in states:
        results = state.results
        if results is None or state.items is None or not len(results) or "lab_correct" not in results:
            out.append(state)
            continue
        null = results["lab_correct"].isna().to_numpy()
        if not null.any():
            out.append(state)
            continue
        left = null & ~regraded_rows(state.config.scoring, state.items, results)
        counts = results.loc[left, "submission"].astype(str).value_counts()
        for submission, n in sorted(counts.items()):
            rejections.append(left_out(
                state, submission, reason="ungraded-not-regraded",
                what=f"{n} sample(s) have correct: null (ungraded) on items whose answer type Sealboard does not regrade "
                f"(regraded types: {', '.join(state.config.scoring.regrade_types) or 'none'}); the boards would have no verdict to count",
                hint="give the lab's verdict (true or false) on those samples; only answers of the regraded types may be left to the build",
            ))  # fmt: skip
        out.append(restrict(state, {b.manifest.key for b in state.bundles} - set(counts.index)) if len(counts) else state)
    return out, rejections
