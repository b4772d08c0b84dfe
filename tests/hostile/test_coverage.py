"""Coverage: partial, padded or mislabelled results are refused with a stable reason
everywhere — by `bundle create` (with the line), by `bundle verify` and PR validation from
the signed summary alone, and by the authorised build after unsealing, per bundle.

The dataset of the hostile instance has 18 items (mini 6, challenge 6, refusal 6); SOOHAK
takes exactly 3 samples per item and language and declares en (primary) and ko.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from builder.bundles.create import check_bundle
from builder.bundles.manifest import MANIFEST, parse_manifest
from builder.errors import BuilderError
from builder.trust.registry import load_registry
from builder.validate.pr import validate
from hostile.support import ITEMS, NOW, VALID_ROWS, Instance, assert_rejected, edit_manifest, run, where_of
from tests.factory import forge_submission

Rows = list[dict[str, Any]]


def _rows() -> Rows:
    return copy.deepcopy(VALID_ROWS)


def unknown_item(rows: Rows) -> Rows:
    rows[7]["item"] = "m999"
    return rows


def french(rows: Rows) -> Rows:
    for r in rows:
        if r["lang"] == "ko":
            r["lang"] = "fr"
    return rows


def regional_english(rows: Rows) -> Rows:
    return [dict(r, lang="en-US") if r["lang"] == "en" else r for r in rows]


def twelve_items(rows: Rows) -> Rows:
    keep = {it["id"] for it in ITEMS[:12]}
    return [r for r in rows if r["item"] in keep]


def two_samples(rows: Rows) -> Rows:
    return [r for r in rows if not (r["item"] == "c002" and r["lang"] == "en" and r["sample"] == 2)]


def fourth_sample(rows: Rows) -> Rows:
    # Samples 0, 1 and 3: the row count stays within the benchmark's size limit.
    return [dict(r, sample=3) if (r["item"], r["lang"], r["sample"]) == ("m001", "en", 2) else r for r in rows]


def two_undeclared(rows: Rows) -> Rows:
    # One item's sample 0 in two different undeclared languages: not one repeated sample.
    swap = {("m001", "en", 0): "fr", ("m001", "ko", 0): "de"}
    return [dict(r, lang=swap.get((r["item"], r["lang"], r["sample"]), r["lang"])) for r in rows]


def korean_only(rows: Rows) -> Rows:
    return [r for r in rows if r["lang"] == "ko"]


def partial_korean(rows: Rows) -> Rows:
    return [r for r in rows if not (r["lang"] == "ko" and r["item"].startswith("r"))]


CASES: dict[str, tuple[Callable[[Rows], Rows], str, str]] = {
    # name: (mutation, reason, a phrase the message must hold)
    "unknown-item": (unknown_item, "unknown-item", "m999"),
    "lang-fr": (french, "undeclared-language", "'fr'"),
    "lang-en-US": (regional_english, "undeclared-language", "'en-US'"),
    "two-undeclared": (two_undeclared, "undeclared-language", "'de', 'fr'"),
    "12-of-18-items": (
        twelve_items,
        "incomplete-coverage",
        "6 of 18 items have no samples (refusal 6 of 6): r000, r001, r002, r003, r004 and 1 more",
    ),
    "two-samples": (two_samples, "wrong-sample-count", "'c002' has 2"),
    "sample-3": (fourth_sample, "wrong-sample-count", "sample 3"),
    "no-primary-language": (korean_only, "incomplete-coverage", "primary language"),
    "partial-korean": (partial_korean, "incomplete-coverage", "ko: 6 of 18 items"),
}


@pytest.mark.parametrize("name", CASES)
def test_create_refuses_with_reason_and_line(inst: Instance, name: str) -> None:
    mutate, reason, phrase = CASES[name]
    with pytest.raises(BuilderError) as err:
        inst.add_submission("acme", "bad", mutate(_rows()))
    assert err.value.reason == reason, str(err.value)
    assert phrase in err.value.message, err.value.message
    assert err.value.where == "results.jsonl"
    if reason in ("unknown-item", "undeclared-language") or name == "sample-3":
        assert err.value.line is not None
    assert not (inst.root / "bundles/soohak/acme/bad").exists()


@pytest.mark.parametrize("name", CASES)
def test_build_rejects_forged_bundle_by_name(inst: Instance, name: str) -> None:
    """A lab that skips `bundle create` (no summary) is caught after unsealing; the rest build."""
    mutate, reason, _ = CASES[name]
    forge_submission(inst, "acme", "forged", mutate(_rows()))
    assert_rejected(run(inst), (where_of("acme/forged", "results.jsonl.age"), reason))


def _summary(inst: Instance) -> dict[str, Any]:
    manifest = parse_manifest((inst.bundles["acme/run-1"] / MANIFEST).read_bytes(), "m")
    assert manifest.coverage is not None
    return manifest.coverage.to_dict()


def test_create_records_the_summary(inst: Instance) -> None:
    assert _summary(inst) == {
        "dataset": "test-1",
        "items": 18,
        "splits": {"challenge": 6, "mini": 6, "refusal": 6},
        "languages": ["en", "ko"],
        "samples": 3,
        "rows": 108,
    }


def test_build_rejects_plaintext_that_disagrees_with_signed_summary(inst: Instance) -> None:
    # Complete English-only results, but the signed summary claims English and Korean.
    rows = [r for r in _rows() if r["lang"] == "en"]
    forge_submission(inst, "acme", "liar", rows, coverage=_summary(inst))
    report = run(inst)
    assert_rejected(report, (where_of("acme/liar", "results.jsonl.age"), "coverage-mismatch"))
    assert "languages, rows" in next(r.message for r in report.rejections if r.reason == "coverage-mismatch")


def test_build_accepts_old_bundle_without_summary_when_complete(inst: Instance) -> None:
    forge_submission(inst, "acme", "old-format", _rows())
    report = run(inst)
    assert not report.rejections, report.rejections


SUMMARY_CASES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "twelve-items": (lambda c: c.update(items=12, splits={"mini": 6, "challenge": 6}, rows=72), "incomplete-coverage"),
    "french": (lambda c: c.update(languages=["en", "fr"]), "undeclared-language"),
    "no-english": (lambda c: c.update(languages=["ko"], rows=54), "incomplete-coverage"),
    "one-sample": (lambda c: c.update(samples=1, rows=36), "wrong-sample-count"),
    "rows-padded": (lambda c: c.update(rows=109), "coverage-mismatch"),
    "old-dataset": (lambda c: c.update(dataset="test-0"), "coverage-mismatch"),
    "variants-invented": (lambda c: c.update(variants=[{"variant": "x"}]), "bad-variant"),
    "no-summary": (lambda c: None, "missing-coverage"),
}


def _lying_bundle(inst: Instance, name: str) -> None:
    mutate, _ = SUMMARY_CASES[name]
    bundle = inst.bundles["acme/run-1"]

    def edit(m: dict[str, Any]) -> None:
        if name == "no-summary":
            del m["coverage"]
        else:
            mutate(m["coverage"])

    edit_manifest(bundle, edit, inst.lab_keys["acme"])


@pytest.mark.parametrize("name", SUMMARY_CASES)
def test_verify_checks_summary_without_secret(inst: Instance, name: str) -> None:
    _lying_bundle(inst, name)
    with pytest.raises(BuilderError) as err:
        check_bundle(inst.root, inst.bundles["acme/run-1"], load_registry(inst.root, NOW), NOW)
    assert err.value.reason == SUMMARY_CASES[name][1], str(err.value)
    assert err.value.where == "bundles/soohak/acme/run-1/manifest.json"


def _git(root, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**__import__("os").environ, **env})


@pytest.mark.parametrize("name", ["twelve-items", "french", "no-summary"])
def test_validate_checks_summary_without_secret(inst: Instance, name: str) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    bundle = inst.bundles["acme/run-1"]
    moved = inst.root.parent / "held-back"  # outside the repository while the base is committed
    shutil.move(bundle, moved)
    _git(inst.root, "init", "-q", "-b", "main")
    _git(inst.root, "add", "-A")
    _git(inst.root, "commit", "-q", "-m", "base")
    base = subprocess.run(["git", "-C", str(inst.root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    shutil.move(moved, bundle)
    _lying_bundle(inst, name)
    _git(inst.root, "add", "-A")
    _git(inst.root, "commit", "-q", "-m", "PR")
    report = validate(inst.root, base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [("bundles/soohak/acme/run-1/manifest.json", SUMMARY_CASES[name][1])]


def test_rejection_shows_its_hint_once_everywhere(inst: Instance) -> None:
    from builder.pipeline.build import build

    forge_submission(inst, "acme", "partial", twelve_items(_rows()))
    (rejection,) = run(inst).rejections
    assert "— hint:" not in rejection.message and rejection.hint  # the page shows the hint column
    with pytest.raises(BuilderError) as err:
        build(inst.root, inst.root.parent / "strict-site", identities=[inst.identity], now=NOW, render=False, strict=True)
    assert str(err.value).count("— hint:") == 1
