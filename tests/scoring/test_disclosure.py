"""The joint disclosure audit (builder.scoring.disclosure), attacked from outside.

The attacker's tool here is exact linear algebra over everything a build publishes: each
published cell is an equation on a submission's per-item results (its item set follows
from the board's definition and the published item counts). A set of results is
recovered exactly when its total lies in the row space of those equations.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.scoring import score_benchmark
from builder.scoring.disclosure import Figure, audit

from .frames import Instance

pytestmark = pytest.mark.slow  # property tests of the disclosure audit (~30 s)

EDITIONS = [f"2025-0{m}" for m in range(1, 7)]
CATEGORIES = ("direct", "converse", "existence")
STREAMS = {  # result condition of each published column of LiveMathematicianBench's boards
    "std": {"variant": "standard", "sketch": False},
    "sub": {"variant": "substitution", "sketch": False},
    "sketch": {"variant": "standard", "sketch": True},
}


def exact_rank(rows: list[list[Fraction]]) -> int:
    """Rank by Gaussian elimination over the rationals (no rounding anywhere)."""
    m = [list(r) for r in rows if any(r)]
    rank, col = 0, 0
    width = len(m[0]) if m else 0
    while rank < len(m) and col < width:
        pivot = next((i for i in range(rank, len(m)) if m[i][col] != 0), None)
        if pivot is None:
            col += 1
            continue
        m[rank], m[pivot] = m[pivot], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][col] != 0:
                f = m[i][col] / m[rank][col]
                m[i] = [a - f * b for a, b in zip(m[i], m[rank])]
        rank += 1
        col += 1
    return rank


def reduced(rows: list[list[Fraction]]) -> list[tuple[int, list[Fraction]]]:
    """Reduced row echelon form over the rationals: (pivot column, row) pairs."""
    basis: list[tuple[int, list[Fraction]]] = []
    for row in rows:
        r = reduce_by(basis, row)
        pivot = next((j for j, x in enumerate(r) if x != 0), None)
        if pivot is None:
            continue
        r = [x / r[pivot] for x in r]
        basis = [(p, b if b[pivot] == 0 else _minus(b, b[pivot], r)) for p, b in basis]
        basis.append((pivot, r))
    return basis


def _minus(row: list[Fraction], f: Fraction, other: list[Fraction]) -> list[Fraction]:
    """row - f·other, exactly; a zero of ``other`` leaves its column as it is (the rows are
    sparse: skipping those Fraction products took this module from 10.9 to 5.2 CPU-s)."""
    return [x - f * y if y else x for x, y in zip(row, other)]


def reduce_by(basis: list[tuple[int, list[Fraction]]], row: list[Fraction]) -> list[Fraction]:
    r = list(row)
    for pivot, b in basis:
        if r[pivot] != 0:
            r = _minus(r, r[pivot], b)
    return r


def determined(equations: list[list[Fraction]], target: list[Fraction], basis: list | None = None) -> bool:
    """Whether target·x follows from the equations' values (target in their row space)."""
    basis = reduced(equations) if basis is None else basis
    return not any(reduce_by(basis, target))


def lmb_instance(seed: int = 9) -> tuple[Instance, dict[str, dict]]:
    """Six editions of 10 items, three categories across them; days 1, 3, …, 19 of each
    month. acme's training cutoff falls 3 items into 2025-03, gamma's 1 item into 2025-05,
    beta's before every item."""
    rng = random.Random(seed)
    inst = Instance("livemathematicianbench")
    meta = {}
    for e, edition in enumerate(EDITIONS):
        for j in range(10):
            iid = f"q{e}{j}"
            meta[iid] = {"edition": edition, "category": CATEGORIES[(j + e) % 3], "published": f"{edition}-{1 + 2 * j:02d}"}
            inst.item(iid, answer_type="choice", gold="A", **meta[iid])
    for sub, cutoff in (("acme/a", "2025-03-05"), ("beta/b", "2024-12-31"), ("gamma/c", "2025-05-01")):
        inst.sub(sub, training_cutoff=cutoff)
        for iid in meta:
            for cond in STREAMS.values():
                inst.answer(sub, iid, [rng.random() < 0.5], **cond)
    return inst, meta


