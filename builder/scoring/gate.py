"""The publication gate under embargo: one place that decides what a build publishes.

Every figure, count, note and summary field of a board (:func:`board`) and every field of
a submission's public facts (:func:`submission`) passes through here on its way to the
data files, and the pages render from those files only. Under embargo the gate is
**default-deny**: a field is published only when a rule below admits it, so a field a
future change adds (a summary key, a row extra, a note, a submissions column) stays
unpublished until someone writes its rule here. Outside an embargo everything is published.

The gate does not compute withholding itself; it applies verdicts made upstream:

- a cell's verdict is the disclosure audit's and the small-cell rule's
  (:mod:`builder.scoring.disclosure`, :func:`builder.scoring.uncertainty.cells`), then the
  Ladder's (:mod:`builder.scoring.ladder`): a withheld cell arrives ``suppressed``;
- lab-supplied free text is admitted only by a build that screened it against the sealed
  items (the authorised build's ``screen_lab_text``, builder.leakscan.scan); a build
  that could not screen (the public build: it holds salted commitments, not the items)
  publishes the structured fields and says that the rest is withheld until screened.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from builder.scoring import definitions as D
from builder.scoring.tables import BoardRow, BoardTable, Cell, ReferenceRow

# ----------------------------------------------------------------------------- boards


@dataclass(frozen=True)
class Policy:
    """What a board is published under."""

    embargoed: bool
    ladder: bool  # the Ladder coarsened the rates (embargo.grid set): exact facts are withheld
    min_cell_items: int


# A rule sees the value, the whole table and the policy, and answers "publish?".
Rule = Callable[[Any, BoardTable, Policy], bool]


def _always(value: Any, table: BoardTable, policy: Policy) -> bool:
    return True


def _never(value: Any, table: BoardTable, policy: Policy) -> bool:
    return False


def _exact_only(value: Any, table: BoardTable, policy: Policy) -> bool:
    # Derived from exact (unrounded) results: the Ladder publishes only rounded rates and
    # ranks recomputed from them, so these go with it; without the Ladder they follow the
    # audited cells they are computed from.
    return not policy.ladder


def _items_rule(value: Any, table: BoardTable, policy: Policy) -> bool:
    # The board's item count: a fact about the dataset, not results; withheld under the
    # Ladder (which publishes no exact counts) and when it is itself a small cell.
    return not policy.ladder and isinstance(value, int) and value >= policy.min_cell_items


SUMMARY_RULES: dict[str, Rule] = {
    "items": _items_rule,
    # "j of n items are solved by no submission" counts results on embargoed items: a lab
    # probing one item flips it (issue 9, subtraction).
    "unsolved_items": _never,
}

# Row extras that name things rather than measure them.
NAMING_EXTRAS = ("family", "baseline", "lab_name", "tts", "model_id")
EXTRA_RULES: dict[str, Rule] = {
    **{key: _always for key in NAMING_EXTRAS},
    # Computed from results: ranks by other columns, rank shifts, the DRG profile, the
    # pairing's first turn-on and baseline name (kept with the exact figures they go with).
    "baseline_model": _exact_only,
    "first_turn_on": _exact_only,
    "profile": _exact_only,
    "rank_items": _exact_only,
    "rank_shift": _exact_only,
}
# rank_<column> extras (rank_shift boards): one rule for any column name
_EXTRA_PATTERNS: tuple[tuple[re.Pattern[str], Rule], ...] = ((re.compile(r"rank_[a-z0-9_@-]+"), _exact_only),)

# Notes scoring writes, by shape. Each says how a board was built (configuration, item
# counts of groups, pairing), never a result, except "solved by no submission".
_N = r"\d+"
NOTE_RULES: tuple[tuple[re.Pattern[str], Rule], ...] = (
    (re.compile(re.escape(D.CONTAMINATION) + r" The board \S+ counts every item\."), _always),
    (re.compile(r"Counts every item, including items published before a model's training cutoff \(see \S+\)\."), _always),
    (re.compile(r"Correctness of .+ answers is regraded by Sealboard from the extracted answer .+"), _always),
    (re.compile(rf"Groups with fewer than {_N} items are not shown: .+\."), _always),
    (re.compile(rf"{_N} item\(s\) count in the overall column but in no column shown\."), _always),
    (
        re.compile(
            rf"Under the embargo the {_N} item\(s\) in no group shown count in the column .+, so that no published figure rests on them alone\."
        ),
        _always,
    ),
    (re.compile(r"rank_shift = rank by .+ − rank by .+"), _always),
    (re.compile(r".+ is shown only on columns whose items all carry .+"), _always),
    (re.compile(r"Verdicts by source: .+", re.S), _always),
    (re.compile(r"Runs are paired within one lab's model family .+", re.S), _always),
    (re.compile(rf"{_N} family\(ies\) lack a TTS-off baseline or a TTS-on run and are not shown\."), _always),
    (re.compile(r"Profiles \(§4\.7 \(3\)\): HIGH when DRG ≥ .+"), _always),
    (re.compile(r"The human cohort lies on y = x \(slope 1, intercept 0\) by construction\."), _always),
    (re.compile(rf"{_N} of {_N} items are solved by no submission on this board\."), _never),
)


def _admit_note(note: str, table: BoardTable, policy: Policy, declared: tuple[str, ...]) -> bool:
    if note in declared:
        return True  # the maintainers' own text from the board's config
    return any(pattern.fullmatch(note) and rule(note, table, policy) for pattern, rule in NOTE_RULES)


def _admit_extra(key: str, value: Any, table: BoardTable, policy: Policy) -> bool:
    rule = EXTRA_RULES.get(key) or next((r for p, r in _EXTRA_PATTERNS if p.fullmatch(key)), _never)
    return rule(value, table, policy)


def cell(c: Cell, policy: Policy) -> Cell:
    """A cell as published: a withheld cell keeps neither its value nor its item count
    (n of a cell cut by a training cutoff or a group says how many items lie on each side
    of the cut, which a lab can probe); an undefined cell keeps its flag, so "no items",
    "cutoff unknown" and "withheld (embargo)" read differently."""
    if not policy.embargoed:
        return c
    if c.suppressed:
        return Cell(None, None, None, None, suppressed=True, flag="ladder" if c.flag == "ladder" else None)
    if c.value is None and not c.n:
        # no items (or none known): the flag says so; the n of 0 stays private as before
        return Cell(None, None, None, None, flag=c.flag)
    return Cell(c.value, c.ci_low, c.ci_high, c.n, flag=c.flag)


def withheld_counts(table: BoardTable) -> dict[str, int]:
    """Cells withheld on a board: by the disclosure audit (small cells and what would
    reveal one), and by the Ladder (a lab's later submission that did not beat its best)."""
    counts = {"disclosure": 0, "ladder": 0}
    for row in table.rows:
        for c in row.metrics.values():
            if c.suppressed:
                counts["ladder" if c.flag == "ladder" else "disclosure"] += 1
    return counts


def board(table: BoardTable, policy: Policy, declared_notes: tuple[str, ...] = ()) -> BoardTable:
    """The board as published. Under embargo it is rebuilt field by field from the rules
    above; a field of BoardTable this function does not name keeps its default (empty)."""
    if not policy.embargoed:
        return table
    rows = tuple(
        BoardRow(
            submission=r.submission,
            model=r.model,
            lab=r.lab,
            metrics={name: cell(c, policy) for name, c in r.metrics.items()},
            rank=r.rank,
            rank_range=r.rank_range,
            extra={k: v for k, v in r.extra.items() if _admit_extra(k, v, table, policy)},
        )
        for r in table.rows
    )
    refs = tuple(
        ReferenceRow(r.id, r.label, {name: cell(c, policy) for name, c in r.metrics.items()}, r.note) for r in table.reference_rows
    )
    return BoardTable(
        benchmark=table.benchmark,
        board=table.board,
        title=table.title,
        description=table.description,
        metrics=table.metrics,
        rows=rows,
        notes=tuple(n for n in table.notes if _admit_note(n, table, policy, declared_notes)),
        reference_rows=refs,
        rank_by=table.rank_by,
        kind=table.kind,
        summary={k: v for k, v in table.summary.items() if k in SUMMARY_RULES and SUMMARY_RULES[k](v, table, policy)},
        withheld=withheld_counts(table),
    )


# ------------------------------------------------------------------ submissions' facts

WITHHELD_UNSCREENED = "withheld until screened"
# What a name may look like to be published unscreened: short, a few words of a name's
# alphabet. Sealed item text is checked by the leak scan in 8-word windows; a name of at
# most 6 words cannot hold a window, and 64 characters hold no 200-character excerpt. A
# canary is a short token and can still hide in any name (model names included, which the
# design publishes in every build): only the authorised build's screen catches that.
_NAME_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+:/()@-]{0,63}")
_NAME_WORDS = 6


