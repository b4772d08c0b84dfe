"""Sealboard: signed, sealed result bundles in; a verified, scored mkdocs-material site out.

Packages, from the top down (a module imports only from its own package or from those
below it; tests/test_layout.py checks it):

- ``cli``: the ``sealboard`` command, a thin client of the rest
- ``demo``: ``sealboard demo``, a synthetic, signed, sealed instance built as a git repository
- ``scaffold``: ``sealboard init``, a new leaderboard repository
- ``audit``: ``sealboard audit --release``: every figure shown under embargo, re-derived after the release
- ``pipeline``: the build, as one script, and the stages it runs
- ``attest``: the signed attestation of each deploy (in-toto statement, SSHSIG), `verify-site`, its record in git
- ``validate``: the pull-request check, without any secret
- ``release``: threshold-signed, time-locked release statements and what they publish
- ``render``: board data, pages and the site generator run
- ``leakscan``: embargoed text, canaries and key material, in the output and in lab text
- ``report``: the records every stage shares (BuildReport, BenchmarkState)
- ``importers``: harness logs into ``results.jsonl``
- ``bundles``: what labs and maintainers submit, and how it is read, checked and admitted
- ``config``: leaderboard configs, validated in one place
- ``scoring``: pure scoring, from frames to boards, and the publication gate
- ``gitrepo``: git plumbing over an instance repository
- ``timelock``: drand time-lock encryption (tlock, the ``tle`` format) and verified beacon rounds
- ``trust``: SSH signatures, the key registry, age keys
- ``strict``: strict parsing of every untrusted file
- ``formats``: vendored published schemas (Every Eval Ever 0.3)
- ``errors``: the error tree and its reason codes (listed in ``reasons.yaml``)
"""

__version__ = "0.1.0"
