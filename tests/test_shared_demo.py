"""``built_once`` (tests/shared_demo.py): a shared fixture's build runs once per run across
xdist workers, the others reuse what it made, and a failed build fails them all with its error."""

from __future__ import annotations

import threading
import types
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.shared_demo import SharedBuildFailed, built_once


class _Factory:
    """What built_once reads of pytest's TempPathFactory under xdist: the worker's base temp."""

    def __init__(self, root: Path, worker: str) -> None:
        self.base = root / f"popen-{worker}"
        self.base.mkdir(parents=True, exist_ok=True)

    def getbasetemp(self) -> Path:
        return self.base

    def mktemp(self, name: str) -> Path:
        raise AssertionError("under xdist the build goes to the run's shared folder, not a worker's own")


@pytest.fixture
def as_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")


def test_the_second_worker_waits_for_the_first_and_reuses_its_build(tmp_path: Path, as_worker: None) -> None:
    calls: list[Path] = []
    building, release = threading.Event(), threading.Event()
    key = Ed25519PrivateKey.generate().public_key()

    def make(directory: Path) -> dict[str, object]:
        calls.append(directory)
        building.set()
        assert release.wait(600), "the test never let the first build finish"
        (directory / "site.txt").write_text("built")
        # What a BuildReport holds that plain pickle refuses.
        return {"site": directory / "site.txt", "frozen": types.MappingProxyType({"a": 1}), "key": key}

    results: dict[str, dict[str, object]] = {}
    first = threading.Thread(target=lambda: results.update(gw0=built_once(_Factory(tmp_path, "gw0"), "thing", make)))
    first.start()
    assert building.wait(600), "the first worker never started building"
    second = threading.Thread(target=lambda: results.update(gw1=built_once(_Factory(tmp_path, "gw1"), "thing", make)))
    second.start()  # it must block on the lock the first holds, not see "no marker" and build too
    release.set()
    first.join()
    second.join()
    assert len(calls) == 1 and calls[0] == tmp_path / "shared" / "thing"
    reused = results["gw1"]
    assert reused["site"] == results["gw0"]["site"] and Path(str(reused["site"])).read_text() == "built"
    assert isinstance(reused["frozen"], types.MappingProxyType) and dict(reused["frozen"]) == {"a": 1}
    assert reused["key"] == key


def test_a_failed_build_fails_every_worker_with_its_error_and_is_not_rebuilt(tmp_path: Path, as_worker: None) -> None:
    calls = []

    def make(directory: Path) -> None:
        calls.append(directory)
        raise ValueError("mkdocs exited 1: broken page demo/x.md")

    with pytest.raises(ValueError, match="broken page demo/x.md"):
        built_once(_Factory(tmp_path, "gw0"), "thing", make)
    with pytest.raises(
        SharedBuildFailed, match=r"(?s)'thing' failed in another worker.*ValueError: mkdocs exited 1: broken page demo/x.md"
    ):
        built_once(_Factory(tmp_path, "gw1"), "thing", make)
    assert len(calls) == 1


def test_without_xdist_it_builds_in_a_fresh_temporary_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    made = [built_once(tmp_path_factory, "thing", lambda d: d) for _ in range(2)]
    assert made[0] != made[1] and all(d.is_dir() for d in made)  # pytest's own session fixture caches it
