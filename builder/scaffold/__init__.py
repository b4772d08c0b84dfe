"""``sealboard init``: scaffold a new leaderboard repository that builds and validates as is.

- ``ignore``: The .gitignore every Sealboard repository starts with: each plaintext path
  Sealboard or its docs write, so decrypted items, results and rehearsals …
- ``init``: Write a new leaderboard repository: the layout of the design, ready for its first
  build

``files/`` holds the templates: mkdocs config, home page, maintainers' README and the two
GitHub workflows (this project's own ``.github/workflows``, with Sealboard installed from
the pinned ``requirements.txt`` instead of from source; a test keeps them in step).
"""
