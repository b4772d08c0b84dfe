"""KCSAT-ML boards over TTS pairs and the human cohort: pairs, drg, calibration.

Pairs (§3.2): within one lab's model family (submissions' ``lab`` and ``family``), the
TTS-off run is the baseline and each TTS-on run is compared with it. ``family`` is free
text a lab writes, so pairs never cross labs: another lab's run in "your" family is in a
different group and cannot become your baseline or move your gains, DRG or profile. When a family has several runs of a
kind, they are ordered by the median of the declared budget result field, then by mean
output tokens, then by submission id (only exact ties on both reach the id); the first
TTS-off run is the baseline and the first TTS-on run is "the first TTS turn-on" at which
DRG is taken (§4.7).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from builder.scoring import definitions as D
from builder.scoring.boards import Context, RawBoard, _regrade_note, fixed, results_filter
from builder.scoring.config import token
from builder.scoring.measures import delta, estimate, flags, scores, select
from builder.scoring.spec import BoardSpec, Measure
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import Estimate, lcm_of, linear, ratio, weighted_sums

TOKENS = Measure("output_tokens", "output_tokens", 1)
PAIRING_NOTE = (
    "Runs are paired within one lab's model family (never across labs): the TTS-off run is the baseline; when a family has several runs of a kind "
    "they are ordered by budget, then mean output tokens, and the first TTS-on run is the first TTS turn-on."
)


def families(ctx: Context, board: BoardSpec) -> tuple[list[tuple[str, int, list[int]]], list[str]]:
    """[(family, baseline submission index, TTS-on indices in order)] per (lab, family) group,
    and the unpaired groups' families."""
    prep, pairing = ctx.prep, ctx.prep.spec.pairing
    assert pairing is not None
    # Submission ids are sorted, so the index is the id's order (the last tie-break).
    # Order on all of the board's items (never the contamination-filtered set), so that a
    # board and its -all twin pair the same runs.
    sel = select(prep, board.items, results_filter(ctx, board.results), False)
    tokens = estimate(scores(prep, sel, TOKENS), ctx.weights).value
    order = np.lexsort((np.arange(prep.n_subs), np.nan_to_num(tokens, nan=np.inf), np.nan_to_num(prep.sub_order, nan=np.inf)))
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    fam = [token(v) for v in prep.subs[pairing.group_by].tolist()]
    switch = [token(v) for v in prep.subs[pairing.switch].tolist()]
    labs = prep.subs["lab"].astype(str).tolist()
    by_family: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
    for s, (lab, f, on) in enumerate(zip(labs, fam, switch)):
        if f is None or on not in ("true", "false"):
            continue
        off_list, on_list = by_family.setdefault((lab, f), ([], []))
        (on_list if on == "true" else off_list).append(s)
    out, unpaired = [], []
    for lab, f in sorted(by_family):
        off_list, on_list = by_family[(lab, f)]
        if not off_list or not on_list:
            unpaired.append(f)
            continue
        base = min(off_list, key=lambda s: rank_of[s])
        out.append((f, base, sorted(on_list, key=lambda s: rank_of[s])))
    return out, unpaired


def _pair_extras(ctx: Context, family: str, base: int, first: bool) -> dict[str, Any]:
    subs = ctx.prep.subs
    return {"family": family, "baseline": ctx.prep.sub_ids[base], "baseline_model": str(subs["model"].iat[base]), "first_turn_on": first}


