"""The audit after release (issue 24): every figure shown under embargo, re-derived.

- ``run``: `sealboard audit --release B`: each recorded deploy's signed statement checked,
  its commit rebuilt with the released identity, its boards compared; agree or differs
- ``rebuild``: one past commit's boards of one benchmark, in a temporary git worktree,
  judged at the deploy's time, without the site generator
- ``history``: records deleted outright, found on git's first-parent history (and the
  checkout against HEAD); the signed chain of statements finds the rest (builder.attest.record)
- ``compare``: a shown board against its rebuild, cell by cell (private submissions apart)
"""
