"""Rejections never quote key material (issue 44).

A rejection names a path and may quote lab text (a folder name, a field's value, an item
id from results). The Rejected page, ``sealboard status`` and the build's log show them, so
a lab whose folder name is key-shaped (``age-secret-key-1…`` is a valid submission name)
would otherwise put the key-shaped text in the output, where the output's key scan fails
the whole build. Run by every build, with or without an identity, before render; the
embargoed-text counterpart is the last step of :func:`builder.leakscan.scan.screen_lab_text`.
"""

from __future__ import annotations

from dataclasses import replace

from builder.bundles.ingest import Rejection
from builder.leakscan.labkeys import key_in_text

WITHHELD = "(name withheld)"


def withhold_where(where: str) -> str:
    """The path up to its first key-shaped component, which and all after it are withheld."""
    parts = where.split("/")
    for i, part in enumerate(parts):
        if key_in_text(part) is not None:
            return "/".join([*parts[:i], WITHHELD])
    return where


def withhold_key_text(rejections: list[Rejection]) -> list[Rejection]:
    """The rejections, each one quoting key material replaced by one naming its place only."""
    out = []
    for r in rejections:
        if all(key_in_text(text) is None for text in (r.where, r.message, r.hint or "", r.lab or "", r.benchmark or "")):
            out.append(r)
            continue
        where = withhold_where(r.where)
        out.append(
            replace(
                r,
                where=where,
                message=f"{where}: the error message quoted key-shaped text and is withheld (the bundle is left out)",
                hint="rename the folder or remove the text: key material is never published",
                lab=None if r.lab is None or key_in_text(r.lab) is None else WITHHELD,
                benchmark=None if r.benchmark is None or key_in_text(r.benchmark) is None else WITHHELD,
            )
        )
    return out
