"""The per-lab submission budget: at most ``bundles`` submissions per lab, per benchmark, in
any ``window_days`` window. One function decides it for both ``validate`` and the build.

Why: every published score is an answer to a query on the embargoed answer key. Required
full coverage makes each query cost a whole run, and the budget caps how many queries a
lab gets (the Methodology page states the information bound this gives).

Which time counts: the signed ``created`` of each bundle. A lab signs it, so it could
backdate; the pull-request check therefore refuses a bundle whose ``created`` is more than
``MAX_AGE`` before (or ``MAX_SKEW`` after) the time of the check (``check_fresh``). Every
bundle reaching main has passed that check, so ``created`` lies at most ``MAX_AGE`` before
the bundle became public: in any ``window_days`` window of real time a lab publishes at
most ``2 × bundles`` submissions, and in any ``window_days − MAX_AGE`` window at most
``bundles``. Withdrawn bundles still count (their tombstone keeps ``created``): their
scores were public, so withdrawing one does not refund it.

The rule is greedy and deterministic: a lab's bundles are taken in order of
(``created``, path); a bundle is over budget when ``bundles`` counted bundles already lie
in the window ending at its ``created`` (``(created − window, created]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from builder.config import Budget
from builder.errors import BuilderError

MAX_AGE = timedelta(days=7)
MAX_SKEW = timedelta(hours=1)


@dataclass(frozen=True)
class Entry:
    """One submission that counts: ``where`` its folder, ``created`` its signed time.
    ``spent`` entries (withdrawn bundles) count but are never themselves refused."""

    where: str
    lab: str
    created: datetime
    spent: bool = False


def over_budget(entries: Iterable[Entry], budget: Budget) -> dict[str, BuilderError]:
    """The entries refused for being over budget: folder -> error (reason ``over-budget``)."""
    window = timedelta(days=budget.window_days)
    by_lab: dict[str, list[Entry]] = {}
    for e in entries:
        by_lab.setdefault(e.lab, []).append(e)
    refused: dict[str, BuilderError] = {}
    for lab, mine in by_lab.items():
        counted: list[datetime] = []
        # Spent (withdrawn) entries first at equal times, so a refund can never be won by ordering.
        for e in sorted(mine, key=lambda e: (e.created, not e.spent, e.where)):
            inside = sum(1 for t in counted if e.created - window < t <= e.created)
            if e.spent or inside < budget.bundles:
                counted.append(e.created)
                continue
            refused[e.where] = BuilderError(
                f"lab {lab!r} is over its submission budget of {budget.describe()}: {inside} submission(s) already count "
                f"in the {budget.window_days} days up to {e.created:%Y-%m-%d %H:%M} UTC",
                where=e.where,
                reason="over-budget",
                hint=f"wait until an earlier submission leaves the {budget.window_days}-day window; withdrawn submissions still count",
            )
    return refused


def check_fresh(created: datetime, now: datetime, where: str) -> None:
    """The PR check's bound on backdating: ``created`` within [now − MAX_AGE, now + MAX_SKEW]."""
    if created < now - MAX_AGE:
        raise BuilderError(
            f"created {created:%Y-%m-%d %H:%M} UTC is more than {MAX_AGE.days} days before this check; the budget counts signed creation times",
            where=where,
            reason="stale-created",
            hint="re-create and re-sign the bundle now ('sealboard bundle create' sets created)",
        )
    if created > now + MAX_SKEW:
        raise BuilderError(
            f"created {created:%Y-%m-%d %H:%M} UTC is in the future",
            where=where,
            reason="future-created",
            hint="check your clock, then re-create and re-sign the bundle",
        )
