"""Tombstones: a withdrawn bundle stays withdrawn.

Maintainers withdraw ``bundles/<benchmark>/<lab>/<submission>/`` by committing a tombstone
beside it, ``bundles/<benchmark>/<lab>/<submission>.withdrawn`` (the bundle itself may stay
or go)::

    format: sealboard-withdrawn/1
    withdrawn: 2026-11-30T00:00:00Z     # when maintainers withdrew it
    created: 2026-11-02T10:00:00Z       # the withdrawn bundle's signed `created`
    reason: lab request — wrong harness version

The submission name is retired for good: the build rejects any bundle at that path with
reason ``withdrawn`` (so re-adding it byte for byte publishes nothing), and ``validate``
fails a pull request that adds one. The tombstone keeps the bundle's ``created`` because a
withdrawn bundle still counts toward its lab's submission budget (builder.bundles.budget):
its scores were public, so withdrawing it must not buy another probe. Tombstones live
outside every bundle folder, so a lab's pull request that touches one needs maintainers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from builder.errors import BuilderError, ParseError
from builder.strict import check_fields, loads_yaml

SUFFIX = ".withdrawn"
FORMAT = "sealboard-withdrawn/1"
MAX_TOMBSTONE_BYTES = 16 << 10


@dataclass(frozen=True)
class Tombstone:
    where: str  # bundles/<benchmark>/<lab>/<submission> (the withdrawn bundle's folder)
    benchmark: str
    lab: str
    submission: str
    withdrawn: datetime | None
    created: datetime | None  # None when the tombstone cannot be read: still withdrawn
    reason: str


def bundle_of(path: str) -> tuple[str, str, str] | None:
    """(benchmark, lab, submission) if ``path`` is a tombstone's path, else None."""
    parts = path.split("/")
    if len(parts) == 4 and parts[0] == "bundles" and parts[3].endswith(SUFFIX) and len(parts[3]) > len(SUFFIX):
        return parts[1], parts[2], parts[3][: -len(SUFFIX)]
    return None


def _time(value: object, where: str, key: str) -> datetime:
    if not isinstance(value, str):
        raise ParseError(f"{key} must be an RFC 3339 UTC time string", where=where, reason="bad-tombstone")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ParseError(f"{key} {value!r} is not an RFC 3339 time", where=where, reason="bad-tombstone") from None
    if parsed.tzinfo is None:
        raise ParseError(f"{key} must carry a time zone (Z)", where=where, reason="bad-tombstone")
    return parsed


def parse_tombstone(path: str, data: bytes) -> Tombstone:
    """Parse one tombstone. Raises ParseError (reason ``bad-tombstone``) on a malformed one;
    callers still treat the bundle as withdrawn (see ``unreadable``)."""
    owner = bundle_of(path)
    if owner is None:
        raise ParseError("not a tombstone path (bundles/<benchmark>/<lab>/<submission>.withdrawn)", where=path, reason="bad-tombstone")
    if len(data) > MAX_TOMBSTONE_BYTES:
        raise ParseError(f"tombstone is larger than {MAX_TOMBSTONE_BYTES} bytes", where=path, reason="bad-tombstone")
    try:
        obj = check_fields(loads_yaml(data, path), {"format", "withdrawn", "created", "reason"}, where=path, context="tombstone")
    except BuilderError as exc:
        raise ParseError(
            exc.message, where=path, line=exc.line, reason="bad-tombstone", hint="see builder/bundles/withdrawn.py for the format"
        ) from None
    if obj["format"] != FORMAT:
        raise ParseError(f"format must be {FORMAT!r}", where=path, reason="bad-tombstone")
    if not isinstance(obj["reason"], str):
        raise ParseError("reason must be a string", where=path, reason="bad-tombstone")
    bench, lab, name = owner
    return Tombstone(
        where=f"bundles/{bench}/{lab}/{name}",
        benchmark=bench,
        lab=lab,
        submission=name,
        withdrawn=_time(obj["withdrawn"], path, "withdrawn"),
        created=_time(obj["created"], path, "created"),
        reason=obj["reason"],
    )


def unreadable(path: str) -> Tombstone:
    """A tombstone whose contents cannot be read still withdraws its bundle (fail closed)."""
    bench, lab, name = bundle_of(path) or ("", "", "")
    return Tombstone(f"bundles/{bench}/{lab}/{name}", bench, lab, name, None, None, "")


def read_tombstones(root: Path) -> tuple[dict[str, Tombstone], list[BuilderError]]:
    """Every tombstone under ``root/bundles``: withdrawn folder -> Tombstone, plus errors."""
    found: dict[str, Tombstone] = {}
    errors: list[BuilderError] = []
    top = root / "bundles"
    if not top.is_dir():
        return found, errors
    for path in sorted(top.glob(f"*/*/*{SUFFIX}")):
        rel = path.relative_to(root).as_posix()
        try:
            if path.is_symlink() or not path.is_file():
                raise ParseError("a tombstone must be a regular file", where=rel, reason="bad-tombstone")
            stone = parse_tombstone(rel, path.read_bytes())
        except BuilderError as exc:
            errors.append(exc)
            stone = unreadable(rel)
        found[stone.where] = stone
    return found, errors


def withdrawn_error(stone: Tombstone) -> BuilderError:
    why = f" ({stone.reason})" if stone.reason else ""
    when = f" on {stone.withdrawn:%Y-%m-%d}" if stone.withdrawn else ""
    return BuilderError(
        f"this submission was withdrawn by maintainers{when}{why}; its name is retired",
        where=stone.where,
        reason="withdrawn",
        hint="submit a new run under a new submission name (it counts toward your budget)",
    )
