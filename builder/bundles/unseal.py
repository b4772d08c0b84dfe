"""Unseal: decrypt verified bytes in memory and parse them into frames.

Only bytes that :mod:`builder.bundles.verify` already matched against a signed manifest reach
this module. Plaintext never touches disk (security invariant 1).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from builder import errors
from builder.bundles.dataset import ITEMS, VerifiedDataset, parse_items
from builder.bundles.manifest import RESULTS
from builder.bundles.results import ExtraType, ResultsLimits, line_of_row, parse_results
from builder.bundles.sealing import BenchmarkKeys
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
    keys: BenchmarkKeys,
    extras: dict[str, ExtraType],
    item_ids: set[str],
    limits: ResultsLimits | None = None,
) -> UnsealedBundle:
    where = f"{bundle.where}/{RESULTS}"
    sealed = bundle.files[RESULTS]
    if limits is not None:
        # Verification matched this length to the signed manifest's `bytes`: the declared
        # size bounds the plaintext before a byte of it is decrypted.
        limits.check_sealed_size(len(sealed), where)
    # The embargo key if the lab opted in, else the private results key (builder.bundles.sealing).
    plaintext = keys.open(sealed, bundle.manifest.publish_results, where)
    frame = parse_results(plaintext, where, extras, limits)
    # Distinct ids are few: compare those, and look for rows only when one is unknown.
    strangers = set(frame["item"].unique().tolist()) - item_ids  # tolist: one conversion, not a step per Arrow element
    if strangers:
        unknown = frame["item"].isin(strangers).to_numpy()
        first = int(unknown.argmax())
        raise ResultsError(
            f"item {frame['item'].iat[first]!r} is not in the dataset ({int(unknown.sum())} unknown row(s))",
            where=where,
            line=line_of_row(plaintext, first),
            reason="unknown-item",
            hint="results must use the dataset's item ids",
        )
    # The lab's verdict stays beside the regraded one scoring computes (builder.scoring).
    frame = frame.rename(columns={"correct": "lab_correct"})
    # Ids repeat on every row: held as categories (one small integer a row), they cost a
    # fraction of the memory and of the pickling back from the worker, and scoring reads
    # their codes instead of hashing millions of strings. concat_results unifies them.
    for name in CATEGORICAL:
        if name in frame:
            frame[name] = frame[name].astype("category")
    frame.insert(0, "submission", pd.Categorical.from_codes(np.zeros(len(frame), dtype=np.int8), categories=[bundle.manifest.key]))
    return UnsealedBundle(bundle=bundle, results=frame)


CATEGORICAL = ("item", "lang")


def concat_results(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The rows of every bundle in one frame; submission, item and lang stay categorical.

    pandas.concat turns categoricals whose categories differ into Python objects, so those
    columns are unified with union_categoricals (sorted categories: sorting by them sorts
    by the strings) and the rest concatenated as usual.
    """
    keys = ["submission", *CATEGORICAL]
    joined = pd.concat([f.drop(columns=[k for k in keys if k in f]) for f in frames], ignore_index=True)
    for name in reversed(keys):
        if name in frames[0]:
            joined.insert(0, name, union_categoricals([f[name] for f in frames], sort_categories=True))
    return joined[list(frames[0].columns)]


# Decryption holds the GIL (pyrage), so bundles are unsealed in worker processes, one
# bundle per task. Workers are forked after verification: they inherit the verified bytes
# and the identity from the parent's memory, so no secret is ever pickled or sent through
# a pipe. Only frames (or error fields) come back.
_JOB: tuple[Sequence[VerifiedBundle], BenchmarkKeys, dict[str, ExtraType], set[str], ResultsLimits | None] | None = None
MIN_PARALLEL_BUNDLES = 8
Outcome = tuple[str, Any]  # ("ok", frame) or ("error", error fields)


def _work(index: int) -> Outcome:
    assert _JOB is not None  # set by unseal_many before the fork
    bundles, keys, extras, item_ids, limits = _JOB
    try:
        return "ok", unseal_results(bundles[index], keys, extras, item_ids, limits).results
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
    keys: BenchmarkKeys,
    extras: dict[str, ExtraType],
    item_ids: set[str],
    limits: ResultsLimits | None = None,
) -> Iterator[tuple[VerifiedBundle, pd.DataFrame | errors.BuilderError]]:
    """Unseal and parse every bundle, in order; a failure is yielded, not raised."""
    global _JOB
    workers = min(workers_available(), len(bundles))
    if workers < 2 or len(bundles) < MIN_PARALLEL_BUNDLES or "fork" not in multiprocessing.get_all_start_methods():
        for bundle in bundles:
            try:
                yield bundle, unseal_results(bundle, keys, extras, item_ids, limits).results
            except errors.BuilderError as exc:
                yield bundle, exc
        return
    _JOB = (bundles, keys, extras, item_ids, limits)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = [pool.submit(_work, index) for index in range(len(bundles))]
            for index, future in enumerate(futures):
                try:
                    status, value = future.result()
                except BrokenProcessPool:
                    # A worker died (the OOM killer's SIGKILL, a crash in native code). The
                    # pool cannot say whose bundle it held, and every unfinished task fails
                    # with it: each is retried alone, so only the bundle that kills its
                    # worker again is rejected. (multiprocessing.Pool would wait forever.)
                    status, value = _alone(context, index, bundles[index])
                yield bundles[index], value if status == "ok" else _rebuild(value)
    finally:
        _JOB = None


def _alone(context: Any, index: int, bundle: VerifiedBundle) -> Outcome:
    """Run one task in a fresh forked process; its death becomes the bundle's rejection."""
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_send_work, args=(index, send), daemon=True)
    process.start()
    send.close()  # the child holds the only writer: its death ends recv() with EOFError
    try:
        outcome = receive.recv()
    except (EOFError, OSError):
        outcome = None
    finally:
        receive.close()
        process.join()
    if outcome is not None:
        return outcome
    code = process.exitcode or 0
    how = f"signal {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else f"exit status {code}"
    message = (
        f"the worker process unsealing this bundle died ({how}; the out-of-memory killer sends SIGKILL),"
        " also when retried alone; the bundle is left out and the rest build"
    )
    return "error", ("ResultsError", message, f"{bundle.where}/{RESULTS}", None, "check the file's size and row count", "worker-died")


def _send_work(index: int, send: Any) -> None:
    send.send(_work(index))
    send.close()
