"""A small instance with a release statement, for the release tests (throwaway keys)."""

from __future__ import annotations

import random
import string
from datetime import datetime, timedelta, timezone
from pathlib import Path

from builder.release.admin import flip, sign_statement
from builder.release.statement import Publish, Scope
from tests.factory import NOW, Instance, make_instance, results_for, soohak_items

T = datetime(2027, 1, 15, 9, 0, tzinfo=timezone.utc)  # the release time used throughout
BEFORE = T - timedelta(days=3, hours=4)
AFTER = T + timedelta(hours=1)


def distinct_items() -> list[dict]:
    """The factory's items with question texts that share no word window across items (the
    factory's template texts do, which a leak scan rightly treats as the same text)."""
    items = soohak_items()
    for it in items:
        rng = random.Random(it["id"])
        words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 9))) for _ in range(14)]
        for lang in it["question"]:
            it["question"][lang] = f"{' '.join(words)} {lang} {it['canary']}"
    return items


def released_instance(root: Path, *, scope: Scope | None = None, signers: tuple[str, ...] = ("m1", "m2"), name: str = "r1") -> Instance:
    inst = make_instance(root, items=distinct_items())
    correct = {it["id"]: [True, i % 2 == 0, False] for i, it in enumerate(inst.items)}
    inst.add_submission("acme", "run-1", results_for(inst.items, correct))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items[::3]}))
    flip(inst.root, "soohak", T, scope or Scope(), Publish(), NOW, name=name)
    for m in signers:
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], name)
    return inst


def statement_path(inst: Instance, name: str = "r1") -> Path:
    return inst.root / "leaderboards" / "soohak.release" / f"{name}.yaml"


def write_statement(
    inst: Instance,
    name: str,
    *,
    registry_version: int,
    signers: tuple[str, ...],
    not_before: datetime = T,
    scope: Scope | None = None,
    publish: Publish | None = None,
) -> Path:
    """A statement naming any registry version (flip names the one in force), signed by `signers`."""
    import hashlib

    from builder.release.statement import release_dir, statement_text

    digest = hashlib.sha256((inst.root / "bundles" / "soohak" / "_dataset" / "test-1" / "manifest.json").read_bytes()).hexdigest()
    path = release_dir(inst.root, "soohak") / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(statement_text("soohak", "test-1", digest, registry_version, not_before, scope or Scope(), publish or Publish()))
    for m in signers:
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], name)
    return path
