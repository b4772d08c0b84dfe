"""What an answer *says* about its value, apart from how the value is spelled.

math-verify (and the exact path in front of it) extract a value: from ``not 12``,
``approximately 12``, ``12 이상`` or ``12 or 13`` they find a ``12``. A careful human grader
reads the words around it: the answer denies the value, hedges it, states a bound, or offers
several candidates, and is not the gold. These are the rules the libraries lack, kept in
this one place; :func:`claim` names the first that applies, and the regrade marks such an
answer wrong whatever value was extracted (``builder.scoring.regrade.grade``).

A rule that also holds for the item's gold does not count against the answer: an
expression item whose gold is ``x \\neq 1`` or ``x < 3`` is graded by equivalence as before.

Each rule is a list of patterns in both languages the benchmarks use (English, Korean),
matched on the answer with its LaTeX wrappers kept (``\\neq``, ``\\approx``, ``\\le``,
``\\pm`` are claims too).
"""

from __future__ import annotations

import re

from builder.scoring.answer_spellings import fold_width

# Korean text has no word boundaries the regex engine knows: a Hangul syllable is U+AC00–U+D7A3.
_HANGUL = "\uac00-\ud7a3"
_NOT_HANGUL_BEFORE = f"(?<![{_HANGUL}])"


def _words(*words: str) -> str:
    """English words as whole words (case-insensitive by the caller's flag)."""
    return r"(?<![A-Za-z])(?:" + "|".join(words) + r")(?![A-Za-z])"


# The order is the order reasons are reported in: a denial first, then a hedge, a bound,
# several candidates.
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "negated",
        re.compile(
            "|".join(
                (
                    _words(
                        "not",
                        "isn't",
                        "isn’t",
                        "aren't",
                        "never",
                        "neither",
                        "nor",
                        "wrong",
                        "incorrect",
                        "false",
                        "except",
                        "other than",
                        "anything but",
                        "rather than",
                        "instead of",
                        "cannot be",
                        "can't be",
                    ),
                    r"≠|!=|\\neq?(?![A-Za-z])|\\not(?![A-Za-z])|\\nmid(?![A-Za-z])",
                    # 아니다/아님/아닌/아니라, 않다, 틀리다/틀린, 오답, 제외, 빼고, 없다 (there is none)
                    r"아니|아닌|아님|아닙|않|틀리|틀린|틀렸|오답|제외|빼고|없",
                )
            ),
            re.IGNORECASE,
        ),
    ),
    (
        "hedged",
        re.compile(
            "|".join(
                (
                    _words(
                        "approximately",
                        "approx",
                        "approx\\.",
                        "about",
                        "around",
                        "roughly",
                        "nearly",
                        "almost",
                        "close to",
                        "circa",
                        "maybe",
                        "perhaps",
                        "possibly",
                        "probably",
                        "likely",
                    ),
                    r"≈|≃|≅|∼|(?:^|\s)~\s*(?=[0-9])|\\approx(?![A-Za-z])|\\sim(?![A-Za-z])|\\simeq(?![A-Za-z])",
                    _NOT_HANGUL_BEFORE + r"약(?=\s|[0-9$\\(①-⑳-])",
                    r"대략|거의|정도|쯤|가량|내외|근사|어림|아마|추정|것\s*같",
                )
            ),
            re.IGNORECASE,
        ),
    ),
    (
        "bounded",
        re.compile(
            "|".join(
                (
                    _words(
                        "less than",
                        "more than",
                        "greater than",
                        "fewer than",
                        "smaller than",
                        "larger than",
                        "bigger than",
                        "at least",
                        "at most",
                        "up to",
                        "no more than",
                        "no less than",
                        "exceeds?",
                        "exceeding",
                        "or more",
                        "or less",
                        "or fewer",
                        "or greater",
                        "or above",
                        "or below",
                        "between",
                        "within",
                    ),
                    r"[<>≤≥≦≧⩽⩾]|\\(?:leq?|geq?|lt|gt|leqslant|geqslant)(?![A-Za-z])",
                    r"이상|이하|미만|초과|넘|이내|사이|보다\s*(?:크|작|많|적)",
                )
            ),
            re.IGNORECASE,
        ),
    ),
    (
        "several-candidates",
        re.compile(
            "|".join(
                (
                    _words("or", "either", "and/or"),
                    r"±|∓|\\pm(?![A-Za-z])|\\mp(?![A-Za-z])",
                    r"또는|혹은|이거나|이나\s|거나",
                )
            ),
            re.IGNORECASE,
        ),
    ),
)


def claims(text: str) -> frozenset[str]:
    """Every rule `text` meets (reason codes of :data:`RULES`)."""
    text = fold_width(text)  # "ｎｏｔ １２" from an input method says what "not 12" says
    return frozenset(name for name, pattern in RULES if pattern.search(text))


def claim(answer: str, gold: str | None = None) -> str | None:
    """Why `answer` is not a plain statement of one value, or None.

    A rule the gold itself meets is set aside (an inequality gold is answered by an
    inequality)."""
    found = claims(answer)
    if not found:
        return None
    if gold:
        found -= claims(gold)
    for name, _ in RULES:
        if name in found:
            return name
    return None
