"""The records every stage of the build shares (BuildReport, BenchmarkState), below all of them.

- ``records``: The build's records, shared by the stages below the build script
"""
