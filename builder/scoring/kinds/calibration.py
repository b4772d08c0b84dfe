"""kind: calibration — per-item model error regressed on the human cohort's error
(KCSAT-ML §4.6): slope and intercept, with delta-method intervals over items."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.scoring import definitions as D
from builder.scoring.boards import Context, RawBoard, fixed, results_filter
from builder.scoring.config_base import ParserBase
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import flags, scores, select
from builder.scoring.nulls import is_none
from builder.scoring.spec import BoardSpec, KindParams, Measure, Pairing
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import lcm_of, wald

COLUMNS = ("slope", "intercept")


@dataclass(frozen=True)
class Params(KindParams):
    versus: str | None  # the cohort error-rate item field
    measure: Measure


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    return Params(p._versus(b, path), Measure("accuracy", "avg", p.samples)), list(COLUMNS)


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not isinstance(params, Params):
        raise AssertionError()
    prep = ctx.prep
    rows = np.arange(prep.n_subs)
    raw = RawBoard(board, board_id, [], {}, rows, [{} for _ in rows], contaminated=contaminated)
    sel = select(prep, board.items, results_filter(ctx, board.results), contaminated)
    sc = scores(prep, sel, Measure("accuracy", "avg", prep.spec.samples))
    q = prep.dense(sel.conds, ["n", "correct"])
    n, c = q["n"], q["correct"]
    bp = prep.item_bp[params.versus or ""].astype(np.float64)
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
    flag[is_none(flag) & np.isnan(slope)] = "undefined"
    raw.est["slope"] = wald(slope, influence(grad_b, 10000.0 / L), cols, count, flag)
    raw.est["intercept"] = wald(intercept, influence(grad_a, 1.0 / L), cols, count, flag)
    raw.columns = [
        MetricDef("slope", "Slope", D.SLOPE, "slope", None),
        MetricDef("intercept", "Intercept", D.INTERCEPT, "intercept", None),
    ]
    if board.references:
        for ref in prep.spec.references:
            if ref.complement_of == params.versus:
                k = int((prep.item_mask(board.items) & (bp >= 0)).sum())
                raw.references.append((ref, {"slope": fixed(1.0, k), "intercept": fixed(0.0, k)}))
    raw.notes.append("The human cohort lies on y = x (slope 1, intercept 0) by construction.")
    return raw


KIND = Kind("calibration", frozenset({"versus"}), parse, build)
