"""Result bundle v1: the manifest format, owned here.

A bundle lives at ``bundles/<benchmark>/<lab>/<submission>/`` and holds exactly the files
its manifest lists, plus the manifest and its signature. ``manifest.json`` is the exact
byte string that is signed (namespace ``sealboard-bundle``); nothing else is signed, so
every fact the builder trusts about a bundle is in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

import orjson

from builder.errors import BundleError, ParseError
from builder.strict import check_fields, check_identifier, clean_display_name, loads_json

FORMAT = "sealboard-bundle/1"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.json.sig"
RESULTS = "results.jsonl.age"
TRANSCRIPTS = "transcripts.jsonl.gz.age"
# The only files a bundle may hold besides the manifest and its signature.
PAYLOAD_FILES = {RESULTS: True, TRANSCRIPTS: False}  # name -> required

_SHA256_RE = re.compile(r"[0-9a-f]{64}\Z")
_RFC3339_UTC_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z\Z")
_DATE_RE = re.compile(r"\d{4}-\d\d-\d\d\Z")
_VERSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}\Z")

MODEL_FIELDS = {"id", "name", "family", "open_weights", "params_b", "active_params_b", "training_cutoff", "release_date"}
CONFIG_REQUIRED = {"reasoning_effort", "temperature", "max_output_tokens", "tts"}
CONFIG_OPTIONAL = {"thinking", "notes"}
TOP_REQUIRED = {
    "format",
    "benchmark",
    "benchmark_version",
    "lab",
    "submission",
    "created",
    "model",
    "config",
    "harness",
    "judge",
    "files",
    "publish_on_release",
}
# Added after format 1 shipped: optional, so bundles made before it still parse (the build
# re-checks their coverage from the plaintext); `sealboard bundle create` always writes it.
TOP_OPTIONAL = {"coverage"}
COVERAGE_FIELDS = {"dataset", "items", "splits", "languages", "samples", "rows"}
_COVERAGE_LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?\Z")


@dataclass(frozen=True)
class Model:
    id: str
    name: str
    family: str
    open_weights: bool
    params_b: float | None
    active_params_b: float | None
    training_cutoff: date | None
    release_date: date | None


@dataclass(frozen=True)
class RunConfig:
    reasoning_effort: str | None
    thinking: bool | None
    temperature: float | None
    max_output_tokens: int | None
    tts: bool
    notes: str


@dataclass(frozen=True)
class FileEntry:
    path: str
    sha256: str
    bytes: int
    sealed: bool


@dataclass(frozen=True)
class Coverage:
    """What a bundle's results cover, as signed in its manifest (see builder.bundles.coverage).

    Every (language, variant) pair listed is covered for every item of the dataset with
    exactly ``samples`` samples, so ``rows = items × languages × max(1, variants) × samples``.
    ``variants`` lists the benchmark's categorical result-field combinations present, as
    sorted (field, value) pairs; it is empty for benchmarks without such fields.
    """

    dataset: str
    items: int
    splits: tuple[tuple[str, int], ...]
    languages: tuple[str, ...]
    variants: tuple[tuple[tuple[str, Any], ...], ...]
    samples: int
    rows: int

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dataset": self.dataset,
            "items": self.items,
            "splits": dict(self.splits),
            "languages": list(self.languages),
            "samples": self.samples,
            "rows": self.rows,
        }
        if self.variants:
            out["variants"] = [dict(v) for v in self.variants]
        return out


def _count(value: Any, *, where: str, field: str) -> int:
    if type(value) is not int or value < 0:
        raise ParseError(f"{field} must be a non-negative integer", where=where, reason="wrong-type")
    return value


def parse_coverage(value: Any, where: str) -> Coverage:
    raw = check_fields(value, COVERAGE_FIELDS, {"variants"}, where=where, context="coverage")
    dataset = _typed(raw["dataset"], (str,), where=where, field="coverage.dataset")
    if not _VERSION_RE.match(dataset):
        raise ParseError("coverage.dataset must be a dataset version", where=where, reason="bad-identifier")
    splits = raw["splits"]
    if not isinstance(splits, dict) or not splits:
        raise ParseError("coverage.splits must map split names to item counts", where=where, reason="wrong-type")
    for name, n in splits.items():
        _count(n, where=where, field=f"coverage.splits.{name}")
    langs = raw["languages"]
    if (
        not isinstance(langs, list)
        or not langs
        or not all(isinstance(x, str) and _COVERAGE_LANG_RE.match(x) for x in langs)
        or len(set(langs)) != len(langs)
    ):
        raise ParseError("coverage.languages must list distinct language tags", where=where, reason="wrong-type")
    variants = raw.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, dict) and v for v in variants):
        raise ParseError("coverage.variants must list objects of result fields", where=where, reason="wrong-type")
    combos = []
    for v in variants:
        if not all(isinstance(x, (str, bool)) or x is None for x in v.values()):
            raise ParseError("coverage.variants values must be strings, booleans or null", where=where, reason="wrong-type")
        combos.append(tuple(sorted(v.items())))
    if len(set(combos)) != len(combos):
        raise ParseError("coverage.variants lists a combination twice", where=where, reason="wrong-type")
    return Coverage(
        dataset=dataset,
        items=_count(raw["items"], where=where, field="coverage.items"),
        splits=tuple(sorted(splits.items())),
        languages=tuple(langs),
        variants=tuple(combos),
        samples=_count(raw["samples"], where=where, field="coverage.samples"),
        rows=_count(raw["rows"], where=where, field="coverage.rows"),
    )


@dataclass(frozen=True)
class Manifest:
    benchmark: str
    benchmark_version: str
    lab: str
    submission: str
    created: datetime
    model: Model
    config: RunConfig
    harness_name: str
    harness_version: str
    judge: str | None
    files: tuple[FileEntry, ...]
    publish_results: bool
    publish_transcripts: bool
    coverage: Coverage | None = None

    @property
    def key(self) -> str:
        """Submission id unique within a benchmark: ``<lab>/<submission>``."""
        return f"{self.lab}/{self.submission}"

    def file(self, name: str) -> FileEntry | None:
        return next((f for f in self.files if f.path == name), None)


def parse_timestamp(value: Any, *, where: str, field: str) -> datetime:
    if not isinstance(value, str) or not _RFC3339_UTC_RE.match(value):
        raise ParseError(
            f"{field} must be an RFC 3339 UTC timestamp like 2026-11-01T12:00:00Z",
            where=where,
            reason="bad-timestamp",
        )
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:  # the shape matched but the date does not exist (month 13, 30 February)
        raise ParseError(f"{field} {value!r} is not a valid date and time", where=where, reason="bad-timestamp") from None


def format_timestamp(value: datetime) -> str:
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _date(value: Any, *, where: str, field: str, nullable: bool = True) -> date | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not _DATE_RE.match(value):
        raise ParseError(f"{field} must be a date YYYY-MM-DD{' or null' if nullable else ''}", where=where, reason="bad-date")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ParseError(f"{field} {value!r} is not a real date", where=where, reason="bad-date") from None


def _typed(value: Any, kinds: tuple[type, ...], *, where: str, field: str, nullable: bool = False) -> Any:
    if value is None and nullable:
        return None
    # bool is an int in Python; a JSON true must never pass as a number.
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    else:
        ok = isinstance(value, kinds)
    if not ok:
        names = "/".join("number" if k in (int, float) else {str: "string", bool: "boolean"}.get(k, k.__name__) for k in kinds)
        raise ParseError(f"{field} must be {names}{' or null' if nullable else ''}", where=where, reason="wrong-type")
    return value


def _number(value: Any, *, where: str, field: str, nullable: bool = True, minimum: float = 0.0) -> float | None:
    value = _typed(value, (int, float), where=where, field=field, nullable=nullable)
    if value is not None and value < minimum:
        raise ParseError(f"{field} must be ≥ {minimum:g}", where=where, reason="out-of-range")
    return None if value is None else float(value)


def _text(value: Any, *, where: str, field: str, max_len: int = 2000) -> str:
    value = _typed(value, (str,), where=where, field=field)
    if len(value) > max_len:
        raise ParseError(f"{field} is longer than {max_len} characters", where=where, reason="too-long")
    return value


def _display(value: Any, *, where: str, field: str, max_len: int, nullable: bool = False) -> str | None:
    """A displayed free-text field: cleaned as names are (builder.strict.clean_display_name)."""
    if value is None and nullable:
        return None
    return clean_display_name(value, where=where, field=field, max_len=max_len)


def parse_manifest(data: bytes, where: str) -> Manifest:
    """Parse and validate manifest bytes (not their signature: see builder.bundles.verify)."""
    raw = check_fields(loads_json(data, where), TOP_REQUIRED, TOP_OPTIONAL, where=where, context="manifest")
    if raw["format"] != FORMAT:
        raise ParseError(
            f"format is {raw['format']!r}, expected {FORMAT!r}",
            where=where,
            reason="bad-format",
            hint="regenerate with 'sealboard bundle create'",
        )
    benchmark = check_identifier(raw["benchmark"], where=where, field="benchmark")
    lab = check_identifier(raw["lab"], where=where, field="lab")
    submission = check_identifier(raw["submission"], where=where, field="submission")
    version = _typed(raw["benchmark_version"], (str,), where=where, field="benchmark_version")
    if not _VERSION_RE.match(version):
        raise ParseError("benchmark_version must be 1–32 characters of A-Z a-z 0-9 . _ -", where=where, reason="bad-identifier")

    m = check_fields(raw["model"], MODEL_FIELDS, where=where, context="model")
    model = Model(
        id=_text(m["id"], where=where, field="model.id", max_len=120),
        name=clean_display_name(m["name"], where=where, field="model.name"),
        family=clean_display_name(m["family"], where=where, field="model.family"),
        open_weights=_typed(m["open_weights"], (bool,), where=where, field="model.open_weights"),
        params_b=_number(m["params_b"], where=where, field="model.params_b"),
        active_params_b=_number(m["active_params_b"], where=where, field="model.active_params_b"),
        training_cutoff=_date(m["training_cutoff"], where=where, field="model.training_cutoff"),
        release_date=_date(m["release_date"], where=where, field="model.release_date"),
    )
    if not model.id.isascii() or not model.id.isprintable() or " " in model.id:
        raise ParseError("model.id must be printable ASCII without spaces", where=where, reason="bad-identifier")

    c = check_fields(raw["config"], CONFIG_REQUIRED, CONFIG_OPTIONAL, where=where, context="config")
    max_tokens = _typed(c["max_output_tokens"], (int,), where=where, field="config.max_output_tokens", nullable=True)
    config = RunConfig(
        reasoning_effort=_display(c["reasoning_effort"], where=where, field="config.reasoning_effort", max_len=40, nullable=True),
        thinking=_typed(c.get("thinking"), (bool,), where=where, field="config.thinking", nullable=True),
        temperature=_number(c["temperature"], where=where, field="config.temperature"),
        max_output_tokens=max_tokens,
        tts=_typed(c["tts"], (bool,), where=where, field="config.tts"),
        notes=clean_display_name(c.get("notes", ""), where=where, field="config.notes", max_len=2000, multiline=True, allow_empty=True),
    )

    h = check_fields(raw["harness"], {"name", "version"}, where=where, context="harness")
    p = check_fields(raw["publish_on_release"], {"results", "transcripts"}, where=where, context="publish_on_release")

    files = _parse_files(raw["files"], where)
    return Manifest(
        benchmark=benchmark,
        benchmark_version=version,
        lab=lab,
        submission=submission,
        created=parse_timestamp(raw["created"], where=where, field="created"),
        model=model,
        config=config,
        harness_name=clean_display_name(h["name"], where=where, field="harness.name", max_len=120),
        harness_version=clean_display_name(h["version"], where=where, field="harness.version", max_len=60),
        judge=_display(raw["judge"], where=where, field="judge", max_len=120, nullable=True),
        files=files,
        publish_results=_typed(p["results"], (bool,), where=where, field="publish_on_release.results"),
        publish_transcripts=_typed(p["transcripts"], (bool,), where=where, field="publish_on_release.transcripts"),
        coverage=parse_coverage(raw["coverage"], where) if "coverage" in raw else None,
    )


def _parse_files(value: Any, where: str) -> tuple[FileEntry, ...]:
    if not isinstance(value, list):
        raise ParseError("files must be a list", where=where, reason="wrong-type")
    entries: list[FileEntry] = []
    for i, f in enumerate(value):
        f = check_fields(f, {"path", "sha256", "bytes", "sealed"}, where=where, context=f"files[{i}]")
        path = f["path"]
        if not isinstance(path, str):
            raise ParseError(f"files[{i}].path must be a string", where=where, reason="wrong-type")
        if path not in PAYLOAD_FILES:
            raise BundleError(
                f"files[{i}].path {ascii(path)} is not a bundle file",
                where=where,
                reason="unexpected-file",
                hint=f"a bundle holds only {', '.join(PAYLOAD_FILES)}",
            )
        if not isinstance(f["sha256"], str) or not _SHA256_RE.match(f["sha256"]):
            raise ParseError(f"files[{i}].sha256 must be 64 lowercase hex digits", where=where, reason="bad-digest")
        size = _typed(f["bytes"], (int,), where=where, field=f"files[{i}].bytes")
        if size < 0:
            raise ParseError(f"files[{i}].bytes must be ≥ 0", where=where, reason="out-of-range")
        sealed = _typed(f["sealed"], (bool,), where=where, field=f"files[{i}].sealed")
        if not sealed:
            raise BundleError(f"{path} must be sealed", where=where, reason="unsealed-file", hint="encrypt it to the benchmark's recipient")
        if any(e.path == path for e in entries):
            raise ParseError(f"{path} is listed twice in files", where=where, reason="duplicate-file")
        entries.append(FileEntry(path=path, sha256=f["sha256"], bytes=size, sealed=sealed))
    for name, required in PAYLOAD_FILES.items():
        if required and not any(e.path == name for e in entries):
            raise BundleError(f"files does not list {name}", where=where, reason="missing-file")
    return tuple(entries)


def manifest_dict(
    *,
    benchmark: str,
    benchmark_version: str,
    lab: str,
    submission: str,
    created: datetime,
    model: dict[str, Any],
    config: dict[str, Any],
    harness: dict[str, Any],
    judge: str | None,
    files: list[dict[str, Any]],
    publish_results: bool,
    publish_transcripts: bool,
    coverage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out = {
        "format": FORMAT,
        "benchmark": benchmark,
        "benchmark_version": benchmark_version,
        "lab": lab,
        "submission": submission,
        "created": format_timestamp(created),
        "model": model,
        "config": config,
        "harness": harness,
        "judge": judge,
        "files": files,
        "publish_on_release": {"results": publish_results, "transcripts": publish_transcripts},
    }
    if coverage is not None:
        out["coverage"] = coverage
    return out


def dump_manifest(obj: dict[str, Any]) -> bytes:
    """Serialise a manifest the way `sealboard bundle create` writes it (stable, readable)."""
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n"
