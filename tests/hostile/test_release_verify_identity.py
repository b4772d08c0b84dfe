"""`release verify` fails when an identity is published before its release (issue 44, class 8).

The embargo identity in ``keys/released/`` while the release that would authorise it is only
scheduled: the embargo is broken for anyone who read it, so the outsider's check exits 1
naming the file and the reason (``identity-before-release``), never "OK". Control: the
identity published after a full release is in force verifies, exit 0.
"""

from __future__ import annotations

from click.testing import CliRunner

from builder.cli import main
from builder.config import load_configs
from builder.release.identity import identity_path, publish_identity
from builder.release.status import release_states
from builder.trust.registry import load_registry
from tests.release.support import AFTER, released_instance


def test_identity_published_before_its_release_fails_verify(tmp_path) -> None:
    inst = released_instance(tmp_path / "inst")  # a full release, not before T (the future, for the CLI's clock)
    path = identity_path(inst.root, "soohak", "test-1")
    path.parent.mkdir(parents=True)
    path.write_text(inst.identity.reveal_secret())
    r = CliRunner().invoke(main, ["release", "verify", "--root", str(inst.root)])
    assert r.exit_code == 1, r.output
    assert "keys/released/" in r.output and "does not authorise it" in r.output and "rotate the embargo key" in r.output
    assert "OK" not in r.output.split()
    assert inst.identity.reveal_secret().strip() not in r.output


def test_control_identity_published_after_the_release_verifies(tmp_path) -> None:
    from builder.release.check import verify_repo

    inst = released_instance(tmp_path / "inst")
    configs = load_configs(inst.root)
    publish_identity(
        inst.root, configs[0], release_states(inst.root, configs, load_registry(inst.root, AFTER), AFTER)["soohak"], [inst.identity]
    )
    assert verify_repo(inst.root, AFTER)[-1].startswith("soohak: the published identity opens dataset test-1")
