"""Sealboard: signed, sealed result bundles in; a verified, scored mkdocs-material site out."""

__version__ = "0.1.0"
