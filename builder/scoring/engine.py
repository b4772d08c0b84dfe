"""score_benchmark: frames in, BoardTables out. Pure: no I/O, no clock, no randomness.

**Threat model.** During an embargo the answer key is a holdout, and every published
score is an answer to a query on it. A lab holding a valid key can submit probe runs that
differ in a few answers and read the scores back: with exact per-edition scores, one pull
request of per-item probes once recovered all 360 LiveMathematicianBench gold answers.
This is adaptive overfitting to a reused holdout (Dwork et al., 2015; Blum & Hardt, 2015,
"The Ladder"). Four mechanisms close it together:

1. **Full coverage.** A ranked submission answers every item, language and sample, so a
   probe is a whole run.
2. **Submission budget.** Each lab may publish at most `bundles` submissions per benchmark
   in any `window_days` window (default 3 per 30 days), counted on the signed `created`
   time, which the pull-request check holds within 7 days of submission; withdrawn
   submissions still count. `validate` and the build apply the same rule.
3. **The Ladder on a grid.** Every published rate is rounded to a grid η (default 0.05,
   intervals widened outward to it); a lab's later submission shows a rate only if it beats
   the best rate the lab already shows there by at least η, otherwise the cell is withheld
   (flag `ladder`). Rates resting on fewer than 2/η + 1 items, and every figure that is
   neither a rate nor a lab-reported token/cost figure, are withheld; ranks come from the
   shown values only.
4. **One disclosure audit over every published figure** (below). Withheld cells keep no
   value, interval or item count `n`; the board notes and facts that count results (the
   "items solved by no submission" note) are withheld; composites of withheld cells are
   withheld. Each board publishes how many cells the audit and the Ladder withheld
   (`withheld_cells`, and a line under the board). A cell that is merely undefined says
   why instead ("no items", "cutoff unknown"): those are not embargo withholdings.
5. **One publication gate, default-deny** (`builder/scoring/gate.py`). Every board field
   (cells, ranks, row extras, notes, summary facts) and every field of a submission's
   public facts leaves the build through it; under embargo a field is published only when
   a rule there admits it, so a field added later stays unpublished until someone writes
   its rule. Lab-supplied free text (notes; harness, judge and reasoning-effort names
   beyond a short name's shape) is published under embargo only by a build that screened
   it against the sealed items (the authorised build's leak screen); the public build,
   which holds only salted commitments, shows the structured fields and "withheld until
   screened" instead.

**The bound.** A shown cell is a grid point or withheld: at most log2(1/η + 2) bits
(4.4 bits at η = 0.05). A lab's cell can rise at most 1/η times over the whole embargo, so
over a budget window a lab learns at most `bundles × cells × 4.4` bits through any one
board, and nothing from runs that do not improve by η. A single changed answer moves a
shown rate by less than η/2, so it can neither clear the Ladder margin nor be told apart
after rounding: the test suite runs the per-item probe attack at the budget (baseline plus
two probes of 252 attempted, on a 360-item LiveMathematicianBench-shaped key) and the
attacker recovers 79 of 360 gold letters, exactly what guessing one letter everywhere
gets (chance is 20%); the published boards are identical whatever the probed items'
gold letters are. Without budget and Ladder the same probes read their items exactly.
The attack also runs through the full authorised build (signed, sealed bundles; board JSON
read back): four of six probes are refused as over budget, and the two admitted show
nothing that differs from the baseline, so recovery equals the prior.

**Cell suppression: a joint disclosure audit** (`builder/scoring/disclosure.py`). The
reader is anyone who sees the whole build at once — every board, both twins of a
contamination-aware board, breakdowns, contrasts, composites, TTS pairs, counts — and
combines published figures linearly (statistical disclosure control's "audit by linear
algebra"). The protected secret: the results of one submission on any set of fewer than
`min_cell_items` (k) embargoed items. Every audited figure (each rate, difference,
composite, SCF/DRG, and the grading disagreement figures) is a linear functional of one
submission's per-item results in a *stream* (a graded quantity under one selection of
result conditions; for multilingual boards each language is its own stream, so the unit is
(item, language)). The engine records each figure's item sets internally; they are never
published.

- *Atoms.* Per submission and stream, items that lie in exactly the same published item
  sets form an atom; a figure is a row over atom totals, and R is the span of the published
  rows. Items in the scope of a release in force (their text and results public) are
  constants, not unknowns — so a partial (rolling) release lifts suppression exactly for
  its items: a cell resting on released items only is shown exactly (outside the Ladder),
  a cell isolating 1…k−1 embargoed items is still withheld.
- *Rule.* Nothing published may determine a non-zero combination of results resting on
  fewer than k embargoed items: R must contain no non-zero vector supported on atoms with
  fewer than k embargoed items in total. A cell isolating 1…k−1 embargoed items is withheld
  first; then dim(R ∩ span{small atoms}) is computed by ranks — zero means safe; otherwise
  an exact depth-first search (Cholesky on the complement projector) over sets of small
  atoms of total weight < k finds an offending combination, or proves there is none. Past
  a node budget the audit treats the set as unsafe (it only withholds more).
- *Secondary suppression* (greedy, not optimal): for an offending combination v, take an
  atom a it uses and a partner atom b outside it, and withhold every published figure that
  would see one unit of value moved from b to a; that move is then invisible in what stays
  published while it changes v, so v is no longer determined. b minimises the items of
  the figures withheld. Repeat until the rank test passes. Example: a training cutoff 3
  items into an edition — (edition, all items) − (edition, after the cutoff) would give
  those 3 items; the audit withholds the edition's `-all` cell and the cheapest
  complement (another edition's `-all` cell), so the overall column, the other editions
  and the twin no longer pin them down.

*A remainder below k.* A breakdown's overall column minus its shown groups is the items
in no shown group (untyped, or in groups too small to show). When fewer than k such items
exist under embargo, the audit would have to withhold a whole shown column on every row to
protect them; instead they count in the smallest shown group (the column the audit would
withhold), whose title says so ("+2 other items"). No other column changes.

Lab-reported figures (tokens, cost) and counts that do not depend on the answer key
(regraded, judge-graded, unparsed samples) are outside the linear model and keep the plain
rule: withheld under k items. Calibration slopes are nonlinear and are withheld by the
Ladder under embargo. A withheld cell is never ranked, so a rank cannot leak it.

**What the audit guarantees, and what it does not.** With exact figures (only with
`insecure_exact_scores`), no linear combination of everything published determines the
results on fewer than k embargoed items of any submission: the test suite solves the
published system exactly (rational Gaussian elimination) for the subtraction attack and
checks the property on random item sets, groupings, releases and differences. It does not
bound what a prior over results lets a reader infer from a large cell (that is the Ladder's
job), and it treats item counts as known.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from builder.scoring import boards as B
from builder.scoring import definitions as D
from builder.scoring import gate
from builder.scoring.disclosure import audit, figures
from builder.scoring.frames import prepare
from builder.scoring.gate import Policy
from builder.scoring.kinds import REGISTRY
from builder.scoring.ladder import coarsen
from builder.scoring.regrade import NO_VERDICTS, Verdicts
from builder.scoring.spec import BoardSpec, ScoringSpec
from builder.scoring.tables import BoardRow, BoardTable, Cell, ReferenceRow
from builder.scoring.uncertainty import cells, rank


def score_benchmark(
    spec: ScoringSpec,
    items: pd.DataFrame,
    results: pd.DataFrame,
    submissions: pd.DataFrame,
    *,
    embargoed: bool,
    grid: float | None = None,
    released: Collection[str] = (),
    verdicts: Verdicts = NO_VERDICTS,
) -> list[BoardTable]:
    """Score every board the spec declares (contamination twins included, in spec order).

    Under embargo with a ``grid`` (the build passes the config's ``embargo.grid``), every
    published figure then goes through the Ladder (builder.scoring.ladder): rates on the
    grid, a lab's later submission shown only when it beats its best by the grid, ranks
    from the shown values, result counts and withheld cells' ``n`` dropped.

    `verdicts` are the equivalence path's verdicts graded beforehand (builder.scoring.regrade):
    scoring reads them as given and runs math-verify only for a pair they lack.

    Raises builder.scoring.frames.ScoringInputError if the frames contradict the spec.
    """
    # The matrices are small (submissions × items at most): BLAS threads only contend with
    # each other and the neighbours. On a loaded 2-core runner one rank-range Gram matrix
    # (300 × 1,141) took 20–60 ms on two threads and 2 ms on one, and one
    # LiveMathematicianBench disclosure audit (many tiny factorisations) 4 s against 0.03 s.
    with threadpool_limits(limits=1, user_api="blas"):
        return _score(spec, items, results, submissions, embargoed=embargoed, grid=grid, released=released, verdicts=verdicts)


def _score(
    spec: ScoringSpec,
    items: pd.DataFrame,
    results: pd.DataFrame,
    submissions: pd.DataFrame,
    *,
    embargoed: bool,
    grid: float | None,
    released: Collection[str],
    verdicts: Verdicts,
) -> list[BoardTable]:
    prep = prepare(spec, items, results, submissions, verdicts)
    ctx = B.Context(prep, embargoed)
    built: list[B.RawBoard] = []
    for board in spec.boards:
        if spec.contamination is not None and board.contamination:
            suffix = spec.contamination.all_suffix
            post = _build(ctx, board, board.id, True, "")
            full = _build(ctx, board, board.id + suffix, False, suffix)
            post.notes.insert(0, D.CONTAMINATION + f" The board {board.id + suffix} counts every item.")
            full.notes.insert(0, f"Counts every item, including items published before a model's training cutoff (see {board.id}).")
            built += [post, full]
        else:
            built.append(_build(ctx, board, board.id, False, ""))
    # One audit over every figure of every board (twins, composites, pairs) together.
    masks, public = _disclosure(ctx, built, released)
    out = [_finalize(ctx, raw, masks) for raw in built]
    if embargoed and grid:
        created = {
            str(s): (str(lab), c.to_pydatetime() if hasattr(c, "to_pydatetime") else c)
            for s, lab, c in zip(
                submissions["submission"],
                submissions["lab"],
                submissions.get("created", [datetime.min.replace(tzinfo=timezone.utc)] * len(submissions)),
            )
        }
        out = coarsen(out, created, grid, public)
    # Every board leaves scoring through the publication gate: under embargo, default-deny.
    policy = Policy(embargoed=embargoed, ladder=bool(embargoed and grid), min_cell_items=spec.min_cell_items)
    return [gate.board(table, policy, raw.spec.notes) for table, raw in zip(out, built)]


def _disclosure(
    ctx: B.Context, built: list[B.RawBoard], released: Collection[str]
) -> tuple[dict[tuple[str, str], np.ndarray], set[tuple[str, str, str]]]:
    """Withheld rows per audited (board, column), and the cells resting on released items
    only (builder.scoring.disclosure). Nothing is withheld outside an embargo."""
    if not ctx.embargoed:
        return {}, set()
    prep = ctx.prep
    public = np.isin(prep.item_ids, np.asarray(sorted(released), dtype=object)) if released else np.zeros(prep.n_items, dtype=bool)
    figs, covered = figures(built, public)
    withheld, constant = audit(figs, public, prep.spec.min_cell_items)
    rows = {raw.board_id: len(raw.rows) for raw in built}
    masks = {key: np.zeros(rows[key[0]], dtype=bool) for key in covered}
    for f in withheld:
        board, column, r = figs[f].key
        masks[(board, column)][r] = True
    subs_of = {raw.board_id: raw.rows for raw in built}
    shown = {(figs[f].key[0], figs[f].key[1], str(prep.sub_ids[subs_of[figs[f].key[0]][figs[f].key[2]]])) for f in constant}
    return masks, shown


RANK_ITEMS_NOTE = (
    "Models are ranked on different item sets here (each on the items published after its own "
    "training cutoff); the rank items column gives the number of items each row's rank rests on."
)


def _build(ctx: B.Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> B.RawBoard:
    return REGISTRY[board.kind].build(ctx, board, board_id, contaminated, suffix)


def _finalize(ctx: B.Context, raw: B.RawBoard, masks: dict[tuple[str, str], np.ndarray]) -> BoardTable:
    spec = ctx.prep.spec
    k = spec.min_cell_items
    # Audited columns are withheld by the audit alone (its primary rule counts embargoed
    # items only); the rest keep the plain small-cell rule.
    table = {
        name: cells(est, ctx.embargoed, 0 if (raw.board_id, name) in masks else k, masks.get((raw.board_id, name)))
        for name, est in raw.est.items()
    }
    defs = {m.name: m for m in raw.columns}

    def ranks_of(column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        usable = np.array([c.value is not None for c in table[column]], dtype=bool)
        better = defs[column].higher_is_better is not False
        return rank(raw.est[column], better, usable)

    rk, lo, hi = (np.full(len(raw.rows), np.nan),) * 3
    rank_by = raw.spec.rank_by
    if rank_by is not None and rank_by in raw.est:
        rk, lo, hi = ranks_of(rank_by)
    extras, description = _extras(raw, table, ranks_of)
    rows = _rows(ctx, raw, table, list(defs), (rk, lo, hi), extras)
    references = []
    for ref, cols in raw.references:
        metrics: dict[str, Cell] = {}
        for name in defs:
            if name in cols:
                est = cols[name]
                metrics[name] = cells(est, ctx.embargoed and est.infl is not None, k)[0]
        references.append(ReferenceRow(ref.id, ref.label, metrics, ref.note))

    # What of this is published under embargo is the publication gate's (builder.scoring.gate).
    summary: dict[str, Any] = dict(raw.summary)
    notes = list(raw.spec.notes) + raw.notes
    return BoardTable(
        benchmark=spec.benchmark,
        board=raw.board_id,
        title=raw.spec.title + (" (all items)" if raw.board_id != raw.spec.id else ""),
        description=description,
        metrics=tuple(raw.columns),
        rows=tuple(rows),
        notes=tuple(notes),
        reference_rows=tuple(references),
        rank_by=rank_by if rank_by in raw.est else None,
        kind=raw.spec.kind,
        summary=summary,
    )


def _extras(
    raw: B.RawBoard, table: dict[str, list[Cell]], ranks_of: Callable[[str], tuple[np.ndarray, np.ndarray, np.ndarray]]
) -> tuple[list[dict[str, Any]], str]:
    """Each row's extra fields (rank shift, the items a contaminated rank counts; a field
    whose column is withheld dropped) and the board's description."""
    r = len(raw.rows)
    extras = [dict(e) for e in raw.extras]
    if raw.spec.rank_shift is not None:
        a, b = raw.spec.rank_shift
        ra, rb = ranks_of(a)[0], ranks_of(b)[0]
        for i in range(r):
            extras[i][f"rank_{a}"] = _int(ra[i])
            extras[i][f"rank_{b}"] = _int(rb[i])
            extras[i]["rank_shift"] = None if np.isnan(ra[i]) or np.isnan(rb[i]) else int(ra[i] - rb[i])
    description = raw.spec.description
    rank_by = raw.spec.rank_by
    if raw.contaminated and rank_by is not None and rank_by in raw.est:
        # Each row ranks on the items after its own cutoff: say how many, beside the rank.
        for i in range(r):
            if table[rank_by][i].value is not None:
                extras[i]["rank_items"] = table[rank_by][i].n
        description = (description + " " if description else "") + RANK_ITEMS_NOTE
    for extra_key, column in raw.extra_needs.items():
        for i in range(r):
            if table[column][i].value is None:
                extras[i].pop(extra_key, None)
    return extras, description


def _rows(
    ctx: B.Context,
    raw: B.RawBoard,
    table: dict[str, list[Cell]],
    names: list[str],
    ranks: tuple[np.ndarray, np.ndarray, np.ndarray],
    extras: list[dict[str, Any]],
) -> list[BoardRow]:
    """The board's rows, ranked first (by rank, then submission, then baseline)."""
    rk, lo, hi = ranks
    models = ctx.prep.subs["model"].astype(str).to_numpy()
    labs = ctx.prep.subs["lab"].astype(str).to_numpy()
    rows = []
    for i, s in enumerate(raw.rows):
        span = None
        if not np.isnan(rk[i]) and lo[i] < hi[i]:
            span = (int(lo[i]), int(hi[i]))
        rows.append(
            BoardRow(
                submission=str(ctx.prep.sub_ids[s]),
                model=models[s],
                lab=labs[s],
                metrics={name: table[name][i] for name in names},
                rank=_int(rk[i]),
                rank_range=span,
                extra=extras[i],
            )
        )
    rows.sort(key=lambda row: (row.rank is None, row.rank or 0, row.submission, row.extra.get("baseline", "")))
    return rows


def _int(x: float) -> int | None:
    return None if np.isnan(x) else int(x)
