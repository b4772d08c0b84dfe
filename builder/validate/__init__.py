"""Pull-request validation: checks a change without any secret, from git objects only.

- ``pr``: what a pull request may change, and every new bundle verified as the build would
- ``gitread``: git plumbing (ls-tree, cat-file) so nothing from the PR is checked out or run
"""
