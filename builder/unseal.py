"""Unseal: decrypt verified bytes in memory and parse them into frames.

Only bytes that :mod:`builder.verify` already matched against a signed manifest reach
this module. Plaintext never touches disk (security invariant 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from builder.dataset import ITEMS, VerifiedDataset, parse_items
from builder.errors import ResultsError
from builder.manifest import RESULTS
from builder.results import ExtraType, line_of_row, parse_results
from builder.seal import Identity, unseal
from builder.verify import VerifiedBundle


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
