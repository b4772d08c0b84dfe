"""kind: drg — sub-cohort fractions on the Easy and Hard bins without and with TTS, and
the Difficulty-Reversal Gap at the first TTS turn-on (KCSAT-ML §4.7):

    SCF_b = a_b / (a_b + ā_b),   DRG = (SCF_H^off − SCF_H^on) − (SCF_E^off − SCF_E^on)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.scoring import definitions as D
from builder.scoring.boards import Context, RawBoard, results_filter
from builder.scoring.config_base import ParserBase
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import Selection, flags, scores, select
from builder.scoring.pairs import PAIRING_NOTE, families, pair_extras
from builder.scoring.spec import BoardSpec, KindParams, Measure, Pairing
from builder.scoring.tables import MetricDef
from builder.scoring.uncertainty import Estimate, linear, ratio

COLUMNS = ("scf_easy_off", "scf_easy_on", "scf_hard_off", "scf_hard_on", "drg")


@dataclass(frozen=True)
class Params(KindParams):
    bin_field: str | None  # an item_bins field (the tiers)
    easy: str | None  # its Easy bin
    hard: str | None  # its Hard bin
    versus: str | None  # the cohort error-rate item field
    measure: Measure
    profiles: tuple[float, float] | None = None  # (HIGH when DRG >=, LOW when DRG <=)


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    if pairing is None:
        p.err(f"{path}.kind", "drg boards need the top-level pairing declaration")
    bins = {x.name: x for x in p.item_bins}
    bf = b.get("bin_field")
    if bf not in bins:
        p.err(f"{path}.bin_field", "must name an item_bins field")
    else:
        values = {x.value for x in bins[bf].bins}
        for key in ("easy", "hard"):
            if b.get(key) not in values:
                p.err(f"{path}.{key}", f"must be one of the {bf} bins ({', '.join(sorted(values))})")
    versus = p._versus(b, path)
    prof, profiles = b.get("profiles"), None
    if prof is not None:
        if (
            not isinstance(prof, Mapping)
            or set(prof) != {"high", "low"}
            or not all(isinstance(prof[k], (int, float)) and not isinstance(prof[k], bool) for k in prof)
            or prof["low"] >= prof["high"]
        ):
            p.err(f"{path}.profiles", "must be {high: x, low: y} with low < high (as fractions)")
        else:
            profiles = (float(prof["high"]), float(prof["low"]))
    return Params(bf, b.get("easy"), b.get("hard"), versus, Measure("accuracy", "avg", p.samples), profiles), list(COLUMNS)


def _scf(ctx: Context, params: Params, sel: Selection, bin_value: str) -> Estimate:
    """SCF_b for every submission: a_b / (a_b + ā_b) over bin b's items (ties in neither)."""
    prep = ctx.prep
    q = prep.dense(sel.conds, ["n", "correct"])
    n, c = q["n"], q["correct"]
    bp = prep.item_bp[params.versus or ""]
    in_bin = (prep.item_tokens[params.bin_field or ""] == bin_value) & (bp >= 0)
    # model error (n−c)/n against cohort error bp/10⁴, compared exactly in integers
    model = (n - c) * 10000.0
    cohort = bp[None, :] * n
    above = (model > cohort).astype(np.float64)  # under-performs the cohort
    untied = (model != cohort).astype(np.float64)
    sc = scores(prep, sel, Measure("accuracy", "avg", prep.spec.samples))
    elig = sel.elig & in_bin[None, :]
    live = elig & ~sc.short & (untied > 0)
    return ratio(above, untied, live, flags(sc, elig), n=live.sum(axis=1), stream=("scf", 0, sel.conds.tobytes()))


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not isinstance(params, Params):
        raise AssertionError()
    found, unpaired = families(ctx, board)
    i_off = np.array([b for _, b, _ in found], dtype=np.int64)
    i_on = np.array([ons[0] for _, _, ons in found], dtype=np.int64)
    extras = [pair_extras(ctx, f, b, True) for f, b, _ in found]
    raw = RawBoard(board, board_id, [], {}, i_on, extras, contaminated=contaminated)
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    easy, hard = _scf(ctx, params, sel, params.easy or ""), _scf(ctx, params, sel, params.hard or "")
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
    if params.profiles is not None:
        high, low = params.profiles
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


KIND = Kind("drg", frozenset({"bin_field", "easy", "hard", "versus", "profiles"}), parse, build)
