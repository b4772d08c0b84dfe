"""Every Eval Ever 0.3.0 JSON schemas (data files; version, source commit and licence in README.md)."""
