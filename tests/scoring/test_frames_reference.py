"""Each fast path of builder.scoring.frames equals its plain reference
(builder.scoring.frames_reference) on random inputs: exactly, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.scoring.frames import FLAG_TABLES, Prepared, _reduce, count_coded
from builder.scoring.frames_reference import count_plain, dense_plain, reduce_plain


@st.composite
def _rows(draw):
    """Result rows as prepare reduces them: codes, a row byte, integer tokens and nano-dollars."""
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 5)), draw(st.integers(1, 6)))
    n = draw(st.integers(0, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cond, sub, item = (rng.integers(0, k, n) for k in shape)
    row_byte = rng.integers(0, 256, n).astype(np.uint8)
    tok = rng.integers(0, 5000, n).astype(np.float64)
    cost = rng.integers(0, 10**9, n).astype(np.float64)
    return shape, cond, sub, item, row_byte, tok, cost


def _reduced(rows, dense_limit):
    shape, cond, sub, item, row_byte, tok, cost = rows
    return _reduce(cond, sub, item, shape, row_byte, tok, cost, dense_limit=dense_limit)


@settings(max_examples=60, deadline=None)
@given(rows=_rows(), dense=st.booleans())
def test_reduce_equals_a_groupby_of_the_rows(rows, dense) -> None:
    """Both of _reduce's paths (a table of every cell, or a sort of the occupied ones)."""
    cond, sub, item, sums = _reduced(rows, 1 << 24 if dense else 0)
    _, r_cond, r_sub, r_item, row_byte, tok, cost = rows
    want_cond, want_sub, want_item, want = reduce_plain(r_cond, r_sub, r_item, row_byte, tok, cost)
    for got_i, want_i in ((cond, want_cond), (sub, want_sub), (item, want_item)):
        np.testing.assert_array_equal(got_i, want_i)
    assert set(sums) == set(want)
    for name in want:
        assert sums[name].dtype == np.float64
        np.testing.assert_array_equal(sums[name], want[name], err_msg=name)


@settings(max_examples=100, deadline=None)
@given(
    cells=st.integers(1, 40),
    rows=st.integers(0, 400),
    n_flags=st.integers(0, 9),
    crowd=st.sampled_from([1, 3, 200]),  # how many rows may share a cell: 200 overflows the packing
    seed=st.integers(0, 2**32 - 1),
)
def test_count_coded_equals_one_bincount_per_flag(cells, rows, n_flags, crowd, seed) -> None:
    rng = np.random.default_rng(seed)
    cell = np.sort(rng.integers(0, min(cells, max(1, rows // crowd + 1)), rows))
    code = rng.integers(0, 256, rows).astype(np.uint8)
    tables = {f"f{j}": rng.random(256) < rng.random() for j in range(n_flags)}
    most = int(np.bincount(cell, minlength=cells).max(initial=0))
    got = count_coded(cell, cells, code, tables, most)
    want = count_plain(cell, cells, code, tables)
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


@settings(max_examples=60, deadline=None)
@given(rows=_rows(), pick=st.integers(1, 15))
def test_dense_sums_equal_a_groupby_of_the_selected_cells(rows, pick) -> None:
    shape, *_ = rows
    cond, sub, item, sums = _reduced(rows, 1 << 24)
    n_conds, n_subs, n_items = shape
    prep = Prepared(
        spec=None, item_ids=np.arange(n_items).astype(str), items=pd.DataFrame(), item_tokens={}, item_bp={}, item_start={},
        sub_ids=np.arange(n_subs).astype(str), subs=pd.DataFrame(), conds=pd.DataFrame({"lang": [str(c) for c in range(n_conds)]}),
        cond=cond, sub=sub, item=item, sums=sums, sub_order=np.full(n_subs, np.nan),
    )  # fmt: skip
    conds = np.array([(pick >> c) & 1 for c in range(n_conds)], dtype=bool)
    names = ["n", *FLAG_TABLES, "tok", "cost"]
    got, want = prep.dense(conds, names), dense_plain(prep, conds, names)
    for name in names:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
