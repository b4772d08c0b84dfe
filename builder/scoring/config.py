"""Parse a benchmark's scoring declaration (``sealboard-scoring/1``), in one place.

Every problem is collected as a ``(key, message)`` pair and reported together in one
ConfigError naming the file (mkdocs ``config/base.py`` style). The defaults for the three
benchmarks live in ``builder/benchmarks/<id>.yaml``; an instance's config may say
``extends: soohak`` and override top-level keys.

Schema (top level)::

    format: sealboard-scoring/1     optional
    extends: <preset>               optional: start from builder/benchmarks/<preset>.yaml
    benchmark: <id>                 required (or passed by the caller)
    samples: 3                      k: samples per item the metrics assume
    primary_language: en            boards use it unless they say otherwise
    languages: [en, ko]
    min_cell_items: 5               embargo suppression threshold (cells over fewer items)
    bootstrap: {replicates: 1000, seed: 1}
    regrade: {types: [integer, choice, fraction, decimal], when: {<result field>: value}}
    result_fields: {<name>: bool | int | number | string | [allowed, values]}
    result_defaults: {<result field>: value}    condition every board applies by default
    item_fields: {<name>: string | int | number | fraction | date | bool | [values]
                  | {type: ..., values: [...], optional: true}}
    item_bins: {<derived field>: {field: <fraction field>, bins: [{value, title,
                min | above | max | below}]}}     the bins must cover [0, 1] exactly once
    references: [{id, label, note, measures: [...], constant: 0.2 | complement_of: <field>}]
    contamination: {item_date: <date field>, submission_cutoff: <submissions column>,
                    all_suffix: -all}
    pairing: {group_by: <submissions column>, switch: <bool column>, order_by_result: <field>}
    boards: [<board>, ...]

Board keys common to every kind: ``id``, ``kind`` (default ``table``), ``title``,
``description``, ``items`` and ``results`` (filters: ``{field: value | [values] |
{present: true}}``), ``rank_by`` (a column; null for none; default the first column),
``notes``, ``references`` (bool), ``contamination`` (bool), ``summary`` ([unsolved]).
Per kind:

- ``table``: ``metrics`` — ``avg@3`` or ``{name, measure, title, description, items, results}``
- ``breakdown``: ``by`` (item field or bin), ``measure``, ``values`` (order), ``min_group_items``
- ``contrast``: ``over`` (``lang`` or a result field), ``values`` (two: scalar or
  ``{value, name, title}``), ``measure``, ``delta`` (column name of second − first)
- ``composite``: ``metrics`` — ``{name, title, mean_of: [board/metric, ...]}``; ``rank_shift: {from, to}``
- ``grading``: no extra keys
- ``pairs``: ``measure``
- ``drg``: ``bin_field``, ``easy``, ``hard``, ``versus`` (cohort field), ``profiles: {high, low}``
- ``calibration``: ``versus``

Measures: ``avg@k``, ``pass@k`` (k ≤ samples), ``accuracy`` (= avg@samples),
``refusal_rate``, ``output_tokens``, ``cost_per_correct``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from builder.errors import ConfigError
from builder.scoring.spec import (
    EXACT_TYPES,
    MEASURE_RE,
    RESULT_COLUMNS,
    SIMPLE_MEASURES,
    Bin,
    BoardSpec,
    CompositeSpec,
    Contamination,
    FieldType,
    Filter,
    ItemBins,
    Measure,
    MetricSpec,
    Pairing,
    Reference,
    ScoringSpec,
)

FORMAT = "sealboard-scoring/1"
PRESET_DIR = Path(__file__).resolve().parent.parent / "benchmarks"

_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
_FIELD_RE = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
_COLUMN_RE = re.compile(r"[a-z][a-z0-9_@=.\-]{0,127}\Z")
_LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?\Z")

KINDS = ("table", "breakdown", "contrast", "composite", "grading", "pairs", "drg", "calibration")
GRADING_COLUMNS = ("regraded_samples", "judge_graded_samples", "disagreements", "disagreement_rate", "unparsed_answers")
DRG_COLUMNS = ("scf_easy_off", "scf_easy_on", "scf_hard_off", "scf_hard_on", "drg")
CALIBRATION_COLUMNS = ("slope", "intercept")
SUMMARIES = ("unsolved",)

_TOP = {
    "format", "extends", "benchmark", "title", "samples", "primary_language", "languages", "min_cell_items",
    "bootstrap", "regrade", "result_fields", "result_defaults", "item_fields", "item_bins", "references",
    "contamination", "pairing", "boards",
}  # fmt: skip
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
_ITEM_TYPES = ("bool", "int", "number", "string", "fraction", "date")
_RESULT_TYPES = ("bool", "int", "number", "string")


def token(value: Any) -> str | None:
    """The canonical text of a filter/group value: true/false, 3 (not 3.0), text as is."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return token(value.item())
    return str(value)


