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

import numpy as np

from builder.errors import ConfigError
from builder.scoring.config_base import FIELD_RE, ID_RE, LANG_RE, token
from builder.scoring.config_boards import BoardParser
from builder.scoring.spec import (
    EXACT_TYPES,
    RESULT_COLUMNS,
    Bin,
    Contamination,
    FieldType,
    ItemBins,
    Pairing,
    Reference,
    ScoringSpec,
    bin_codes_bp,
)

FORMAT = "sealboard-scoring/1"
PRESET_DIR = Path(__file__).resolve().parent.parent / "benchmarks"

_TOP = {
    "format", "extends", "benchmark", "title", "samples", "primary_language", "languages", "min_cell_items",
    "bootstrap", "regrade", "result_fields", "result_defaults", "item_fields", "item_bins", "references",
    "contamination", "pairing", "boards",
}  # fmt: skip
_ITEM_TYPES = ("bool", "int", "number", "string", "fraction", "date")
_RESULT_TYPES = ("bool", "int", "number", "string")

__all__ = ["default_spec", "load_preset", "parse_scoring_config", "token"]


def load_preset(name: str, where: str = "builder/benchmarks") -> dict[str, Any]:
    """The packaged default declaration of a benchmark, as a raw mapping."""
    path = PRESET_DIR / f"{name}.yaml"
    if not ID_RE.match(name) or not path.is_file():
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
    if spec is None:
        raise AssertionError()
    return spec


class _Parser(BoardParser):
    def parse(self, raw: dict[str, Any], benchmark: str | None) -> ScoringSpec | None:
        raw = self._extended(raw)
        self._unknown(raw, _TOP, "")
        if "format" in raw and raw["format"] != FORMAT:
            self.err("format", f"must be {FORMAT!r}")
        bench = raw.get("benchmark", benchmark)
        if benchmark is not None and raw.get("benchmark", benchmark) != benchmark:
            self.err("benchmark", f"is {raw.get('benchmark')!r} but the config is for {benchmark!r}")
        if not isinstance(bench, str) or not ID_RE.match(bench):
            self.err("benchmark", "must be the benchmark id (a-z, 0-9, '-')")
            bench = ""
        before = len(self.errors)
        samples = self._int(raw, "samples", "samples", None, 1, 100)
        self.samples_known = len(self.errors) == before  # else skip checks that depend on it
        primary = self._str(raw, "primary_language", "primary_language")
        languages = self._languages(raw, primary)
        min_cell = self._int(raw, "min_cell_items", "min_cell_items", 5, 1, 1000)
        if "bootstrap" in raw:
            self.err(
                "bootstrap",
                "intervals are analytic (Wilson/MOVER, see the Methodology page) and take no replicates or seed; remove this key",
            )

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

    def _extended(self, raw: dict[str, Any]) -> dict[str, Any]:
        """`raw` over the preset it ``extends`` (if any)."""
        if "extends" not in raw:
            return raw
        name = raw["extends"]
        if not isinstance(name, str):
            self.err("extends", "must be a preset name")
            return raw
        try:
            base = load_preset(name, self.where)
        except ConfigError as exc:
            self.err("extends", exc.message + (f" ({exc.hint})" if exc.hint else ""))
            return raw
        return {**base, **{k: v for k, v in raw.items() if k != "extends"}}

    def _languages(self, raw: dict[str, Any], primary: str) -> list[str]:
        languages = raw.get("languages", [primary])
        if not isinstance(languages, list) or not languages or not all(isinstance(x, str) and LANG_RE.match(x) for x in languages):
            self.err("languages", "must be a list of language tags like en, ko")
            languages = [primary]
        elif len(set(languages)) != len(languages):
            self.err("languages", "lists a language twice")
        if primary and primary not in languages:
            self.err("primary_language", f"{primary!r} is not in languages")
        return languages

    # -- fields ------------------------------------------------------------------------

    def _result_fields(self, raw: dict[str, Any]) -> dict[str, FieldType]:
        out = {}
        for name, value in raw.items():
            path = f"result_fields.{name}"
            if not isinstance(name, str) or not FIELD_RE.match(name) or name in RESULT_COLUMNS or name == "correct":
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
            if not isinstance(name, str) or not FIELD_RE.match(name) or name in ("item", "gold", "id"):
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
            if not isinstance(name, str) or not FIELD_RE.match(name) or name in self.item_fields or name in ("split", "answer_type"):
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
            bins = [b for b in (self._bin(b, f"{path}.bins[{i}]") for i, b in enumerate(bins_raw)) if b is not None]
            if len({b.value for b in bins}) != len(bins):
                self.err(f"{path}.bins", "repeats a value")
            if bins and len(bins) == len(bins_raw):
                # Every rate on a 0.01-pp grid must fall in exactly one bin.
                grid = np.arange(10001, dtype=np.int64)
                hits = bin_codes_bp(grid, bins, count=True)
                if (hits != 1).any():
                    bad = int(grid[np.flatnonzero(hits != 1)[0]])
                    self.err(f"{path}.bins", f"must cover [0, 1] exactly once; {bad / 100:.2f}% falls in {int(hits[bad])} bins")
            out.append(ItemBins(name=name, field=str(src), bins=tuple(bins)))
        return tuple(out)

    def _bin(self, b: Any, bp: str) -> Bin | None:
        """One bin of an item_bins entry, or None (the error recorded)."""
        if not isinstance(b, Mapping):
            self.err(bp, "must be a mapping")
            return None
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
        if v is None or not FIELD_RE.match(v):
            self.err(f"{bp}.value", "must be a lower-case name")
            return None
        title = b.get("title", v)
        return Bin(value=v, title=str(title), **bounds)

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
            self._unknown(r, {"id", "label", "note", "measures", "constant", "complement_of", "items"}, path)
            rid = self._str(r, "id", f"{path}.id", pattern=ID_RE)
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
            items = None
            if "items" in r:
                if constant is None:
                    self.err(f"{path}.items", "applies to a constant reference (one from an item field rests on the items that carry it)")
                items = self._filter(r.get("items"), f"{path}.items", "items")
            out.append(Reference(rid, label, str(note), tuple(measures), None if constant is None else float(constant), comp, items))
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
        cutoff = self._str(raw, "submission_cutoff", "contamination.submission_cutoff", pattern=FIELD_RE)
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
        group_by = self._str(raw, "group_by", "pairing.group_by", pattern=FIELD_RE)
        switch = self._str(raw, "switch", "pairing.switch", pattern=FIELD_RE)
        order = raw.get("order_by_result")
        if order is not None and (order not in self.result_fields or self.result_fields[order].kind not in ("int", "number")):
            self.err("pairing.order_by_result", "must name a numeric result field")
            order = None
        return Pairing(group_by, switch, order)

    # -- boards ------------------------------------------------------------------------
