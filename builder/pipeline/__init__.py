"""The pipeline: the build script and the stages it runs.

- ``admission``: The ingest and verify stages' bundle work: read every bundle (`ingest`), verify
  it, and apply the admission policy (`admit`, …
- ``attestation``: the publish stage's attestation: the predicate (commit, registry, bundles,
  releases, tool versions) from the build report, written and signed by builder.attest
- ``build``: The build, as one script: ingest → verify → unseal → score → render → publish
- ``checkout``: The checkout scan: no embargoed text or canary anywhere a push could carry it
- ``earlier_versions``: Earlier dataset versions stay on the site while a release of them is in
  force, as ``<benchmark>@<version>``, scored by the config git last committed for them
- ``isolation``: One isolation boundary per submission at every stage (unseal, score, render)
- ``lab_status``: `sealboard status`: a lab's view of its bundles (design: "a lab's view of its
  bundles")
- ``labels``: Board labels: two submissions of one benchmark never show the same model name
- ``left_out``: the rejection of one submission a stage leaves out
- ``pipe``: The build's stages as values in, values out: each returns its states and the
  rejections it made (the build function joins them in order)
- ``publish``: Publish: scan every output byte for key material and embargoed text, then the
  checkout (builder.pipeline.checkout), then move the site into place
- ``regrade_budget``: A per-bundle time budget on regrading (issue 22, "Hostile logs and
  answers")
- ``source_time``: the one time a build stamps into its output (--as-of, SOURCE_DATE_EPOCH, the
  commit's time, else the clock), apart from the clock it judges at
- ``stages``: Per-benchmark steps of the build that sit between verification and rendering
- ``ungraded``: samples left ungraded (``correct: null``): the regrade decides them, or the
  bundle is left out (``ungraded-not-regraded``)
"""