def _name_shaped(value: Any) -> bool:
    return value is None or (isinstance(value, str) and bool(_NAME_SHAPE.fullmatch(value)) and len(value.split()) <= _NAME_WORDS)


def _structured(value: Any) -> bool:
    return True


# One rule per field of a submissions row (builder.render.data.submission_facts):
# _structured publishes it unscreened (types, dates, identifiers, digests, display names);
# _name_shaped publishes it unscreened when the value has a short name's shape; FREE_TEXT
# is published under embargo only by a build that screened it. A field with no rule is
# not published under embargo.
FREE_TEXT = None
SUBMISSION_RULES: dict[str, Callable[[Any], bool] | None] = {
    "submission": _structured, "lab": _structured, "model_id": _structured,
    # display names the design publishes in every build (builder.strict.clean_display_name)
    "model": _structured, "family": _structured,
    "open_weights": _structured, "params_b": _structured, "active_params_b": _structured,
    "training_cutoff": _structured, "release_date": _structured,
    "thinking": _structured, "temperature": _structured, "max_output_tokens": _structured, "tts": _structured,
    "created": _structured, "signature": _structured, "manifest_sha256": _structured, "files": _structured,
    "publish_on_release": _structured,
    "reasoning_effort": _name_shaped, "harness": _name_shaped, "judge": _name_shaped,
    "notes": FREE_TEXT,
}  # fmt: skip


def submission(row: Mapping[str, Any], *, embargoed: bool, screened: bool) -> dict[str, Any]:
    """A submission's public facts. Under embargo a field with no rule is not published; a
    build that did not screen lab text publishes the structured fields and the names that
    have their declared shape, sets the rest to null and names them in ``withheld``
    (shown as "withheld until screened" on the pages)."""
    if not embargoed:
        return dict(row)
    out: dict[str, Any] = {}
    withheld: list[str] = []
    for key, value in row.items():
        if key not in SUBMISSION_RULES:
            continue  # no rule admits it: not published
        rule = SUBMISSION_RULES[key]
        if screened or value in (None, "") or (rule is not None and rule(value)):  # None: FREE_TEXT
            out[key] = value
        else:
            out[key] = None
            withheld.append(key)
    if withheld:
        out["withheld"] = {"fields": withheld, "reason": WITHHELD_UNSCREENED}
    return out
