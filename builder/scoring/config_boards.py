"""Board declarations: the ``boards:`` list of a scoring declaration (schema in
builder.scoring.config)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builder.scoring.config_base import COLUMN_RE, ID_RE, ParserBase, token
from builder.scoring.spec import BoardSpec, CompositeSpec, FieldType, Measure, MetricSpec, Pairing

KINDS = ("table", "breakdown", "contrast", "composite", "grading", "pairs", "drg", "calibration")
GRADING_COLUMNS = ("regraded_samples", "judge_graded_samples", "disagreements", "disagreement_rate", "unparsed_answers")
DRG_COLUMNS = ("scf_easy_off", "scf_easy_on", "scf_hard_off", "scf_hard_on", "drg")
CALIBRATION_COLUMNS = ("slope", "intercept")
SUMMARIES = ("unsolved",)
_COMMON = {"id", "kind", "title", "description", "items", "results", "rank_by", "notes", "references", "summary", "contamination"}
_PER_KIND = {
    "table": {"metrics"},
    "breakdown": {"by", "measure", "values", "min_group_items"},
    "contrast": {"over", "values", "measure", "delta"},
    "composite": {"metrics", "rank_shift"},
    "grading": set(),
    "pairs": {"measure"},
    "drg": {"bin_field", "easy", "hard", "versus", "profiles"},
    "calibration": {"versus"},
}


class BoardParser(ParserBase):
    has_contamination: bool
    suffix: str

    def _boards(self, raw: Any, samples: int, pairing: Pairing | None) -> tuple[BoardSpec, ...]:
        if not isinstance(raw, list) or not raw:
            self.err("boards", "must be a non-empty list")
            return ()
        out: list[BoardSpec] = []
        seen: set[str] = set()
        columns: dict[str, dict[str, str]] = {}  # board -> table metric -> measure kind
        for i, b in enumerate(raw):
            path = f"boards[{i}]"
            if not isinstance(b, Mapping):
                self.err(path, "must be a mapping")
                continue
            bid = b.get("id")
            if isinstance(bid, str) and ID_RE.match(bid):
                path = f"boards.{bid}"
            board = self._board(b, path, pairing, columns)
            if board is None:
                continue
            ids = {board.id} | ({board.id + self.suffix} if self.has_contamination and board.contamination else set())
            if ids & seen:
                self.err(f"{path}.id", "repeats another board's id (contamination twins end in " + (self.suffix or "-all") + ")")
            seen |= ids
            if board.kind == "table":
                columns[board.id] = {m.name: m.measure.kind for m in board.metrics}
            out.append(board)
        return tuple(out)

    def _board(self, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]) -> BoardSpec | None:
        kind = b.get("kind", "table")
        if kind not in KINDS:
            self.err(f"{path}.kind", f"must be one of {', '.join(KINDS)}")
            return None
        self._unknown(b, _COMMON | _PER_KIND[kind], path)
        bid = self._str(b, "id", f"{path}.id", pattern=ID_RE)
        if not bid:
            return None
        title = self._str(b, "title", f"{path}.title", bid)
        description = self._str(b, "description", f"{path}.description", "")
        items = self._filter(b.get("items"), f"{path}.items", "items")
        results = self._filter(b.get("results"), f"{path}.results", "results")
        notes = b.get("notes", [])
        if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
            self.err(f"{path}.notes", "must be a list of strings")
            notes = []
        flags = {}
        for key in ("references", "contamination"):
            flags[key] = b.get(key, True)
            if not isinstance(flags[key], bool):
                self.err(f"{path}.{key}", "must be true or false")
        summary = b.get("summary", [])
        if not isinstance(summary, list) or not all(s in SUMMARIES for s in summary) or (summary and kind != "table"):
            self.err(f"{path}.summary", f"must be a list drawn from {', '.join(SUMMARIES)} (table boards only)")
            summary = []
        common = dict(
            id=bid, kind=kind, title=title, description=description, items=items, results=results,
            notes=tuple(notes), references=bool(flags["references"]), contamination=bool(flags["contamination"]),
            summary=tuple(summary),
        )  # fmt: skip
        extra: dict[str, Any] = {}
        cols: list[str] = []
        if kind == "table":
            extra["metrics"] = self._table_metrics(b.get("metrics"), path)
            cols = [m.name for m in extra["metrics"]]
        elif kind == "breakdown":
            extra["measure"] = self._measure(b.get("measure"), f"{path}.measure")
            by = b.get("by")
            known = self._item_filter_fields()
            if by not in known or by in ("answer_type",):
                self.err(f"{path}.by", "must name an item field or item bin")
            extra["by"] = by
            values = b.get("values", [])
            if not isinstance(values, list) or not all(isinstance(v, (str, int)) for v in values):
                self.err(f"{path}.values", "must be a list of group values")
                values = []
            extra["values"] = tuple(token(v) for v in values)
            extra["min_group_items"] = self._int(b, "min_group_items", f"{path}.min_group_items", 1, 1, 100000)
            cols = [extra["measure"].name] if extra["measure"] else []
        elif kind == "contrast":
            extra["measure"] = self._measure(b.get("measure"), f"{path}.measure")
            over = b.get("over")
            known = self._result_filter_fields()
            if over not in known:
                self.err(f"{path}.over", f"must be lang or a result field ({', '.join(sorted(known))})")
            extra["over"] = over
            extra["conditions"] = conds = self._conditions(b.get("values"), f"{path}.values", known.get(over) if isinstance(over, str) else None)
            default_delta = f"{conds[1][1]}_minus_{conds[0][1]}" if len(conds) == 2 else "delta"
            extra["delta"] = self._str(b, "delta", f"{path}.delta", default_delta, pattern=COLUMN_RE)
            cols = [c[1] for c in conds] + [extra["delta"]]
        elif kind == "composite":
            extra["composites"] = self._composites(b.get("metrics"), path, earlier)
            cols = [c.name for c in extra["composites"]]
            shift = b.get("rank_shift")
            if shift is not None:
                if not isinstance(shift, Mapping) or set(shift) != {"from", "to"} or not {shift["from"], shift["to"]} <= set(cols):
                    self.err(f"{path}.rank_shift", "must be {from: <metric>, to: <metric>} naming two of this board's metrics")
                else:
                    extra["rank_shift"] = (shift["from"], shift["to"])
        elif kind == "grading":
            cols = list(GRADING_COLUMNS)
        elif kind == "pairs":
            if pairing is None:
                self.err(f"{path}.kind", "pairs boards need the top-level pairing declaration")
            extra["measure"] = m = self._measure(b.get("measure", "accuracy"), f"{path}.measure")
            name = m.name if m else "accuracy"
            cols = [f"{name}_off", f"{name}_on", "gain", "output_tokens_off", "output_tokens_on"]
        elif kind == "drg":
            if pairing is None:
                self.err(f"{path}.kind", "drg boards need the top-level pairing declaration")
            bins = {x.name: x for x in self.item_bins}
            bf = b.get("bin_field")
            if bf not in bins:
                self.err(f"{path}.bin_field", "must name an item_bins field")
            else:
                values = {x.value for x in bins[bf].bins}
                for key in ("easy", "hard"):
                    if b.get(key) not in values:
                        self.err(f"{path}.{key}", f"must be one of the {bf} bins ({', '.join(sorted(values))})")
            extra.update(bin_field=bf, easy=b.get("easy"), hard=b.get("hard"))
            extra["versus"] = self._versus(b, path)
            extra["measure"] = Measure("accuracy", "avg", self.samples)
            prof = b.get("profiles")
            if prof is not None:
                if not isinstance(prof, Mapping) or set(prof) != {"high", "low"} or not all(isinstance(prof[k], (int, float)) and not isinstance(prof[k], bool) for k in prof) or prof["low"] >= prof["high"]:
                    self.err(f"{path}.profiles", "must be {high: x, low: y} with low < high (as fractions)")
                else:
                    extra["profiles"] = (float(prof["high"]), float(prof["low"]))
            cols = list(DRG_COLUMNS)
        elif kind == "calibration":
            extra["versus"] = self._versus(b, path)
            extra["measure"] = Measure("accuracy", "avg", self.samples)
            cols = list(CALIBRATION_COLUMNS)
        if len(set(cols)) != len(cols):
            self.err(path, "two columns share a name")
        rank_by: str | None = cols[0] if cols else None
        if "rank_by" in b:
            rank_by = b["rank_by"]
            if rank_by is not None and rank_by not in cols:
                self.err(f"{path}.rank_by", f"must be null or one of {', '.join(cols)}")
                rank_by = None
        if kind == "grading" and "rank_by" not in b:
            rank_by = None
        return BoardSpec(**common, rank_by=rank_by, **extra)

    def _versus(self, b: Mapping[str, Any], path: str) -> str | None:
        v = b.get("versus")
        if v not in self.item_fields or self.item_fields[v].kind != "fraction":
            self.err(f"{path}.versus", "must name the cohort error-rate item field (declared as fraction)")
            return None
        return str(v)

    def _table_metrics(self, raw: Any, path: str) -> tuple[MetricSpec, ...]:
        if not isinstance(raw, list) or not raw:
            self.err(f"{path}.metrics", "must be a non-empty list")
            return ()
        out = []
        for i, m in enumerate(raw):
            mp = f"{path}.metrics[{i}]"
            if isinstance(m, str):
                measure = self._measure(m, mp)
                if measure is not None:
                    out.append(MetricSpec(m, measure))
                continue
            if not isinstance(m, Mapping):
                self.err(mp, "must be a measure name or a mapping")
                continue
            self._unknown(m, {"name", "measure", "title", "description", "items", "results"}, mp)
            name = self._str(m, "name", f"{mp}.name", pattern=COLUMN_RE)
            measure = self._measure(m.get("measure", name), f"{mp}.measure")
            title, desc = m.get("title"), m.get("description")
            for key, val in (("title", title), ("description", desc)):
                if val is not None and not isinstance(val, str):
                    self.err(f"{mp}.{key}", "must be a string")
            items = self._filter(m.get("items"), f"{mp}.items", "items")
            results = self._filter(m.get("results"), f"{mp}.results", "results")
            if measure is not None and name:
                out.append(MetricSpec(name, measure, title, desc, items, results))
        return tuple(out)

    def _conditions(self, raw: Any, path: str, ftype: FieldType | None) -> tuple[tuple[Any, str, str], ...]:
        if not isinstance(raw, list) or len(raw) != 2:
            self.err(path, "must list exactly two values to contrast")
            return ()
        out = []
        for i, v in enumerate(raw):
            name = title = None
            if isinstance(v, Mapping):
                self._unknown(v, {"value", "name", "title"}, f"{path}[{i}]")
                name, title, v = v.get("name"), v.get("title"), v.get("value")
            t = token(v) if isinstance(v, (str, int, bool)) else None
            if t is None:
                self.err(f"{path}[{i}]", "must be a string, number or boolean")
                continue
            if ftype is not None and ftype.kind == "enum" and t not in ftype.values:
                self.err(f"{path}[{i}]", f"{t!r} is not one of {', '.join(ftype.values)}")
            name = name if name is not None else t
            if not isinstance(name, str) or not COLUMN_RE.match(name):
                self.err(f"{path}[{i}].name", "must be a lower-case column name")
                name = t
            out.append((t, name, str(title) if title is not None else name))
        return tuple(out)

    def _composites(self, raw: Any, path: str, earlier: dict[str, dict[str, str]]) -> tuple[CompositeSpec, ...]:
        if not isinstance(raw, list) or not raw:
            self.err(f"{path}.metrics", "must be a non-empty list")
            return ()
        out = []
        for i, m in enumerate(raw):
            mp = f"{path}.metrics[{i}]"
            if not isinstance(m, Mapping):
                self.err(mp, "must be a mapping with name and mean_of")
                continue
            self._unknown(m, {"name", "title", "description", "mean_of"}, mp)
            name = self._str(m, "name", f"{mp}.name", pattern=COLUMN_RE)
            terms = m.get("mean_of")
            refs = []
            if not isinstance(terms, list) or not terms:
                self.err(f"{mp}.mean_of", "must list board/metric terms")
                terms = []
            for t in terms:
                board, _, metric = t.partition("/") if isinstance(t, str) else ("", "", "")
                if board not in earlier or metric not in earlier[board]:
                    self.err(f"{mp}.mean_of", f"{t!r} must name a metric of an earlier table board as board/metric")
                    continue
                refs.append((board, metric))
            out.append(CompositeSpec(name, tuple(refs), m.get("title"), m.get("description")))
        return tuple(out)
