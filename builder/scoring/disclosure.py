"""The embargo's disclosure audit: one computation over every figure a build publishes.

**Threat model.** A reader (a lab holding a valid key, or anyone) sees every published
board of a benchmark at once — both twins of a contamination-aware board, breakdowns,
contrasts, composites, pairs — and may combine them linearly ("audit by linear algebra",
statistical disclosure control). During an embargo the results on any set of fewer than
``k`` (``min_cell_items``) embargoed items must not follow from what is published: that is
the small-cell rule, and a withheld cell recovered by subtraction (overall column minus the
other groups, a board minus its ``-all`` twin) breaks it.

**Model.** Every audited figure is a linear functional of one submission's per-item values:
a cell is Σ_{i∈S} a_i / Σ_{i∈S} d_i over its item set S (a_i the item's numerator, e.g. its
correct samples; d_i its known denominator, e.g. the samples), a count is Σ_{i∈S} a_i, and a
difference or composite a combination of cells (a TTS gain combines two submissions). The per-item values come in *streams* — one per graded quantity (correct,
pass@k, refusals, regrade disagreements, SCF) and selection of result conditions (language,
variant, sketch): values of different streams are different unknowns. The engine records
each figure's terms (:class:`Term`); they stay internal and are never published.

For each submission and stream, the *atoms* are the classes of items that belong to exactly
the same published item sets; the unknowns are the atoms' totals of a_i (the denominators
are treated as known — the reader is assumed to know every item count). Released items — in the scope of a
release statement in force — are public constants, not unknowns: that is how a partial
(rolling) release lifts suppression for its items and only for them. A published figure is
then a row over atoms; R is the space spanned by the published rows. A combination of atom
totals is *sensitive* if it rests on fewer than ``k`` embargoed items.

**Rule.** The published set is safe when R contains no non-zero vector supported on fewer
than ``k`` embargoed items. Checked as follows, per group of submissions a figure links:

1. primary: a figure with a term resting on 1…k−1 embargoed items is withheld;
2. with K a basis of R's null space, v ∈ R is supported on atoms T exactly when the rows of
   K indexed by T are linearly dependent. If the rows of K over the atoms with fewer than k
   embargoed items are independent (rank test: dim(R ∩ span{e_a : a small}) = 0), the set
   is safe. Otherwise a depth-first search over sets of small atoms of total weight < k
   (incremental Gram–Schmidt) finds a dependent set, or proves there is none; past a node
   budget it stops and treats the set as unsafe (conservative: it only withholds more);
3. secondary suppression (greedy, not optimal): for an offending v on atoms T, pick an atom
   a of T and a partner atom b outside T, and withhold every published figure that tells
   "one unit of value moved from b to a" apart from the truth. That move z = e_a − e_b is
   then in the null space of what stays published while v·z ≠ 0, so v is no longer
   determined; b is chosen to minimise the items of the figures withheld. Repeat from 2.
   Each round removes v from R, so dim(R ∩ span(small atoms)) falls and the loop ends.

Figures the audit does not model (lab-reported tokens and cost, counts of regraded or
unparsed samples, calibration fits) keep the plain small-cell rule in the engine. The
result is deterministic (sorted orders, no randomness) and cached per structure: under no
contamination every submission has the same item sets, so one audit serves them all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

import numpy as np

from builder.scoring.nulls import is_none

NODE_BUDGET = 20000  # search nodes per audit round before the conservative answer
_TOL = 1e-9


@dataclass(frozen=True)
class Term:
    """coef × Σ_{i∈elig[r]} a_i / Σ_{i∈elig[r]} d_i for each row r (d None: a plain sum)."""

    coef: float
    stream: tuple  # what a_i is: (quantity, k, result-condition selection)
    subs: np.ndarray  # (R,) submission index of each row
    elig: np.ndarray  # (R, I) bool: the row's item set
    d: np.ndarray | None  # (R, I) per-item denominators, or None

    def take(self, idx: np.ndarray) -> "Term":
        return Term(self.coef, self.stream, self.subs[idx], self.elig[idx], None if self.d is None else self.d[idx])

    def scaled(self, c: float) -> "Term":
        return replace(self, coef=self.coef * c)

    def on(self, subs: np.ndarray) -> "Term":
        """Rows that were computed on submissions `subs` (row r of the term is subs[r])."""
        return replace(self, subs=np.asarray(subs)[self.subs])


@dataclass
class Figure:
    """One published number: where it is, how many items it rests on, what it is made of."""

    key: tuple[str, str, int]  # (board id, column, row)
    cost: int
    # per term: coef, stream, submission, item set, denominators, embargoed item set (packed bits), Σd
    terms: list[tuple[float, tuple, int, np.ndarray, np.ndarray | None, bytes, float]]


def figures(boards: Iterable[Any], public: np.ndarray) -> tuple[list[Figure], set[tuple[str, str]]]:
    """The audited figures of raw boards (objects with board_id and est), and the
    (board, column) pairs the audit covers. Undefined cells publish nothing. `public`
    (I,) bool marks released items."""
    out: list[Figure] = []
    covered: set[tuple[str, str]] = set()
    embargoed = ~public
    done: dict[int, tuple[list, list, list, list, list]] = {}  # per term: its rows as Python values
    for raw in boards:
        for name, est in raw.est.items():
            if not est.basis:
                continue
            covered.add((raw.board_id, name))
            for t in est.basis:  # once per term, vectorised over its rows, as Python values
                if id(t) not in done:
                    # Σd over the row's items; d holds integers (sample-count multiples, nano-dollars), so any order of addition is exact
                    totals = np.count_nonzero(t.elig, axis=1).astype(np.float64) if t.d is None else np.einsum("ij,ij->i", t.elig, t.d)
                    packed = np.ascontiguousarray(np.packbits(t.elig & embargoed, axis=1))
                    whole, width = packed.tobytes(), packed.shape[1]
                    done[id(t)] = (
                        t.subs.tolist(),
                        list(t.elig),
                        [None] * len(t.elig) if t.d is None else list(t.d),
                        [whole[i * width : (i + 1) * width] for i in range(len(packed))],
                        totals.tolist(),
                    )
            defined = is_none(est.flag) & ~np.isnan(est.value)
            parts = [(t.coef, t.stream, *done[id(t)]) for t in est.basis]
            n = est.n.tolist()
            for r in np.flatnonzero(defined).tolist():
                terms = [
                    (coef, stream, subs[r], elig[r], d[r], packed[r], totals[r]) for coef, stream, subs, elig, d, packed, totals in parts
                ]
                out.append(Figure((raw.board_id, name, r), int(n[r]), terms))
    return out, covered


def audit(figs: list[Figure], public: np.ndarray, k: int) -> tuple[set[int], set[int]]:
    """Which figures to withhold (indices into `figs`), and which rest on public items only.

    `public` (I,) bool marks released items (constants, not unknowns): the same array that
    :func:`figures` packed each term's embargoed items with."""
    embargoed = ~public
    withheld: set[int] = set()
    constant: set[int] = set()
    for f, fig in enumerate(figs):
        # embargoed items per term: the popcount of its packed embargoed set (figures())
        counts = [int.from_bytes(packed, "big").bit_count() for *_, packed, _ in fig.terms]
        if any(0 < c < k for c in counts):
            withheld.add(f)  # primary: isolates 1…k−1 embargoed items
        elif not any(counts):
            constant.add(f)  # public items only: a constant, nothing to protect
    groups = _groups(figs, withheld | constant)
    cache: dict[tuple, list[int]] = {}
    # Many tiny factorisations, on one BLAS thread: score_benchmark (builder.scoring.engine)
    # limits the whole of scoring to one.
    for members in groups:
        withheld |= _audit_group(figs, members, embargoed, k, cache)
    withheld |= _composites_of(figs, withheld)
    return withheld, constant


