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
from builder.scoring.uncertainty import Estimate, lcm_of, linear, ratio, wald

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
    tokens = estimate(scores(prep, sel, TOKENS)).value
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
    est = estimate(sc)
    tok = estimate(scores(ctx.prep, sel, TOKENS))
    m = board.measure.name
    e_off, e_on = est.take(i_off), est.take(i_on)
    raw.est[f"{m}_off"], raw.est[f"{m}_on"] = e_off, e_on
    raw.est["gain"] = delta(sc, sc, e_off, e_on, rows=(i_off, i_on))
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
    return ratio(above, untied, live, flags(sc, elig), n=live.sum(axis=1), stream=("scf", 0, sel.conds.tobytes()))


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
    parts = [p[:, cols] for p in (E, X, X * bp[None, :], Y, X * y)]
    s0, sx, sxx, sy, sxy = (p.sum(axis=1) for p in parts)
    # OLS of y on x over items, as functions of five item sums; the influence of item i is
    # the gradient of each fit · item i's centred contribution (delta method, items as clusters).
    with np.errstate(invalid="ignore", divide="ignore"):
        var = s0 * sxx - sx * sx
        ok = var > 0
        dv = np.where(ok, var, 1.0)
        num = s0 * sxy - sx * sy
        b = np.where(ok, num / dv, np.nan)  # slope in (error × L) per (bp)
        grad_b = [
            (sxy * var - num * sxx) / dv**2,  # ∂b/∂s0
            (-sy * var + num * 2 * sx) / dv**2,  # ∂b/∂sx
            -num * s0 / dv**2,  # ∂b/∂sxx
            -sx / dv,  # ∂b/∂sy
            s0 / dv,  # ∂b/∂sxy
        ]
        ds0 = np.where(s0 > 0, s0, 1.0)
        a = np.where(s0 > 0, (sy - b * sx) / ds0, np.nan)  # intercept in (error × L)
        # ∂a/∂s_k = (δ_k,sy − sx·∂b/∂s_k − b·δ_k,sx)/s0 − a·δ_k,s0/s0
        grad_a = [(-sx * g) / ds0 for g in grad_b]
        grad_a[0] = grad_a[0] - a / ds0
        grad_a[1] = grad_a[1] - b / ds0
        grad_a[3] = grad_a[3] + 1.0 / ds0
    slope, intercept = b * (10000.0 / L), a / L
    count = live.sum(axis=1)
    factor = np.sqrt(count / np.maximum(count - 1, 1))[:, None]

    def influence(grad: list[np.ndarray], scale: float) -> np.ndarray:
        g = [np.nan_to_num(x)[:, None] for x in grad]
        n_items = np.maximum(count, 1)[:, None]
        # centred: each item's contribution minus the mean contribution of the row's items
        z = sum(gk * (p - (p.sum(axis=1, keepdims=True) / n_items) * (parts[0] > 0)) for gk, p in zip(g, parts))
        return z * factor * scale

    flag = flag.copy()
    flag[np.equal(flag, None) & np.isnan(slope)] = "undefined"
    raw.est["slope"] = wald(slope, influence(grad_b, 10000.0 / L), cols, count, flag)
    raw.est["intercept"] = wald(intercept, influence(grad_a, 1.0 / L), cols, count, flag)
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
