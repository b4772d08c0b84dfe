"""Board kinds: one module per kind, found here and registered in :data:`REGISTRY`.

- ``_base``: What a board-kind module declares (builder.scoring.kinds): its :class:`Kind`
- ``breakdown``: kind: breakdown — one measure, overall and per group of an item field or item
  bin
- ``calibration``: kind: calibration — per-item model error regressed on the human cohort's
  error (KCSAT-ML §4.6): slope and intercept, with delta-method intervals …
- ``composite``: kind: composite — each column the mean of metrics of earlier table boards
- ``contrast``: kind: contrast — one measure under two values of a result field (or language),
  and their paired difference
- ``drg``: kind: drg — sub-cohort fractions on the Easy and Hard bins without and with TTS, and
  the Difficulty-Reversal Gap at the first TTS turn-on …
- ``grading``: kind: grading — how each submission's samples were graded: regraded by Sealboard,
  kept as the lab's judge verdict, disagreements, unparsed answers
- ``pairs``: kind: pairs — TTS off/on pairs within a lab's model family (KCSAT-ML §3.2): the
  measure without and with TTS, and the paired gain
- ``table``: kind: table — one column per metric (a measure over an item and result selection)

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
        if not (isinstance(kind, Kind) and kind.name == info.name):
            raise AssertionError(f"{info.name}: KIND must be Kind(name={info.name!r}, ...)")
        found[kind.name] = kind
    return found


_KINDS = _discover()
# The kinds as an Enum (a StrEnum: a board's kind compares equal to, and serialises as, its YAML name).
# The ignore below: mypy reads the functional Enum API only with literal members
# ("must be string, tuple, list or dict literal"); these are the modules discovered above.
BoardKind = StrEnum("BoardKind", {name.upper(): name for name in _KINDS})  # type: ignore[misc]
# Keyed by BoardKind members, typed by their base StrEnum: BoardSpec.kind is declared StrEnum
# (builder.scoring.spec cannot import this package, which imports it), and BoardKind is
# made at run time, so a type checker knows no more of it than that.
REGISTRY: dict[StrEnum, Kind] = {BoardKind(name): kind for name, kind in _KINDS.items()}
ORDER = ("table", "breakdown", "contrast", "composite", "grading", "pairs", "drg", "calibration")  # how errors list them
NAMES: tuple[str, ...] = tuple(n for n in ORDER if n in _KINDS) + tuple(sorted(set(_KINDS) - set(ORDER)))
