"""The lunr fixes: two bugs in the search engine Material bundles, fixed in the built site's
copy (``patch_lunr``, called by the search hook after Material wrote its assets). They are
tested with the mkdocs-material of ``tested_versions.py`` only (its worker bundles lunr
2.3.9); with another version ``patch_lunr`` changes nothing and says so.

Material's search worker bundles lunr 2.3.9, whose token set (the automaton a query's terms
are matched against) merges nodes it takes for equal by a string of each node's edge labels
and child ids written without a separator: with digits among the labels (``2014``, digests),
edges ``1→234`` and ``1→2, 3→4`` read alike, and the merged set holds terms the index does
not (lunr.js issues 503, 314). A query reaching one ("a", "kcsat-2014-a-01") makes lunr throw
and Material answer "No matching documents"; which queries do depends on every word of the
index, so it came and went from build to build. ``TOKEN_SET_FIX`` is appended to the worker:
the same string with a separator after each child id, read before the worker builds its
index. ``KO_WORD_CHARACTERS`` unbrackets lunr-languages' Korean word characters:
``lunr.multiLanguage("en", "ko")`` pastes each language's characters into one class, and
Korean's own brackets broke it, so the trimmer trimmed nothing and a word written
``"laptop`` or ``(Riemann`` could not be found.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from builder.render.tested_versions import untested

# lunr's TokenSet.prototype.toString (lunr.js 2.3.9, lib/token_set.js) with a "," after each
# child id: a label is one character and an id is digits, so the string now reads one way only.
TOKEN_SET_FIX = (
    "\n;/* Sealboard (builder/render/lunr_fix.py): lunr's token-set key, unambiguous. */\n"
    "self.lunr.TokenSet.prototype.toString = function () {\n"
    "  if (this._str) return this._str;\n"
    '  var str = this.final ? "1" : "0", labels = Object.keys(this.edges).sort();\n'
    '  for (var i = 0; i < labels.length; i++) str += labels[i] + this.edges[labels[i]].id + ",";\n'
    "  return str;\n"
    "};\n"
)
# lunr-languages' Korean word characters, written as a class where every other language
# writes bare ranges (the form lunr.multiLanguage expects), and the same without brackets.
KO_WORD_CHARACTERS = ('e.ko.wordCharacters="[A-Za-z\uac00-\ud7a3]"', 'e.ko.wordCharacters="A-Za-z\uac00-\ud7a3"')
LUNR = os.path.join("assets", "javascripts")


def patch_lunr(folder: str) -> str | None:
    """Apply TOKEN_SET_FIX to Material's search worker(s) and KO_WORD_CHARACTERS to
    lunr-languages' Korean under ``folder`` (the site's ``assets/javascripts``), once. A file
    that no longer holds what a patch changes (another Material) is left as it is; the
    browser tests (tests/render/test_search_browser.py) check the demo's files have both.
    Return why nothing was patched (another Material), or None."""
    if other := untested("mkdocs-material"):
        return f"the lunr fixes (builder/render/lunr_fix.py) are not applied with {other[0]}: search may miss some queries"
    workers = os.path.join(folder, "workers")
    for name in sorted(os.listdir(workers)) if os.path.isdir(workers) else []:
        if name.startswith("search.") and name.endswith(".js"):
            _patch(os.path.join(workers, name), _with_token_set_fix)
    bracketed, bare = KO_WORD_CHARACTERS
    _patch(os.path.join(folder, "lunr", "min", "lunr.ko.min.js"), lambda s: s.replace(bracketed, bare))
    return None


def _with_token_set_fix(worker: str) -> str:
    """The worker with TOKEN_SET_FIX at its end, where it publishes ``self.lunr`` (the fix
    runs after that, before any message builds an index) and has no fix yet."""
    if "self.lunr=" not in worker.replace(" ", "") or TOKEN_SET_FIX in worker:
        return worker
    return worker + TOKEN_SET_FIX


def _patch(path: str, change: Callable[[str], str]) -> None:
    if not os.path.isfile(path) or os.path.islink(path):  # a link is never written through
        return
    with open(path, encoding="utf-8") as f:
        source = f.read()
    changed = change(source)
    if changed != source:
        with open(path, "w", encoding="utf-8") as f:
            f.write(changed)
