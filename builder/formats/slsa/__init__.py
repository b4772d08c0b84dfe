"""SLSA Build Provenance v1: its CUE summary (vendored) and our JSON Schema transcription (README.md)."""
