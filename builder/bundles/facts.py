"""What the site may say about one verified submission, before the publication gate.

The lab-text screen (builder.leakscan.scan) scans exactly these facts, and the renderer
publishes them only through the gate (builder.scoring.gate.submission), so one function
owns the list of a submission's published fields.
"""

from __future__ import annotations

import hashlib
from typing import Any

from builder.bundles.manifest import MANIFEST, format_timestamp
from builder.bundles.verify import VerifiedBundle


def submission_facts(b: VerifiedBundle, registry_version: int | None = None) -> dict[str, Any]:
    """Everything the site may say about one verified submission, before the gate (the
    lab-text screen scans exactly this)."""
    m = b.manifest
    return {
        "submission": m.key,
        "lab": m.lab,
        "model": m.model.name,
        "model_id": m.model.id,
        "family": m.model.family,
        "open_weights": m.model.open_weights,
        "params_b": m.model.params_b,
        "active_params_b": m.model.active_params_b,
        "training_cutoff": m.model.training_cutoff.isoformat() if m.model.training_cutoff else None,
        "release_date": m.model.release_date.isoformat() if m.model.release_date else None,
        "reasoning_effort": m.config.reasoning_effort,
        "thinking": m.config.thinking,
        "temperature": m.config.temperature,
        "max_output_tokens": m.config.max_output_tokens,
        "tts": m.config.tts,
        "notes": m.config.notes,
        "harness": f"{m.harness_name} {m.harness_version}",
        "judge": m.judge,
        "created": format_timestamp(m.created),
        "signature": {"status": "verified", "key": b.signer, "registry_version": registry_version},
        "manifest_sha256": hashlib.sha256(b.files[MANIFEST]).hexdigest() if MANIFEST in b.files else None,
        "files": [{"path": f.path, "bytes": f.bytes, "sha256": f.sha256, "sealed": f.sealed} for f in m.files],
        "publish_on_release": {"results": m.publish_results, "transcripts": m.publish_transcripts},
    }
