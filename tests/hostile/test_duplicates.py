"""The duplicate rule (builder.bundles.duplicates), the same in the build and in validate:
clones of a run are ranked once (``duplicate-submission``) and another lab's model name
is refused (``model-name-taken``); an earlier-admitted bundle always wins."""

from __future__ import annotations

import shutil
from datetime import timedelta

from builder.bundles.duplicates import Candidate, find_duplicates
from builder.bundles.manifest import parse_manifest
from builder.validate.pr import validate
from hostile.support import ACME, BETA, NOW, VALID_ROWS, assert_rejected, edit_manifest, reseal, rows_bytes, run, where_of
from hostile.test_validate_pr import base_repo, commit, repo  # noqa: F401  (fixtures)
from tests.factory import MODEL, own_wrong_answers

DUP, TAKEN = "duplicate-submission", "model-name-taken"


def _copy(inst, source: str, lab: str, name: str) -> str:
    """Byte-for-byte copy of a bundle's results under lab/name, re-signed by lab."""
    target = inst.root / "bundles" / "soohak" / lab / name
    shutil.copytree(inst.bundles[source], target)
    key = f"{lab}/{name}"
    inst.bundles[key] = target

    def rename(obj: dict) -> None:
        obj["lab"], obj["submission"] = lab, name
        obj["model"]["id"] = f"m-{lab}-{name}"
        obj["model"]["name"] = f"Copy by {lab} {name}"

    edit_manifest(target, rename, inst.lab_keys[lab])
    return key


def test_byte_clone_by_the_same_lab_is_ranked_once(inst) -> None:
    key = _copy(inst, ACME, "acme", "run-1-copy")
    assert_rejected(run(inst), (where_of(key, "manifest.json"), DUP))


def test_byte_clone_of_another_labs_results_is_refused(inst) -> None:
    key = _copy(inst, ACME, "beta", "stolen")
    assert_rejected(run(inst), (where_of(key, "manifest.json"), DUP))


def test_five_resealed_clones_of_one_run_are_ranked_once(inst) -> None:
    keys = []
    for i in range(5):
        keys.append(f"acme/clone-{i}")
        inst.add_submission("acme", f"clone-{i}", VALID_ROWS, model=dict(MODEL, id="m-acme-run-1"))
        reseal(inst, keys[-1], rows_bytes(VALID_ROWS))  # fresh ciphertext: not a byte clone
        edit_manifest(
            inst.bundles[keys[-1]], lambda obj: obj.update(created="2026-11-29T13:00:00Z"), inst.lab_keys["acme"]
        )  # signed after run-1
    report = run(inst)
    assert_rejected(report, *[(where_of(k, "manifest.json"), DUP) for k in keys])
    ranks = [r.rank for b in report.benchmarks[0].boards[:1] for r in b.rows]
    assert len(ranks) == 2  # acme and beta, nobody pushed down


def test_another_labs_model_name_is_taken(inst) -> None:
    for name in ("Model One", "model one", "MODEL ONE"):
        edit_manifest(inst.bundles[BETA], lambda obj, name=name: obj["model"].update(name=name), inst.lab_keys["beta"])
        assert_rejected(run(inst), (where_of(BETA, "manifest.json"), TAKEN), publishes=[ACME])


def _another_run() -> list[dict]:
    """VALID_ROWS with one answer changed: a different run, not a clone."""
    rows = own_wrong_answers(VALID_ROWS, ACME)
    rows[0].update(answer="a different answer", correct=not rows[0]["correct"])
    return rows


def _clone_rows() -> list[dict]:
    """VALID_ROWS as a cloner re-sealing them would disguise them: rows reversed, samples
    renumbered within each item, lab-reported token counts retouched."""
    rows = [dict(r) for r in reversed(own_wrong_answers(VALID_ROWS, ACME))]  # acme/run-1's rows
    for r in rows:
        r["sample"] = {0: 2, 2: 0}.get(r["sample"], r["sample"])
        r["output_tokens"] = 123
    return rows


def test_a_lab_reuses_its_own_model_name_for_another_run(inst) -> None:
    inst.add_submission("acme", "run-7", _another_run(), model=dict(MODEL, id="m-acme-run-7"))
    report = run(inst)
    assert report.rejections == []


def test_an_earlier_admitted_bundle_wins_over_a_backdated_created() -> None:
    from tests.factory import RUN  # noqa: F401

    def manifest(lab: str, created: str):
        from builder.bundles.manifest import dump_manifest, manifest_dict

        obj = manifest_dict(benchmark="soohak", benchmark_version="v", lab=lab, submission="r", created=NOW, model=dict(MODEL, id=f"m-{lab}"),
                            config={"reasoning_effort": "high", "temperature": 1.0, "max_output_tokens": 10, "tts": False},
                            harness={"name": "h", "version": "1"}, judge=None,
                            files=[{"path": "results.jsonl.age", "sha256": (lab[0] * 64), "bytes": 1, "sealed": True}],
                            publish_results=True, publish_transcripts=False)  # fmt: skip
        obj["created"] = created
        return parse_manifest(dump_manifest(obj), "m")

    incumbent = Candidate("bundles/soohak/acme/r", manifest("acme", "2026-06-01T00:00:00Z"), admitted=NOW - timedelta(days=30))
    backdated = Candidate("bundles/soohak/beta/r", manifest("beta", "2020-01-01T00:00:00Z"), admitted=None)
    refused = find_duplicates([backdated, incumbent])
    assert list(refused) == ["bundles/soohak/beta/r"] and refused["bundles/soohak/beta/r"].reason == TAKEN


def test_validate_refuses_a_clone_as_the_build_does(repo) -> None:  # noqa: F811
    inst = repo.inst
    _copy(inst, ACME, "acme", "run-1-copy")
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [("bundles/soohak/acme/run-1-copy/manifest.json", DUP)]


def test_validate_refuses_another_labs_model_name(repo) -> None:  # noqa: F811
    inst = repo.inst
    inst.add_submission("beta", "run-9", VALID_ROWS, model=dict(MODEL, id="m-beta-9", name="Model One"))
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [("bundles/soohak/beta/run-9/manifest.json", TAKEN)]


def test_resealed_clone_with_a_tweaked_configuration_is_ranked_once(inst) -> None:
    """Re-sealing changes every ciphertext byte and a new temperature changes the run key;
    the results, row for row, are still run-1's (builder.bundles.duplicates, after unseal)."""
    inst.add_submission("acme", "run-1-again", _clone_rows(), model=dict(MODEL, id="m-acme-run-1"), own_answers=False)
    edit_manifest(inst.bundles["acme/run-1-again"], lambda obj: obj["config"].update(temperature=0.71), inst.lab_keys["acme"])
    report = run(inst)
    assert_rejected(report, (where_of("acme/run-1-again", "results.jsonl.age"), DUP))
    [r] = [r for r in report.rejections if r.reason == DUP]
    assert f"those of {where_of(ACME)}" in r.message


def test_a_colluding_labs_resealed_copy_is_refused(inst) -> None:
    inst.add_submission("beta", "borrowed", _clone_rows(), model=dict(MODEL, id="m-beta-borrowed", name="Beta Borrowed"), own_answers=False)
    assert_rejected(run(inst), (where_of("beta/borrowed", "results.jsonl.age"), DUP))


def test_one_changed_answer_is_a_different_run(inst) -> None:
    inst.add_submission("beta", "close", _another_run(), model=dict(MODEL, id="m-beta-close", name="Beta Close"), own_answers=False)
    assert [r.reason for r in run(inst).rejections] == []
