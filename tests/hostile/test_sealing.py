"""Sealed files: refused stanzas, wrong recipients, and hostile decrypted content.

Every bundle here is re-made *validly signed* with a manifest whose digest matches the new
sealed bytes, so the signature and integrity checks pass and the only problem is the one
under test: it must surface at unseal time with its exact reason, naming results.jsonl.age
(and the line), while the other bundle still publishes.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from builder.bundles.dataset import ITEMS as ITEMS_FILE
from builder.bundles.dataset import parse_dataset_manifest, unseal_items
from builder.bundles.manifest import MANIFEST, RESULTS, SIGNATURE
from builder.errors import IntegrityError, SealError
from builder.trust.seal import generate_identity, seal, unseal
from builder.trust.sshsig import NS_DATASET, sign
from hostile.support import (
    ACME,
    BETA,
    DATASET,
    NOW,
    VALID_ROWS,
    Instance,
    assert_rejected,
    reseal,
    rows_bytes,
    run,
    set_payload,
    where_of,
)

RESULTS_WHERE = where_of(ACME, RESULTS)
LINES = rows_bytes(VALID_ROWS).splitlines(keepends=True)


def lines_with(**at: bytes) -> bytes:
    """The valid results with line N (1-based, as `_N=`) replaced."""
    out = list(LINES)
    for key, value in at.items():
        out[int(key[1:]) - 1] = value
    return b"".join(out)


def changed(line: bytes, old: bytes, new: bytes) -> bytes:
    assert old in line, (old, line)
    return line.replace(old, new, 1)


def row(n: int, **changes) -> bytes:
    """Line n of the valid results as a JSON line, with fields changed (`...` deletes one)."""
    obj = dict(VALID_ROWS[n - 1])
    for k, v in changes.items():
        if v is ...:
            obj.pop(k)
        else:
            obj[k] = v
    return orjson.dumps(obj) + b"\n"


def _row_bigint(n: int, field: str, value: int) -> bytes:
    """Line n with an integer orjson.dumps cannot write (beyond 64 bits), set by hand."""
    return changed(row(n), f'"{field}":{VALID_ROWS[n - 1][field]}'.encode(), f'"{field}":{value}'.encode())


@dataclass(frozen=True)
class Content:
    id: str
    plaintext: Callable[[], bytes]
    reason: str
    line: int | None


CONTENT_CASES = [
    Content("results/unknown-field", lambda: lines_with(_5=row(5, model="x")), "unknown-field", 5),
    Content("results/duplicate-sample", lambda: lines_with(_7=LINES[2]), "duplicate-sample", 7),
    Content("results/unknown-item-id", lambda: lines_with(_4=row(4, item="not-an-item")), "unknown-item", 4),
    Content("results/missing-field", lambda: lines_with(_6=row(6, refused=...)), "missing-field", 6),
    Content("results/wrong-type/sample-string", lambda: lines_with(_3=row(3, sample="0")), "wrong-type", 3),
    Content("results/wrong-type/sample-float", lambda: lines_with(_3=row(3, sample=0.0)), "wrong-type", 3),
    Content("results/wrong-type/sample-negative", lambda: lines_with(_3=row(3, sample=-1)), "wrong-type", 3),
    Content("results/wrong-type/sample-1024", lambda: lines_with(_3=row(3, sample=1024)), "wrong-type", 3),
    Content("results/wrong-type/correct-string", lambda: lines_with(_2=row(2, correct="true")), "wrong-type", 2),
    Content("results/wrong-type/correct-int", lambda: lines_with(_2=row(2, correct=1)), "wrong-type", 2),
    Content("results/wrong-type/answer-number", lambda: lines_with(_2=row(2, answer=12)), "wrong-type", 2),
    Content("results/wrong-type/answer-too-long", lambda: lines_with(_2=row(2, answer="1" * 4001)), "wrong-type", 2),
    Content("results/wrong-type/lang-uppercase", lambda: lines_with(_2=row(2, lang="EN")), "wrong-type", 2),
    Content("results/wrong-type/item-zero-width", lambda: lines_with(_2=row(2, item="m000\u200b")), "wrong-type", 2),
    Content("results/wrong-type/tokens-negative", lambda: lines_with(_2=row(2, output_tokens=-1)), "wrong-type", 2),
    Content("results/wrong-type/cost-string", lambda: lines_with(_2=row(2, cost_usd="0.01")), "wrong-type", 2),
    Content("results/wrong-type/latency-bool", lambda: lines_with(_2=row(2, latency_s=True)), "wrong-type", 2),
    Content("results/not-an-object", lambda: lines_with(_8=b"[1, 2]\n"), "bad-result", 8),
    Content("results/invalid-json", lambda: lines_with(_9=b'{"item": "m000",\n'), "invalid-json", 9),
    Content("results/duplicate-key", lambda: lines_with(_2=changed(LINES[1], b'{"item":', b'{"item":"m005","item":')), "duplicate-key", 2),
    Content("results/nan", lambda: lines_with(_2=changed(LINES[1], b'"cost_usd":0.01', b'"cost_usd":NaN')), "non-finite", 2),
    Content("results/big-int-2^64", lambda: lines_with(_2=_row_bigint(2, "output_tokens", 2**64)), "big-int", 2),
    Content("results/invalid-utf8", lambda: lines_with(_3=changed(row(3), b'"answer":"', b'"answer":"\xff')), "invalid-utf8", 3),
    Content("results/bom", lambda: b"\xef\xbb\xbf" + b"".join(LINES), "bom", None),
    Content("results/empty", lambda: b"", "empty-results", None),
    Content("results/blank-lines-only", lambda: b"\n\n \n", "empty-results", None),
]


@pytest.mark.parametrize("case", CONTENT_CASES, ids=[c.id for c in CONTENT_CASES])
def test_hostile_results_content(case: Content, inst: Instance) -> None:
    reseal(inst, ACME, case.plaintext())
    report = run(inst)
    assert_rejected(report, (RESULTS_WHERE, case.reason), publishes=(BETA,))
    [rejection] = report.rejections
    prefix = f"{RESULTS_WHERE}:{case.line}: " if case.line else f"{RESULTS_WHERE}: "
    assert rejection.message.startswith(prefix), rejection.message


@pytest.mark.parametrize("value", [2**63, 2**64 - 1], ids=["2^63", "2^64-1"])
def test_huge_sample_number(value: int, inst: Instance) -> None:
    reseal(inst, ACME, lines_with(_2=_row_bigint(2, "sample", value)))
    report = run(inst)
    reason = next((r.reason for r in report.rejections if r.where == RESULTS_WHERE), None)
    assert reason in {"big-int", "wrong-type"}, report.rejections
    assert_rejected(report, (RESULTS_WHERE, reason), publishes=(BETA,))


@pytest.mark.parametrize("problem", ["duplicate-sample", "unknown-item"])
def test_line_number_after_a_blank_line(problem: str, inst: Instance) -> None:
    # Line 2 is blank; the problem sits on file line 5.
    bad = LINES[0] if problem == "duplicate-sample" else row(4, item="not-an-item")
    data = LINES[0] + b"\n" + b"".join(LINES[1:3]) + bad + b"".join(LINES[4:])
    reseal(inst, ACME, data)
    report = run(inst)
    assert_rejected(report, (RESULTS_WHERE, problem), publishes=(BETA,))
    assert report.rejections[0].message.startswith(f"{RESULTS_WHERE}:5: "), report.rejections[0].message


# --- the sealed file itself ---------------------------------------------------------------------


def test_scrypt_passphrase_stanza(inst: Instance, passphrase_sealed: bytes) -> None:
    """A results file made with the real `age -p`, correctly listed and signed."""
    assert b"\n-> scrypt " in passphrase_sealed
    set_payload(inst.bundles[ACME], RESULTS, passphrase_sealed, inst.lab_keys["acme"])
    assert_rejected(run(inst), (RESULTS_WHERE, "scrypt-refused"), publishes=(BETA,))


def test_sealed_to_the_wrong_recipient(inst: Instance) -> None:
    reseal(inst, ACME, rows_bytes(VALID_ROWS), recipients=[generate_identity().recipient])
    assert_rejected(run(inst), (RESULTS_WHERE, "no-matching-recipient"), publishes=(BETA,))


def test_sealed_to_maintainers_only_never_opens_with_embargo_key(inst: Instance) -> None:
    maintainer = generate_identity()
    reseal(inst, ACME, rows_bytes(VALID_ROWS), recipients=[maintainer.recipient])
    assert_rejected(run(inst), (RESULTS_WHERE, "no-matching-recipient"), publishes=(BETA,))
    # …nor when the build also holds the maintainer's identity: opted-in results open with
    # the embargo key alone (builder.bundles.sealing), or nobody could rebuild them after release.
    report = run(inst, [inst.identity, maintainer])
    assert_rejected(report, (RESULTS_WHERE, "no-matching-recipient"), publishes=(BETA,))
    # control: sealed to the embargo key and a maintainer's, it opens
    reseal(inst, ACME, rows_bytes(VALID_ROWS), recipients=[inst.identity.recipient, maintainer.recipient])
    assert_rejected(run(inst))


def test_armored_age_file(inst: Instance, tmp_path: Path) -> None:
    if shutil.which("age") is None:
        pytest.skip("'age' not installed")
    plain = tmp_path / "results.jsonl"
    plain.write_bytes(rows_bytes(VALID_ROWS))
    out = tmp_path / "results.jsonl.age"
    subprocess.run(["age", "-a", "-r", inst.identity.recipient, "-o", str(out), str(plain)], check=True, capture_output=True)
    set_payload(inst.bundles[ACME], RESULTS, out.read_bytes(), inst.lab_keys["acme"])
    assert_rejected(run(inst), (RESULTS_WHERE, "armored-refused"), publishes=(BETA,))


def test_unsealed_plaintext_results(inst: Instance) -> None:
    """A lab that forgot to seal: plaintext under the .age name is never parsed as results;
    it is refused as the leak it is (builder.bundles.plaintext), before any age parsing."""
    set_payload(inst.bundles[ACME], RESULTS, rows_bytes(VALID_ROWS), inst.lab_keys["acme"])
    assert_rejected(run(inst), (RESULTS_WHERE, "plaintext-in-bundle"), publishes=(BETA,))


def test_truncated_payload_signed_as_is(inst: Instance) -> None:
    sealed = seal(rows_bytes(VALID_ROWS), [inst.identity.recipient])
    set_payload(inst.bundles[ACME], RESULTS, sealed[:-17], inst.lab_keys["acme"])
    assert_rejected(run(inst), (RESULTS_WHERE, "decrypt-failed"), publishes=(BETA,))


def test_header_mac_flipped_then_signed(inst: Instance) -> None:
    sealed = bytearray(seal(rows_bytes(VALID_ROWS), [inst.identity.recipient]))
    mac = sealed.index(b"\n--- ") + 6
    sealed[mac] = ord("A") if sealed[mac] != ord("A") else ord("B")
    set_payload(inst.bundles[ACME], RESULTS, bytes(sealed), inst.lab_keys["acme"])
    assert_rejected(run(inst), (RESULTS_WHERE, "decrypt-failed"), publishes=(BETA,))


def test_crlf_converted_header(inst: Instance) -> None:
    sealed = seal(rows_bytes(VALID_ROWS), [inst.identity.recipient])
    header_end = sealed.index(b"\n--- ")
    crlf = sealed[:header_end].replace(b"\n", b"\r\n") + sealed[header_end:]
    set_payload(inst.bundles[ACME], RESULTS, crlf, inst.lab_keys["acme"])
    assert_rejected(run(inst), (RESULTS_WHERE, "bad-header"), publishes=(BETA,))


def test_sealed_to_embargo_and_a_stranger_is_fine(inst: Instance) -> None:
    """Control: extra recipients do not matter as long as the embargo key is one."""
    reseal(inst, ACME, rows_bytes(VALID_ROWS), recipients=[generate_identity().recipient, inst.identity.recipient])
    assert_rejected(run(inst))


# --- the dataset's sealed items ----------------------------------------------------------------


def _dataset_plain(inst: Instance) -> list[dict]:
    sealed = (inst.root / DATASET / ITEMS_FILE).read_bytes()
    return [orjson.loads(line) for line in unseal(sealed, [inst.identity]).splitlines()]


def _reseal_dataset(inst: Instance, items: list[dict], recipients: list[str] | None = None) -> None:
    """Seal items again, keep the signed commitments, fix the file digest, re-sign (m1, m2: the threshold)."""
    path = inst.root / DATASET
    sealed = seal(b"".join(orjson.dumps(it) + b"\n" for it in items), recipients or [inst.identity.recipient])
    (path / ITEMS_FILE).write_bytes(sealed)
    manifest = orjson.loads((path / MANIFEST).read_bytes())
    manifest["files"][0].update(sha256=hashlib.sha256(sealed).hexdigest(), bytes=len(sealed))
    data = orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n"
    (path / MANIFEST).write_bytes(data)
    (path / SIGNATURE).write_text("".join(sign(inst.maintainer_keys[m], data, NS_DATASET) for m in ("m1", "m2")))


def _changed_answer(items):
    items[4]["answer"] = dict(items[4]["answer"], en="999")
    return items, 5


def _moved_split(items):
    items[2]["split"] = "challenge"
    return items, 3


def _extra_item(items):
    extra = dict(items[0], id="m999")
    return items + [extra], len(items) + 1


def _missing_item(items):
    return items[:-1], None


DATASET_CASES = {
    "dataset/item-not-matching-commitment": (_changed_answer, "commitment-mismatch"),
    "dataset/item-moved-to-other-split": (_moved_split, "commitment-mismatch"),
    "dataset/uncommitted-extra-item": (_extra_item, "uncommitted-item"),
    "dataset/committed-item-missing": (_missing_item, "missing-item"),
}


@pytest.mark.parametrize("case", list(DATASET_CASES), ids=list(DATASET_CASES))
def test_dataset_items_against_commitments(case: str, inst: Instance) -> None:
    change, reason = DATASET_CASES[case]
    items, line = change(_dataset_plain(inst))
    _reseal_dataset(inst, items)
    from builder.bundles.dataset import verify_dataset
    from builder.bundles.ingest import read_bundle
    from builder.trust.registry import load_registry

    raw = read_bundle(inst.root / DATASET, DATASET, "soohak", "_dataset")
    dataset = verify_dataset(raw, load_registry(inst.root, NOW), now=NOW)  # signature and digest are fine
    with pytest.raises(IntegrityError) as info:
        unseal_items(dataset, [inst.identity])
    assert (info.value.reason, info.value.where, info.value.line) == (reason, f"{DATASET}/{ITEMS_FILE}", line)


def test_dataset_sealed_to_wrong_recipient(inst: Instance) -> None:
    _reseal_dataset(inst, _dataset_plain(inst), recipients=[generate_identity().recipient])
    from builder.bundles.dataset import verify_dataset
    from builder.bundles.ingest import read_bundle
    from builder.trust.registry import load_registry

    raw = read_bundle(inst.root / DATASET, DATASET, "soohak", "_dataset")
    dataset = verify_dataset(raw, load_registry(inst.root, NOW), now=NOW)
    with pytest.raises(SealError) as info:
        unseal_items(dataset, [inst.identity])
    assert (info.value.reason, info.value.where) == ("no-matching-recipient", f"{DATASET}/{ITEMS_FILE}")


@pytest.mark.parametrize("problem", ["commitment-mismatch", "no-matching-recipient"])
def test_dataset_unseal_failure_is_a_rejection(problem: str, inst: Instance) -> None:
    items = _dataset_plain(inst)
    if problem == "commitment-mismatch":
        _reseal_dataset(inst, _changed_answer(items)[0])
    else:
        _reseal_dataset(inst, items, recipients=[generate_identity().recipient])
    report = run(inst)  # today: raises out of build()
    got = {(r.where, r.reason) for r in report.rejections}
    assert (f"{DATASET}/{ITEMS_FILE}", problem) in got, report.rejections
    assert got <= {(f"{DATASET}/{ITEMS_FILE}", problem), (DATASET, "missing-dataset")}, report.rejections
    assert {b.manifest.key for s in report.benchmarks for b in s.bundles} >= {ACME, BETA}  # still verified and listed


def test_control_dataset_resealed_unchanged_is_accepted(inst: Instance) -> None:
    _reseal_dataset(inst, _dataset_plain(inst))
    assert_rejected(run(inst))
    parse_dataset_manifest((inst.root / DATASET / MANIFEST).read_bytes(), "m")  # still parses
