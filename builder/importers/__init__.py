"""Importers: turn evaluation logs of common harnesses into ``results.jsonl`` and a
``run.yaml`` skeleton (``sealboard import inspect-ai | lm-eval``).

Each reader parses the harness's log format itself (no harness needs to be installed to
import its logs) and reports every field it did not carry over instead of dropping it.
"""
