"""``sealboard init``: scaffold a new leaderboard repository that builds and validates as is.

``files/`` holds the templates: mkdocs config, home page, maintainers' README and the two
GitHub workflows (this project's own ``.github/workflows``, with Sealboard installed from
the pinned ``requirements.txt`` instead of from source; a test keeps them in step).
"""