def equations(boards: dict, sub: str, meta: dict[str, dict], cutoff: str) -> tuple[list[list[Fraction]], list[str]]:
    """Every published cell of `sub` on every correctness board, as an equation over the
    unknowns (stream, item): n·value = Σ results over the cell's items."""
    items = sorted(meta)
    unknowns = [(s, i) for s in STREAMS for i in items]
    index = {u: n for n, u in enumerate(unknowns)}

    def item_set(board: str, column: str) -> list[str]:
        after = not board.endswith("-all")
        chosen = [i for i in items if not after or meta[i]["published"] > cutoff]
        if "=" in column:
            field, value = column.split("=", 1)
            chosen = [i for i in chosen if meta[i][field] == value]
        return chosen

    columns = {  # column -> [(coefficient, stream)] of its per-item results
        "accuracy": [(1, "std")],
        "standard": [(1, "std")],
        "no_sketch": [(1, "std")],
        "substitution": [(1, "sub")],
        "with_sketch": [(1, "sketch")],
        "substitution_minus_standard": [(1, "sub"), (-1, "std")],
        "sketch_gain": [(1, "sketch"), (-1, "std")],
    }
    out = []
    for name, board in boards.items():
        if board.kind == "grading":
            continue  # regrade disagreements: other unknowns, and none here (honest verdicts)
        row = next(r for r in board.rows if r.submission == sub)
        for column, cell in row.metrics.items():
            if cell.value is None:
                continue
            terms = columns.get(column.split("=")[0] if "=" in column else column, [(1, "std")])
            chosen = item_set(name, column)
            assert cell.n == len(chosen), (name, column)  # the published n is the reader's item count
            eq = [Fraction(0)] * len(unknowns)
            for coef, stream in terms:
                for i in chosen:
                    eq[index[(stream, i)]] += coef
            out.append(eq)
    return out, [f"{s}:{i}" for s, i in unknowns]


def target(names: list[str], items: list[str], stream: str = "std") -> list[Fraction]:
    return [Fraction(1) if n.split(":")[0] == stream and n.split(":")[1] in items else Fraction(0) for n in names]


CUTOFFS = {"acme/a": "2025-03-05", "beta/b": "2024-12-31", "gamma/c": "2025-05-01"}
FEW = {"acme/a": ["q20", "q21", "q22"], "gamma/c": ["q40"]}  # the items a cutoff cuts off an edition


@pytest.mark.parametrize("grid", [None, 0.05])
def test_subtraction_attack_no_longer_recovers_the_cut_off_items(grid):
    inst, meta = lmb_instance()
    items, results, subs = inst.frames()
    boards = {t.board: t for t in score_benchmark(inst.spec, items, results, subs, embargoed=True, grid=grid)}
    for sub, cutoff in CUTOFFS.items():
        eqs, names = equations(boards, sub, meta, cutoff)
        basis = reduced(eqs)
        for few in FEW.values():
            for stream in STREAMS:
                assert not determined(eqs, target(names, few, stream), basis), (sub, few, stream)
    if grid is None:  # exact figures (the demo's insecure mode): the audit alone decides
        withheld = {
            sub: {
                (b, c)
                for b, t in boards.items()
                for r in t.rows
                if r.submission == sub
                for c, cell in r.metrics.items()
                if cell.suppressed and not cell.flag
            }
            for sub in CUTOFFS
        }
        # acme: the 3 pre-cutoff items of 2025-03 = (2025-03 all) − (2025-03 after cutoff);
        # withholding 2025-03's -all cell and its cheapest complement (2025-02, every item
        # before the cutoff: 2025-02 + the 3 items = 13 ≥ 5) breaks every such difference,
        # while the contamination-aware board keeps its 7-item 2025-03 cell.
        assert withheld == {
            "acme/a": {("editions-all", "edition=2025-02"), ("editions-all", "edition=2025-03")},
            "beta/b": set(),
            "gamma/c": {("editions-all", "edition=2025-02"), ("editions-all", "edition=2025-05")},
        }
        kept = next(r for r in boards["editions"].rows if r.submission == "acme/a").metrics["edition=2025-03"]
        assert kept.n == 7 and kept.value is not None
        hidden = next(r for r in boards["editions-all"].rows if r.submission == "acme/a").metrics["edition=2025-03"]
        assert hidden.to_dict() == {"value": None, "ci_low": None, "ci_high": None, "n": None, "suppressed": True}