def load_preset(name: str, where: str = "builder/benchmarks") -> dict[str, Any]:
    """The packaged default declaration of a benchmark, as a raw mapping."""
    path = PRESET_DIR / f"{name}.yaml"
    if not _ID_RE.match(name) or not path.is_file():
        known = ", ".join(sorted(p.stem for p in PRESET_DIR.glob("*.yaml")))
        raise ConfigError(f"no scoring preset {name!r}", where=where, hint=f"presets: {known}")
    try:
        from builder.strict import loads_yaml
    except ImportError:  # pragma: no cover - strict is part of the package
        import yaml

        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    else:
        raw = loads_yaml(path.read_bytes(), str(path))
    if not isinstance(raw, dict):
        raise ConfigError("a scoring preset must be a mapping", where=str(path))
    return raw


def default_spec(benchmark: str) -> ScoringSpec:
    """Parse the packaged declaration of `benchmark` (soohak, livemathematicianbench, kcsat-ml)."""
    return parse_scoring_config(load_preset(benchmark), f"builder/benchmarks/{benchmark}.yaml")


def parse_scoring_config(raw: Any, where: str, *, benchmark: str | None = None) -> ScoringSpec:
    """Validate a scoring mapping and return the frozen ScoringSpec, or raise ConfigError
    listing every ``key: problem`` found."""
    if not isinstance(raw, Mapping):
        raise ConfigError("scoring must be a mapping", where=where)
    p = _Parser(where)
    spec = p.parse(dict(raw), benchmark)
    if p.errors:
        listing = "; ".join(f"{key}: {msg}" for key, msg in p.errors)
        raise ConfigError(
            f"{len(p.errors)} problem(s) in the scoring declaration: {listing}",
            where=where,
            hint="the keys are documented in builder/scoring/config.py and builder/benchmarks/*.yaml",
        )
    assert spec is not None
    return spec


