"""Board kinds: one module per kind, found here and registered in :data:`REGISTRY`.

A kind module (``table``, ``breakdown``, ``contrast``, ``composite``, ``grading``, ``pairs``,
``drg``, ``calibration``) holds everything about its kind: its typed parameters (a frozen
dataclass), the YAML keys it reads and how they are checked (``parse``), and the board it
computes (``build``). It ends with ``KIND = Kind(...)``. Adding a kind is one new module
here plus the boards that use it in ``builder/benchmarks/*.yaml``: the modules of this
package are discovered, and :class:`BoardKind` is made from them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from builder.scoring.boards import Context, RawBoard
    from builder.scoring.config_boards import BoardParser
    from builder.scoring.spec import BoardSpec, KindParams, Pairing


@dataclass(frozen=True)
class Kind:
    """A board kind: what its YAML may say and what it computes."""

    name: str  # as written in YAML: kind: <name>
    keys: frozenset[str]  # its own YAML keys, beside the keys every board has
    # (parser, board mapping, key path, pairing, earlier table boards' metric → measure kind)
    # -> (typed parameters, the board's column names in order)
    parse: Callable[["BoardParser", Mapping[str, Any], str, "Pairing | None", dict[str, dict[str, str]]], tuple["KindParams", list[str]]]
    build: Callable[["Context", "BoardSpec", str, bool, str], "RawBoard"]  # (ctx, board, board id, contaminated, twin suffix)
    ranked_by_default: bool = True  # ranked by its first column unless rank_by says otherwise
    summaries: frozenset[str] = frozenset()  # summary facts a board of this kind may add
    # the measure kind of each metric a composite board may average (table boards)
    metric_kinds: Callable[["KindParams"], dict[str, str]] = field(default=lambda params: {})


def _discover() -> dict[str, Kind]:
    found: dict[str, Kind] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        kind = importlib.import_module(f"{__name__}.{info.name}").KIND
        assert isinstance(kind, Kind) and kind.name == info.name, f"{info.name}: KIND must be Kind(name={info.name!r}, ...)"
        found[kind.name] = kind
    return found


_KINDS = _discover()
# The kinds as an Enum (a StrEnum: a board's kind compares equal to, and serialises as, its YAML name).
BoardKind = StrEnum("BoardKind", {name.upper(): name for name in _KINDS})  # type: ignore[misc]
REGISTRY: dict[BoardKind, Kind] = {BoardKind(name): kind for name, kind in _KINDS.items()}
ORDER = ("table", "breakdown", "contrast", "composite", "grading", "pairs", "drg", "calibration")  # how errors list them
NAMES: tuple[str, ...] = tuple(n for n in ORDER if n in _KINDS) + tuple(sorted(set(_KINDS) - set(ORDER)))
