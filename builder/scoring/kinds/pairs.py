"""kind: pairs — TTS off/on pairs within a lab's model family (KCSAT-ML §3.2): the
measure without and with TTS, and the paired gain. Pairing: builder.scoring.pairs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.scoring import definitions as D
from builder.scoring.boards import Context, RawBoard, _regrade_note, results_filter
from builder.scoring.config_base import ParserBase
from builder.scoring.kinds._base import Kind
from builder.scoring.measures import delta, estimate, scores, select
from builder.scoring.pairs import PAIRING_NOTE, TOKENS, families, pair_extras
from builder.scoring.spec import BoardSpec, KindParams, Measure, Pairing
from builder.scoring.tables import MetricDef


@dataclass(frozen=True)
class Params(KindParams):
    measure: Measure | None


def parse(
    p: ParserBase, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]
) -> tuple[Params, list[str]]:
    if pairing is None:
        p.err(f"{path}.kind", "pairs boards need the top-level pairing declaration")
    m = p._measure(b.get("measure", "accuracy"), f"{path}.measure")
    name = m.name if m else "accuracy"
    return Params(m), [f"{name}_off", f"{name}_on", "gain", "output_tokens_off", "output_tokens_on"]


def build(ctx: Context, board: BoardSpec, board_id: str, contaminated: bool, suffix: str) -> RawBoard:
    params = board.params
    if not (isinstance(params, Params) and params.measure is not None):
        raise AssertionError()
    measure = params.measure
    found, unpaired = families(ctx, board)
    off, on, extras = [], [], []
    for f, base, ons in found:
        for j, s in enumerate(ons):
            off.append(base)
            on.append(s)
            extras.append(pair_extras(ctx, f, base, j == 0))
    i_off, i_on = np.array(off, dtype=np.int64), np.array(on, dtype=np.int64)
    raw = RawBoard(board, board_id, [], {}, i_on, extras, contaminated=contaminated)
    sel = select(ctx.prep, board.items, results_filter(ctx, board.results), contaminated)
    sc = scores(ctx.prep, sel, measure)
    est = estimate(sc)
    tok = estimate(scores(ctx.prep, sel, TOKENS))
    m = measure.name
    e_off, e_on = est.take(i_off), est.take(i_on)
    raw.est[f"{m}_off"], raw.est[f"{m}_on"] = e_off, e_on
    raw.est["gain"] = delta(sc, sc, e_off, e_on, rows=(i_off, i_on))
    raw.est["output_tokens_off"], raw.est["output_tokens_on"] = tok.take(i_off), tok.take(i_on)
    text = D.ACCURACY if measure.kind == "avg" else D.PASS_AT_K
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


KIND = Kind("pairs", frozenset({"measure"}), parse, build)
