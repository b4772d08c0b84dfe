"""Unseal: decrypt verified bytes in memory and parse them into frames.

Only bytes that :mod:`builder.bundles.verify` already matched against a signed manifest reach
this module. Plaintext never touches disk (security invariant 1).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from builder import errors
from builder.bundles.dataset import ITEMS, VerifiedDataset, parse_items
from builder.bundles.manifest import RESULTS
from builder.bundles.results import ExtraType, line_of_row, parse_results
from builder.bundles.verify import VerifiedBundle
from builder.errors import ResultsError
from builder.trust.seal import Identity, unseal


@dataclass(frozen=True)
class UnsealedBundle:
    bundle: VerifiedBundle
    results: pd.DataFrame  # one row per sample, with a `submission` column


def unseal_items(dataset: VerifiedDataset, identities: Sequence[Identity]) -> list[dict[str, Any]]:
    where = f"{dataset.where}/{ITEMS}"
    plaintext = unseal(dataset.sealed_items, list(identities), where)
    return parse_items(plaintext, dataset.manifest, where)


def unseal_results(
    bundle: VerifiedBundle,
    identities: Sequence[Identity],
    extras: dict[str, ExtraType],
    item_ids: set[str],
) -> UnsealedBundle:
    where = f"{bundle.where}/{RESULTS}"
    plaintext = unseal(bundle.files[RESULTS], list(identities), where)
    frame = parse_results(plaintext, where, extras)
    unknown = ~frame["item"].isin(item_ids)
    if unknown.any():
        first = int(unknown.to_numpy().argmax())
        raise ResultsError(
            f"item {frame['item'].iat[first]!r} is not in the dataset ({int(unknown.sum())} unknown row(s))",
            where=where,
            line=line_of_row(plaintext, first),
            reason="unknown-item",
            hint="results must use the dataset's item ids",
        )
    # The lab's verdict stays beside the regraded one scoring computes (builder.scoring).
    frame = frame.rename(columns={"correct": "lab_correct"})
    frame.insert(0, "submission", bundle.manifest.key)
    return UnsealedBundle(bundle=bundle, results=frame)


# Parsing millions of result rows is Python-bound (one dict per row), so bundles are
# unsealed in worker processes, one bundle per task. Workers are forked after verification:
# they inherit the verified bytes and the identity from the parent's memory, so no secret
# is ever pickled or sent through a pipe. Only frames (or error fields) come back.
_JOB: tuple[Sequence[VerifiedBundle], Sequence[Identity], dict[str, ExtraType], set[str]] | None = None
MIN_PARALLEL_BUNDLES = 8


def _work(index: int) -> tuple[str, Any]:
    assert _JOB is not None  # set by unseal_many before the fork
    bundles, identities, extras, item_ids = _JOB
    try:
        return "ok", unseal_results(bundles[index], identities, extras, item_ids).results
    except errors.BuilderError as exc:
        return "error", (type(exc).__name__, exc.message, exc.where, exc.line, exc.hint, exc.reason)


def _rebuild(fields: tuple[str, str, str | None, int | None, str | None, str]) -> errors.BuilderError:
    name, message, where, line, hint, reason = fields
    cls = getattr(errors, name, errors.BuilderError)
    return cls(message, where=where, line=line, hint=hint, reason=reason)


def workers_available() -> int:
    configured = os.environ.get("SEALBOARD_WORKERS")
    if configured and configured.isdigit():
        return max(1, int(configured))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def unseal_many(
    bundles: Sequence[VerifiedBundle],
    identities: Sequence[Identity],
    extras: dict[str, ExtraType],
    item_ids: set[str],
) -> Iterator[tuple[VerifiedBundle, pd.DataFrame | errors.BuilderError]]:
    """Unseal and parse every bundle, in order; a failure is yielded, not raised."""
    global _JOB
    workers = min(workers_available(), len(bundles))
    if workers < 2 or len(bundles) < MIN_PARALLEL_BUNDLES or "fork" not in multiprocessing.get_all_start_methods():
        for bundle in bundles:
            try:
                yield bundle, unseal_results(bundle, identities, extras, item_ids).results
            except errors.BuilderError as exc:
                yield bundle, exc
        return
    _JOB = (bundles, identities, extras, item_ids)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for index, (status, value) in enumerate(pool.imap(_work, range(len(bundles)), chunksize=2)):
                yield bundles[index], value if status == "ok" else _rebuild(value)
    finally:
        _JOB = None
