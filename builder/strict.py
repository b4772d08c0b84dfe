"""Strict parsers for untrusted bytes (security invariant 3).

Everything a lab or a pull request can write passes through here: JSON without duplicate
keys, NaN/Infinity or integers beyond 2^53; YAML without aliases, tags or duplicate keys;
identifiers that are plain ASCII; display names without control, bidi or zero-width
characters. Errors name the file and line and say how to fix the input.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

import yaml

from builder.errors import ParseError

# JSON numbers beyond this cannot round-trip through a double (RFC 8259 §6, I-JSON).
MAX_SAFE_INT = 2**53
IDENTIFIER_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")

# Characters that make two names look alike or reorder text: bidi controls, zero-width
# joiners and the BOM. Categories Cc/Cf catch the rest of the invisible ones.
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


def _line_of(data: str, pos: int) -> int:
    return data.count("\n", 0, pos) + 1


def _decode(data: bytes | str, where: str) -> str:
    if isinstance(data, str):
        return data
    if data.startswith(b"\xef\xbb\xbf"):
        raise ParseError("starts with a UTF-8 byte order mark", where=where, hint="save the file as UTF-8 without BOM", reason="bom")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(
            f"invalid UTF-8 at byte {exc.start}", where=where, line=line, hint="save the file as UTF-8", reason="invalid-utf8"
        ) from None


class _Reject(Exception):
    def __init__(self, message: str, reason: str, token: str | None = None) -> None:
        self.message, self.reason, self.token = message, reason, token


class _Surrogate(Exception):
    """A decoded string holds a lone surrogate: valid JSON syntax, but not Unicode text."""


_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _locate_surrogate(text: str) -> int | None:
    match = _SURROGATE_ESCAPE_RE.search(text)
    return _line_of(text, match.start()) if match else None


def _check_text(value: Any) -> None:
    if isinstance(value, str) and _SURROGATE_RE.search(value):
        raise _Surrogate
    if isinstance(value, list):
        for v in value:
            _check_text(v)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        _check_text(key)
        _check_text(value)  # nested objects were checked when they were built
        if key in out:
            raise _Reject(f"duplicate key {key!r}", "duplicate-key", key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Reject(f"{name} is not a valid number here", "non-finite", name)


def _safe_int(text: str) -> int:
    value = int(text)
    if abs(value) > MAX_SAFE_INT:
        raise _Reject(f"integer {text[:24]} is beyond ±2^53 and would lose precision", "big-int", text)
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Reject(f"number {text[:24]} overflows a double", "non-finite", text)
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_int=_safe_int, parse_float=_finite_float)


_JSON_HINTS = {
    "duplicate-key": "keep one of the two entries",
    "non-finite": "use a finite number or null",
    "big-int": "integers must lie within ±2^53; write larger values as strings",
}


def _locate(text: str, exc: _Reject) -> int | None:
    """Best-effort line of the token a hook refused (hooks see values, not positions)."""
    if exc.token is None:
        return None
    if exc.reason == "duplicate-key":
        hits = [m.start() for m in re.finditer(re.escape(json.dumps(exc.token)) + r"\s*:", text)]
        return _line_of(text, hits[1]) if len(hits) > 1 else None
    pos = text.find(exc.token)
    return _line_of(text, pos) if pos >= 0 else None


def _loads_text(text: str, where: str, line_offset: int = 0) -> Any:
    try:
        value = _DECODER.decode(text)
        _check_text(value)
        return value
    except _Reject as exc:
        # The hooks do not know the position: JSONL knows its line; for a document, find
        # the offending token's line (a duplicate key's second occurrence).
        line = line_offset or _locate(text, exc)
        raise ParseError(exc.message, where=where, line=line, reason=exc.reason, hint=_JSON_HINTS[exc.reason]) from None
    except json.JSONDecodeError as exc:
        line = (line_offset - 1 + exc.lineno) if line_offset else exc.lineno
        raise ParseError(f"invalid JSON: {exc.msg} (column {exc.colno})", where=where, line=line, reason="invalid-json") from None
    except RecursionError:
        raise ParseError("JSON nested too deeply", where=where, line=line_offset or None, reason="too-deep") from None
    except _Surrogate:
        raise ParseError(
            "text holds a lone UTF-16 surrogate escape (\\ud800–\\udfff), which is not a character",
            where=where,
            line=line_offset or _locate_surrogate(text),
            reason="invalid-utf8",
            hint="write the character itself in UTF-8",
        ) from None


def loads_json(data: bytes | str, where: str) -> Any:
    """Parse one JSON document strictly."""
    return _loads_text(_decode(data, where), where)


def iter_jsonl(data: bytes | str, where: str) -> Iterator[tuple[int, Any]]:
    """Yield (line number, object) for each non-empty line of a JSON Lines file."""
    text = _decode(data, where)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        yield number, _loads_text(line, where, line_offset=number)


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that also refuses aliases, explicit tags and duplicate or non-string keys.

    Aliases are refused outright (not just capped) because no config Sealboard reads needs
    them and a "billion laughs" document is made of nothing else.
    """

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        _refuse_event(self.peek_event())
        return super().compose_node(parent, index)


