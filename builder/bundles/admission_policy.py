"""The admission policy: which verified bundles are admitted to the boards, and why not.

One module decides it for both callers, so a pull request is refused by exactly the rules
the build would refuse it by after merge (issue 19, item 2; issue 21):

- the build (``builder.pipeline.build``) over every bundle on disk, with the git facts it
  reads from the branch's history (``builder.bundles.admissions.Admissions``);
- ``sealboard validate`` (``builder.validate.pr``) over the pull request's new bundles, with
  the target branch's bundles as context (already admitted: they come first, they count
  toward the budget, but their own verdicts are the build's business).

The rules, in the order they are applied (each names its reason code):

1. ``withdrawn`` — a maintainers' tombstone retired the folder's name
   (builder.bundles.withdrawn);
2. ``bundle-immutable`` — the folder was admitted before and its signed files
   (``manifest.json``, ``manifest.json.sig``) changed since (design invariant 9). A change
   to a merged run is a tombstone plus a new bundle, inside the budget; rewriting it in
   place would replace a public score without spending budget. The build rejects the
   rewritten bundle rather than publishing its first version: the bytes of the first
   version may no longer exist in the checkout, and a board must never show bytes that are
   not the ones on disk;
3. ``over-budget`` — the lab's submission budget on that benchmark
   (builder.bundles.budget; tombstones and rewritten bundles count as spent);
4. ``duplicate-submission`` / ``model-name-taken`` — one ranked row per run, one lab per
   model name (builder.bundles.duplicates, over every benchmark at once).

Rules 1 and 2 need only the folder's path and git facts, so ``validate`` applies them
first (``screen``) and never reads a refused bundle's bytes; the build applies rule 1
before verifying (``withdrawn``) and leaves rule 2 to ``decide``, so a rewritten bundle's
signed ``created`` still counts toward its lab's budget. ``decide`` applies both, so a
caller that forgets cannot admit one. The result is a value (``Decisions``):
callers make their reports from it; nothing here writes to a report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from builder.bundles.budget import Entry as BudgetEntry
from builder.bundles.budget import over_budget
from builder.bundles.duplicates import Candidate, admission_order, find_duplicates
from builder.bundles.manifest import Manifest
from builder.bundles.withdrawn import Tombstone, withdrawn_error
from builder.config import Budget
from builder.errors import BuilderError

IMMUTABLE = "bundle-immutable"


@dataclass(frozen=True)
class Facts:
    """What git says about the bundles, gathered by the caller before deciding.

    ``rewritten``: folders admitted before whose signed files differ now from their first
    admitted version (the build: first-parent history; ``validate``: a change to a folder
    the target branch already holds).
    """

    tombstones: Mapping[str, Tombstone] = field(default_factory=dict)
    budgets: Mapping[str, Budget] = field(default_factory=dict)  # benchmark -> its budget
    rewritten: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Submission:
    """One bundle whose signature verified, as the policy sees it.

    ``admitted``: when git admitted its current signed bytes (None: not yet, e.g. a pull
    request's). ``judged``: False for context only (``validate``'s target-branch bundles):
    it takes part in the budget and duplicate rules but is never itself refused.
    ``counts``: whether it counts toward its lab's budget (a context bundle whose key no
    longer verifies does not, as the build would not publish it).
    """

    where: str
    manifest: Manifest
    admitted: datetime | None = None
    judged: bool = True
    counts: bool = True

    @property
    def benchmark(self) -> str:
        return self.where.split("/")[1]


@dataclass(frozen=True)
class Decisions:
    """The policy's verdicts over the judged submissions.

    ``admitted``: judged folders that pass every rule, earliest admitted first;
    ``refused``: judged folder -> the error naming the rule (its ``reason``);
    ``order``: every folder (context included) in admission order, the order the build's
    later duplicate rule (re-sealed clones, after unsealing) keeps the first of.
    """

    admitted: tuple[str, ...]
    refused: Mapping[str, BuilderError]
    order: tuple[str, ...]


def immutable_error(where: str) -> BuilderError:
    return BuilderError(
        "this bundle was already admitted and its signed files have changed since; a merged bundle is immutable",
        where=where,
        reason=IMMUTABLE,
        hint="restore the bundle as it was merged; to replace a run, ask maintainers to withdraw it (a tombstone) "
        "and submit a new bundle under a new name (it counts toward your budget)",
    )


def withdrawn(where: str, facts: Facts) -> BuilderError | None:
    """Rule 1 alone: the build applies it before verifying (whatever bytes the folder holds)."""
    return withdrawn_error(facts.tombstones[where]) if where in facts.tombstones else None


def screen(where: str, facts: Facts) -> BuilderError | None:
    """Rules 1-2, from the folder and git facts alone: the refusal, or None."""
    if where in facts.tombstones:
        return withdrawn_error(facts.tombstones[where])
    if where in facts.rewritten:
        return immutable_error(where)
    return None


def decide(submissions: Sequence[Submission], facts: Facts) -> Decisions:
    """Apply rules 1-4 to the judged submissions; context ones only inform the rules."""
    refused: dict[str, BuilderError] = {}
    for s in submissions:
        error = screen(s.where, facts) if s.judged else None
        if error is not None:
            refused[s.where] = error
    standing = [s for s in submissions if s.where not in refused]
    refused.update(_budget(submissions, standing, facts))
    candidates = [Candidate(s.where, s.manifest, s.admitted) for s in standing if s.where not in refused]
    judged = {s.where for s in submissions if s.judged}
    refused.update({w: e for w, e in find_duplicates(candidates).items() if w in judged})
    order = tuple(admission_order(Candidate(s.where, s.manifest, s.admitted) for s in submissions))
    return Decisions(
        admitted=tuple(w for w in order if w in judged and w not in refused),
        refused={w: e for w, e in sorted(refused.items()) if w in judged},
        order=order,
    )


def _budget(submissions: Sequence[Submission], standing: Sequence[Submission], facts: Facts) -> dict[str, BuilderError]:
    """Rule 3, per benchmark, for the labs being judged."""
    refused: dict[str, BuilderError] = {}
    still = {s.where for s in standing}
    for bench in sorted({s.benchmark for s in standing if s.judged}):
        labs = {s.manifest.lab for s in standing if s.benchmark == bench and s.judged}
        mine = [s for s in submissions if s.benchmark == bench and s.manifest.lab in labs]
        entries = _spent(bench, labs, mine, facts) + [_entry(s) for s in mine if s.where in still and _counts(s, facts)]
        refused.update(over_budget(entries, facts.budgets.get(bench, Budget())))
    return refused


def _spent(bench: str, labs: set[str], mine: Sequence[Submission], facts: Facts) -> list[BudgetEntry]:
    """What already spent budget and can never be refused: withdrawn bundles (their
    tombstones) and rewritten ones. Their scores were public, so neither buys another probe."""
    stones = [BudgetEntry(t.where, t.lab, t.created, spent=True)
              for t in facts.tombstones.values() if t.benchmark == bench and t.lab in labs and t.created]  # fmt: skip
    return stones + [BudgetEntry(s.where, s.manifest.lab, s.manifest.created, spent=True) for s in mine if s.where in facts.rewritten]


def _counts(s: Submission, facts: Facts) -> bool:
    """A standing submission counts unless it is already counted as spent (above) or, for
    context, the build would not publish it (``counts``)."""
    return s.counts and s.where not in facts.tombstones and s.where not in facts.rewritten


def _entry(s: Submission) -> BudgetEntry:
    # Context (already admitted) is spent: whatever the pull request adds, it stays.
    return BudgetEntry(s.where, s.manifest.lab, s.manifest.created, spent=not s.judged)
