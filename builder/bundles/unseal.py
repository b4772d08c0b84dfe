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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from builder import errors
from builder.bundles.coverage import check_unsealed
from builder.bundles.dataset import DatasetManifest
from builder.bundles.manifest import RESULTS
from builder.bundles.results import ExtraType, ResultsLimits, frame_columns, line_of_row, parse_table, refuse_duplicates
from builder.bundles.sealing import BenchmarkKeys
from builder.bundles.verify import VerifiedBundle
from builder.errors import ResultsError

Columns = dict[str, Any]  # a frame's columns as arrays, the form unsealed rows travel in


@dataclass(frozen=True)
class UnsealedBundle:
    bundle: VerifiedBundle
    results: pd.DataFrame  # one row per sample; item and lang categorical (Expected's categories)
    # The same columns as arrays, item and lang as codes into Expected's categories: they
    # travel back from a worker once (the parent has them), not with every frame, and
    # arrays pickle and join without pandas' per-frame work (concat_results).
    columns: Columns


@dataclass(frozen=True)
class Expected:
    """What every results file of one benchmark must hold, fixed before any is opened.

    The dataset's item ids and the declared languages are the categories of every bundle's
    ``item`` and ``lang`` columns: each row is looked up once, in Arrow, and the frames of
    all bundles share their categories, so joining them is a concatenation of small codes.
    Everything is computed here, in the parent, so forked workers inherit it.
    """

    dataset: DatasetManifest
    spec: Any  # builder.scoring.spec.ScoringSpec
    item_ids: tuple[str, ...]
    limits: ResultsLimits | None = None
    extras: dict[str, ExtraType] = field(init=False)
    items: pd.CategoricalDtype = field(init=False)  # one dtype object: categories checked once
    languages: pd.CategoricalDtype = field(init=False)
    lookup: tuple[pa.Array, pa.Array] = field(init=False)  # the two, for pyarrow.compute.index_in

    def __post_init__(self) -> None:
        items, languages = sorted(self.item_ids), sorted(self.spec.languages)
        object.__setattr__(self, "extras", self.spec.results_extras())
        object.__setattr__(self, "items", pd.CategoricalDtype(pd.Index(items, dtype=object)))
        object.__setattr__(self, "languages", pd.CategoricalDtype(pd.Index(languages, dtype=object)))
        object.__setattr__(self, "lookup", (pa.array(items, pa.string()), pa.array(languages, pa.string())))


RENAMED = {"correct": "lab_correct"}


def unseal_results(bundle: VerifiedBundle, keys: BenchmarkKeys, expected: Expected) -> UnsealedBundle:
    """Decrypt, parse and check one bundle's results: well-formed, every id known, complete
    and as the lab's signed coverage summary says (builder.bundles.coverage)."""
    where = f"{bundle.where}/{RESULTS}"
    sealed = bundle.files[RESULTS]
    if expected.limits is not None:
        # Verification matched this length to the signed manifest's `bytes`: the declared
        # size bounds the plaintext before a byte of it is decrypted.
        expected.limits.check_sealed_size(len(sealed), where)
    # The embargo key if the lab opted in, else the private results key (builder.bundles.sealing).
    plaintext = keys.open(sealed, bundle.manifest.publish_results, where)
    table = parse_table(plaintext, where, expected.extras, expected.limits, duplicates=False)  # below, with the ids' codes
    known_items, known_langs = expected.lookup
    item = pc.index_in(table.column("item"), value_set=known_items)
    if item.null_count:
        unknown = item.is_null().to_numpy(zero_copy_only=False)
        first = int(unknown.argmax())
        raise ResultsError(
            f"item {table.column('item')[first].as_py()!r} is not in the dataset ({int(unknown.sum())} unknown row(s))",
            where=where,
            line=line_of_row(plaintext, first),
            reason="unknown-item",
            hint="results must use the dataset's item ids",
        )
    lang = pc.index_in(table.column("lang"), value_set=known_langs)
    item_codes, lang_codes = item.to_numpy(zero_copy_only=False), lang.to_numpy(zero_copy_only=False)
    # An undeclared language has no code (null): then the languages are encoded afresh, so
    # two different undeclared ones stay apart; coverage refuses them just below.
    refuse_duplicates(table, where, expected.extras, plaintext, {"item": item_codes, **({} if lang.null_count else {"lang": lang_codes})})
    # Ids repeat on every row: as categories (one small integer a row) they cost a fraction
    # of the memory and of the pickling back from the worker, and scoring reads their codes.
    # An undeclared language has no code; kept as written, coverage refuses it just below.
    codes = {
        "item": pd.Categorical.from_codes(item_codes, dtype=expected.items),
        "lang": pd.Categorical.from_codes(lang_codes, dtype=expected.languages)
        if not lang.null_count
        else pd.Categorical(table.column("lang").to_numpy(zero_copy_only=False)),
    }
    columns = frame_columns(table.drop_columns(["item", "lang"]))
    # The lab's verdict stays beside the regraded one scoring computes (builder.scoring).
    values = {RENAMED.get(n, n): codes[n] if n in codes else columns[n] for n in table.column_names}
    frame = pd.DataFrame(values, copy=False)
    # Complete, and what the lab signed: a partial bundle never reaches a board.
    check_unsealed(bundle.manifest, frame, expected.dataset, expected.spec, where, plaintext)
    return UnsealedBundle(bundle=bundle, results=frame, columns={name: _array(value) for name, value in values.items()})


