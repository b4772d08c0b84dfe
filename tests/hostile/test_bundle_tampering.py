"""Tampered bytes and hostile layouts in result and dataset bundles.

Each case changes one thing in a private copy of the instance, runs the builder and
requires exactly one rejection — its reason code and the file it names — while every
other bundle still verifies, unseals and publishes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import builder.bundles.ingest
from builder.bundles.manifest import MANIFEST, RESULTS, SIGNATURE, TRANSCRIPTS
from builder.trust.sshsig import dearmor, split_armored
from hostile.support import (
    ACME,
    BENCH,
    BETA,
    DATASET,
    VALID,
    Instance,
    assert_rejected,
    edit_manifest,
    flip,
    rearm,
    run,
    where_of,
    write_manifest,
)

A = where_of(ACME)  # bundles/soohak/acme/run-1


@dataclass(frozen=True)
class Case:
    id: str
    mutate: Callable[[Instance, pytest.MonkeyPatch], Any]
    expect: tuple[tuple[str, str], ...]
    publishes: tuple[str, ...] = (BETA,)  # what must still publish (acme/run-1 is the target)


def _acme(inst: Instance):
    return inst.bundles[ACME]


def _sign_acme(inst: Instance, change: Callable[[dict], Any]) -> None:
    edit_manifest(_acme(inst), change, inst.lab_keys["acme"])


# --- single tampered bytes ------------------------------------------------------------------


def tamper_manifest_value(inst, _mp):
    path = _acme(inst) / MANIFEST
    path.write_bytes(path.read_bytes().replace(b'"Model One"', b'"Model Onf"', 1))


def tamper_manifest_syntax(inst, _mp):
    path = _acme(inst) / MANIFEST
    path.write_bytes(path.read_bytes().replace(b'"format":', b'"format";', 1))


def tamper_manifest_whitespace(inst, _mp):
    path = _acme(inst) / MANIFEST
    path.write_bytes(path.read_bytes() + b"\n")  # still the same JSON: but not the signed bytes


def tamper_sig_signature_byte(inst, _mp):
    path = _acme(inst) / SIGNATURE
    blob = bytearray(dearmor(path.read_bytes()))
    blob[-10] ^= 0x01  # inside the Ed25519 signature value
    path.write_text(rearm(bytes(blob)))


def tamper_sig_armor_byte(inst, _mp):
    path = _acme(inst) / SIGNATURE
    path.write_bytes(path.read_bytes().replace(b"BEGIN SSH", b"BEGIN SSJ", 1))


def tamper_sig_base64_char(inst, _mp):
    # One base64 character of the armored text, in the middle of the blob (the namespace
    # and hash names live there): the blob no longer parses or no longer verifies.
    path = _acme(inst) / SIGNATURE
    lines = path.read_text().split("\n")
    line = lines[2]
    lines[2] = line[:10] + ("A" if line[10] != "A" else "B") + line[11:]
    path.write_text("\n".join(lines))


def tamper_results_payload(inst, _mp):
    path = _acme(inst) / RESULTS
    flip(path, path.stat().st_size - 20)


def tamper_results_header(inst, _mp):
    flip(_acme(inst) / RESULTS, 30)


def truncate_results(inst, _mp):
    path = _acme(inst) / RESULTS
    path.write_bytes(path.read_bytes()[:-1])


def append_to_results(inst, _mp):
    path = _acme(inst) / RESULTS
    path.write_bytes(path.read_bytes() + b"\0")


def swap_results_same_size(inst, _mp):
    # Another bundle's sealed results, cut or padded to this one's signed size.
    size = (_acme(inst) / RESULTS).stat().st_size
    other = (inst.bundles[BETA] / RESULTS).read_bytes()
    (_acme(inst) / RESULTS).write_bytes(other[:size].ljust(size, b"\0"))


def tamper_dataset_items(inst, _mp):
    path = inst.root / DATASET / "items.jsonl.age"
    flip(path, path.stat().st_size // 2)


def tamper_dataset_manifest(inst, _mp):
    path = inst.root / DATASET / MANIFEST
    data = path.read_bytes()
    i = data.index(b'"commitment": "') + len(b'"commitment": "')
    path.write_bytes(data[:i] + (b"0" if data[i : i + 1] != b"0" else b"1") + data[i + 1 :])


def tamper_dataset_sig(inst, _mp):
    path = inst.root / DATASET / SIGNATURE
    first, *rest = split_armored(path.read_bytes())  # one block per maintainer of the threshold
    blob = bytearray(dearmor(first))
    blob[-3] ^= 0x80
    path.write_text(rearm(bytes(blob)) + "".join(rest))


# --- layout ---------------------------------------------------------------------------------


def copy_into_other_lab(inst, _mp):
    shutil.copytree(_acme(inst), inst.root / "bundles" / BENCH / "beta" / "run-1")


def rename_submission(inst, _mp):
    _acme(inst).rename(_acme(inst).with_name("run-9"))


def unknown_benchmark_folder(inst, _mp):
    target = inst.root / "bundles" / "other" / "acme"
    target.mkdir(parents=True)
    _acme(inst).rename(target / "run-1")


def extra_file(inst, _mp):
    (_acme(inst) / "notes.txt").write_text("not signed\n")


def hidden_extra_file(inst, _mp):
    (_acme(inst) / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")


def unlisted_transcripts(inst, _mp):
    (_acme(inst) / TRANSCRIPTS).write_bytes((_acme(inst) / RESULTS).read_bytes())


def too_many_files(inst, _mp):
    for i in range(6):  # 3 real files + 6 = 9 > MAX_FILES_PER_BUNDLE (8)
        (_acme(inst) / f"extra-{i}.txt").write_text("x")


def missing_results(inst, _mp):
    (_acme(inst) / RESULTS).unlink()


def missing_signature(inst, _mp):
    (_acme(inst) / SIGNATURE).unlink()


def missing_manifest(inst, _mp):
    (_acme(inst) / MANIFEST).unlink()


def listed_transcripts_missing(inst, _mp):
    def change(obj):
        obj["files"].append({"path": TRANSCRIPTS, "sha256": "0" * 64, "bytes": 10, "sealed": True})

    _sign_acme(inst, change)


def symlinked_results(inst, _mp):
    real = inst.root.parent / "elsewhere.age"
    shutil.move(_acme(inst) / RESULTS, real)
    os.symlink(real, _acme(inst) / RESULTS)


def symlinked_manifest(inst, _mp):
    real = inst.root.parent / "manifest.json"
    shutil.move(_acme(inst) / MANIFEST, real)
    os.symlink(real, _acme(inst) / MANIFEST)


def symlinked_bundle_dir(inst, _mp):
    os.symlink(_acme(inst), _acme(inst).with_name("run-3"))


def symlinked_lab_dir(inst, _mp):
    os.symlink(_acme(inst).parent, inst.root / "bundles" / BENCH / "gamma")


def subdirectory(inst, _mp):
    (_acme(inst) / "sub").mkdir()
    (_acme(inst) / "sub" / "x").write_text("x")


def fifo(inst, _mp):
    os.mkfifo(_acme(inst) / "pipe")


def stray_file_in_lab_dir(inst, _mp):
    (_acme(inst).parent / "README.md").write_text("hi")


def oversize_results(inst, mp):
    # Instead of a 1 GiB file: lower the cap below an inflated results file only.
    path = _acme(inst) / RESULTS
    path.write_bytes(path.read_bytes() + b"\0" * 100_000)
    mp.setattr(builder.bundles.ingest, "MAX_SEALED_BYTES", 60_000)


def oversize_manifest(inst, mp):
    # Valid JSON padded with white space (and validly signed), then a cap just below it.
    path = _acme(inst) / MANIFEST
    write_manifest(_acme(inst), path.read_bytes() + b" " * 20_000, inst.lab_keys["acme"])
    mp.setattr(builder.bundles.ingest, "MAX_MANIFEST_BYTES", path.stat().st_size - 1)
    assert (inst.root / DATASET / MANIFEST).stat().st_size < path.stat().st_size - 1


def oversize_signature(inst, _mp):
    # The real 16 KiB cap, no monkeypatch: armor padded with 20 KiB of blank lines.
    path = _acme(inst) / SIGNATURE
    path.write_bytes(path.read_bytes() + b"\n" * (20 << 10))


def wrong_version(inst, _mp):
    _sign_acme(inst, lambda obj: obj.update(benchmark_version="test-0"))


CASES = [
    # a tampered byte in each bundle file
    Case("tamper/manifest.json/value-byte", tamper_manifest_value, ((f"{A}/manifest.json.sig", "bad-signature"),)),
    Case("tamper/manifest.json/syntax-byte", tamper_manifest_syntax, ((f"{A}/manifest.json", "invalid-json"),)),
    Case("tamper/manifest.json/trailing-newline", tamper_manifest_whitespace, ((f"{A}/manifest.json.sig", "bad-signature"),)),
    Case("tamper/manifest.json.sig/signature-byte", tamper_sig_signature_byte, ((f"{A}/manifest.json.sig", "bad-signature"),)),
    Case("tamper/manifest.json.sig/armor-byte", tamper_sig_armor_byte, ((f"{A}/manifest.json.sig", "bad-armor"),)),
    Case("tamper/results.jsonl.age/payload-byte", tamper_results_payload, ((f"{A}/results.jsonl.age", "digest-mismatch"),)),
    Case("tamper/results.jsonl.age/header-byte", tamper_results_header, ((f"{A}/results.jsonl.age", "digest-mismatch"),)),
    Case("tamper/results.jsonl.age/truncated", truncate_results, ((f"{A}/results.jsonl.age", "size-mismatch"),)),
    Case("tamper/results.jsonl.age/appended-byte", append_to_results, ((f"{A}/results.jsonl.age", "size-mismatch"),)),
    Case("tamper/results.jsonl.age/other-bundles-ciphertext", swap_results_same_size, ((f"{A}/results.jsonl.age", "digest-mismatch"),)),
    # the maintainers' dataset bundle: the benchmark cannot be scored, but bundles still verify
    Case(
        "tamper/dataset/items.jsonl.age/payload-byte",
        tamper_dataset_items,
        ((f"{DATASET}/items.jsonl.age", "digest-mismatch"), (DATASET, "missing-dataset")),
        publishes=(),
    ),
    Case(
        "tamper/dataset/manifest.json/commitment-byte",
        tamper_dataset_manifest,
        ((f"{DATASET}/manifest.json.sig", "bad-signature"), (DATASET, "missing-dataset")),
        publishes=(),
    ),
    Case(
        "tamper/dataset/manifest.json.sig/signature-byte",
        tamper_dataset_sig,
        ((f"{DATASET}/manifest.json.sig", "bad-signature"), (DATASET, "missing-dataset")),
        publishes=(),
    ),
    # where a bundle sits
    Case(
        "layout/copied-into-other-labs-folder",
        copy_into_other_lab,
        ((where_of("beta/run-1", "manifest.json"), "misplaced"),),
        publishes=VALID,
    ),
    Case("layout/submission-id-not-folder-name", rename_submission, ((where_of("acme/run-9", "manifest.json"), "misplaced"),)),
    Case("layout/unknown-benchmark-folder", unknown_benchmark_folder, (("bundles/other", "unknown-benchmark"),)),
    Case("layout/stray-file-in-lab-folder", stray_file_in_lab_dir, ((where_of("acme/README.md"), "not-a-directory"),), publishes=VALID),
    # what a bundle holds
    # A file in the clear in a bundle folder is a leak (results or items pushed), not a file
    # to sign in (tests/hostile/test_lab_text_leaks.py); a sealed one is merely unlisted.
    Case("layout/extra-file", extra_file, ((f"{A}/notes.txt", "plaintext-in-bundle"),)),
    Case("layout/hidden-extra-file", hidden_extra_file, ((f"{A}/.DS_Store", "plaintext-in-bundle"),)),
    Case("layout/unlisted-transcripts", unlisted_transcripts, ((f"{A}/{TRANSCRIPTS}", "unlisted-file"),)),
    Case("layout/too-many-files", too_many_files, ((A, "too-many-files"),)),
    Case("layout/missing-listed-results", missing_results, ((f"{A}/results.jsonl.age", "missing-file"),)),
    Case("layout/missing-listed-transcripts", listed_transcripts_missing, ((f"{A}/{TRANSCRIPTS}", "missing-file"),)),
    Case("layout/missing-signature", missing_signature, ((A, "missing-file"),)),
    Case("layout/missing-manifest", missing_manifest, ((A, "missing-file"),)),
    Case("layout/symlink-results", symlinked_results, ((f"{A}/results.jsonl.age", "symlink"),)),
    Case("layout/symlink-manifest", symlinked_manifest, ((f"{A}/manifest.json", "symlink"),)),
    Case("layout/symlink-bundle-dir", symlinked_bundle_dir, ((where_of("acme/run-3"), "symlink"),), publishes=VALID),
    Case("layout/symlink-lab-dir", symlinked_lab_dir, ((f"bundles/{BENCH}/gamma", "symlink"),), publishes=VALID),
    Case("layout/subdirectory", subdirectory, ((f"{A}/sub", "not-a-file"),)),
    Case("layout/fifo", fifo, ((f"{A}/pipe", "not-a-file"),)),
    Case("layout/oversize-results-capped", oversize_results, ((f"{A}/results.jsonl.age", "oversize"),)),
    Case("layout/oversize-manifest-capped", oversize_manifest, ((f"{A}/manifest.json", "oversize"),)),
    Case("layout/oversize-signature", oversize_signature, ((f"{A}/manifest.json.sig", "oversize"),)),
    Case("manifest/benchmark-version-mismatch", wrong_version, ((f"{A}/manifest.json", "wrong-version"),)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bundle_case(case: Case, inst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    case.mutate(inst, monkeypatch)
    report = run(inst)
    assert_rejected(report, *case.expect, publishes=case.publishes)
    if case.publishes == ():
        # The dataset is refused, so nothing is scored, yet both bundles still verify.
        assert {ACME, BETA} <= {b.manifest.key for s in report.benchmarks for b in s.bundles}
        assert all(s.status == "sealed" for s in report.benchmarks)


def test_one_base64_character_in_the_signature(inst: Instance) -> None:
    """A flipped character in the armored signature: refused for a signature reason.

    Which reason depends on the field the character lands in (here: the public key or
    namespace area), so this case pins the set, not one code.
    """
    tamper_sig_base64_char(inst, None)
    report = run(inst)
    [rejection] = report.rejections
    assert rejection.where == f"{A}/manifest.json.sig"
    assert rejection.reason in {
        "bad-signature",
        "bad-key",
        "unsupported-key",
        "truncated",
        "wrong-namespace",
        "unregistered-key",
        "bad-encoding",
    }
    assert {BETA} <= {b.manifest.key for s in report.benchmarks for b in s.bundles}


def test_the_pristine_instance_has_no_rejection(inst: Instance) -> None:
    """Control: the corpus's base instance itself builds cleanly."""
    assert_rejected(run(inst))