def _refuse_event(event: yaml.Event) -> None:
    """An alias, an anchor or an explicit tag, refused where the node's event is read."""
    if isinstance(event, yaml.AliasEvent):  # checked first: an alias event's `anchor` is the name it refers to
        raise _YamlReject("YAML aliases (*name) are not accepted", event.start_mark, "yaml-alias")
    if getattr(event, "anchor", None) is not None:
        raise _YamlReject("YAML anchors (&name) are not accepted", event.start_mark, "yaml-alias")
    # The parser only sets an event's tag when the document wrote one explicitly.
    tag = getattr(event, "tag", None)
    if tag is not None:
        raise _YamlReject(f"YAML tag {tag!r} is not accepted", event.start_mark, "yaml-tag")


_YAML_HINTS = {
    "yaml-alias": "write the value out in full instead of referring to it",
    "yaml-tag": "remove the tag; only plain YAML values are read",
    "yaml-key": "quote the key so it is a string",
    "duplicate-key": "keep one of the two entries",
    "non-finite": "use a finite number or null",
    "big-int": "integers must lie within ±2^53",
    "too-deep": "flatten the document",
}


class _YamlReject(Exception):
    def __init__(self, message: str, mark: Any, reason: str) -> None:
        self.message, self.mark, self.reason = message, mark, reason


