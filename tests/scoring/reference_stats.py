"""The tests' independent readings of z, t and beta quantiles, apart from the code's own
(``builder.scoring.uncertainty`` uses ``scipy.special``).

scipy.stats is imported on first use, not at collection: its import costs 0.64 CPU-s, paid by
every xdist worker while it collected the three modules that read it."""

from __future__ import annotations

from statistics import NormalDist
from typing import Any

Z = NormalDist().inv_cdf(0.975)  # the standard library's reading of z


def scipy_stats() -> Any:
    from scipy import stats

    return stats
