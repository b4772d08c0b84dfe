"""Published formats Sealboard writes or reads, vendored with their licences.

- ``eee``: Every Eval Ever 0.3.0 JSON schemas (aggregate and instance-level records; see its README)
  and its datastore layout (``eee.datastore``)
- ``slsa``: SLSA Build Provenance v1, the CUE summary and a JSON Schema transcription (see its README)
"""
