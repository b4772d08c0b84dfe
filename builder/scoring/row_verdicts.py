"""Each result row's verdicts as the boards count them: the lab's, the regrade's, and which counted.

The boards count Sealboard's regrade verdict on the rows it regrades (the benchmark's
``regrade.types``, under ``regrade.when``, with a gold the regrade reads) and the lab's
verdict on every other row (``builder.scoring.frames.prepare``: ``correct`` is
``regraded ? regrade : lab``). The released ``matrix.csv`` publishes all three, computed
here by the same functions on the same rule, so a released board can be recomputed from
the released data alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from builder.scoring.config_base import token
from builder.scoring.regrade import NO_VERDICTS, Verdicts, gold_key, regrade
from builder.scoring.spec import ScoringSpec


def _regrade_plan(
    spec: ScoringSpec, items: pd.DataFrame, results: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, list[str | None], np.ndarray]:
    """(each row's item position, each item's regrade type index or -1, its gold key, the rows regraded)."""
    types = tuple(spec.regrade_types)
    item_ids = items["item"].astype(str).tolist()
    item_type = np.full(len(item_ids), -1, dtype=np.int64)
    item_gold: list[str | None] = [None] * len(item_ids)
    for i, (name, gold) in enumerate(zip(items["answer_type"].tolist(), items["gold"].tolist())):
        if name in types:
            key = gold_key(name, gold)
            if key is not None:
                item_type[i], item_gold[i] = types.index(name), key
    position = {item: i for i, item in enumerate(item_ids)}
    row_item = results["item"].astype(str).map(position).to_numpy(dtype=np.int64)
    mask = item_type[row_item] >= 0
    for name, values in spec.regrade_when.equals:
        if name in results.columns:
            mask &= results[name].map(token).isin(values).to_numpy()
        else:
            mask &= False
    return row_item, item_type, item_gold, mask


def regraded_rows(spec: ScoringSpec, items: pd.DataFrame, results: pd.DataFrame) -> np.ndarray:
    """Whether Sealboard regrades each row of `results`: the rule the boards count by."""
    return _regrade_plan(spec, items, results)[3]


def row_verdicts(spec: ScoringSpec, items: pd.DataFrame, results: pd.DataFrame, verdicts: Verdicts = NO_VERDICTS) -> pd.DataFrame:
    """Per row of `results` (index kept): ``lab_correct`` (the lab's verdict, as given),
    ``regrade_correct`` (Sealboard's, None where the row is not regraded), ``graded_by``
    (``regrade`` or ``lab``) and ``correct`` (the verdict the boards count). `verdicts`: the
    equivalence path's verdicts graded beforehand (builder.scoring.regrade)."""
    types = tuple(spec.regrade_types)
    golds = items["gold"].tolist()
    row_item, item_type, item_gold, mask = _regrade_plan(spec, items, results)
    tolerance = items["tolerance"].tolist() if "tolerance" in items.columns else None
    gold_text = [g if isinstance(g, str) else None for g in golds]
    r_correct, _, _ = regrade(
        results["answer"].reset_index(drop=True),
        row_item,
        mask,
        item_type,
        item_gold,
        types,
        gold_text,
        item_tolerance=tolerance,
        verdicts=verdicts,
    )
    lab_col = "lab_correct" if "lab_correct" in results.columns else "correct"
    lab = results[lab_col]
    regraded = pd.Series(r_correct, index=results.index, dtype=object).where(pd.Series(mask, index=results.index), None)
    counted = np.where(mask, r_correct, lab.fillna(False).to_numpy(dtype=bool))
    return pd.DataFrame(
        {
            "correct": counted.astype(bool),
            "graded_by": np.where(mask, "regrade", "lab"),
            "lab_correct": lab.astype(object).where(lab.notna(), None),
            "regrade_correct": regraded,
        },
        index=results.index,
    )