def _array(value: Any) -> Any:
    """A frame column's values as they travel: a categorical's codes, Arrow-backed strings
    as they are, anything else as numpy (what the frame holds)."""
    if isinstance(value, pd.Categorical):
        return value.codes
    if isinstance(value, pd.Series):  # ints and bools with nulls (results.frame_columns)
        return value.array if isinstance(value.dtype, pd.api.extensions.ExtensionDtype) else value.to_numpy()
    return value


def concat_results(bundles: Sequence[VerifiedBundle], parts: Sequence[Columns], expected: Expected) -> pd.DataFrame:
    """The rows of every bundle (as :func:`unseal_many` yields them) in one frame, with
    ``submission``, ``item`` and ``lang`` categorical.

    Categories are sorted, so sorting by them sorts by the strings.
    """
    keys = [b.manifest.key for b in bundles]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    rank = np.empty(len(keys), dtype=np.int32)
    rank[order] = np.arange(len(keys), dtype=np.int32)
    sizes = [len(part["item"]) for part in parts]
    submissions = pd.CategoricalDtype(pd.Index([keys[i] for i in order], dtype=object))
    columns: dict[str, Any] = {"submission": pd.Categorical.from_codes(np.repeat(rank, sizes), dtype=submissions)}
    for name in parts[0]:
        pieces = [part[name] for part in parts]
        if name in ("item", "lang"):
            columns[name] = pd.Categorical.from_codes(
                np.concatenate(pieces), dtype=expected.items if name == "item" else expected.languages
            )
        elif isinstance(pieces[0], np.ndarray):
            columns[name] = np.concatenate(pieces)
        else:
            columns[name] = type(pieces[0])._concat_same_type(pieces)  # extension arrays (Arrow strings): the ExtensionArray interface
    return pd.DataFrame(columns, copy=False)


# Decryption holds the GIL (pyrage), so bundles are unsealed in worker processes, one
# bundle per task. Workers are forked after verification: they inherit the verified bytes
# and the identity from the parent's memory, so no secret is ever pickled or sent through
# a pipe. Only a bundle's rows as arrays (or error fields) come back.
_JOB: tuple[Sequence[VerifiedBundle], BenchmarkKeys, Expected] | None = None
MIN_PARALLEL_BUNDLES = 8
Outcome = tuple[str, Any]  # ("ok", Columns) or ("error", error fields)


def _work(index: int) -> Outcome:
    if _JOB is None:  # set by unseal_many before the fork
        raise AssertionError()
    bundles, keys, expected = _JOB
    try:
        return "ok", unseal_results(bundles[index], keys, expected).columns
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
    bundles: Sequence[VerifiedBundle], keys: BenchmarkKeys, expected: Expected
) -> Iterator[tuple[VerifiedBundle, Columns | errors.BuilderError]]:
    """Unseal and parse every bundle, in order; a failure is yielded, not raised.

    Rows come as arrays (:attr:`UnsealedBundle.columns`); :func:`concat_results` joins them into a frame.
    """
    global _JOB
    workers = min(workers_available(), len(bundles))
    if workers < 2 or len(bundles) < MIN_PARALLEL_BUNDLES or "fork" not in multiprocessing.get_all_start_methods():
        for bundle in bundles:
            try:
                yield bundle, unseal_results(bundle, keys, expected).columns
            except errors.BuilderError as exc:
                yield bundle, exc
        return
    _JOB = (bundles, keys, expected)
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
