"""The text of a published embargo identity file (``keys/released/<benchmark>-<version>.txt``).

One home for its bytes: ``publish-identity`` writes them (builder.release.identity) and a
time-locked release encrypts the same bytes (builder.release.timelock), so either route
leaves the same file behind.
"""

from __future__ import annotations

from builder.config import BenchmarkConfig
from builder.trust.agekeys import Identity


def released_identity_text(config: BenchmarkConfig, key: Identity) -> str:
    """The published identity file of a version: only its embargo key. The time-lock
    (builder.release.timelock) encrypts these same bytes."""
    return (
        f"# The embargo identity of {config.id} version {config.version}, published at its full release.\n"
        f"# Anyone may decrypt this version's sealed files with it (age -d -i THIS_FILE FILE.age).\n"
        + key.select(config.embargo_recipient).reveal_secret()
    )
