"""Git plumbing: read an instance repository's objects and history, never a checkout of a PR.

- ``gitread``: Read a pull request's change straight from git objects, never from a checkout
"""