def test_without_the_embargo_the_same_solve_recovers_them():
    """The control: the attack is real — the open boards determine those totals exactly."""
    inst, meta = lmb_instance()
    items, results, subs = inst.frames()
    boards = {t.board: t for t in score_benchmark(inst.spec, items, results, subs, embargoed=False)}
    eqs, names = equations(boards, "acme/a", meta, CUTOFFS["acme/a"])
    assert determined(eqs, target(names, FEW["acme/a"]))
    eqs, names = equations(boards, "gamma/c", meta, CUTOFFS["gamma/c"])
    assert determined(eqs, target(names, FEW["gamma/c"]))


def test_no_small_item_set_of_any_submission_is_determined():
    """Stronger than the named sets: for every submission, no set of fewer than k = 5
    items of one stream has its total determined (all 1-, 2-item sets and the
    cutoff-adjacent 3- and 4-item sets checked exactly)."""
    inst, meta = lmb_instance()
    items, results, subs = inst.frames()
    boards = {t.board: t for t in score_benchmark(inst.spec, items, results, subs, embargoed=True)}
    ids = sorted(meta)
    for sub, cutoff in CUTOFFS.items():
        eqs, names = equations(boards, sub, meta, cutoff)
        basis = reduced(eqs)
        near = [i for i in ids if meta[i]["edition"] in ("2025-03", "2025-05")]
        candidates = [list(c) for r in (1, 2) for c in combinations(ids, r)] + [list(c) for r in (3, 4) for c in combinations(near, r)]
        for few in candidates:
            assert not determined(eqs, target(names, few), basis), (sub, few)


# -- property: random item sets, groupings, cutoffs and releases -----------------------


def _figures(sets: list[tuple[int, ...]], diffs: list[tuple[int, int]], public: np.ndarray) -> list[Figure]:
    out = []
    for f, members in enumerate(sets):
        elig = np.zeros(len(public), dtype=bool)
        elig[list(members)] = True
        packed = np.packbits(elig & ~public).tobytes()
        out.append(
            Figure(("b", f"c{f}", 0), len(members), [(1.0, ("avg", 0, b""), 0, elig, np.ones(len(public)), packed, float(len(members)))])
        )
    for a, b in diffs:  # a difference of two cells (a contrast's delta, a twin gap)
        ta, tb = out[a].terms[0], out[b].terms[0]
        out.append(Figure(("b", f"d{a}-{b}", 0), 0, [ta, (-1.0, *tb[1:])]))
    return out


def _published_rows(figs: list[Figure], keep: list[int], public: np.ndarray) -> list[list[Fraction]]:
    rows = []
    for f in keep:
        row = [Fraction(0)] * len(public)
        for coef, _, _, elig, _, _, total in figs[f].terms:
            for i in np.flatnonzero(elig & ~public).tolist():
                row[i] += Fraction(coef) / Fraction(total)
        rows.append(row)
    return rows


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_after_the_audit_no_small_item_set_is_in_the_span(data):
    n_items = data.draw(st.integers(4, 9), label="items")
    k = data.draw(st.integers(2, 4), label="k")
    subsets = st.sets(st.integers(0, n_items - 1), min_size=1, max_size=n_items).map(lambda s: tuple(sorted(s)))
    sets = data.draw(st.lists(subsets, min_size=1, max_size=7), label="item sets")
    diffs = data.draw(
        st.lists(st.tuples(st.integers(0, len(sets) - 1), st.integers(0, len(sets) - 1)).filter(lambda p: p[0] != p[1]), max_size=2),
        label="differences",
    )
    public = np.array(data.draw(st.lists(st.booleans(), min_size=n_items, max_size=n_items), label="released"))
    figs = _figures(sets, diffs, public)
    withheld, constant = audit(figs, public, k)
    keep = [f for f in range(len(figs)) if f not in withheld]
    rows = _published_rows(figs, keep, public)
    embargoed = np.flatnonzero(~public).tolist()
    base = exact_rank(rows) if rows else 0
    # Checked over items, independently of the audit's atoms: no set T of fewer than k
    # embargoed items carries a vector of the published span (rank drops without T).
    for size in range(1, k):
        for T in combinations(embargoed, size):
            outside = [[r[i] for i in range(n_items) if i not in T] for r in rows]
            assert (exact_rank(outside) if rows else 0) == base, (T, sets, diffs, public.tolist())
    # constants rest on released items only
    for f in constant:
        assert all(not (elig & ~public).any() for _, _, _, elig, *_ in figs[f].terms)


