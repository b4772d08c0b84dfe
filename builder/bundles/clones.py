"""Re-sealed clones, found by the build alone (it holds the plaintext), after unsealing.

``duplicate-submission`` for a **re-sealed clone**: a bundle whose results are, row for
row, those of an earlier bundle of the same benchmark — the same multiset of (item,
language, variant and other declared fields, answer, verdict, refusal), whatever the
row order, sample numbering, lab-reported token/latency/cost figures, sealing or
configuration. Re-sealing a copy changes every ciphertext byte and a tweaked
``temperature`` changes the run key, so neither rule of builder.bundles.duplicates (the
manifest facts that ``sealboard validate`` also checks) would see it; the content
fingerprint does. An answer re-spelled on purpose makes a different run for this rule;
under embargo the Ladder (builder.scoring.ladder) then shows it only if it beats the
lab's best by the grid. Apart from the duplicate rule because it needs pandas, which the
pull-request check does not otherwise load.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

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