class _Parser:
    def __init__(self, where: str) -> None:
        self.where = where
        self.errors: list[tuple[str, str]] = []

    def err(self, key: str, msg: str) -> None:
        self.errors.append((key, msg))

    # -- scalars -----------------------------------------------------------------------

    def _int(self, raw: Mapping[str, Any], key: str, path: str, default: int | None, lo: int, hi: int) -> int:
        value = raw.get(key, default)
        if value is None:
            self.err(path, "is required")
            return lo
        if type(value) is not int or not lo <= value <= hi:
            self.err(path, f"must be an integer from {lo} to {hi}")
            return lo
        return value

    def _str(self, raw: Mapping[str, Any], key: str, path: str, default: str | None = None, pattern: re.Pattern[str] | None = None) -> str:
        value = raw.get(key, default)
        if value is None:
            self.err(path, "is required")
            return ""
        if not isinstance(value, str) or (pattern is not None and not pattern.match(value)):
            self.err(path, "must be a string" + (" of a-z, 0-9, '-' or '_'" if pattern is not None else ""))
            return ""
        return value

    def _map(self, raw: Mapping[str, Any], key: str, path: str) -> dict[str, Any]:
        value = raw.get(key)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.err(path, "must be a mapping")
            return {}
        return dict(value)

    def _unknown(self, raw: Mapping[str, Any], allowed: set[str], path: str) -> None:
        for key in sorted(set(raw) - allowed, key=str):
            self.err(f"{path}.{key}" if path else str(key), f"unknown key (allowed: {', '.join(sorted(allowed))})")

    # -- top level ---------------------------------------------------------------------

    def parse(self, raw: dict[str, Any], benchmark: str | None) -> ScoringSpec | None:
        if "extends" in raw:
            name = raw["extends"]
            if not isinstance(name, str):
                self.err("extends", "must be a preset name")
            else:
                try:
                    base = load_preset(name, self.where)
                except ConfigError as exc:
                    self.err("extends", exc.message + (f" ({exc.hint})" if exc.hint else ""))
                else:
                    raw = {**base, **{k: v for k, v in raw.items() if k != "extends"}}
        self._unknown(raw, _TOP, "")
        if "format" in raw and raw["format"] != FORMAT:
            self.err("format", f"must be {FORMAT!r}")
        bench = raw.get("benchmark", benchmark)
        if benchmark is not None and raw.get("benchmark", benchmark) != benchmark:
            self.err("benchmark", f"is {raw.get('benchmark')!r} but the config is for {benchmark!r}")
        if not isinstance(bench, str) or not _ID_RE.match(bench):
            self.err("benchmark", "must be the benchmark id (a-z, 0-9, '-')")
            bench = ""
        samples = self._int(raw, "samples", "samples", None, 1, 100)
        primary = self._str(raw, "primary_language", "primary_language")
        languages = raw.get("languages", [primary])
        if not isinstance(languages, list) or not languages or not all(isinstance(x, str) and _LANG_RE.match(x) for x in languages):
            self.err("languages", "must be a list of language tags like en, ko")
            languages = [primary]
        elif len(set(languages)) != len(languages):
            self.err("languages", "lists a language twice")
        if primary and primary not in languages:
            self.err("primary_language", f"{primary!r} is not in languages")
        min_cell = self._int(raw, "min_cell_items", "min_cell_items", 5, 1, 1000)
        boot = self._map(raw, "bootstrap", "bootstrap")
        self._unknown(boot, {"replicates", "seed"}, "bootstrap")
        replicates = self._int(boot, "replicates", "bootstrap.replicates", 1000, 200, 100_000)
        seed = self._int(boot, "seed", "bootstrap.seed", 0, 0, 2**63 - 1)

        self.result_fields = self._result_fields(self._map(raw, "result_fields", "result_fields"))
        self.item_fields = self._item_fields(self._map(raw, "item_fields", "item_fields"))
        self.languages = tuple(languages)
        self.item_bins = self._item_bins(self._map(raw, "item_bins", "item_bins"))
        self.samples = samples

        regrade = self._map(raw, "regrade", "regrade")
        self._unknown(regrade, {"types", "when"}, "regrade")
        types = regrade.get("types", list(EXACT_TYPES))
        if not isinstance(types, list) or not all(t in EXACT_TYPES for t in types):
            self.err("regrade.types", f"must be a list drawn from {', '.join(EXACT_TYPES)}")
            types = []
        regrade_when = self._filter(regrade.get("when"), "regrade.when", "results")
        defaults = self._filter(raw.get("result_defaults"), "result_defaults", "results")
        if "lang" in defaults.fields():
            self.err("result_defaults.lang", "use primary_language instead")

        references = self._references(raw.get("references", []))
        contamination = self._contamination(raw.get("contamination"))
        pairing = self._pairing(raw.get("pairing"))
        self.has_contamination = contamination is not None
        self.suffix = contamination.all_suffix if contamination else ""
        boards = self._boards(raw.get("boards"), samples, pairing)

        return ScoringSpec(
            benchmark=bench,
            samples=samples,
            primary_language=primary,
            languages=tuple(languages),
            min_cell_items=min_cell,
            replicates=replicates,
            seed=seed,
            regrade_types=tuple(types),
            regrade_when=regrade_when,
            result_fields=self.result_fields,
            result_defaults=defaults,
            item_fields=self.item_fields,
            item_bins=self.item_bins,
            references=references,
            contamination=contamination,
            pairing=pairing,
            boards=boards,
            where=self.where,
        )

    # -- fields ------------------------------------------------------------------------

    def _field_type(self, value: Any, path: str, kinds: tuple[str, ...]) -> FieldType | None:
        optional = True
        if isinstance(value, Mapping):
            self._unknown(value, {"type", "values", "optional"}, path)
            optional = value.get("optional", True)
            if not isinstance(optional, bool):
                self.err(f"{path}.optional", "must be true or false")
            value = value.get("values") if value.get("type", "enum") == "enum" else value.get("type")
        if isinstance(value, list):
            if not value or not all(isinstance(v, str) and v for v in value) or len(set(value)) != len(value):
                self.err(path, "allowed values must be distinct non-empty strings")
                return None
            return FieldType("enum", tuple(value), optional)
        if value not in kinds:
            self.err(path, f"type must be one of {', '.join(kinds)} or a list of allowed values")
            return None
        return FieldType(value, (), optional)

    def _result_fields(self, raw: dict[str, Any]) -> dict[str, FieldType]:
        out = {}
        for name, value in raw.items():
            path = f"result_fields.{name}"
            if not isinstance(name, str) or not _FIELD_RE.match(name) or name in RESULT_COLUMNS or name == "correct":
                self.err(path, "must be a new lower-case field name (not a standard result column)")
                continue
            t = self._field_type(value, path, _RESULT_TYPES)
            if t is not None:
                out[name] = t
        return out

    def _item_fields(self, raw: dict[str, Any]) -> dict[str, FieldType]:
        out = {}
        for name, value in raw.items():
            path = f"item_fields.{name}"
            if not isinstance(name, str) or not _FIELD_RE.match(name) or name in ("item", "gold", "id"):
                self.err(path, "must be a lower-case metadata field name")
                continue
            t = self._field_type(value, path, _ITEM_TYPES)
            if t is not None:
                out[name] = t
        return out

    def _item_bins(self, raw: dict[str, Any]) -> tuple[ItemBins, ...]:
        out = []
        for name, value in raw.items():
            path = f"item_bins.{name}"
            if not isinstance(name, str) or not _FIELD_RE.match(name) or name in self.item_fields or name in ("split", "answer_type"):
                self.err(path, "must be a new lower-case field name")
                continue
            if not isinstance(value, Mapping):
                self.err(path, "must be a mapping with field and bins")
                continue
            self._unknown(value, {"field", "bins"}, path)
            src = value.get("field")
            if src not in self.item_fields or self.item_fields[src].kind != "fraction":
                self.err(f"{path}.field", "must name an item field declared as fraction")
            bins_raw = value.get("bins")
            if not isinstance(bins_raw, list) or not bins_raw:
                self.err(f"{path}.bins", "must be a non-empty list")
                continue
            bins = []
            for i, b in enumerate(bins_raw):
                bp = f"{path}.bins[{i}]"
                if not isinstance(b, Mapping):
                    self.err(bp, "must be a mapping")
                    continue
                self._unknown(b, {"value", "title", "min", "above", "max", "below"}, bp)
                bounds = {}
                for key in ("min", "above", "max", "below"):
                    x = b.get(key)
                    if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x <= 1):
                        self.err(f"{bp}.{key}", "must be a number in [0, 1]")
                        x = None
                    bounds[key] = x
                if bounds["min"] is not None and bounds["above"] is not None or bounds["max"] is not None and bounds["below"] is not None:
                    self.err(bp, "give at most one lower bound (min or above) and one upper bound (max or below)")
                v = token(b.get("value"))
                if v is None or not _FIELD_RE.match(v):
                    self.err(f"{bp}.value", "must be a lower-case name")
                    continue
                title = b.get("title", v)
                bins.append(Bin(value=v, title=str(title), **bounds))
            if len({b.value for b in bins}) != len(bins):
                self.err(f"{path}.bins", "repeats a value")
            if bins and len(bins) == len(bins_raw):
                # Every rate on a 0.01-pp grid must fall in exactly one bin.
                from builder.scoring.frames import bin_codes_bp

                import numpy as np

                grid = np.arange(10001, dtype=np.int64)
                hits = bin_codes_bp(grid, bins, count=True)
                if (hits != 1).any():
                    bad = int(grid[np.flatnonzero(hits != 1)[0]])
                    self.err(f"{path}.bins", f"must cover [0, 1] exactly once; {bad / 100:.2f}% falls in {int(hits[bad])} bins")
            out.append(ItemBins(name=name, field=str(src), bins=tuple(bins)))
        return tuple(out)

    def _item_filter_fields(self) -> dict[str, FieldType | None]:
        fields: dict[str, FieldType | None] = {"split": None, "answer_type": None}
        fields.update(self.item_fields)
        for b in self.item_bins:
            fields[b.name] = FieldType("enum", tuple(x.value for x in b.bins))
        return fields

    def _result_filter_fields(self) -> dict[str, FieldType | None]:
        fields: dict[str, FieldType | None] = {"lang": FieldType("enum", self.languages)}
        fields.update(self.result_fields)
        return fields

    def _filter(self, raw: Any, path: str, scope: str) -> Filter:
        if raw is None:
            return Filter()
        if not isinstance(raw, Mapping):
            self.err(path, "must be a mapping of field to value(s)")
            return Filter()
        known = self._item_filter_fields() if scope == "items" else self._result_filter_fields()
        equals, present = [], []
        for name, value in raw.items():
            fp = f"{path}.{name}"
            if name not in known:
                self.err(fp, f"is not a declared {scope[:-1]} field ({', '.join(sorted(known))})")
                continue
            if isinstance(value, Mapping):
                if dict(value) != {"present": True}:
                    self.err(fp, "the only operator is {present: true}")
                else:
                    present.append(name)
                continue
            values = value if isinstance(value, list) else [value]
            toks = []
            for v in values:
                t = token(v) if isinstance(v, (str, int, float, bool)) else None
                if t is None:
                    self.err(fp, "values must be strings, numbers or booleans")
                    continue
                ft = known[name]
                if ft is not None and ft.kind == "enum" and t not in ft.values:
                    self.err(fp, f"{t!r} is not one of {', '.join(ft.values)}")
                if ft is not None and ft.kind == "bool" and t not in ("true", "false"):
                    self.err(fp, "must be true or false")
                toks.append(t)
            if not toks:
                self.err(fp, "lists no value")
            equals.append((name, tuple(toks)))
        return Filter(tuple(sorted(equals)), tuple(sorted(present)))

    # -- references, contamination, pairing ---------------------------------------------

    def _measure(self, value: Any, path: str) -> Measure | None:
        if not isinstance(value, str):
            self.err(path, "must be a measure name (avg@k, pass@k, accuracy, refusal_rate, output_tokens, cost_per_correct)")
            return None
        m = MEASURE_RE.match(value)
        if m:
            k = int(m.group(2))
            if k > self.samples:
                self.err(path, f"{value} needs {k} samples per item but samples is {self.samples}")
            return Measure(value, m.group(1), k)
        if value == "accuracy":
            return Measure(value, "avg", self.samples)
        if value == "refusal_rate":
            return Measure(value, "refusal_rate", self.samples)
        if value in SIMPLE_MEASURES:
            return Measure(value, value, 1)
        self.err(path, f"unknown measure {value!r} (avg@k, pass@k, {', '.join(SIMPLE_MEASURES)})")
        return None

    def _references(self, raw: Any) -> tuple[Reference, ...]:
        if not isinstance(raw, list):
            self.err("references", "must be a list")
            return ()
        out = []
        for i, r in enumerate(raw):
            path = f"references[{i}]"
            if not isinstance(r, Mapping):
                self.err(path, "must be a mapping")
                continue
            self._unknown(r, {"id", "label", "note", "measures", "constant", "complement_of"}, path)
            rid = self._str(r, "id", f"{path}.id", pattern=_ID_RE)
            label = self._str(r, "label", f"{path}.label")
            note = r.get("note", "")
            measures = r.get("measures")
            if not isinstance(measures, list) or not measures or not all(isinstance(m, str) for m in measures):
                self.err(f"{path}.measures", "must list the measures the row applies to")
                measures = []
            constant, comp = r.get("constant"), r.get("complement_of")
            if (constant is None) == (comp is None):
                self.err(path, "give exactly one of constant or complement_of")
            if constant is not None and (isinstance(constant, bool) or not isinstance(constant, (int, float)) or not 0 <= constant <= 1):
                self.err(f"{path}.constant", "must be a rate in [0, 1]")
                constant = None
            if comp is not None and (comp not in self.item_fields or self.item_fields[comp].kind != "fraction"):
                self.err(f"{path}.complement_of", "must name an item field declared as fraction")
                comp = None
            out.append(Reference(rid, label, str(note), tuple(measures), None if constant is None else float(constant), comp))
        return tuple(out)

    def _contamination(self, raw: Any) -> Contamination | None:
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            self.err("contamination", "must be a mapping")
            return None
        self._unknown(raw, {"item_date", "submission_cutoff", "all_suffix"}, "contamination")
        date = self._str(raw, "item_date", "contamination.item_date")
        if date and (date not in self.item_fields or self.item_fields[date].kind != "date"):
            self.err("contamination.item_date", "must name an item field declared as date")
        cutoff = self._str(raw, "submission_cutoff", "contamination.submission_cutoff", pattern=_FIELD_RE)
        suffix = self._str(raw, "all_suffix", "contamination.all_suffix", "-all")
        if suffix and not re.fullmatch(r"-[a-z0-9-]{1,20}", suffix):
            self.err("contamination.all_suffix", "must look like -all")
        return Contamination(date, cutoff, suffix)

    def _pairing(self, raw: Any) -> Pairing | None:
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            self.err("pairing", "must be a mapping")
            return None
        self._unknown(raw, {"group_by", "switch", "order_by_result"}, "pairing")
        group_by = self._str(raw, "group_by", "pairing.group_by", pattern=_FIELD_RE)
        switch = self._str(raw, "switch", "pairing.switch", pattern=_FIELD_RE)
        order = raw.get("order_by_result")
        if order is not None and (order not in self.result_fields or self.result_fields[order].kind not in ("int", "number")):
            self.err("pairing.order_by_result", "must name a numeric result field")
            order = None
        return Pairing(group_by, switch, order)

    # -- boards ------------------------------------------------------------------------

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
            if isinstance(bid, str) and _ID_RE.match(bid):
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
        bid = self._str(b, "id", f"{path}.id", pattern=_ID_RE)
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
            extra["delta"] = self._str(b, "delta", f"{path}.delta", default_delta, pattern=_COLUMN_RE)
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
            name = self._str(m, "name", f"{mp}.name", pattern=_COLUMN_RE)
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
            if not isinstance(name, str) or not _COLUMN_RE.match(name):
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
            name = self._str(m, "name", f"{mp}.name", pattern=_COLUMN_RE)
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
