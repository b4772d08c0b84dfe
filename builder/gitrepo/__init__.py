"""Git plumbing: read an instance repository's objects and history, never a checkout of a PR.

- ``gitread``: Read a pull request's change straight from git objects, never from a checkout
- ``first_parent``: HEAD's first-parent chain: positions (the order maintainers gave the
  branch) and commit dates bounded by it (a lab's own date buys nothing)
"""
