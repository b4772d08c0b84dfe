"""Scoring: pure functions from frames to boards, driven by a declarative spec.

    spec = parse_scoring_config(raw_yaml_mapping, "leaderboards/soohak.yaml")
    tables = score_benchmark(spec, items, results, submissions, embargoed=True)
    tables[0].to_dict()      # the board JSON; .to_csv_rows() for the CSV

Modules, by responsibility:

- ``config``: the YAML schema and its validation (``parse_scoring_config``, ``default_spec``)
- ``spec``: the frozen ScoringSpec it produces
- ``frames``: checks of the input frames, reduction to per-(condition, submission, item) sums;
  ``frames_reference``: plain versions of its fast paths, which property tests pin it to
- ``regrade``: regrading of integer/choice/fraction/decimal/expression answers (exact, else math-verify equivalence)
- ``measures``: item-level scores (avg@k, unbiased pass@k, refusal rate, tokens, cost)
- ``uncertainty``: item-clustered Wilson/MOVER intervals, rank ranges (the methodology text)
- ``kinds``: the board-kind registry, one module per kind (table, breakdown, contrast,
  composite, grading, pairs, drg, calibration); ``boards``: what the kinds share;
  ``pairs``: TTS pairing; ``engine``: assembly, embargo suppression, ranks
- ``exact``: each figure's exact rational, which ranks and combined figures are decided on
- ``tables``: BoardTable, BoardRow, Cell, MetricDef and their JSON/CSV forms
- ``definitions``: the papers' metric definitions, quoted
"""

from builder.scoring.config import default_spec, load_preset, parse_scoring_config
from builder.scoring.engine import __doc__ as SUPPRESSION
from builder.scoring.engine import score_benchmark
from builder.scoring.frames import ScoringInputError
from builder.scoring.regrade import __doc__ as REGRADING
from builder.scoring.spec import ScoringSpec
from builder.scoring.tables import BoardRow, BoardTable, Cell, MetricDef, ReferenceRow
from builder.scoring.uncertainty import __doc__ as METHODOLOGY

# METHODOLOGY (intervals and ranks), SUPPRESSION (embargo) and REGRADING are the texts the
# methodology page shows; they are the docstrings of the modules that implement them.

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
