"""Board kinds: one module per kind, found here and registered in :data:`REGISTRY`.

A kind module (``table``, ``breakdown``, ``contrast``, ``composite``, ``grading``, ``pairs``,
``drg``, ``calibration``) holds everything about its kind: its typed parameters (a frozen
dataclass), the YAML keys it reads and how they are checked (``parse``), and the board it
computes (``build``). It ends with ``KIND = Kind(...)`` (``kinds/_base.py``). Adding a kind is one new module
here plus the boards that use it in ``builder/benchmarks/*.yaml``: the modules of this
package are discovered, and :class:`BoardKind` is made from them.
"""

from __future__ import annotations

import importlib
import pkgutil
from enum import StrEnum

from builder.scoring.kinds._base import Kind


def _discover() -> dict[str, Kind]:
    found: dict[str, Kind] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue  # _base: what every kind module declares
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
