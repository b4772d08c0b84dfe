"""Which page text holds formulas (KaTeX, site_template/assets/katex/, loads only there), and
how a formula we write ourselves reaches a page through Markdown unharmed.

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


def tex_markdown(tex: str) -> str:
    """Markdown for one inline formula in TeX, which assets/items.js renders with KaTeX
    (``.sb-tex[data-tex]``). Markdown reads ``*``, ``_``, ``[…](…)`` and backslashes even
    inside an inline tag's attributes, so every character but letters, digits and a few
    inert ones is written in ``data-tex`` as a character reference, which it leaves alone;
    the span holds the TeX again as a code span, what a reader without scripts (and the
    search index) sees."""
    if "`" in tex or "\n" in tex:
        raise ValueError(f"a formula holds a backtick or a line break, which its code span cannot: {tex!r}")
    attr = "".join(c if c.isalnum() or c in _INERT else f"&#{ord(c)};" for c in tex)
    return f'<span class="sb-tex" data-tex="{attr}">`{tex}`</span>'


_INERT = frozenset(" ^{}=,;+-/.:'")


__all__ = ["has_math", "tex_markdown"]