def _groups(figs: list[Figure], skip: set[int]) -> list[list[int]]:
    """Figures grouped by the submissions they involve (a figure over two submissions joins
    their groups), each group's figures in order."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for f, fig in enumerate(figs):
        if f in skip:
            continue
        subs = [t[2] for t in fig.terms]
        for s in subs[1:]:
            parent[find(s)] = find(subs[0])
    out: dict[int, list[int]] = {}
    for f, fig in enumerate(figs):
        if f not in skip:
            out.setdefault(find(fig.terms[0][2]), []).append(f)
    return [out[g] for g in sorted(out)]


def _rows(figs: list[Figure], members: list[int], embargoed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F, m) rows over the group's atoms, and each atom's number of embargoed items."""
    # per (submission, stream): member, term, coef, item set, Σd (None: the term has no denominators)
    per_unit: dict[tuple[int, tuple], list[tuple[int, int, float, np.ndarray, float | None]]] = {}
    for j, f in enumerate(members):
        for t, (coef, stream, sub, elig, d, _, sum_d) in enumerate(figs[f].terms):
            per_unit.setdefault((sub, stream), []).append((j, t, coef, elig, sum_d if d is not None else None))
    rows = np.zeros((len(members), 0))
    weights: list[int] = []
    blocks = []
    for unit in sorted(per_unit, key=lambda u: (u[0], repr(u[1]))):
        entries = per_unit[unit]
        member = np.stack([elig & embargoed for _, _, _, elig, _ in entries])  # (T, I)
        live = member.any(axis=0)
        if not live.any():
            continue
        # atoms: the items of equal membership; packed bits make the columns cheap to compare
        packed = np.ascontiguousarray(np.packbits(member[:, live], axis=0).T)
        code: np.ndarray
        if packed.shape[1] <= 8:  # up to 64 item sets: one integer per item
            code = np.pad(packed, ((0, 0), (0, 8 - packed.shape[1]))).view(np.uint64).ravel()
        else:
            code = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
        cols, inverse = np.unique(code, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        counts = np.bincount(inverse, minlength=len(cols))
        first = np.zeros(len(cols), dtype=np.int64)  # one representative item per atom
        first[inverse[::-1]] = np.arange(len(inverse))[::-1]
        inside = member[:, live][:, first]  # (T, m): does the term's item set hold the atom
        block = np.zeros((len(members), len(cols)))
        for (j, _, coef, _, total), value in zip(entries, inside):
            # unknowns: each atom's total of the per-item numerators a_i; W = Σ d over the
            # whole item set (released items included: their a_i are constants)
            block[j] += (coef if total is None else coef / total) * value
        blocks.append(block)
        weights += counts.tolist()
    if blocks:
        rows = np.hstack(blocks)
    return rows, np.asarray(weights, dtype=np.int64)


def _audit_group(figs: list[Figure], members: list[int], embargoed: np.ndarray, k: int, cache: dict[tuple, list[int]]) -> set[int]:
    # The structure (item sets, weights, costs, with submissions renamed by first
    # appearance) decides the outcome, so groups of equal structure share one audit.
    local: dict[int, int] = {}
    key: list[Any] = []
    for f in members:
        fig = figs[f]
        key.append(fig.cost)
        for coef, stream, sub, _, d, packed, total in fig.terms:
            key.append((coef, stream, local.setdefault(sub, len(local)), packed, d is None, total))
    signature = tuple(key)
    if signature not in cache:
        rows, weight = _rows(figs, members, embargoed)
        cost = np.array([figs[m].cost for m in members], dtype=np.float64)
        cache[signature] = _protect(rows, weight, cost, k)
    return {members[j] for j in cache[signature]}


def _protect(rows: np.ndarray, weight: np.ndarray, cost: np.ndarray, k: int) -> list[int]:
    """Local indices of rows to withhold so that no vector of the remaining rows' span rests
    on fewer than k embargoed items (see the module text)."""
    alive = np.ones(len(rows), dtype=bool)
    while alive.any():
        v = offending(rows[alive], weight, k)
        if v is None:
            break
        support = np.flatnonzero(v)
        a = int(support[np.argmax(np.abs(v[support]))])
        live_rows = np.flatnonzero(alive)
        here = rows[live_rows]
        scale = max(1.0, float(np.abs(here).max(initial=0.0)))
        diff = np.abs(here[:, [a]] - here) > _TOL * scale  # (F, m): rows that see a unit moved from b to a
        lost = cost[live_rows] @ diff + 1e-9 * diff.sum(axis=0)  # items withheld for each partner b
        lost[support] = np.inf
        lost[~diff.any(axis=0)] = np.inf  # a partner no row tells apart would withhold nothing
        if np.isfinite(lost).any():
            gone = live_rows[diff[:, int(np.argmin(lost))]]
        else:
            # no partner outside the support: withhold every row that touches the support
            gone = live_rows[(np.abs(here[:, support]) > _TOL * scale).any(axis=1)]
            if not len(gone):
                gone = live_rows  # numerically degenerate: publish nothing of this group
        alive[gone] = False
    return np.flatnonzero(~alive).tolist()


def offending(rows: np.ndarray, weight: np.ndarray, k: int, budget: int = NODE_BUDGET) -> np.ndarray | None:
    """A vector in the row space of `rows` (over atoms) resting on fewer than k embargoed
    items, or None if there is none."""
    m = rows.shape[1]
    small_mask = weight < k
    small = np.flatnonzero(small_mask)
    if not len(small) or not len(rows):
        return None
    # dim(R ∩ span{e_a : a small}) = rank(R) − rank(R restricted to the other atoms)
    big = rows[:, ~small_mask]
    if _rank(rows) == _rank(big):
        return None
    # R ∩ span(small atoms) = {yᵀR : yᵀR_big = 0}: y in the left null space of R_big
    u, sv, _ = np.linalg.svd(big, full_matrices=False)
    rb = _rank(big, sv)
    q, _ = np.linalg.qr(u[:, :rb], mode="complete")
    V = q[:, rb:].T @ rows[:, small]
    keep = np.abs(V).max(axis=0) > _TOL * max(1.0, float(np.abs(V).max(initial=0.0)))
    small, V = small[keep], V[:, keep]  # atoms no vector of R ∩ span(small) touches cannot help
    _, sv, vt = np.linalg.svd(V, full_matrices=False)
    B = vt[: _rank(V, sv)]  # orthonormal basis of R ∩ span(small atoms), over `small`
    order = np.argsort(weight[small], kind="stable")
    found = _search(B[:, order], weight[small][order], k, budget)
    if found is None:
        return None
    v = np.zeros(m)
    if isinstance(found, str):  # "budget"
        # Undecided within the budget: treat as unsafe, with the sparsest basis vector of
        # R ∩ span(small atoms) (conservative: it can only withhold more).
        v[small] = B[np.argmin((np.abs(B) > _TOL).sum(axis=1))]
        return v
    chosen = [int(order[j]) for j in found]
    # the vector of span(B) supported on `chosen`: c with cᵀB = 0 off `chosen`
    rest = np.ones(len(small), dtype=bool)
    rest[chosen] = False
    if rest.any():
        _, sv2, vt2 = np.linalg.svd(B[:, rest].T, full_matrices=True)
        c = vt2[_rank(B[:, rest], sv2)]
    else:
        c = np.eye(len(B))[0]
    v[small] = c @ B
    v[np.abs(v) <= _TOL * max(1.0, float(np.abs(v).max(initial=0.0)))] = 0.0
    return v


def _rank(a: np.ndarray, sv: np.ndarray | None = None) -> int:
    if a.size == 0:
        return 0
    if sv is None:
        sv = np.linalg.svd(a, compute_uv=False)
    return int((sv > sv.max(initial=0.0) * max(a.shape) * np.finfo(float).eps * 1e3).sum())


def _search(B: np.ndarray, w: np.ndarray, k: int, budget: int) -> list[int] | str | None:
    """Columns T of B (weights w, ascending) with total weight < k such that span(B) holds a
    non-zero vector supported on T; None if there is none, "budget" if the search ran out.

    With Q = I − BᵀB (the projector onto the complement of span(B)), span(B) holds a vector
    supported on T exactly when Q[T, T] is singular; the search grows T depth-first and
    keeps the Cholesky factor of Q[T, T], so each step solves one triangular system of at
    most k − 1 unknowns.
    """
    n = B.shape[1]
    diag = 1.0 - np.einsum("ij,ij->j", B, B)
    for j in range(n):
        if diag[j] <= 1e-9:
            return [j]  # the atom itself is determined
    nodes = 0

    def dfs(start: int, chosen: list[int], L: np.ndarray, total: int) -> list[int] | str | None:
        nonlocal nodes
        for j in range(start, n):
            if total + w[j] >= k:
                break  # weights ascend: nothing further fits
            col = -(B[:, chosen].T @ B[:, j])  # Q[chosen, j]
            ell = np.linalg.solve(L, col) if chosen else col
            rest = diag[j] - float(ell @ ell)
            if rest <= 1e-9:
                return chosen + [j]
            nodes += 1
            if nodes > budget:
                return "budget"
            grown = np.zeros((len(chosen) + 1, len(chosen) + 1))
            grown[:-1, :-1] = L
            grown[-1, :-1] = ell
            grown[-1, -1] = rest**0.5
            got = dfs(j + 1, chosen + [j], grown, total + int(w[j]))
            if got is not None:
                return got
        return None

    return dfs(0, [], np.zeros((0, 0)), 0)


def _composites_of(figs: list[Figure], withheld: set[int]) -> set[int]:
    """Figures built from a withheld cell (a composite, a difference) are withheld with it."""

    def term_key(t: tuple) -> tuple:
        _, stream, sub, elig, *_ = t
        return (stream, sub, np.packbits(elig).tobytes())

    gone = {term_key(figs[f].terms[0]) for f in withheld if len(figs[f].terms) == 1}
    return {f for f, fig in enumerate(figs) if len(fig.terms) > 1 and any(term_key(t) in gone for t in fig.terms)}
