"""The Hangul web font: a subset of Noto Sans CJK KR to exactly the Hangul the site's pages
hold, loaded only by those pages, so Korean never renders as empty boxes on a machine
without a Korean font.

The source is vendored (vendor/noto-sans-cjk-kr-hangul.woff2, 734 KB: every Hangul syllable
and jamo of Noto Sans CJK KR, SIL OFL 1.1, vendor/README.md), so a build needs no network.
At staging (site_tree.assemble) every Markdown page is read once: a page whose text holds
Hangul gets ``sealboard_hangul: true`` in its front matter, which makes the theme override
(overrides/main.html) link ``assets/fonts/hangul.css``; the font is cut to the union of those
pages' Hangul (fontTools, ~0.2 CPU-s; the demo's 101 syllables: ~10 KB) and published with
its licence. A page without Hangul links nothing. The family is renamed ``Sealboard Hangul``
(a modified OFL font; the name says whose cut it is) and its ``unicode-range`` is Hangul
only, so Latin text keeps the system fonts (sealboard.css: the font stacks).

The cut is deterministic (no timestamps recalculated, fixed options): two builds of one
commit publish the same bytes.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # fontTools is imported where a font is cut: the generator's child process
    # imports this module (through site_tree) and never cuts one (0.14 s of imports a build).
    from fontTools import subset
    from fontTools.ttLib import TTFont

VENDOR = Path(__file__).parent / "vendor"
SOURCE = VENDOR / "noto-sans-cjk-kr-hangul.woff2"
LICENCE = VENDOR / "noto-sans-cjk-OFL.txt"
FAMILY = "Sealboard Hangul"
POSTSCRIPT = "SealboardHangul-Regular"
FONT, CSS, OFL = "assets/fonts/sealboard-hangul.woff2", "assets/fonts/hangul.css", "assets/fonts/OFL.txt"
FLAG = "sealboard_hangul"  # the front-matter key the theme override reads
# Hangul Jamo, Compatibility Jamo, Jamo Extended-A, Syllables, Jamo Extended-B.
RANGES = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7A3), (0xD7B0, 0xD7FF))
HANGUL = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in RANGES) + "]")


def hangul_in(text: str) -> set[int]:
    """The Hangul code points ``text`` holds."""
    return {ord(c) for c in HANGUL.findall(text)}


def flag_page(text: str) -> str:
    """``text`` (a Markdown page) with ``sealboard_hangul: true`` in its front matter."""
    if text.startswith("---\n"):
        return f"---\n{FLAG}: true\n{text[4:]}"
    return f"---\n{FLAG}: true\n---\n{text}"


def _options() -> subset.Options:
    from fontTools import subset

    opts = subset.Options()
    opts.flavor = "woff2"
    opts.layout_features = ["*"]  # jamo composition (ljmo/vjmo/tjmo) keeps its glyphs
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # copyright, names, version, licence
    opts.hinting = False
    opts.notdef_outline = True
    return opts


def _rename(font: TTFont) -> None:
    """A modified OFL font under a name of its own (none of the source's reserved names)."""
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName(POSTSCRIPT, 6, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 3:
            names.setName(f"{POSTSCRIPT};subset of NotoSansCJKkr-Regular", 3, record.platformID, record.platEncID, record.langID)
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = [POSTSCRIPT]
        top = cff.topDictIndex[0]
        for key in ("FullName", "FamilyName"):
            if hasattr(top, key):
                setattr(top, key, FAMILY)


def subset_font(codepoints: Iterable[int]) -> bytes:
    """The vendored font cut to ``codepoints`` (Hangul only), as woff2 bytes."""
    return _cut(frozenset(codepoints))


# The cut depends on the code points alone (the font is read-only package data), and a
# process that builds more than once mostly asks for the same ones: builds of instances with
# the same items (the test suite's workers: 25 of 26 cuts repeated in tests/pipeline and two
# hostile modules). A cut costs 0.3 CPU-s for a few hundred syllables, 1.5 for the demo's 2,000.
@functools.lru_cache(maxsize=4)
def _cut(codepoints: frozenset[int]) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(SOURCE, recalcTimestamp=False, recalcBBoxes=False)
    cutter = subset.Subsetter(_options())
    cutter.populate(unicodes=sorted(set(codepoints)))
    cutter.subset(font)
    _rename(font)
    font.flavor = "woff2"
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue()


def stylesheet() -> str:
    ranges = ", ".join(f"U+{a:04X}-{b:04X}" for a, b in RANGES)
    return (
        "/* Sealboard Hangul: Noto Sans CJK KR cut to the Hangul of this site's pages (SIL OFL 1.1: OFL.txt). */\n"
        "@font-face {\n"
        f'  font-family: "{FAMILY}";\n'
        '  src: url("sealboard-hangul.woff2") format("woff2");\n'
        "  font-weight: 400;\n"
        "  font-style: normal;\n"
        "  font-display: swap;\n"
        f"  unicode-range: {ranges};\n"
        "}\n"
    )


def write_font(docs: Path, codepoints: set[int]) -> None:
    """Publish the cut, its stylesheet and the licence under ``docs``/assets/fonts/ (nothing
    when no page holds Hangul)."""
    if not codepoints:
        return
    (docs / FONT).parent.mkdir(parents=True, exist_ok=True)
    (docs / FONT).write_bytes(subset_font(codepoints))
    (docs / CSS).write_text(stylesheet(), encoding="utf-8")
    (docs / OFL).write_bytes(LICENCE.read_bytes())
