"""Elementwise ``is None`` over the object arrays scoring keeps its row flags in.

A row's flag is None when the row is defined and a reason string when it is not
("undefined", "not-evaluated", …). ``np.equal(flag, None)`` computes this, but numpy's type
stubs do not accept None as a ufunc operand; comparing against a 0-d object array holding
None is the same ufunc call (numpy converts the None to exactly that array) and is typed.
"""

from __future__ import annotations

import numpy as np

_NONE = np.array(None, dtype=object)


def is_none(values: np.ndarray) -> np.ndarray:
    """Boolean array: True where the element of `values` is None (elementwise ``==``)."""
    return np.equal(values, _NONE)
