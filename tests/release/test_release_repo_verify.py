"""`sealboard release verify --root` with no secret: verdicts, and what a published identity opens."""

from __future__ import annotations

from datetime import datetime, timezone

from click.testing import CliRunner

from builder.cli import main
from builder.config import load_configs
from builder.release.admin import flip, sign_statement
from builder.release.check import verify_repo
from builder.release.identity import publish_identity
from builder.release.statement import Publish, Scope
from builder.release.status import release_states
from builder.trust.registry import load_registry
from tests.factory import NOW, make_instance
from tests.release.support import AFTER, released_instance


def test_repo_verify_with_published_identity(tmp_path):
    inst = released_instance(tmp_path / "inst")
    assert verify_repo(inst.root, AFTER) == ["soohak: released"]
    configs = load_configs(inst.root)
    publish_identity(
        inst.root, configs[0], release_states(inst.root, configs, load_registry(inst.root, AFTER), AFTER)["soohak"], [inst.identity]
    )
    lines = verify_repo(inst.root, AFTER)
    assert lines[-1] == "soohak: the published identity opens dataset test-1; all 18 item(s) match their commitments"


def test_cli_publish_identity_refused_while_scheduled(tmp_path):
    inst = make_instance(tmp_path / "inst")
    flip(inst.root, "soohak", datetime(2099, 1, 15, 9, 0, tzinfo=timezone.utc), Scope(), Publish(), NOW, name="r1")
    for m in ("m1", "m2"):
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], "r1")
    r = CliRunner().invoke(
        main,
        ["release", "publish-identity", "soohak", "--root", str(inst.root), "--identity", str(tmp_path / "inst-keys" / "identity.txt")],
    )
    assert r.exit_code == 1 and "is not released in full (scheduled: not before 2099-01-15 09:00 UTC" in r.output
    assert not (inst.root / "keys" / "released").exists()
