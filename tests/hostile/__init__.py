"""The hostile corpus: named attacks on Sealboard, each refused for one exact reason.

A package (this file) so that its test modules are imported as ``hostile.test_*`` and
cannot collide with same-named modules elsewhere under ``tests/``.
"""
