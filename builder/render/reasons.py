"""The reason codes page: every code Sealboard reports, who raises it, what to do.

The table lives in ``builder/reasons.yaml`` (tests/test_reasons.py keeps it complete).
It is rendered as one HTML table so the site generator passes it through unparsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from builder.render.escaping import page_text
from builder.strict import check_fields, loads_yaml

REASONS_FILE = Path(__file__).resolve().parent.parent / "reasons.yaml"


@dataclass(frozen=True)
class Reason:
    code: str
    raised_by: str
    fix: str


@cache
def load_reasons() -> dict[str, Reason]:
    data = loads_yaml(REASONS_FILE.read_bytes(), str(REASONS_FILE))
    reasons = {}
    for code, entry in data.items():
        check_fields(entry, {"raised_by", "fix"}, where=f"{REASONS_FILE.name}: {code}")
        reasons[code] = Reason(code, entry["raised_by"], entry["fix"])
    return reasons


def reasons_page() -> str:
    rows = "\n".join(
        f'<tr id="{page_text(r.code)}"><td><code>{page_text(r.code)}</code></td>'
        f"<td>{page_text(r.raised_by)}</td><td>{page_text(r.fix)}</td></tr>"
        for r in sorted(load_reasons().values(), key=lambda r: r.code)
    )
    return (
        "# Reason codes\n\n"
        "Every refusal Sealboard reports carries a short, stable reason code: on the "
        "Rejected submissions page, in `sealboard validate` and `sealboard status` output "
        "(`--json`), and in every error message's context. This is the whole list.\n\n"
        # In a box that scrolls sideways on a phone, with long cells wrapping (as on the
        # Rejected page), so the page itself never gets wider than the screen.
        '<div class="sb-table-wrap">\n<table class="sb-board sb-wrap sb-reasons">\n'
        "<thead><tr><th>Code</th><th>Raised by</th><th>What to do</th></tr></thead>\n"
        f"<tbody>\n{rows}\n</tbody>\n</table>\n</div>\n"
    )