def _construct_mapping(self: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise _YamlReject("YAML merge keys (<<) are not accepted", key_node.start_mark, "yaml-alias")
        key = self.construct_object(key_node, deep=deep)
        if not isinstance(key, str):
            raise _YamlReject(f"mapping key {key!r} must be a string", key_node.start_mark, "yaml-key")
        if key in seen:
            raise _YamlReject(f"duplicate key {key!r}", key_node.start_mark, "duplicate-key")
        seen[key] = self.construct_object(value_node, deep=deep)
    return seen


def _float_no_special(loader: _StrictLoader, node: yaml.ScalarNode) -> float:
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if value != value or value in (float("inf"), float("-inf")):
        raise _YamlReject(f"{node.value!r} is not a finite number", node.start_mark, "non-finite")
    return value


def _int_bounded(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    value = yaml.SafeLoader.construct_yaml_int(loader, node)
    if abs(value) > MAX_SAFE_INT:
        raise _YamlReject("integer is beyond ±2^53", node.start_mark, "big-int")
    return value


def _timestamp_as_string(loader: _StrictLoader, node: yaml.ScalarNode) -> str:
    # Timestamps stay strings: callers validate RFC 3339 themselves, and PyYAML silently
    # drops time zones from naive forms.
    return str(node.value)


# libyaml, PyYAML's C parser, where this PyYAML has it (its wheels do): it reads a document
# about seven times faster, and a build reads every config and registry version file on
# each run (the audit once per deploy it rebuilds). It has no hook where _StrictLoader
# checks each node, so a first pass over its events makes the same refusals (and bounds the
# nesting its C composer would recurse into); the same constructors then build the values.
# tests/hostile/test_yaml_loaders.py holds the two loaders to the same values and refusals.
LIBYAML = yaml.__with_libyaml__
MAX_YAML_DEPTH = 100


class _StrictCLoader(yaml.CSafeLoader if LIBYAML else yaml.SafeLoader):  # type: ignore[misc]
    """libyaml's parser with _StrictLoader's constructors (its checks: _refuse_by_events)."""


for _loader in (_StrictLoader, _StrictCLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _loader.add_constructor("tag:yaml.org,2002:float", _float_no_special)
    _loader.add_constructor("tag:yaml.org,2002:int", _int_bounded)
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_string)


def _refuse_by_events(text: str) -> None:
    """What _StrictLoader.compose_node refuses, found in libyaml's events; and depth."""
    depth = 0
    for event in yaml.parse(text, Loader=_StrictCLoader):
        _refuse_event(event)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise _YamlReject(f"YAML nested more than {MAX_YAML_DEPTH} levels deep", event.start_mark, "too-deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _load_yaml(text: str, c: bool) -> Any:
    if c:
        _refuse_by_events(text)
        return yaml.load(text, Loader=_StrictCLoader)  # noqa: S506 - the strict constructors, after the checks above
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - the loader is the strict one above


def loads_yaml(data: bytes | str, where: str, *, c: bool = LIBYAML) -> Any:
    """Parse one YAML document strictly (see _StrictLoader); ``c``: with libyaml."""
    text = _decode(data, where)
    try:
        return _load_yaml(text, c)
    except _YamlReject as exc:
        raise ParseError(exc.message, where=where, line=exc.mark.line + 1, reason=exc.reason, hint=_YAML_HINTS[exc.reason]) from None
    except RecursionError:
        raise ParseError("YAML nested too deeply", where=where, reason="too-deep", hint="flatten the document") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise ParseError(f"invalid YAML: {exc.problem or exc.context}", where=where, line=line, reason="invalid-yaml") from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {exc}", where=where, reason="invalid-yaml") from None


def check_fields(
    obj: Any,
    required: Iterable[str],
    optional: Iterable[str] = (),
    *,
    where: str,
    line: int | None = None,
    context: str = "object",
) -> dict[str, Any]:
    """Require a JSON object with exactly the allowed fields; return it."""
    if not isinstance(obj, dict):
        raise ParseError(f"{context} must be an object, not {type(obj).__name__}", where=where, line=line, reason="wrong-type")
    required = set(required)
    allowed = required | set(optional)
    missing = sorted(required - obj.keys())
    if missing:
        raise ParseError(f"{context} is missing field(s) {', '.join(missing)}", where=where, line=line, reason="missing-field")
    unknown = sorted(obj.keys() - allowed)
    if unknown:
        raise ParseError(
            f"{context} has unknown field(s) {', '.join(map(repr, unknown))}",
            where=where,
            line=line,
            reason="unknown-field",
            hint=f"allowed fields are {', '.join(sorted(allowed))}",
        )
    return obj


def check_identifier(value: Any, *, where: str, field: str, line: int | None = None) -> str:
    """An id used in paths and URLs: ASCII `[a-z0-9][a-z0-9-]{0,63}`."""
    if not isinstance(value, str) or not IDENTIFIER_RE.match(value):
        shown = value if isinstance(value, str) and value.isascii() and value.isprintable() else ascii(value)
        raise ParseError(
            f"{field} {shown!s} is not a valid identifier",
            where=where,
            line=line,
            reason="bad-identifier",
            hint="use 1–64 characters of a-z, 0-9 and '-', starting with a letter or digit",
        )
    return value


def clean_display_name(
    value: Any, *, where: str, field: str, line: int | None = None, max_len: int = 120, multiline: bool = False, allow_empty: bool = False
) -> str:
    """A human-readable name: NFKC-normalised, no control, bidi or zero-width characters.

    ``multiline`` (free text such as notes) also admits line breaks and repeated spaces;
    ``allow_empty`` admits "". Every field a lab writes that the site displays goes through
    here, so what a visitor sees is what the bytes say.
    """
    if not isinstance(value, str) or not (value.strip() or (allow_empty and value == "")):
        raise ParseError(f"{field} must be a non-empty string", where=where, line=line, reason="wrong-type")
    normal = unicodedata.normalize("NFKC", value)
    for ch in normal:
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES and not (multiline and ch == "\n"):
            raise ParseError(
                f"{field} contains the invisible or control character U+{ord(ch):04X}",
                where=where,
                line=line,
                reason="bad-display-name",
                hint="remove zero-width, bidi and control characters from the text",
            )
    if normal != normal.strip() or ("  " in normal and not multiline):
        raise ParseError(f"{field} has leading, trailing or repeated spaces", where=where, line=line, reason="bad-display-name")
    if len(normal) > max_len:
        raise ParseError(f"{field} is longer than {max_len} characters", where=where, line=line, reason="bad-display-name")
    if normal != value:
        raise ParseError(
            f"{field} is not in Unicode NFKC form (it would display as {ascii(normal)})",
            where=where,
            line=line,
            reason="bad-display-name",
            hint="use plain characters rather than compatibility forms (e.g. full-width letters)",
        )
    return normal
