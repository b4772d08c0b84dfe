"""scoring.frames.prepare reduces rows by integer codes (factorised ids, bincount sums):
the boards must not depend on how the frames hold their strings (Arrow, as the build's
parser makes them; Python objects; categoricals) or on row order, and the per-cell sums
must equal a plain pandas groupby of the same rows."""

from __future__ import annotations

import numpy as np
import orjson
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.bundles.results import parse_results
from builder.demo import synth_lmb, synth_soohak
from builder.pipeline.stages import items_frame
from builder.scoring import default_spec, score_benchmark
from builder.scoring.frames import count_coded, prepare


def _demo_frames(module, benchmark: str, subs: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The demo's items and its first `subs` submissions, parsed as the build parses them."""
    spec = default_spec(benchmark)
    synth = module.generate(0)
    frames = []
    for s in synth.submissions[:subs]:
        data = b"".join(orjson.dumps(r) + b"\n" for r in s.results)
        frame = parse_results(data, s.submission, spec.results_extras()).rename(columns={"correct": "lab_correct"})
        frame.insert(0, "submission", f"{s.lab}/{s.submission}")
        frames.append(frame)
    results = pd.concat(frames, ignore_index=True)
    items = items_frame(synth.items, spec.primary_language)
    subs_frame = pd.DataFrame(
        {
            "submission": [f"{s.lab}/{s.submission}" for s in synth.submissions[:subs]],
            "lab": [s.lab for s in synth.submissions[:subs]],
            "model": [s.model["name"] for s in synth.submissions[:subs]],
            "model_id": [s.model["id"] for s in synth.submissions[:subs]],
            "family": [s.model.get("family") for s in synth.submissions[:subs]],
            "training_cutoff": [
                pd.Timestamp(s.model["training_cutoff"]) if s.model.get("training_cutoff") else pd.NaT for s in synth.submissions[:subs]
            ],
            "tts": False,
        }
    )
    return items, results, subs_frame


def _as_objects(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype({c: object for c in frame.columns if pd.api.types.is_string_dtype(frame[c])})


def _as_categories(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype({c: "category" for c in ("submission", "item", "lang") if c in frame})


@pytest.mark.parametrize(("module", "name", "subs"), [(synth_lmb, "livemathematicianbench", 5), (synth_soohak, "soohak", 4)])
def test_boards_do_not_depend_on_how_the_frames_hold_their_strings(module, name, subs) -> None:
    items, results, submissions = _demo_frames(module, name, subs)
    assert pd.api.types.is_string_dtype(results["item"]) and not isinstance(results["item"].dtype, pd.CategoricalDtype)
    spec = default_spec(name)
    for embargoed in (False, True):
        base = [t.to_dict() for t in score_benchmark(spec, items, results, submissions, embargoed=embargoed)]
        assert base and any(t["rows"] for t in base)
        for other in (_as_objects(results), _as_categories(results).iloc[::-1].reset_index(drop=True)):
            assert [
                t.to_dict() for t in score_benchmark(spec, _as_objects(items), other, _as_objects(submissions), embargoed=embargoed)
            ] == base


def test_prepared_sums_equal_a_pandas_groupby_of_the_rows() -> None:
    items, results, submissions = _demo_frames(synth_lmb, "livemathematicianbench", 5)
    spec = default_spec("livemathematicianbench")
    prep = prepare(spec, items, results, submissions)
    cond_cols = list(prep.conds.columns)
    conds = prep.conds.astype(object).where(prep.conds.notna(), "<none>")
    got = pd.DataFrame(
        {
            "submission": prep.sub_ids[prep.sub],
            "item": prep.item_ids[prep.item],
            **{c: conds[c].to_numpy()[prep.cond] for c in cond_cols},
            "n": prep.sums["n"],
            "refused": prep.sums["refused"],
            "tok": prep.sums["tok"],
            "tok_known": prep.sums["tok_known"],
        }
    )
    rows = results.assign(
        n=1.0,
        tok=results["output_tokens"].fillna(0.0),
        tok_known=results["output_tokens"].notna().astype(float),
        refused=results["refused"].astype(float),
        **{
            c: results[c].map(lambda v: "<none>" if v is None or v != v else ("true" if v is True else "false" if v is False else v))
            for c in cond_cols
        },
    )
    keys = ["submission", "item", *cond_cols]
    want = rows.groupby(keys, sort=True)[["n", "refused", "tok", "tok_known"]].sum().reset_index()
    got = got.astype({k: object for k in keys}).sort_values(keys).reset_index(drop=True)
    want = want.astype({k: object for k in keys}).sort_values(keys).reset_index(drop=True)
    assert len(got) == len(want) > 0
    pd.testing.assert_frame_equal(got[want.columns], want, check_dtype=False)


@settings(max_examples=200, deadline=None)
@given(
    cells=st.integers(1, 40),
    rows=st.integers(0, 400),
    n_flags=st.integers(1, 9),
    crowd=st.sampled_from([1, 3, 200]),  # how many rows may share a cell: 200 overflows the packing
    seed=st.integers(0, 2**32 - 1),
)
def test_flags_counted_together_equal_one_bincount_each(cells, rows, n_flags, crowd, seed) -> None:
    """count_coded packs every flag into one float weight per row (exact below 2^52) or, when
    the counts would not fit, counts flag by flag: either way each cell's count of the rows
    whose byte a flag's table holds is what a plain bincount of those rows gives."""
    rng = np.random.default_rng(seed)
    cell = np.sort(rng.integers(0, min(cells, max(1, rows // crowd + 1)), rows))
    code = rng.integers(0, 256, rows).astype(np.uint8)
    tables = {f"f{j}": rng.random(256) < rng.random() for j in range(n_flags)}
    most = int(np.bincount(cell, minlength=cells).max(initial=0))
    got = count_coded(cell, cells, code, tables, most)
    for name, table in tables.items():
        assert got[name].dtype == np.float64
        np.testing.assert_array_equal(got[name], np.bincount(cell[table[code]], minlength=cells).astype(np.float64))


def test_flag_tables_derive_each_flag_as_its_definition() -> None:
    """FLAG_TABLES over prepare's row code: correct is the regraded verdict on regraded rows
    and the lab's elsewhere (none when the lab gave none: correct null); disagreement only on
    regraded rows the lab gave a verdict on, and unparsed only on regraded rows."""
    from builder.scoring.frames import FLAG_TABLES

    for byte in range(512):
        r_correct, r_parsed, r_equiv, lab, refused, regraded, tok_known, cost_known, lab_known = ((byte >> j) & 1 == 1 for j in range(9))
        want = {
            "correct": r_correct if regraded else (lab and lab_known),
            "refused": refused,
            "regraded": regraded,
            "compared": regraded and lab_known,
            "disagree": regraded and lab_known and r_correct != lab,
            "ungraded": not lab_known,
            "unparsed": regraded and not r_parsed,
            "equivalence": r_equiv,
            "tok_known": tok_known,
            "cost_known": cost_known,
        }
        assert {name: bool(table[byte]) for name, table in FLAG_TABLES.items()} == want


def test_dense_sums_equal_a_bincount_over_the_selected_conditions() -> None:
    """Prepared.dense adds each selected condition's block of cells in place: the same (S, I)
    arrays as one bincount over the selected cells, for every selection of conditions."""
    items, results, submissions = _demo_frames(synth_lmb, "livemathematicianbench", 5)
    prep = prepare(default_spec("livemathematicianbench"), items, results, submissions)
    n_conds = len(prep.conds)
    assert n_conds > 2  # variants × sketch: several blocks, some partial
    for bits in range(1, 1 << n_conds):
        conds = np.array([(bits >> c) & 1 for c in range(n_conds)], dtype=bool)
        keep = conds[prep.cond]
        flat = prep.sub[keep] * prep.n_items + prep.item[keep]
        for name, got in prep.dense(conds, ["n", "correct", "tok"]).items():
            want = np.bincount(flat, weights=prep.sums[name][keep], minlength=prep.n_subs * prep.n_items)
            np.testing.assert_array_equal(got, want.reshape(prep.n_subs, prep.n_items))


def test_regrading_runs_on_the_main_thread(monkeypatch) -> None:
    """prepare reduces in a thread beside regrading, never the other way round: math-verify's
    alarm (the 5 s backstop behind the screens for pathological answers) fires only on the
    main thread, so an equivalence check off it would run unbounded."""
    import threading

    import builder.scoring.frames as frames

    real, seen = frames.regrade_pairs, []

    def spy(*args, **kwargs):
        seen.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(frames, "regrade_pairs", spy)
    items, results, submissions = _demo_frames(synth_soohak, "soohak", 3)
    prepare(default_spec("soohak"), items, results, submissions)
    assert seen == [True]


def test_prepare_starts_no_thread(monkeypatch) -> None:
    """prepare runs in the calling thread only (issue 19: it used to factorise the answers in
    a background thread, which needed a process-wide fork hook): a failed prepare leaves
    nothing running behind it, so a fork after it (the unseal workers') is safe."""
    import threading

    import builder.scoring.frames as frames
    from builder.scoring.frames import ScoringInputError

    real, seen = frames.factorize_answers, []

    def spy(answers):
        seen.append(threading.current_thread() is threading.main_thread())
        return real(answers)

    monkeypatch.setattr(frames, "factorize_answers", spy)
    before = threading.active_count()
    items, results, submissions = _demo_frames(synth_soohak, "soohak", 3)
    with pytest.raises(ScoringInputError, match="not in the submissions frame"):
        prepare(default_spec("soohak"), items, results, submissions.iloc[1:])
    assert seen == [] and threading.active_count() == before  # refused before any answer is read
    prepare(default_spec("soohak"), items, results, submissions)
    assert seen == [True] and threading.active_count() == before
