"""Bundles: what labs and maintainers submit, and how it is read, checked and opened.

- ``access``: Item access for labs: the embargoed items, sealed to one registered lab's SSH key
- ``admission_policy``: The admission policy: which verified bundles are admitted to the boards,
  and why not
- ``admissions``: When a bundle was admitted to the repository: the time a lab key's validity is
  judged at
- ``budget``: The per-lab submission budget: at most `bundles` submissions per lab, per
  benchmark, in any `window_days` window
- ``coverage``: Coverage: do a bundle's results answer exactly what the benchmark asks?
- ``create``: The lab side of result bundles: create, sign and check one before opening a PR
- ``dataset``: Dataset bundles: the maintainers' sealed items and their public commitments
- ``dataset_create``: Maintainers' side of dataset bundles: turn an items.jsonl into a sealed,
  committed bundle, and add maintainers' signatures to it until the …
- ``duplicates``: The duplicate rule: one ranked row per run, one lab per model name
- ``clones``: Re-sealed clones, found by the build alone (it holds the plaintext), after unsealing
- ``facts``: What the site may say about one verified submission, before the publication gate
- ``ingest``: Ingest: find bundles on disk and read them into memory, refusing anything odd
- ``manifest``: Result bundle v1: the manifest format, owned here
- ``plaintext``: Plaintext never belongs in a repository: what counts, and what to do once it was
  pushed
- ``results``: Parse a decrypted `results.jsonl` strictly and fast, into a pandas frame
- ``sealing``: Which key a bundle's file is sealed to, and which identity opens it
- ``transcripts``: The transcripts file of a bundle: `transcripts.jsonl.gz` (sealed as `.age`)
- ``unseal``: Unseal: decrypt verified bytes in memory and parse them into frames
- ``verify``: Verify: signature, trust and integrity of a result bundle, before anything is
  decrypted
- ``withdrawn``: Tombstones: a withdrawn bundle stays withdrawn
"""
