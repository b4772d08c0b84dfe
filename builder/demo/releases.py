"""The demo's three release states, all real (threshold-signed statements, a published identity):

- LiveMathematicianBench: its two oldest editions (through 2025-12) released a day ago,
  the newer editions still embargoed (a rolling release);
- KCSAT-ML: released in full a day ago (its items are public exam questions), and its
  embargo identity published in keys/released/, so a build with no secret shows it;
- SOOHAK: embargoed, with a statement signed by 2 of the 3 maintainers (the threshold)
  that takes effect in 30 days: ``sealboard release status`` shows the countdown and
  ``sealboard build --as-of <that time>`` rehearses it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from builder.config import load_configs
from builder.release.admin import flip, sign_statement
from builder.release.identity import publish_identity
from builder.release.statement import Publish, Scope
from builder.release.status import release_states
from builder.trust.registry import load_registry
from builder.trust.seal import Identity

LMB_RELEASED_THROUGH = "2025-12"
SOOHAK_IN = timedelta(days=30)


def soohak_release_time(now: datetime) -> datetime:
    return (now + SOOHAK_IN).replace(minute=0, second=0, microsecond=0)


def write_releases(root: Path, now: datetime, maintainer_keys: dict[str, Path], embargo: dict[str, Identity]) -> dict[str, str]:
    """Write, sign and (for KCSAT-ML) complete the demo's releases; returns name -> statement."""
    past = (now - timedelta(days=1)).replace(microsecond=0)
    ada, emmy, sofia = (maintainer_keys[m] for m in ("ada", "emmy", "sofia"))
    plan = {
        "livemathematicianbench": (past, Scope(editions_through=LMB_RELEASED_THROUGH), (ada, emmy)),
        "kcsat-ml": (past, Scope(), (emmy, sofia)),
        "soohak": (soohak_release_time(now), Scope(), (ada, sofia)),
    }
    written = {}
    for benchmark, (not_before, scope, signers) in plan.items():
        path = flip(root, benchmark, not_before, scope, Publish(), now)
        for key in signers:
            sign_statement(root, benchmark, key, path.stem)
        written[benchmark] = str(path.relative_to(root))
    configs = load_configs(root)
    states = release_states(root, configs, load_registry(root, now), now)
    kcsat = next(c for c in configs if c.id == "kcsat-ml")
    publish_identity(root, kcsat, states["kcsat-ml"], [embargo["kcsat-ml"]])
    return written
