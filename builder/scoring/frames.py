"""Check the frames handed to scoring and reduce them to per-(condition, submission, item) sums.

Everything downstream works on small dense arrays indexed by *sorted* item id and
*sorted* submission id, so nothing depends on the order of input rows. All sums are of
integers (sample counts, correct counts, tokens, cost in nano-dollars), hence exact in any
order: shuffling result rows cannot change a single bit of any score.

A *condition* is one combination of the result columns boards filter on (``lang`` and the
declared boolean/enumerated/string result fields, e.g. LiveMathematicianBench's
``variant`` × ``sketch``). Boards select conditions, then sum over them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from builder.errors import BuilderError
from builder.scoring.config_base import token
from builder.scoring.regrade import HOW, NO_VERDICTS, Verdicts, factorize_answers, factorize_ints, gold_key, regrade_pairs
from builder.scoring.spec import FieldType, Filter, ScoringSpec, bin_codes_bp

DENSE_LIMIT = 1 << 24  # above this many (condition, submission, item) cells, aggregate sparsely
NANO = 1e9  # cost is summed in integer nano-dollars so that sums are exact


class ScoringInputError(BuilderError):
    """The items, results or submissions frame contradicts the benchmark's scoring
    declaration. Raised by builder.scoring before any board is computed."""

    reason = "scoring-input"


@dataclass
class Prepared:
    """The frames, checked and reduced. Arrays are indexed by sorted item / submission."""

    spec: ScoringSpec
    item_ids: np.ndarray  # (I,) str, sorted
    items: pd.DataFrame  # aligned with item_ids
    item_tokens: dict[str, np.ndarray]  # filterable/groupable field -> (I,) object tokens (None = missing)
    item_bp: dict[str, np.ndarray]  # fraction field -> (I,) int64 basis points (-1 = missing)
    item_start: dict[str, np.ndarray]  # date field -> (I,) datetime64[D] first day (NaT = missing)
    sub_ids: np.ndarray  # (S,) str, sorted
    subs: pd.DataFrame  # aligned with sub_ids
    conds: pd.DataFrame  # (C,) condition tokens: lang + condition result fields
    # Sparse sums over samples, one entry per occupied (condition, submission, item):
    cond: np.ndarray
    sub: np.ndarray
    item: np.ndarray
    sums: dict[str, np.ndarray]  # n, correct, refused, regraded, disagree, unparsed, equivalence, tok, tok_known, cost, cost_known
    sub_order: np.ndarray  # (S,) float: median of pairing.order_by_result (NaN if none)
    _dense_cache: dict[bytes, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)  # selections, scores, estimates (builder.scoring.measures)
    _cell_flat: np.ndarray = field(init=False, repr=False)  # each cell's place in an (S, I) array

    def __post_init__(self) -> None:
        self._cell_flat = self.sub * self.n_items + self.item

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_subs(self) -> int:
        return len(self.sub_ids)

    def item_mask(self, f: Filter) -> np.ndarray:
        """(I,) bool: items passing filter `f`."""
        mask = np.ones(self.n_items, dtype=bool)
        for name, values in f.equals:
            mask &= pd.Series(self.item_tokens[name]).isin(values).to_numpy()
        for name in f.present:
            mask &= pd.notna(pd.Series(self.item_tokens[name])).to_numpy()
        return mask

    def cond_mask(self, f: Filter) -> np.ndarray:
        """(C,) bool: conditions passing filter `f`."""
        mask = np.ones(len(self.conds), dtype=bool)
        for name, values in f.equals:
            mask &= self.conds[name].isin(values).to_numpy()
        for name in f.present:
            mask &= self.conds[name].notna().to_numpy()
        return mask

    def dense(self, conds: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
        """(S, I) sums over the selected conditions for each quantity in `names`.

        Boards select the same conditions again and again (the primary language, the
        default variant), so results are cached per selection; callers must not modify them.
        """
        cache = self._dense_cache.setdefault(conds.tobytes(), {})
        missing = [name for name in names if name not in cache]
        if missing:
            # Cells are sorted by (condition, submission, item) (prepare): each condition's
            # cells are one contiguous block, its (submission, item) pairs distinct, so a
            # selection is the sum of its blocks, scattered in condition order (the order a
            # bincount over the cells would add them in).
            bounds = np.searchsorted(self.cond, np.arange(len(self.conds) + 1))
            blocks = [slice(bounds[c], bounds[c + 1]) for c in np.flatnonzero(conds).tolist()]
            for name in missing:
                summed = np.zeros(self.n_subs * self.n_items)
                for block in blocks:
                    values = self.sums[name][block]
                    if len(values) == len(summed):  # every (submission, item): distinct and sorted, so in place
                        summed += values
                    else:
                        summed[self._cell_flat[block]] += values
                cache[name] = summed.reshape(self.n_subs, self.n_items)
                cache[name].flags.writeable = False
        return {name: cache[name] for name in names}


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str, where: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ScoringInputError(f"the {what} frame lacks column(s) {', '.join(missing)}", where=where)


def _positions(values: pd.Series, ids: np.ndarray) -> np.ndarray:
    """(rows,) int32 position of each value in `ids`, -1 where absent.

    Ids repeat thousands of times (an item per submission and sample; a submission per
    row), so the few distinct values are looked up and the row codes mapped through them:
    factorising an Arrow string column stays in C++, whereas an Index lookup of every row
    first converts it to a million Python strings.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):  # the build's frames: codes are there
        codes, uniques = values.cat.codes.to_numpy(), values.cat.categories
        if len(uniques) == len(ids) and (np.asarray(uniques, dtype=object) == ids).all():
            return codes.astype(np.int32)  # categories are the ids, in order: codes are positions (-1 stays -1)
    else:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    found = np.append(pd.Index(ids).get_indexer(np.asarray(uniques, dtype=object)), -1).astype(np.int32)
    return found[np.asarray(codes)]  # code -1 (missing) picks the trailing -1; int32: half the traffic of later lookups


