"""What counts as plaintext pushed (builder.bundles.plaintext): every name validate refuses is
one the .gitignore Sealboard writes keeps out of commits, and the sealed-file test is age's
own header (the real `age` CLI's output passes it, anything else does not)."""

from __future__ import annotations

import fnmatch
import gzip
import shutil
import subprocess

import pytest

from builder.bundles.plaintext import PLAINTEXT_NAMES, check_sealed, in_the_clear, is_plaintext_name
from builder.errors import BundleError
from builder.scaffold.ignore import PLAINTEXT_PATHS


def test_every_plaintext_name_is_ignored_by_the_gitignore_sealboard_writes() -> None:
    for name in PLAINTEXT_NAMES:
        example = name.replace("*", "copy")
        assert any(fnmatch.fnmatchcase(example, pattern) for pattern in PLAINTEXT_PATHS), name


@pytest.mark.parametrize(
    "path,expected",
    [
        ("results.jsonl", True),
        ("bundles/soohak/acme/results.jsonl", True),
        ("x/run-1.items.jsonl", True),
        ("transcripts.jsonl.gz", True),
        ("items.jsonl", True),
        ("bundles/soohak/acme/run-1/results.jsonl.age", False),
        ("run.yaml", False),
        ("site_src/results.md", False),
    ],
)
def test_plaintext_names(path: str, expected: bool) -> None:
    assert is_plaintext_name(path) is expected


def test_real_age_output_is_sealed_and_plaintext_is_not(tmp_path) -> None:
    if shutil.which("age") is None or shutil.which("age-keygen") is None:
        pytest.skip("age not installed")
    key = tmp_path / "key.txt"
    subprocess.run(["age-keygen", "-o", str(key)], check=True, capture_output=True)
    recipient = subprocess.run(["age-keygen", "-y", str(key)], check=True, capture_output=True, text=True).stdout.strip()
    sealed = subprocess.run(["age", "-r", recipient], input=b'{"item": "a1"}\n', check=True, capture_output=True).stdout
    check_sealed("bundles/b/lab/run", {"manifest.json": b"{}", "manifest.json.sig": b"sig", "results.jsonl.age": sealed})
    with pytest.raises(BundleError) as err:
        check_sealed("bundles/b/lab/run", {"manifest.json": b"{}", "results.jsonl.age": sealed, "results.jsonl": b'{"item": "a1"}\n'})
    assert (err.value.reason, err.value.where) == ("plaintext-in-bundle", "bundles/b/lab/run/results.jsonl")
    assert "filter-repo" in (err.value.hint or "") and "manifest lists it" not in (err.value.hint or "")
    # A byte flipped in a sealed file's header leaves ciphertext: the digest check names it.
    assert not in_the_clear(b"`" + sealed[1:])
    assert in_the_clear(gzip.compress(b'{"item": "a1", "text": "..."}\n')) and in_the_clear(b"") and in_the_clear(b"\0\0\0\1Bud1")
