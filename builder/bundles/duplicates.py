"""The duplicate rule: one ranked row per run, one lab per model name.

Applied identically by the build (over every verified bundle) and by ``sealboard validate``
(over every bundle in the pull request's head tree), to signed manifest facts only, so no
identity is needed. Bundles are taken in order of admission: bundles already in the
repository first (in the build, by the commit that admitted them; in ``validate``, every
base-revision bundle precedes the pull request's), then by ``created``, then by path. A
lab-written ``created`` therefore cannot jump ahead of a bundle already admitted.

- ``duplicate-submission``: a bundle whose sealed results file has the same SHA-256 as an
  earlier bundle's of the same benchmark (a byte-for-byte clone, whoever signs it: another
  lab cannot re-seal a copy, as it cannot decrypt), or a lab's second bundle of the same
  run, i.e. the same ``model.id``, configuration (reasoning effort, thinking, temperature,
  max output tokens, TTS), harness and judge on the same benchmark. Only the earlier one
  is ranked.
- ``model-name-taken``: a bundle whose model display name (compared case-folded, NFKC) is
  already used by another lab's earlier bundle, on any benchmark. A lab may reuse its own.

The build alone (it holds the plaintext) adds one more, after unsealing:

- ``duplicate-submission`` for a **re-sealed clone**: a bundle whose results are, row for
  row, those of an earlier bundle of the same benchmark — the same multiset of (item,
  language, variant and other declared fields, answer, verdict, refusal), whatever the
  row order, sample numbering, lab-reported token/latency/cost figures, sealing or
  configuration. Re-sealing a copy changes every ciphertext byte and a tweaked
  ``temperature`` changes the run key above, so neither rule would see it; the content
  fingerprint does. An answer re-spelled on purpose makes a different run for this rule;
  under embargo the Ladder (builder.scoring.ladder) then shows it only if it beats the
  lab's best by the grid.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from builder.bundles.manifest import MANIFEST, RESULTS, Manifest
from builder.errors import BundleError


@dataclass(frozen=True)
class Candidate:
    """One bundle as the rule sees it. ``admitted``: when it entered the repository, if known."""

    where: str
    manifest: Manifest
    admitted: datetime | None = None


def _order(c: Candidate) -> tuple:
    m = c.manifest
    return (c.admitted is None, c.admitted or m.created, m.created, c.where)


def admission_order(candidates: Iterable[Candidate]) -> list[str]:
    """Bundle paths, earliest admitted first: the order every duplicate rule keeps the first of."""
    return [c.where for c in sorted(candidates, key=_order)]


def _run(m: Manifest) -> tuple:
    cfg = m.config
    return (m.benchmark, m.lab, m.model.id, cfg.reasoning_effort, cfg.thinking, cfg.temperature, cfg.max_output_tokens, cfg.tts,
            m.harness_name, m.harness_version, m.judge)  # fmt: skip


def name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def find_duplicates(candidates: Iterable[Candidate]) -> dict[str, BundleError]:
    """``where`` -> the error for every bundle the rule refuses (the earlier ones pass)."""
    results: dict[tuple[str, str], str] = {}
    runs: dict[tuple, str] = {}
    names: dict[str, tuple[str, str]] = {}
    refused: dict[str, BundleError] = {}
    for c in sorted(candidates, key=_order):
        m = c.manifest
        entry = m.file(RESULTS)
        digest = (m.benchmark, entry.sha256 if entry else "")
        where = f"{c.where}/{MANIFEST}"
        hint = "withdraw the copy; a different run needs its own model id or configuration"
        if entry is not None and digest in results:
            refused[c.where] = BundleError(f"its results file is byte-for-byte that of {results[digest]}; only the earlier is ranked",
                                           where=where, reason="duplicate-submission", hint=hint)  # fmt: skip
            continue
        if _run(m) in runs:
            refused[c.where] = BundleError(
                f"it is the same run (model.id, configuration, harness and judge) as {runs[_run(m)]}; only the earlier is ranked",
                where=where, reason="duplicate-submission", hint=hint)  # fmt: skip
            continue
        owner = names.get(name_key(m.model.name))
        if owner is not None and owner[0] != m.lab:
            refused[c.where] = BundleError(
                f"model.name {m.model.name!r} is already used by lab {owner[0]!r} ({owner[1]})",
                where=where, reason="model-name-taken", hint="name the model so that visitors can tell whose run it is")  # fmt: skip
            continue
        if entry is not None:
            results[digest] = c.where
        runs[_run(m)] = c.where
        names.setdefault(name_key(m.model.name), (m.lab, c.where))
    return refused


# Columns that say nothing about what a run answered: its identity, the sample numbering
# (a clone may permute it) and lab-reported figures (a clone may retouch them).
_NOT_CONTENT = ("submission", "sample", "output_tokens", "latency_s", "cost_usd")


def content_fingerprints(results: pd.DataFrame) -> dict[str, tuple]:
    """Submission -> a fingerprint of its results that ignores row order and renumbering.

    First a cheap one (rows, correct verdicts, refusals, total answer length); only
    submissions sharing it with another get the full one: two order-free 64-bit sums of
    their rows' hashes (a multiset hash). Collisions between different result
    sets are not a concern: a false match would only refuse the later bundle of a set
    someone crafted to collide.
    """
    if results is None or not len(results):
        return {}
    codes, subs = pd.factorize(results["submission"], sort=False)
    k = len(subs)
    # Flags are counted through the codes they select (no float copy of each flag), and
    # answer lengths are Arrow's (a null answer counts -1).
    answer = pd.array(results["answer"], dtype=pd.StringDtype("pyarrow"))
    lengths = pc.fill_null(pc.utf8_length(pa.chunked_array(answer._pa_array)), -1).to_numpy()
    cheap = np.stack(
        [
            np.bincount(codes, minlength=k),
            np.bincount(codes[results["lab_correct"].to_numpy(dtype=bool)], minlength=k),
            np.bincount(codes[results["refused"].to_numpy(dtype=bool)], minlength=k),
            np.bincount(codes, weights=lengths, minlength=k).astype(np.int64),  # exact: a sum of integers under 2^53
        ],
        axis=1,
    )
    out: dict[str, tuple] = {str(s): tuple(int(x) for x in cheap[i]) for i, s in enumerate(subs)}
    _, group, size = np.unique(cheap, axis=0, return_inverse=True, return_counts=True)
    shared = np.flatnonzero(size[group.ravel()] > 1)
    if not len(shared):
        return out
    rows = np.isin(codes, shared)
    sub_codes = codes[rows]
    # The row hash, and the same hash of the rows with their cells in reverse column order:
    # a second 64-bit sum (hash_pandas_object ignores its hash_key for Arrow strings).
    columns = [c for c in results.columns if c not in _NOT_CONTENT]
    frame = results.loc[rows, columns]
    sums = []
    for cols in (columns, columns[::-1]):
        h = pd.util.hash_pandas_object(frame[cols], index=False).to_numpy(np.uint64)
        total = np.zeros(k, dtype=np.uint64)
        np.add.at(total, sub_codes, h)  # wraps modulo 2**64
        sums.append(total)
    for i in shared:
        out[str(subs[i])] += (int(sums[0][i]), int(sums[1][i]))
    return out


def find_clones(fingerprints: dict[str, tuple], order: Sequence[str]) -> dict[str, str]:
    """Later submission -> the earlier one whose results it repeats (``order``: earliest first)."""
    first: dict[tuple, str] = {}
    clones: dict[str, str] = {}
    for sub in order:
        fp = fingerprints.get(sub)
        if fp is None:
            continue
        if fp in first:
            clones[sub] = first[fp]
        else:
            first[fp] = sub
    return clones
