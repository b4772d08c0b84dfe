"""The one time a build stamps into its output, so two builds of one commit are byte-identical.

The build keeps two times apart on purpose:

- the time it *judges* at (``BuildReport.now``: the real clock, or a rehearsal's ``--as-of``)
  decides release statements, key validity windows, registry admission and the changelog.
  A scheduled build of an unchanged commit must publish a release once its ``not_before``
  has passed, so judging cannot be tied to the commit; and an environment variable must
  never move it (``SOURCE_DATE_EPOCH`` set in the future would otherwise release early).
- the time it *stamps* (``BuildReport.stamped``: ``built`` in ``data/index.json``, the home
  page's footer and through it the search index, the generator's sitemap ``lastmod`` and
  the gzip header of ``sitemap.xml.gz``) comes from one source, in this order:

  1. ``--as-of`` in a rehearsal (the site shows that moment);
  2. ``SOURCE_DATE_EPOCH`` when set (https://reproducible-builds.org/specs/source-date-epoch/);
  3. the commit time of the checkout (``git log -1 --format=%ct HEAD``);
  4. the clock, for a tree that is not a git checkout (or has no commit yet): then the
     output says so (``time_source: "clock"``) and is not reproducible.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from builder.errors import ConfigError

# The values of ``time_source`` in data/index.json.
AS_OF, SOURCE_DATE_EPOCH, COMMIT, CLOCK = "as-of", "source-date-epoch", "commit", "clock"

_EPOCH = re.compile(r"[0-9]{1,12}")  # the spec: a decimal count of seconds; 12 digits is beyond year 30000


@dataclass(frozen=True)
class SourceTime:
    at: datetime  # UTC, whole seconds
    source: str  # AS_OF, SOURCE_DATE_EPOCH, COMMIT or CLOCK

    @property
    def epoch(self) -> int:
        return int(self.at.timestamp())


def source_time(root: Path, *, clock: datetime, as_of: datetime | None = None, environ: Mapping[str, str] | None = None) -> SourceTime:
    """The time the build stamps into its output, and where it came from (module docstring)."""
    if as_of is not None:
        return SourceTime(_whole(as_of), AS_OF)
    env = os.environ if environ is None else environ
    raw = env.get("SOURCE_DATE_EPOCH")
    if raw is not None and raw != "":
        at = _parse_epoch(raw)
        if at is None:
            raise ConfigError(
                f"SOURCE_DATE_EPOCH is {raw[:40]!r}, not a whole number of seconds since 1970-01-01 UTC (before the year 10000)",
                where="SOURCE_DATE_EPOCH",
                reason="bad-source-date-epoch",
                hint="set it to an integer such as $(git log -1 --format=%ct), or unset it to use the commit time",
            )
        return SourceTime(at, SOURCE_DATE_EPOCH)
    committed = commit_time(root)
    if committed is not None:
        return SourceTime(committed, COMMIT)
    return SourceTime(_whole(clock), CLOCK)


def _parse_epoch(raw: str) -> datetime | None:
    if not _EPOCH.fullmatch(raw):
        return None
    try:
        return datetime.fromtimestamp(int(raw), timezone.utc)
    except (OverflowError, OSError, ValueError):  # past what datetime holds (year 9999)
        return None


def commit_time(root: Path) -> datetime | None:
    """The committer time of HEAD of the checkout holding ``root``; None outside git."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%ct", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = out.stdout.strip()
    if out.returncode != 0 or not value.isdigit():
        return None
    return datetime.fromtimestamp(int(value), timezone.utc)


def _whole(at: datetime) -> datetime:
    return at.astimezone(timezone.utc).replace(microsecond=0)
