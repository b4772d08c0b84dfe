"""A small instance with a release statement, for the release tests (throwaway keys)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from builder.release.admin import flip, sign_statement
from builder.release.statement import Publish, Scope
from tests.factory import NOW, Instance, make_instance, results_for

T = datetime(2027, 1, 15, 9, 0, tzinfo=timezone.utc)  # the release time used throughout
BEFORE = T - timedelta(days=3, hours=4)
AFTER = T + timedelta(hours=1)


def released_instance(root: Path, *, scope: Scope | None = None, signers: tuple[str, ...] = ("m1", "m2"), name: str = "r1") -> Instance:
    inst = make_instance(root)
    correct = {it["id"]: [True, i % 2 == 0, False] for i, it in enumerate(inst.items)}
    inst.add_submission("acme", "run-1", results_for(inst.items, correct))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items[::3]}))
    flip(inst.root, "soohak", T, scope or Scope(), Publish(), NOW, name=name)
    for m in signers:
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], name)
    return inst


def statement_path(inst: Instance, name: str = "r1") -> Path:
    return inst.root / "leaderboards" / "soohak.release" / f"{name}.yaml"
