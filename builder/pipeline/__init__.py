"""The pipeline: the build script and the stages it runs.

- ``build``: the authorised (or public) build, as one script, stage by stage
- ``records``: BuildReport and BenchmarkState, the records every stage reads and fills
- ``stages``: per-benchmark verify/unseal/score steps the script calls
- ``publish``: the leak scan of every output byte, then the move into place
"""
