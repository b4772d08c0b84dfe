"""What a board-kind module declares (builder.scoring.kinds): its :class:`Kind`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from builder.scoring.boards import Context, RawBoard
from builder.scoring.config_base import ParserBase
from builder.scoring.measures import Scores
from builder.scoring.spec import BoardSpec, KindParams, Pairing


@dataclass(frozen=True)
class Kind:
    """A board kind: what its YAML may say and what it computes."""

    name: str  # as written in YAML: kind: <name>
    keys: frozenset[str]  # its own YAML keys, beside the keys every board has
    # (parser, board mapping, key path, pairing, earlier table boards' metric → measure kind)
    # -> (typed parameters, the board's column names in order)
    parse: Callable[[ParserBase, Mapping[str, Any], str, Pairing | None, dict[str, dict[str, str]]], tuple[KindParams, list[str]]]
    build: Callable[[Context, BoardSpec, str, bool, str], RawBoard]  # (ctx, board, board id, contaminated, twin suffix)
    ranked_by_default: bool = True  # ranked by its first column unless rank_by says otherwise
    summaries: frozenset[str] = frozenset()  # summary facts a board of this kind may add
    # the measure kind of each metric a composite board may average (table boards)
    metric_kinds: Callable[[KindParams], dict[str, str]] = field(default=lambda params: {})
    # (ctx, board, column, contaminated) -> the per-item scores the column is the plain mean
    # of, and the column's item mask; None where it is no such mean (a difference, a
    # composite, a slope): builder.scoring.paired pairs only such columns.
    item_scores: Callable[[Context, BoardSpec, str, bool], tuple[Scores, np.ndarray] | None] = field(
        default=lambda ctx, board, column, contaminated: None
    )
