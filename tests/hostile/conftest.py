"""Fixtures for the hostile corpus (see hostile/support.py for the helpers).

One real instance is made per session (real ed25519 keys, a registry signed 2-of-3, a
sealed SOOHAK-shaped dataset, two valid bundles ``acme/run-1`` and ``beta/run-2``). A
test that mutates an instance gets its own copy (``inst``), so cases never leak into
each other and every bundle case can check that the *other* bundle still publishes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:  # `tests.factory` is imported as the rest of the suite does
    sys.path.insert(0, str(_ROOT))

pytest.register_assert_rewrite("hostile.support")

from hostile import support  # noqa: E402


@pytest.fixture(scope="session")
def base(tmp_path_factory: pytest.TempPathFactory) -> support.Instance:
    """The pristine session instance. Never mutate it: use ``inst``."""
    return support.make_base(tmp_path_factory.mktemp("hostile-base") / "inst")


@pytest.fixture
def inst(base: support.Instance, tmp_path: Path) -> support.Instance:
    """A private copy of the session instance, safe to tamper with."""
    return support.clone(base, tmp_path / "inst")


@pytest.fixture(scope="session")
def passphrase_sealed(tmp_path_factory: pytest.TempPathFactory, base: support.Instance) -> bytes:
    """acme/run-1's results sealed with the real `age -p` (a scrypt stanza), made once."""
    directory = tmp_path_factory.mktemp("scrypt")
    plain = directory / "results.jsonl"
    plain.write_bytes(support.rows_bytes(support.VALID_ROWS))
    out = directory / "results.jsonl.age"
    support.age_passphrase_encrypt(plain, out, b"correct horse battery staple")
    return out.read_bytes()


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"hostile corpus: pipeline via build(render=False); python -O: {bool(sys.flags.optimize)}"]
