"""The result of ``sealboard audit --release B --record``: ``attestations/audits/<benchmark>.json``.

The audit (builder.audit) writes it; the build reads it for the "Verify this release" page
("every number shown during the embargo, N deploys, re-derived from the released data: all
agree"). It is a claim anyone can re-check with the same command, not a signature: the
page says so. Format ``sealboard-audit/1`` (owned here, below the renderer and the audit).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from builder.errors import BuilderError
from builder.strict import loads_json

FORMAT = "sealboard-audit/1"
AUDITS_DIR = "attestations/audits"
SUMMARY_FIELDS = ("benchmark", "version", "deploys", "agree", "differ", "unverified", "private_rows", "verdict", "sentence")


def audit_path(root: Path, benchmark: str) -> Path:
    return root / AUDITS_DIR / f"{benchmark}.json"


def write_audit(root: Path, benchmark: str, data: dict[str, Any]) -> Path:
    path = audit_path(root, benchmark)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps({"format": FORMAT, **data}, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return path


def read_audit(root: Path, benchmark: str) -> dict[str, Any] | None:
    """The recorded audit's summary fields, or None when there is none."""
    path = audit_path(root, benchmark)
    if not path.is_file():
        return None
    where = f"{AUDITS_DIR}/{benchmark}.json"
    obj = loads_json(path.read_bytes(), where)
    if not isinstance(obj, dict) or obj.get("format") != FORMAT or obj.get("benchmark") != benchmark:
        raise BuilderError(
            f"is not a {FORMAT} record of {benchmark}",
            where=where,
            reason="bad-format",
            hint=f"write it again with 'sealboard audit --release {benchmark} --record'",
        )
    return {k: obj.get(k) for k in SUMMARY_FIELDS}
