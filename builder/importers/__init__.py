"""Importers: turn evaluation logs of common harnesses into ``results.jsonl`` and a
``run.yaml`` skeleton (``sealboard import inspect-ai | lm-eval | eee``).

- ``common``: What every importer shares: item-id mapping, the import report, writing the
  outputs
- ``eee_instances``: Every Eval Ever 0.3 instance-level JSONL (one sample a line)
- ``eval_layout``: Where the samples are in an inspect_ai ``.eval`` zip: the classic and the
  chunked layout
- ``inspect_log``: Import inspect_ai evaluation logs (`.eval` archives or `.json`)
- ``limits``: Limits on harness logs: the importers read files a lab did not write by hand and
  may not trust (issue 22, "Hostile logs and answers")
- ``lm_eval_samples``: Import lm-evaluation-harness per-sample logs
  (`samples_<task>_<date>.jsonl`)
- ``no_gold``: ``--no-gold ITEMS``: a lab without the gold answers writes the regraded samples
  ``correct: null`` (answer types from its own item copy)

Each reader parses the harness's log format itself (no harness needs to be installed to
import its logs) and reports every field it did not carry over instead of dropping it.
"""
