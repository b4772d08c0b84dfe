"""Plain reference implementations of builder.scoring.frames' fast paths.

Each fast path in frames (one packed bincount for every flag, a table-or-sort reduction of
the rows to cells, block-wise dense sums) computes what a few lines of plain numpy or a
pandas groupby compute. These are those few lines, kept beside the fast code so that a
reader can see what it means; property tests (tests/scoring/test_frames_reference.py) pin
each fast path to its reference on random inputs. Nothing in the build calls them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from builder.scoring.frames import FLAG_TABLES, Prepared


def count_plain(cell: np.ndarray, n_cells: int, code: np.ndarray, flags: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What frames.count_coded returns: for each flag, each cell's count of the rows whose
    byte the flag's table holds, one bincount per flag."""
    return {name: np.bincount(cell[table[code]], minlength=n_cells).astype(np.float64) for name, table in flags.items()}


def reduce_plain(
    row_cond: np.ndarray, row_sub: np.ndarray, row_item: np.ndarray, row_byte: np.ndarray, tok: np.ndarray, cost: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """What frames._reduce returns, as a pandas groupby of the rows by (condition,
    submission, item): each occupied cell's indices and its sums, sorted by cell."""
    rows = pd.DataFrame({"cond": row_cond, "sub": row_sub, "item": row_item, "n": 1.0, "tok": tok, "cost": cost})
    for name, table in FLAG_TABLES.items():
        rows[name] = table[row_byte].astype(np.float64)
    summed = rows.groupby(["cond", "sub", "item"], sort=True).sum()
    cond, sub, item = (summed.index.get_level_values(level).to_numpy(dtype=np.int64) for level in range(3))
    return cond, sub, item, {name: summed[name].to_numpy(dtype=np.float64) for name in ("n", *FLAG_TABLES, "tok", "cost")}


def dense_plain(prep: Prepared, conds: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
    """What Prepared.dense returns: (S, I) sums over the selected conditions, as a groupby
    of the selected cells by (submission, item), zero where there is no cell."""
    keep = conds[prep.cond]
    cells = pd.DataFrame({"sub": prep.sub[keep], "item": prep.item[keep], **{name: prep.sums[name][keep] for name in names}})
    summed = cells.groupby(["sub", "item"], sort=True).sum()
    out = {}
    for name in names:
        grid = np.zeros((prep.n_subs, prep.n_items))
        grid[summed.index.get_level_values(0), summed.index.get_level_values(1)] = summed[name].to_numpy(dtype=np.float64)
        out[name] = grid
    return out
