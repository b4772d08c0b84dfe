"""Compare a board file shown during the embargo with its rebuild, cell by cell.

A shown cell is one with a value (a withheld cell showed no number). Per shown cell:

- **agree**: the rebuild has the same ``value``, ``ci_low``, ``ci_high`` and ``n``;
- **differ**: it has other numbers, or the row is gone though its submission was reopened;
- **unverified**: the rebuild withholds it (with private submissions off the board, the
  disclosure audit can decide otherwise), or its submission is one a lab kept private:
  sealed to the never-published private results key, no rebuild without the authorised
  build's key can reopen it (counted as ``private_rows``, never as agreeing).

Ranks are compared only on a board with no private row (leaving rows off moves others' ranks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from builder.strict import loads_json

FIELDS = ("value", "ci_low", "ci_high", "n")


@dataclass
class BoardComparison:
    board: str  # data/<bench>/<board>.json
    identical: bool
    agree: int = 0
    unverified: int = 0
    private_rows: int = 0
    differ: list[dict[str, Any]] = field(default_factory=list)  # one entry per differing cell

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "identical": self.identical,
            "cells_agree": self.agree,
            "cells_unverified": self.unverified,
            "private_rows": self.private_rows,
            "cells_differ": self.differ,
        }


def _rows(data: bytes, where: str) -> dict[str, dict[str, Any]]:
    obj = loads_json(data, where)
    return {str(r.get("submission")): r for r in obj.get("rows", []) if isinstance(r, dict)}


def compare_board(board: str, shown: bytes, rebuilt: bytes | None, private: frozenset[str]) -> BoardComparison:
    if rebuilt is not None and rebuilt == shown:
        same = sum(1 for r in _rows(shown, board).values() for c in (r.get("metrics") or {}).values() if c.get("value") is not None)
        return BoardComparison(board, True, agree=same)
    out = BoardComparison(board, False)
    before = _rows(shown, board)
    after = _rows(rebuilt, board) if rebuilt is not None else {}
    has_private = any(sub in private for sub in before)
    for sub, row in before.items():
        cells = {m: c for m, c in (row.get("metrics") or {}).items() if isinstance(c, dict) and c.get("value") is not None}
        if sub in private:
            out.private_rows += 1
            out.unverified += len(cells)
            continue
        again = after.get(sub)
        if again is None:
            out.differ += [
                {"submission": sub, "metric": m, "field": "row", "shown": c.get("value"), "rebuilt": None} for m, c in cells.items()
            ]
            continue
        if not has_private and row.get("rank") != again.get("rank"):
            out.differ.append({"submission": sub, "metric": None, "field": "rank", "shown": row.get("rank"), "rebuilt": again.get("rank")})
        _compare_cells(out, sub, cells, again)
    return out


def _compare_cells(out: BoardComparison, sub: str, cells: dict[str, Any], again: dict[str, Any]) -> None:
    """One row's published cells against the rebuilt row's, tallied into `out`."""
    for metric, cell in cells.items():
        new = (again.get("metrics") or {}).get(metric) or {}
        if new.get("value") is None:
            out.unverified += 1
            continue
        wrong = [f for f in FIELDS if cell.get(f) != new.get(f)]
        out.differ += [{"submission": sub, "metric": metric, "field": f, "shown": cell.get(f), "rebuilt": new.get(f)} for f in wrong]
        out.agree += not wrong
