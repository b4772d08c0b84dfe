"""Shared machinery of the scoring-declaration parser: error collection, scalar and
filter checks, measures. See builder.scoring.config for the schema."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from builder.scoring.spec import MEASURE_RE, SIMPLE_MEASURES, FieldType, Filter, Measure

ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
FIELD_RE = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
COLUMN_RE = re.compile(r"[a-z][a-z0-9_@=.\-]{0,127}\Z")
LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?\Z")


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


class ParserBase:
    """Collects ``(key, message)`` problems; subclasses parse sections into spec records."""

    samples: int
    samples_known: bool
    languages: tuple[str, ...]
    item_fields: dict[str, FieldType]
    result_fields: dict[str, FieldType]
    item_bins: tuple[Any, ...]

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
            if self.samples_known and k > self.samples:
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

    def _versus(self, b: Mapping[str, Any], path: str) -> str | None:
        """The cohort error-rate field a drg or calibration board compares with."""
        v = b.get("versus")
        if v not in self.item_fields or self.item_fields[v].kind != "fraction":
            self.err(f"{path}.versus", "must name the cohort error-rate item field (declared as fraction)")
            return None
        return str(v)