def test_safe_structure_withholds_nothing():
    """A partition into groups of at least k items plus their total: nothing to protect."""
    sets = [tuple(range(0, 5)), tuple(range(5, 11)), tuple(range(11, 17)), tuple(range(17))]
    withheld, _ = audit(_figures(sets, [], np.zeros(17, dtype=bool)), np.zeros(17, dtype=bool), 5)
    assert withheld == set()


def test_one_small_group_costs_one_partner_cell():
    """Groups 5, 6, 3 and the total: the 3-item group is withheld (primary), and the
    cheapest complement (the 5-item group) with it; the total and the 6-item group stay."""
    sets = [tuple(range(0, 5)), tuple(range(5, 11)), tuple(range(11, 14)), tuple(range(14))]
    withheld, _ = audit(_figures(sets, [], np.zeros(14, dtype=bool)), np.zeros(14, dtype=bool), 5)
    assert withheld == {0, 2}


# -- partial release ---------------------------------------------------------------------


def _release_instance() -> Instance:
    """LiveMathematicianBench: editions 2025-01 (3 items), 2025-02 (20), 2025-03 (3),
    2025-04 (20); every model's cutoff before them all."""
    inst = Instance("livemathematicianbench")
    sizes = {"2025-01": 3, "2025-02": 20, "2025-03": 3, "2025-04": 20}
    for edition, n in sizes.items():
        for j in range(n):
            inst.item(
                f"{edition}-{j:02d}", answer_type="choice", gold="A", edition=edition, category=f"c{j % 2}", published=f"{edition}-10"
            )
    for sub in ("acme/a", "beta/b"):
        inst.sub(sub, training_cutoff="2024-06")
        for it in inst.items:
            inst.answer(sub, it["item"], [it["item"].endswith(("0", "2", "4"))], variant="standard", sketch=False)
    return inst


@pytest.mark.parametrize("grid", [None, 0.05])
def test_a_partial_release_lifts_suppression_for_its_items_only(grid):
    inst = _release_instance()
    items, results, subs = inst.frames()
    released = [i for i in items["item"] if i.startswith(("2025-01", "2025-02"))]  # the oldest editions
    sealed = {t.board: t for t in score_benchmark(inst.spec, items, results, subs, embargoed=True, grid=grid)}
    rolling = {t.board: t for t in score_benchmark(inst.spec, items, results, subs, embargoed=True, grid=grid, released=released)}
    row = next(r for r in rolling["editions"].rows if r.submission == "acme/a").metrics
    before = next(r for r in sealed["editions"].rows if r.submission == "acme/a").metrics
    # 2025-01 rests on 3 released items: withheld before the release, shown exactly after
    assert before["edition=2025-01"].suppressed
    assert (row["edition=2025-01"].value, row["edition=2025-01"].n) == (pytest.approx(2 / 3), 3)  # items 00 and 02 right
    # 2025-03 isolates 3 embargoed items: still withheld, n too
    assert row["edition=2025-03"].to_dict() == {"value": None, "ci_low": None, "ci_high": None, "n": None, "suppressed": True}
    # and no combination of what is shown — with the released items' results known to
    # everyone — gives those 3 items' total (overall − 2025-04 − released would)
    meta = {it["item"]: {k: it[k] for k in ("edition", "category", "published")} for it in inst.items}
    eqs, names = equations(rolling, "acme/a", meta, "2024-06")
    eqs += [target(names, [i]) for i in released]  # public: each released result is known
    few = [i for i in meta if i.startswith("2025-03")]
    assert not determined(eqs, target(names, few))
    for i in few:
        assert not determined(eqs, target(names, [i]))