def _tokens(values: pd.Series) -> np.ndarray:
    """Object array of canonical tokens (see config.token); None for missing."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    toks = np.array([token(u) for u in uniques] + [None], dtype=object)
    return toks[np.asarray(codes)]  # code -1 picks the trailing None


def count_coded(
    cell: np.ndarray,
    n_cells: int,
    code: np.ndarray,
    flags: dict[str, np.ndarray],
    most: int,
    per_cell: Callable[[np.ndarray], np.ndarray] = lambda x: x,
) -> dict[str, np.ndarray]:
    """Each cell's count of the rows whose `code` a flag holds: ``{name: per_cell(counts)}``.

    `cell` maps rows to cells (below `n_cells`); `code` (the row code, per row) indexes each flag's
    table `flags[name]` (a bool per row code); `most` is the most rows any cell has, and `per_cell`
    picks the cells kept from the counts (as float). One pass for all flags: a row's flags
    become one float weight, `width` bits per flag (wide enough for any cell's count), and
    a single weighted bincount adds them up. Every partial sum is an integer below 2^52, so
    the sums are exact and split back into what one bincount per flag gives; with too many
    flags or rows per cell for 52 bits, it is one bincount per flag.
    """
    width = max(most, 1).bit_length()
    if not flags or width * len(flags) > 52:
        return {name: per_cell(np.bincount(cell[table[code]], minlength=n_cells)).astype(np.float64) for name, table in flags.items()}
    weight_of = np.zeros(len(next(iter(flags.values()))))
    for j, table in enumerate(flags.values()):
        weight_of += table * float(1 << (width * j))
    packed = per_cell(np.bincount(cell, weights=weight_of[code], minlength=n_cells)).astype(np.uint64)
    mask = np.uint64((1 << width) - 1)
    return {name: ((packed >> np.uint64(width * j)) & mask).astype(np.float64) for j, name in enumerate(flags)}


# prepare's row code (the "row byte", nine bits since verdicts may be null), bit by bit: its
# (answer, item) pair's regraded verdict, whether the answer parsed, whether the equivalence
# path decided; then the row's own lab verdict, refusal, whether it is regraded, whether its
# tokens and its cost are known, and whether the lab gave a verdict at all (``correct: null``
# leaves it to the regrade: builder.pipeline.ungraded).
ROW_BYTE_BITS = ("r_correct", "r_parsed", "r_equivalence", "lab", "refused", "regraded", "tok_known", "cost_known", "lab_known")


def _flag_tables() -> dict[str, np.ndarray]:
    """What each per-row flag scoring counts is, as a table over the row code (ROW_BYTE_BITS)."""
    code = np.arange(1 << len(ROW_BYTE_BITS))
    r_correct, r_parsed, r_equivalence, lab, refused, regraded, tok_known, cost_known, lab_known = (
        ((code >> j) & 1) == 1 for j in range(len(ROW_BYTE_BITS))
    )
    return {
        "correct": np.where(regraded, r_correct, lab & lab_known),
        "refused": refused,
        "regraded": regraded,
        # The lab's verdict against Sealboard's, where the lab gave one.
        "compared": regraded & lab_known,
        "disagree": regraded & lab_known & (r_correct != lab),
        "ungraded": ~lab_known,
        "unparsed": regraded & ~r_parsed,
        "equivalence": r_equivalence,
        "tok_known": tok_known,
        "cost_known": cost_known,
    }


FLAG_TABLES = _flag_tables()


_DATE_RE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?(?:[T ].*)?\Z")


def period_bounds(value: Any) -> tuple[np.datetime64, np.datetime64] | None:
    """(first day, last day) of a date given as YYYY, YYYY-MM, YYYY-MM-DD[Thh:mm…] or a date."""
    if value is None or (isinstance(value, float) and value != value) or value is pd.NaT:
        return None
    if isinstance(value, (datetime, date, pd.Timestamp, np.datetime64)):
        d = np.datetime64(pd.Timestamp(value).date(), "D")
        return d, d
    if not isinstance(value, str):
        return None
    m = _DATE_RE.match(value.strip())
    if not m:
        return None
    year, month, day = m.group(1), m.group(2), m.group(3)
    try:
        if day:
            d = np.datetime64(f"{year}-{month}-{day}", "D")
            return d, d
        if month:
            first = np.datetime64(f"{year}-{month}", "M")
            return first.astype("datetime64[D]"), (first + 1).astype("datetime64[D]") - 1
        first = np.datetime64(year, "Y")
        return first.astype("datetime64[D]"), (first + 1).astype("datetime64[D]") - 1
    except ValueError:
        return None


def _dates(values: pd.Series, end: bool, what: str, where: str) -> np.ndarray:
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    out = np.full(len(uniques) + 1, np.datetime64("NaT"), dtype="datetime64[D]")
    for i, u in enumerate(uniques):
        b = period_bounds(u)
        if b is None:
            # Item metadata is embargoed: name the field, not the value.
            shown = f" {u!r}" if what == "training cutoff" else ""
            raise ScoringInputError(f"{what}{shown} is not a date (YYYY-MM-DD, YYYY-MM or YYYY)", where=where)
        out[i] = b[1] if end else b[0]
    return out[np.asarray(codes)]


def prepare(
    spec: ScoringSpec, items: pd.DataFrame, results: pd.DataFrame, submissions: pd.DataFrame, verdicts: Verdicts = NO_VERDICTS
) -> Prepared:
    """Check the frames against `spec` and reduce the results to per-(condition, submission,
    item) sums. Every disagreement with the declaration is collected and raised together.
    `verdicts`: the equivalence path's verdicts graded beforehand (builder.scoring.regrade)."""
    where = f"scoring {spec.benchmark}"
    problems: list[str] = []
    it = _item_facts(spec, items, where, problems)
    item_type, item_gold = _gold_keys(spec, it, problems)
    subs = _submissions(spec, submissions, where, problems)
    sub_ids = subs["submission"].astype(str).to_numpy()
    correct_col = "lab_correct" if "lab_correct" in results.columns else "correct"
    _require(results, ["submission", "item", "lang", "answer", correct_col, "refused"], "results", where)
    cond_fields = ["lang"] + [n for n, t in spec.result_fields.items() if t.kind in ("bool", "enum", "string")]
    _require(results, cond_fields, "results", where)
    row_item = _row_positions(results, "item", it.ids, "{n} result row(s) name items not in the dataset (first: {first!r})", where)
    row_sub = _row_positions(
        results, "submission", sub_ids, "result rows name submission {first!r}, which is not in the submissions frame", where
    )
    row_cond, conds = _conditions(results, cond_fields)
    problems += _condition_problems(spec, conds)
    if problems:
        raise ScoringInputError("; ".join(problems), where=where, hint="the frames must match the benchmark's scoring declaration")
    row_byte, tok, cost = _row_quantities(
        spec, results, correct_col, row_item, row_cond, conds, item_type, item_gold, it.golds, _tolerances(it.frame), verdicts
    )
    cond_of, sub_of, item_of, sums = _reduce(row_cond, row_sub, row_item, (len(conds), len(sub_ids), len(it.ids)), row_byte, tok, cost)
    return Prepared(
        spec=spec,
        item_ids=it.ids,
        items=it.frame,
        item_tokens=it.tokens,
        item_bp=it.bp,
        item_start=it.start,
        sub_ids=sub_ids,
        subs=subs,
        conds=conds,
        cond=cond_of,
        sub=sub_of,
        item=item_of,
        sums=sums,
        sub_order=_sub_order(spec, results, row_sub, len(sub_ids)),
    )


@dataclass
class _Items:
    """The items frame sorted by id, with each declared field read once."""

    frame: pd.DataFrame
    ids: np.ndarray
    golds: np.ndarray
    tokens: dict[str, np.ndarray] = field(default_factory=dict)
    bp: dict[str, np.ndarray] = field(default_factory=dict)
    start: dict[str, np.ndarray] = field(default_factory=dict)


def _item_facts(spec: ScoringSpec, items: pd.DataFrame, where: str, problems: list[str]) -> _Items:
    """Item fields as tokens, fractions in basis points, dates as first days; bins derived."""
    _require(items, ["item", "split", "answer_type", "gold", *[f for f, t in spec.item_fields.items() if not t.optional]], "items", where)
    if items["item"].duplicated().any():
        raise ScoringInputError(f"item {items['item'][items['item'].duplicated()].iloc[0]!r} appears twice in the items frame", where=where)
    frame = items.sort_values("item", kind="stable").reset_index(drop=True)
    it = _Items(frame, frame["item"].astype(str).to_numpy(), frame["gold"].to_numpy(dtype=object))
    it.tokens = {"split": _tokens(frame["split"]), "answer_type": _tokens(frame["answer_type"])}
    ordered = [("split", spec.item_fields.get("split")), ("answer_type", spec.item_fields.get("answer_type"))]
    ordered += [(n, t) for n, t in spec.item_fields.items() if n not in ("split", "answer_type")]
    for name, ftype in ordered:
        if ftype is not None:
            _item_field(it, name, ftype, where, problems)
    for b in spec.item_bins:
        bp = it.bp.get(b.field)
        if bp is not None:
            names = np.array([x.value for x in b.bins] + [None], dtype=object)
            it.tokens[b.name] = names[bin_codes_bp(bp, b.bins)]
    return it


def _item_field(it: _Items, name: str, ftype: FieldType, where: str, problems: list[str]) -> None:
    """One declared item field: checked against its type, stored in its readable forms."""
    col = it.frame[name] if name in it.frame.columns else pd.Series([None] * len(it.ids), dtype=object)
    toks = _tokens(col)
    missing = pd.isna(pd.Series(toks))
    if not ftype.optional and missing.any():
        problems.append(f"item field {name} is missing on {int(missing.sum())} item(s)")
    if ftype.kind == "enum":
        bad = sorted({t for t in toks if t is not None and t not in ftype.values})
        if bad:
            problems.append(f"item field {name} has value(s) {', '.join(map(repr, bad[:5]))} outside {', '.join(ftype.values)}")
    if ftype.kind in ("fraction", "number", "int"):
        num = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
        if (pd.notna(col).to_numpy() & np.isnan(num)).any():
            problems.append(f"item field {name} holds non-numbers")
        if ftype.kind == "fraction":
            if ((num < 0) | (num > 1)).any():
                problems.append(f"item field {name} must be a fraction in [0, 1] (0.764 for 76.4%); found values up to {np.nanmax(num):g}")
            it.bp[name] = np.where(np.isnan(num), -1, np.rint(np.nan_to_num(num) * 10000)).astype(np.int64)
    if ftype.kind == "date":
        try:
            it.start[name] = _dates(col, end=False, what=f"item field {name}", where=where)
        except ScoringInputError as exc:
            problems.append(exc.message)
    it.tokens[name] = toks


def _gold_keys(spec: ScoringSpec, it: _Items, problems: list[str]) -> tuple[np.ndarray, list[str | None]]:
    """Per item: the index of its regraded answer type (-1: the lab's verdict stands) and its
    gold answer's comparison key."""
    item_type = np.full(len(it.ids), -1, dtype=np.int64)
    item_gold: list[str | None] = [None] * len(it.ids)
    bad_gold = []
    for t, name in enumerate(spec.regrade_types):
        for i in np.flatnonzero(it.tokens["answer_type"] == name):
            key = gold_key(name, it.golds[i])
            if key is None:
                if name == "expression":
                    continue  # an expression gold math-verify cannot read: the lab's judge decides
                bad_gold.append(it.ids[i])
            item_type[i], item_gold[i] = t, key
    if bad_gold:
        problems.append(f"the gold answer of {len(bad_gold)} item(s) does not parse as its answer_type (first: {bad_gold[0]!r})")
    return item_type, item_gold


def _submissions(spec: ScoringSpec, submissions: pd.DataFrame, where: str, problems: list[str]) -> pd.DataFrame:
    """The submissions sorted by id, with the last possible day of each training cutoff."""
    need = ["submission", "lab", "model"]
    if spec.contamination is not None:
        need.append(spec.contamination.submission_cutoff)
    if spec.pairing is not None:
        need += [spec.pairing.group_by, spec.pairing.switch]
    _require(submissions, need, "submissions", where)
    if submissions["submission"].duplicated().any():
        raise ScoringInputError("a submission appears twice in the submissions frame", where=where)
    subs = submissions.sort_values("submission", kind="stable").reset_index(drop=True)
    if spec.contamination is not None:
        try:
            subs["_cutoff_end"] = _dates(subs[spec.contamination.submission_cutoff], end=True, what="training cutoff", where=where)
        except ScoringInputError as exc:
            problems.append(exc.message)
    return subs


def _row_positions(results: pd.DataFrame, column: str, ids: np.ndarray, message: str, where: str) -> np.ndarray:
    """Each result row's position in `ids`; a row naming an unknown id is refused."""
    pos = _positions(results[column], ids)
    if (pos < 0).any():
        first = results[column].iloc[int(np.flatnonzero(pos < 0)[0])]
        raise ScoringInputError(message.format(n=int((pos < 0).sum()), first=first), where=where)
    return pos


def _conditions(results: pd.DataFrame, cond_fields: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Each row's condition (one combination of the condition fields' tokens) and the table
    of conditions, numbered in order of their codes."""
    # Built in place in one int64 array: a few row-sized passes, no row-sized temporaries.
    field_uniques = []
    combined = np.zeros(len(results), dtype=np.int64)
    for name in cond_fields:
        codes, uniques = pd.factorize(results[name], use_na_sentinel=True)
        toks = [token(u) for u in uniques]
        field_uniques.append(toks + [None])
        combined *= len(toks) + 1
        combined += codes
        combined[codes < 0] += len(toks) + 1  # code -1 (missing) becomes the trailing None's, len(toks)
    # the few distinct keys numbered in order, like np.unique (linear time)
    row_cond, cond_keys = factorize_ints(combined, math.prod(len(toks) for toks in field_uniques))
    rows_of = []
    for key in cond_keys:
        parts = []
        for toks in reversed(field_uniques):
            key, r = divmod(int(key), len(toks))
            parts.append(toks[r])
        rows_of.append(list(reversed(parts)))
    return row_cond, pd.DataFrame(rows_of, columns=cond_fields, dtype=object)


def _condition_problems(spec: ScoringSpec, conds: pd.DataFrame) -> list[str]:
    """Languages and enumerated/boolean result values the declaration does not admit."""
    problems = []
    bad_lang = sorted(set(conds["lang"].dropna()) - set(spec.languages))
    if bad_lang or conds["lang"].isna().any():
        problems.append(
            f"results use language(s) {', '.join(map(repr, bad_lang)) or 'null'} not declared in languages ({', '.join(spec.languages)})"
        )
    for name, ftype in spec.result_fields.items():
        if name not in conds:
            continue
        allowed = set(ftype.values) if ftype.kind == "enum" else {"true", "false"} if ftype.kind == "bool" else None
        bad = sorted(set(conds[name].dropna()) - allowed) if allowed is not None else []
        if bad and ftype.kind == "enum":
            problems.append(f"result field {name} has value(s) {', '.join(map(repr, bad))} outside {', '.join(ftype.values)}")
        elif bad:
            problems.append(f"result field {name} must be true or false")
    return problems


def _numeric(results: pd.DataFrame, name: str, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """A lab-reported number per row (0 where missing) and whether it was reported."""
    n_rows = len(results)
    if name not in results.columns:
        return np.zeros(n_rows), np.zeros(n_rows, dtype=bool)
    column = results[name]
    x = (
        column.to_numpy(dtype=np.float64, copy=True)
        if column.dtype == np.float64
        else pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    )
    known = ~np.isnan(x)
    if scale != 1.0:
        np.rint(np.multiply(x, scale, out=x), out=x)  # in place: a row-sized copy fewer
    x[~known] = 0.0
    return x, known


def _tolerances(items: pd.DataFrame) -> list[object] | None:
    """Each item's declared decimal tolerance, in item order; None: every decimal compares exactly."""
    return items["tolerance"].tolist() if "tolerance" in items.columns else None


def _row_quantities(
    spec: ScoringSpec,
    results: pd.DataFrame,
    correct_col: str,
    row_item: np.ndarray,
    row_cond: np.ndarray,
    conds: pd.DataFrame,
    item_type: np.ndarray,
    item_gold: list[str | None],
    golds: np.ndarray,
    tolerance: list[object] | None,
    verdicts: Verdicts,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the row byte (ROW_BYTE_BITS: the regraded verdict and the row's own flags),
    output tokens, and cost in nano-dollars."""
    cond_regrade = np.ones(len(conds), dtype=bool)
    for name, values in spec.regrade_when.equals:
        cond_regrade &= conds[name].isin(values).to_numpy() if name in conds else False
    row_regrade = cond_regrade[row_cond] & (item_type >= 0)[row_item]
    gold_text = [g if isinstance(g, str) else None for g in golds.tolist()]
    pair_of_row, p_correct, p_parsed, p_how = regrade_pairs(
        results["answer"],
        row_item,
        row_regrade,
        item_type,
        item_gold,
        tuple(spec.regrade_types),
        gold_text,
        factorized=factorize_answers(results["answer"]),
        item_tolerance=tolerance,
        verdicts=verdicts,
    )
    tok, tok_known = _numeric(results, "output_tokens")
    cost, cost_known = _numeric(results, "cost_usd", NANO)
    # Every other per-row quantity is a flag derived from eight bits: one byte a row, its
    # pair's verdict bits looked up once (FLAG_TABLES says which byte values hold each flag).
    bit = ROW_BYTE_BITS.index
    pair_bits = np.zeros(len(p_correct), dtype=np.uint16)
    for name, w in (("r_correct", p_correct), ("r_parsed", p_parsed), ("r_equivalence", p_how == HOW["equivalence"])):
        pair_bits |= w.astype(np.uint16) << bit(name)
    row_byte = pair_bits[pair_of_row]
    lab_verdicts = results[correct_col]
    lab_known = lab_verdicts.notna().to_numpy()
    lab = lab_verdicts.to_numpy(dtype=bool, na_value=False) if not lab_known.all() else lab_verdicts.to_numpy(dtype=bool)
    for name, w in (
        ("lab", lab),
        ("refused", results["refused"].to_numpy(dtype=bool)),
        ("regraded", row_regrade),
        ("tok_known", tok_known),
        ("cost_known", cost_known),
        ("lab_known", lab_known),
    ):
        row_byte |= w.astype(np.uint16) << bit(name)
    return row_byte, tok, cost


def _reduce(
    row_cond: np.ndarray,
    row_sub: np.ndarray,
    row_item: np.ndarray,
    shape: tuple[int, int, int],
    row_byte: np.ndarray,
    tok: np.ndarray,
    cost: np.ndarray,
    dense_limit: int = DENSE_LIMIT,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Sum the rows into their occupied (condition, submission, item) cells, sorted by cell:
    (cond, sub, item) of each cell and the sums (frames_reference.reduce_plain: a groupby)."""
    n_conds, n_subs, n_items = shape
    key = row_cond.astype(np.int64)  # (cond × S + sub) × I + item, in place
    key *= n_subs
    key += row_sub
    key *= n_items
    key += row_item
    size = n_conds * n_subs * n_items
    dense = size <= dense_limit
    if dense:  # few enough cells for a table: linear time, no sort
        counts = np.bincount(key, minlength=size)
        occupied = np.flatnonzero(counts)
        cell, n_cells = key, size
        sums = {"n": counts[occupied].astype(np.float64)}
    else:
        occupied, cell = np.unique(key, return_inverse=True)
        n_cells = len(occupied)
        sums = {"n": np.bincount(cell, minlength=n_cells).astype(np.float64)}

    def per_cell(summed: np.ndarray) -> np.ndarray:
        return (summed[occupied] if dense else summed).astype(np.float64, copy=False)

    # Counting a flag's rows equals summing it as 0/1 floats, exactly (count_coded).
    sums.update(count_coded(cell, n_cells, row_byte, FLAG_TABLES, int(sums["n"].max(initial=0)), per_cell))
    sums["tok"] = per_cell(np.bincount(cell, weights=tok, minlength=n_cells))
    sums["cost"] = per_cell(np.bincount(cell, weights=cost, minlength=n_cells))
    cond_of, rest = np.divmod(occupied, n_subs * n_items)
    sub_of, item_of = np.divmod(rest, n_items)
    return cond_of, sub_of, item_of, sums


def _sub_order(spec: ScoringSpec, results: pd.DataFrame, row_sub: np.ndarray, n_subs: int) -> np.ndarray:
    """Per submission: the median of pairing.order_by_result over its rows (NaN if none)."""
    sub_order = np.full(n_subs, np.nan)
    if spec.pairing is not None and spec.pairing.order_by_result and spec.pairing.order_by_result in results.columns:
        budget = pd.to_numeric(results[spec.pairing.order_by_result], errors="coerce")
        med = budget.groupby(row_sub).median()
        sub_order[med.index.to_numpy()] = med.to_numpy(dtype=np.float64)
    return sub_order
