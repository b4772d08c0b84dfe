"""read_bundle reads each file at the size it has when opened, and still sees it grow."""

from __future__ import annotations

import os

import pytest

import builder.bundles.ingest as ingest
from builder.errors import BundleError


def _shrunk_fstat(monkeypatch, by: int) -> None:
    """Every stat (pathlib's lstat is os.stat) reports `by` bytes fewer than the file holds:
    as if it grew after being looked at and opened."""
    for name in ("stat", "lstat", "fstat"):
        real = getattr(os, name)

        def shrunk(*args, real=real, **kwargs) -> os.stat_result:
            st = real(*args, **kwargs)
            fields = list(st)
            fields[6] = max(0, st.st_size - by)  # st_size
            return os.stat_result(fields)

        monkeypatch.setattr(os, name, shrunk)


def test_a_file_that_grows_while_open_is_read_whole(tmp_path, monkeypatch):
    data = bytes(range(256)) * 4096  # 1 MiB
    (tmp_path / "results.jsonl.age").write_bytes(data)
    _shrunk_fstat(monkeypatch, 300_000)
    raw = ingest.read_bundle(tmp_path, "bundles/b/acme/run-1", "b", "acme")
    assert raw.files["results.jsonl.age"] == data


def test_a_file_that_grows_past_the_cap_while_open_is_refused(tmp_path, monkeypatch):
    (tmp_path / "results.jsonl.age").write_bytes(b"\0" * 100_000)
    monkeypatch.setattr(ingest, "MAX_SEALED_BYTES", 60_000)
    _shrunk_fstat(monkeypatch, 50_000)  # the open file says 50,000 bytes, under the cap
    with pytest.raises(BundleError) as err:
        ingest.read_bundle(tmp_path, "bundles/b/acme/run-1", "b", "acme")
    assert err.value.reason == "oversize" and "grew beyond 60000 bytes" in str(err.value)