def pairs(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    assert board.measure is not None
    found, unpaired = families(ctx, board)
    off, on, extras = [], [], []
    for f, base, ons in found:
        for j, s in enumerate(ons):
            off.append(base)
            on.append(s)
            extras.append(_pair_extras(ctx, f, base, j == 0))
    i_off, i_on = np.array(off, dtype=np.int64), np.array(on, dtype=np.int64)
    raw = RawBoard(board, board_id, [], {}, i_on, extras, contaminated=contaminated)
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    sc = scores(ctx.prep, sel, board.measure)
    est = estimate(sc, ctx.weights)
    tok = estimate(scores(ctx.prep, sel, TOKENS), ctx.weights)
    m = board.measure.name
    e_off, e_on = est.take(i_off), est.take(i_on)
    raw.est[f"{m}_off"], raw.est[f"{m}_on"] = e_off, e_on
    raw.est["gain"] = delta(sc, sc, ctx.weights, e_off, e_on, rows=(i_off, i_on))
    raw.est["output_tokens_off"], raw.est["output_tokens_on"] = tok.take(i_off), tok.take(i_on)
    text = D.ACCURACY if board.measure.kind == "avg" else D.PASS_AT_K
    raw.columns = [
        MetricDef(f"{m}_off", f"{m} (TTS off)", text + " The family's TTS-off baseline.", "fraction", True, m),
        MetricDef(f"{m}_on", f"{m} (TTS on)", text + " This TTS-on run.", "fraction", True, m),
        MetricDef("gain", "TTS gain", f"{m} with TTS − without, paired on the same items.", "difference", True, m),
        MetricDef("output_tokens_off", "Output tokens (off)", D.OUTPUT_TOKENS, "tokens", None, "output_tokens"),
        MetricDef("output_tokens_on", "Output tokens (on)", D.OUTPUT_TOKENS, "tokens", None, "output_tokens"),
    ]
    raw.notes.append(PAIRING_NOTE)
    if unpaired:
        raw.notes.append(f"{len(unpaired)} family(ies) lack a TTS-off baseline or a TTS-on run and are not shown.")
    _regrade_note(ctx, raw)
    return raw


def _scf(ctx: Context, board: BoardSpec, sel: Any, bin_value: str) -> Estimate:
    """SCF_b for every submission: a_b / (a_b + ā_b) over bin b's items (ties in neither)."""
    prep = ctx.prep
    q = prep.dense(sel.conds, ["n", "correct"])
    n, c = q["n"], q["correct"]
    bp = prep.item_bp[board.versus or ""]
    in_bin = (prep.item_tokens[board.bin_field or ""] == bin_value) & (bp >= 0)
    # model error (n−c)/n against cohort error bp/10⁴, compared exactly in integers
    model = (n - c) * 10000.0
    cohort = bp[None, :] * n
    above = (model > cohort).astype(np.float64)  # under-performs the cohort
    untied = (model != cohort).astype(np.float64)
    sc = scores(prep, sel, Measure("accuracy", "avg", prep.spec.samples))
    elig = sel.elig & in_bin[None, :]
    live = elig & ~sc.short & (untied > 0)
    return ratio(above, untied, live, ctx.weights, flags(sc, elig), n=live.sum(axis=1))


def drg(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    found, unpaired = families(ctx, board)
    i_off = np.array([b for _, b, _ in found], dtype=np.int64)
    i_on = np.array([ons[0] for _, _, ons in found], dtype=np.int64)
    extras = [_pair_extras(ctx, f, b, True) for f, b, _ in found]
    raw = RawBoard(board, board_id, [], {}, i_on, extras, contaminated=contaminated)
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    easy, hard = _scf(ctx, board, sel, board.easy or ""), _scf(ctx, board, sel, board.hard or "")
    cols = {
        "scf_easy_off": easy.take(i_off),
        "scf_easy_on": easy.take(i_on),
        "scf_hard_off": hard.take(i_off),
        "scf_hard_on": hard.take(i_on),
    }
    raw.est.update(cols)
    # DRG = (SCF_H^off − SCF_H^on) − (SCF_E^off − SCF_E^on)   (§4.7)
    raw.est["drg"] = linear(
        [(1.0, cols["scf_hard_off"]), (-1.0, cols["scf_hard_on"]), (-1.0, cols["scf_easy_off"]), (1.0, cols["scf_easy_on"])],
        n=cols["scf_hard_off"].n + cols["scf_easy_off"].n,
    )
    for name in ("scf_easy_off", "scf_easy_on", "scf_hard_off", "scf_hard_on"):
        b = "Easy" if "easy" in name else "Hard"
        tts = "TTS off (baseline)" if name.endswith("off") else "TTS on (first turn-on)"
        raw.columns.append(MetricDef(name, f"SCF {b}, {tts}", D.SCF, "fraction", False))
    raw.columns.append(MetricDef("drg", "DRG", D.DRG, "difference", True))
    if board.profiles is not None:
        high, low = board.profiles
        value = raw.est["drg"].value
        for extra, v in zip(raw.extras, value):
            if not np.isnan(v):
                extra["profile"] = "HIGH" if v >= high else "LOW" if v <= low else "MID"
        raw.extra_needs["profile"] = "drg"
        raw.notes.append(f"Profiles (§4.7 (3)): HIGH when DRG ≥ {high:+.2f}, LOW when DRG ≤ {low:+.2f}, MID between.")
    raw.notes.append(PAIRING_NOTE)
    if unpaired:
        raw.notes.append(f"{len(unpaired)} family(ies) lack a TTS-off baseline or a TTS-on run and are not shown.")
    return raw


def calibration(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool) -> RawBoard:
    prep = ctx.prep
    rows = np.arange(prep.n_subs)
    raw = RawBoard(board, board_id, [], {}, rows, [{} for _ in rows], contaminated=contaminated)
    sel = select(prep, board.items, results_filter(ctx, board.results), contaminated)
    sc = scores(prep, sel, Measure("accuracy", "avg", prep.spec.samples))
    q = prep.dense(sel.conds, ["n", "correct"])
    n, c = q["n"], q["correct"]
    bp = prep.item_bp[board.versus or ""].astype(np.float64)
    base = sel.elig & (bp >= 0)[None, :]
    flag = flags(sc, base)
    live = base & ~sc.short
    L = float(lcm_of(n[live]) or 1)
    y = np.divide((n - c) * L, n, out=np.zeros_like(n), where=n > 0)  # error rate × L (exact integers)
    E = live.astype(np.float64)
    X = E * bp[None, :]
    Y = E * y
    cols = np.flatnonzero(live.any(axis=0))
    W = ctx.weights[:, cols]
    parts = [E, X, X * bp[None, :], Y, X * y]
    point = [p[:, cols].sum(axis=1) for p in parts]
    reps = [weighted_sums(W, p[:, cols]) for p in parts]  # exact: integer sums

    def fit(s0: np.ndarray, sx: np.ndarray, sxx: np.ndarray, sy: np.ndarray, sxy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore", divide="ignore"):
            var = s0 * sxx - sx * sx
            slope = np.where(var > 0, (s0 * sxy - sx * sy) / np.where(var > 0, var, 1.0) * (10000.0 / L), np.nan)
            intercept = np.where(s0 > 0, sy / (s0 * L) - slope * sx / (s0 * 10000.0), np.nan)
        return slope, intercept

    slope, intercept = fit(*point)
    rslope, rint = fit(*reps)
    count = live.sum(axis=1)
    flag = flag.copy()
    flag[np.equal(flag, None) & np.isnan(slope)] = "undefined"
    bad = ~np.equal(flag, None)
    for name, v, r in (("slope", slope, rslope), ("intercept", intercept, rint)):
        v = np.where(bad, np.nan, v)
        r = np.where(bad[None, :], np.nan, r)
        raw.est[name] = Estimate(v, r, count, count.copy(), flag.copy())
    raw.columns = [
        MetricDef("slope", "Slope", D.SLOPE, "slope", None),
        MetricDef("intercept", "Intercept", D.INTERCEPT, "intercept", None),
    ]
    if board.references:
        for ref in prep.spec.references:
            if ref.complement_of == board.versus:
                k = int((prep.item_mask(board.items) & (bp >= 0)).sum())
                raw.references.append((ref, {"slope": fixed(1.0, k), "intercept": fixed(0.0, k)}))
    raw.notes.append("The human cohort lies on y = x (slope 1, intercept 0) by construction.")
    return raw
