"""The release switch: threshold-signed, time-locked release statements and what they publish.

- ``admin``: Maintainers' write operations on release statements: flip (write) and sign
- ``audit_record``: the recorded result of `sealboard audit --release` (attestations/audits/), shown on the
  "Verify this release" page
- ``apply``: What the build does with a benchmark's release state, after unsealing its items
- ``check``: `sealboard release verify`: re-check a release with no secret
- ``commitment_history``: The commitments a dataset version published first, read from git: a
  changed item is refused
- ``dataset_admission``: A dataset bundle is judged against the registry in force when git
  admitted it
- ``explore``: Items and models, both ways, after a release: the item × model grid and each
  model's per-item results
- ``identity``: Publishing the embargo identity after a full release, and reading it back
- ``identity_file``: the text of a published embargo identity file (publish-identity and the time-lock)
- ``item_rows``: the long row lists of item and model pages, built in Python as one HTML fragment
  each
- ``outputs``: The data a release in force publishes, under `data/<benchmark>/`
- ``pages``: Pages a release adds: the item browser, one page per item, the grid, the changelog
  and the "Verify this release" page
- ``registry_history``: Which registry version was in force at a given time: the maintainers a
  release counts
- ``scope``: Which items a release scope covers
- ``snapshot_pages``: each recorded deploy's boards as they stood (snapshots.md, snapshots/),
  and their changelog lines
- ``statement``: Release statements, format `sealboard-release/1`: parse one strictly, write one
- ``status``: Every benchmark's release state, with the reasons a maintainer needs to act on
- ``templating``: the release pages' Jinja environment (release/templates/)
- ``timelock``: a release no one can stop: the embargo identity time-locked to a drand beacon round
- ``transcripts``: Opted-in transcripts of released items: read in the build, published as data
  and on item pages
- ``verify``: Does a release statement take effect? Signatures, digest, registry version, clock
"""
