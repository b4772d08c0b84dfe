"""Scoring: pure functions from frames to boards, driven by a declarative spec.

- ``answer_claims``: What an answer *says* about its value, apart from how the value is spelled
- ``answer_parsing``: Answer parsing: the one value an answer states, read exactly (the
  regrade's exact path)
- ``answer_spellings``: Spellings of a number that real model outputs use and a careful human
  grader accepts (full-width, circled, vulgar fractions, roots, number words)
- ``boards``: What every board kind shares (builder.scoring.kinds): the scoring Context, the
  RawBoard each kind returns (estimates for every row; the engine …
- ``config``: Parse a benchmark's scoring declaration (`sealboard-scoring/1`), in one place
- ``config_base``: Shared machinery of the scoring-declaration parser: error collection, scalar
  and filter checks, measures
- ``config_boards``: Board declarations: the `boards:` list of a scoring declaration (schema in
  builder.scoring.config)
- ``definitions``: Metric definitions as the papers state them; the board JSON carries these
  texts
- ``disclosure``: The embargo's disclosure audit: one computation over every figure a build
  publishes
- ``engine``: score_benchmark: frames in, BoardTables out
- ``equivalence``: Equivalence: the regrade's second path, math-verify (sympy underneath),
  screened first
- ``exact``: Exact values of scoring figures: each row's rational, so that ties are decided
  exactly
- ``frames``: Check the frames handed to scoring and reduce them to per-(condition, submission,
  item) sums
- ``frames_reference``: Plain reference implementations of builder.scoring.frames' fast paths
- ``gate``: The publication gate under embargo: one place that decides what a build publishes
- ``kinds``: Board kinds: one module per kind, found here and registered in :data:`REGISTRY`
- ``ladder``: What an embargoed board may show: the Ladder (Blum & Hardt, 2015) on a grid
- ``measures``: Item-level scores: what each (submission, item) contributes to a cell
- ``nulls``: Elementwise ``is None`` over the object arrays scoring keeps its row flags in
- ``paired``: item correlations for the compare page's paired differences after a release
- ``pairs``: TTS pairing for the KCSAT-ML kinds pairs and drg (builder.scoring.kinds)
- ``regrade``: Regrading: recompute correctness from the extracted answer, as the papers' judges
  would
- ``row_verdicts``: Each result row's verdicts as the boards count them: the lab's, the
  regrade's, and which counted
- ``spec``: ScoringSpec: a benchmark's scoring declaration, parsed and validated (frozen)
- ``tables``: The records scoring hands to rendering: BoardTable, BoardRow, Cell, MetricDef
- ``uncertainty``: How sure each number is: item-clustered score intervals and rank ranges

    spec = parse_scoring_config(raw_yaml_mapping, "leaderboards/soohak.yaml")
    tables = score_benchmark(spec, items, results, submissions, embargoed=True)
    tables[0].to_dict()      # the board JSON; .to_csv_rows() for the CSV

Modules, by responsibility:
"""

import importlib
from typing import TYPE_CHECKING, Any

from builder.scoring.config import default_spec, load_preset, parse_scoring_config
from builder.scoring.spec import ScoringSpec
from builder.scoring.tables import BoardRow, BoardTable, Cell, MetricDef, ReferenceRow

if TYPE_CHECKING:
    from builder.scoring.engine import __doc__ as SUPPRESSION
    from builder.scoring.engine import score_benchmark
    from builder.scoring.frames import ScoringInputError
    from builder.scoring.regrade import __doc__ as REGRADING
    from builder.scoring.uncertainty import __doc__ as METHODOLOGY

# The scoring kernel (engine, frames, regrade) needs pandas, which costs more to import than
# most commands take to run: a command that only reads a benchmark's config (`release status`,
# `bundle verify`) never imports it. These names load their module on first use (PEP 562).
# METHODOLOGY (intervals and ranks), SUPPRESSION (embargo) and REGRADING are the texts the
# methodology page shows; they are the docstrings of the modules that implement them.
_LAZY = {
    "score_benchmark": ("builder.scoring.engine", "score_benchmark"),
    "ScoringInputError": ("builder.scoring.frames", "ScoringInputError"),
    "SUPPRESSION": ("builder.scoring.engine", "__doc__"),
    "REGRADING": ("builder.scoring.regrade", "__doc__"),
    "METHODOLOGY": ("builder.scoring.uncertainty", "__doc__"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # the next lookup finds it without calling here
    return value


__all__ = [
    "METHODOLOGY",
    "REGRADING",
    "SUPPRESSION",
    "BoardRow",
    "BoardTable",
    "Cell",
    "MetricDef",
    "ReferenceRow",
    "ScoringInputError",
    "ScoringSpec",
    "default_spec",
    "load_preset",
    "parse_scoring_config",
    "score_benchmark",
]
