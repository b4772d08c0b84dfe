"""The admission policy (builder.bundles.admission_policy) as a pure function: hand-made
manifests and facts in, decisions out, each checked against the rule's definition."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from builder.bundles.admission_policy import Facts, Submission, decide, screen
from builder.bundles.manifest import RESULTS, FileEntry, Manifest, Model, RunConfig
from builder.bundles.withdrawn import Tombstone
from builder.config import Budget

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)
B = "bundles/soohak"


def model_of(id: str, name: str) -> Model:
    return Model(id, name, "family", False, None, None, None, None)


def manifest(lab: str, name: str, day: int, *, model: str | None = None, digest: str | None = None, display: str | None = None) -> Manifest:
    return Manifest(
        benchmark="soohak", benchmark_version="1.0", lab=lab, submission=name, created=T0 + timedelta(days=day),
        model=model_of(model or f"m-{lab}-{name}", display or f"Model {lab}"), config=RunConfig(None, None, None, None, False, ""),
        harness_name="h", harness_version="1", judge=None,
        files=(FileEntry(RESULTS, digest or f"{lab}{name}".ljust(64, "0"), 1, True),), publish_results=True, publish_transcripts=False,
    )  # fmt: skip


def sub(lab: str, name: str, day: int, **kw: object) -> Submission:
    judged = bool(kw.pop("judged", True))
    return Submission(f"{B}/{lab}/{name}", manifest(lab, name, day, **kw), judged=judged)  # type: ignore[arg-type]


def stone(lab: str, name: str, day: int) -> Tombstone:
    return Tombstone(f"{B}/{lab}/{name}", "soohak", lab, name, T0 + timedelta(days=20), T0 + timedelta(days=day), "lab request")


ONE_PER_WEEK = {"soohak": Budget(bundles=1, window_days=7)}


def reasons(facts: Facts, *subs: Submission) -> dict[str, str]:
    return {w: e.reason for w, e in decide(list(subs), facts).refused.items()}


def test_screen_orders_withdrawn_before_immutable() -> None:
    where = f"{B}/acme/run-1"
    facts = Facts(tombstones={where: stone("acme", "run-1", 0)}, rewritten=frozenset({where}))
    assert screen(where, facts).reason == "withdrawn"  # type: ignore[union-attr]
    assert screen(where, Facts(rewritten=frozenset({where}))).reason == "bundle-immutable"  # type: ignore[union-attr]
    assert screen(f"{B}/acme/run-2", facts) is None


def test_budget_one_per_week_by_hand() -> None:
    # created days 0, 3, 8: run-2 lies in (day -7, day 3] with run-1 -> refused; run-3 at
    # day 8: the window (1, 8] holds only run-2, which was refused and so does not count.
    facts = Facts(budgets=ONE_PER_WEEK)
    assert reasons(facts, sub("acme", "run-1", 0), sub("acme", "run-2", 3), sub("acme", "run-3", 8)) == {f"{B}/acme/run-2": "over-budget"}


def test_rewritten_bundle_is_refused_and_still_counts() -> None:
    """A rewrite buys nothing: refused (immutable), and its signed time still spends the budget."""
    facts = Facts(budgets=ONE_PER_WEEK, rewritten=frozenset({f"{B}/acme/run-1"}))
    got = reasons(facts, sub("acme", "run-1", 0), sub("acme", "run-2", 3))
    assert got == {f"{B}/acme/run-1": "bundle-immutable", f"{B}/acme/run-2": "over-budget"}


def test_tombstone_counts_but_is_never_admitted() -> None:
    facts = Facts(budgets=ONE_PER_WEEK, tombstones={f"{B}/acme/run-1": stone("acme", "run-1", 0)})
    got = reasons(facts, sub("acme", "run-1", 0), sub("acme", "run-2", 3))
    assert got == {f"{B}/acme/run-1": "withdrawn", f"{B}/acme/run-2": "over-budget"}


def test_context_counts_and_comes_first_but_is_never_refused() -> None:
    """validate's view: the target's bundle (context) is admitted already. Budget: the new
    run at day 6 finds it in its window (day -1, day 6] -> over budget; the context bundle is
    never the one refused. Duplicates go by admission: the new run is the later one even
    with an earlier `created` (day 4)."""
    old = Submission(f"{B}/acme/run-1", manifest("acme", "run-1", 5, model="m"), T0, judged=False)
    decisions = decide([old, sub("acme", "run-2", 6)], Facts(budgets=ONE_PER_WEEK))
    assert {w: e.reason for w, e in decisions.refused.items()} == {f"{B}/acme/run-2": "over-budget"}
    assert decisions.admitted == ()
    new = sub("acme", "run-2", 4, model="m")
    roomy = decide([old, new], Facts(budgets={"soohak": Budget(bundles=5, window_days=7)}))
    assert {w: e.reason for w, e in roomy.refused.items()} == {f"{B}/acme/run-2": "duplicate-submission"}
    assert roomy.order == (f"{B}/acme/run-1", f"{B}/acme/run-2")


def test_other_labs_do_not_share_a_budget() -> None:
    facts = Facts(budgets=ONE_PER_WEEK)
    decisions = decide([sub("acme", "run-1", 0), sub("beta", "run-1", 0)], facts)
    assert decisions.refused == {} and decisions.admitted == (f"{B}/acme/run-1", f"{B}/beta/run-1")


def test_model_name_taken_across_labs() -> None:
    # Compared case-folded: beta's "MODEL ACME" is acme's "Model acme".
    assert reasons(Facts(), sub("acme", "run-1", 0), sub("beta", "run-1", 1, display="MODEL ACME")) == {
        f"{B}/beta/run-1": "model-name-taken"
    }
