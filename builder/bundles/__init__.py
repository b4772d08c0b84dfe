"""Bundles: what labs and maintainers submit, and how it is read, checked and opened.

- ``manifest``: the signed ``manifest.json`` format of a result bundle
- ``create``: a lab's side: create, sign and check a bundle before the pull request
- ``ingest``: read bundle directories from disk with size and count caps, no links
- ``verify``: signature against the registry, then every byte against the manifest
- ``results``: strict parsing of ``results.jsonl`` into columns
- ``dataset``: dataset bundles (the items and gold answers) and their commitments
- ``unseal``: decrypt verified bundles in memory and parse them (forked workers)
"""
