"""The rejection of one submission a build stage leaves out (the regrade budget, ungraded samples)."""

from __future__ import annotations

from typing import Any

from builder.bundles.ingest import Rejection


def left_out(state: Any, submission: str, reason: str, what: str, hint: str) -> Rejection:
    """``submission``'s Rejection, placed at its bundle folder; ``what`` follows the folder in the message."""
    bundle = next((b for b in state.bundles if b.manifest.key == submission), None)
    where = bundle.where if bundle is not None else f"bundles/{state.config.id}/{submission}"
    lab = bundle.manifest.lab if bundle is not None else submission.split("/")[0]
    return Rejection(where, reason, f"{where}: {what}", hint, state.config.id, lab)
