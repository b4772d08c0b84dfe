"""Every Eval Ever 0.3.0: its JSON schemas (data files; version, source commit and licence in
README.md) and its datastore layout.

- ``datastore``: where a record lives (``data/<benchmark>/<developer>/<model>/<uuid4>.json``),
  the rule every_eval_ever's validator checks, restated; the stable UUIDs of exported records
"""
