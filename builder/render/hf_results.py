"""Hugging Face ``.eval_results/`` entries: a board's ranking metric for a model card.

The Hub shows an entry on a model's page (and on the benchmark dataset's leaderboard)
only when ``dataset.id`` is a benchmark dataset registered on the Hub and ``source.url``
is absolute (https://huggingface.co/docs/hub/eval-results; the format is what
``huggingface_hub.parse_eval_result_entries`` reads). So an entry is written only when
both are known: the benchmark's config names its Hub dataset (``hf_dataset: org/name`` in
``leaderboards/<benchmark>.yaml``) and ``mkdocs.yml`` gives the site's address
(``site_url``). Otherwise none is written, and the Data page says which is missing: an
entry the Hub would not show is not worth publishing.

One entry per ranked board a row appears on with a value: ``task_id`` the board id,
``value`` the ranking metric exactly as in the board JSON (rates are fractions),
``source.url`` the board's page, ``notes`` the manifest digest and where the attestation
and the Every Eval Ever record are.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def site_base(site_url: object) -> str | None:
    """``site_url`` as a base for absolute links (ending in '/'); None unless an http(s) URL with a host."""
    if not isinstance(site_url, str):
        return None
    parts = urlsplit(site_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return site_url.strip().rstrip("/") + "/"


def link(base: str | None, rel: str) -> str:
    """A site path as an absolute URL when the site's address is known, else as it is."""
    return base + rel if base else rel


def hf_entry(
    board: dict[str, Any],
    row: dict[str, Any],
    sub: dict[str, Any],
    benchmark: dict[str, Any],
    *,
    dataset: str,
    base: str,
    record: str,
    attestation: str,
) -> dict[str, Any] | None:
    """The board's ranking metric for this row as one ``.eval_results`` entry; None without a value."""
    metric = board.get("rank_by")
    cell = row["metrics"].get(metric) if metric else None
    if cell is None or not isinstance(cell.get("value"), (int, float)) or isinstance(cell.get("value"), bool):
        return None
    unit = next(m["unit"] for m in board["metrics"] if m["name"] == metric)
    return {
        "dataset": {"id": dataset, "task_id": board["board"]},
        "value": cell["value"],
        **({"date": sub["created"]} if sub.get("created") else {}),
        "source": {"url": link(base, f"{benchmark['id']}/{board['board']}.html"), "name": f"{benchmark['title']} leaderboard (Sealboard)"},
        "notes": f"{metric} ({unit}) on board {board['board']}; manifest sha256 {sub['manifest_sha256']}; "
        f"attestation {link(base, attestation)}; Every Eval Ever record {link(base, record)}",
    }
