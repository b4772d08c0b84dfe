"""Which page text holds formulas: KaTeX (site_template/assets/katex/) loads only there.

A formula is ``$$…$$``, ``\\[…\\]``, ``\\(…\\)`` or ``$…$`` — the delimiters assets/items.js
renders. An inline ``$…$`` follows pandoc's rule (tex_math_dollars): the opening ``$`` has
a non-space right after it, the closing one a non-space before it and no digit after it,
so prose prices ("$0.18 per item, $1.20 in all") hold no formula.
"""

from __future__ import annotations

import re

_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|\$(?=[^\s$])[^$\n]*?[^\s$\\]\$(?!\d)|\$[^\s$]\$(?!\d)", re.S)


def has_math(*texts: str | None) -> bool:
    return any(_MATH.search(t) for t in texts if t)


__all__ = ["has_math"]
