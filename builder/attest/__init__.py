"""Signed attestations of deploys (issue 24): what was published, checkable offline.

- ``statement``: the format, an in-toto Statement v1 over every published file (subjects,
  our predicate type, the SHA256SUMS form), parsed strictly
- ``dsse``: DSSE envelopes (in-toto payload type, PAE signed raw with the Ed25519 build key)
  of the statement and of its provenance
- ``provenance``: the SLSA provenance v1 statement of a deploy, derived from its statement alone
- ``write``: the publish stage writes ``site/attestation/`` and signs it (SSHSIG,
  ``sealboard-site``) with the build key the registry lists, and both envelopes
- ``verify``: ``sealboard verify-site``: the signature, the key against the registry, no
  rehearsal, every file's sha256, nothing missing, nothing extra
- ``record``: each deploy's statement kept in the repository under ``attestations/``, with
  its index and board copies; ``check_complete`` believes a record only whole
- ``snapshots``: those records verified (signature, board copies, folder name): each
  deploy's boards as they stood, which the site's snapshot pages show (release/snapshot_pages.py)
"""
