"""`sealboard dataset create|sign`: a maintainer's items.jsonl becomes a sealed, committed,
threshold-signed dataset bundle; bad input is one clear line naming file and line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.bundles.dataset import commitment, parse_dataset_manifest, verify_dataset
from builder.bundles.ingest import read_bundle
from builder.cli import main
from builder.trust.registry import load_registry
from builder.trust.seal import unseal
from tests.factory import NOW, make_instance, soohak_items

DS = "bundles/soohak/_dataset/test-1"


@pytest.fixture
def inst(tmp_path: Path):  # type: ignore[no-untyped-def]
    inst = make_instance(tmp_path / "inst")
    shutil.rmtree(inst.root / DS)
    return inst


def keyfile(inst, name: str) -> Path:  # type: ignore[no-untyped-def]
    return inst.root.parent / "inst-keys" / name


def run(*args: object):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, [str(a) for a in args])


def items_file(tmp_path: Path, items: list[dict]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_bytes(b"".join(orjson.dumps(it) + b"\n" for it in items))
    return path


def test_create_seals_commits_and_needs_the_threshold(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plain = [{k: v for k, v in it.items() if k != "canary"} for it in soohak_items()]  # canaries are generated
    result = run("dataset", "create", "soohak", "--root", inst.root, "--items", items_file(tmp_path, plain), "--key", keyfile(inst, "m1"))
    assert result.exit_code == 0, result.output
    assert f"Wrote {DS}/ (18 items: mini 6, challenge 6, refusal 6)" in result.output
    assert "Signed: 1 of 2 maintainer signature(s) (registry v0002)" in result.output
    assert "1 more maintainer(s) run: sealboard dataset sign soohak --key KEY" in result.output

    directory = inst.root / DS
    manifest = parse_dataset_manifest((directory / "manifest.json").read_bytes(), "manifest.json")
    assert manifest.splits == {"mini": 6, "challenge": 6, "refusal": 6}
    # The sealed items open with the embargo identity only, and each matches its public commitment.
    opened = [orjson.loads(line) for line in unseal((directory / "items.jsonl.age").read_bytes(), [inst.identity]).splitlines()]
    assert [it["id"] for it in opened] == [it["id"] for it in plain]
    assert all(commitment(it) == manifest.commitments[it["id"]] for it in opened)
    assert all(it["canary"].startswith("SEALBOARD-CANARY-") and len(it["salt"]) == 64 for it in opened)
    assert b"Test question" not in (directory / "manifest.json").read_bytes()

    registry = load_registry(inst.root, NOW)
    raw = read_bundle(directory, DS, "soohak", "_dataset")
    with pytest.raises(Exception) as info:
        verify_dataset(raw, registry, now=NOW)
    assert getattr(info.value, "reason", None) == "below-threshold"

    # The second signature with stock ssh-keygen, appended: now the threshold holds.
    with (directory / "manifest.json").open("rb") as stdin:
        block = subprocess.run(
            ["ssh-keygen", "-q", "-Y", "sign", "-n", "sealboard-dataset", "-f", str(keyfile(inst, "m3")), "-"],
            stdin=stdin,
            capture_output=True,
            check=True,
        ).stdout
    with (directory / "manifest.json.sig").open("ab") as fh:
        fh.write(block)
    raw = read_bundle(directory, DS, "soohak", "_dataset")
    assert verify_dataset(raw, registry, now=NOW).signer == "m1, m3"


def test_sign_twice_counts_once_and_strangers_are_refused(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run("dataset", "create", "soohak", "--root", inst.root, "--items", items_file(tmp_path, soohak_items())).exit_code == 0
    assert "1 of 2" in run("dataset", "sign", "soohak", "--root", inst.root, "--key", keyfile(inst, "m2")).output
    assert "1 of 2" in run("dataset", "sign", "soohak", "--root", inst.root, "--key", keyfile(inst, "m2")).output
    result = run("dataset", "sign", "soohak", "--root", inst.root, "--key", keyfile(inst, "acme"))
    assert result.exit_code == 1 and "is not an unrevoked maintainer of registry v0002" in result.output
    result = run("dataset", "sign", "soohak", "--root", inst.root, "--key", keyfile(inst, "m1"))
    assert result.exit_code == 0 and "2 maintainer signature(s), threshold 2" in result.output and "more maintainer" not in result.output


BAD_ITEMS = [
    ("missing-field", lambda items: [{k: v for k, v in items[0].items() if k != "answer"}], "items.jsonl:1", "answer"),
    ("duplicate-id", lambda items: [items[0], items[1], dict(items[2], id=items[0]["id"])], "items.jsonl:3", "repeats line 1"),
    ("bad-answer-type", lambda items: [items[0], dict(items[1], answer_type="essay")], "items.jsonl:2", "answer_type 'essay'"),
    ("question-not-by-language", lambda items: [dict(items[0], question="What?")], "items.jsonl:1", "question must map language codes"),
    ("unknown-field", lambda items: [dict(items[0], difficulty=3)], "items.jsonl:1", "difficulty"),
    ("empty", lambda items: [], "items.jsonl", "holds no items"),
    (
        "integer-gold-not-a-number",
        lambda items: [items[0], dict(items[1], answer_type="integer", answer={"en": "twelve"})],
        "items.jsonl:2",
        "does not parse as integer",
    ),
    (
        "choice-gold-names-no-option",
        lambda items: [dict(items[0], answer_type="choice", answer={"en": "B or C"})],
        "items.jsonl:1",
        "names no single option",
    ),
    (
        "choice-gold-beyond-labels",
        lambda items: [dict(items[0], answer_type="choice", answer={"en": "⑤"}, choice_labels="ABCD")],
        "items.jsonl:1",
        "beyond the 4 declared",
    ),
    (
        "negative-tolerance",
        lambda items: [dict(items[0], answer_type="decimal", answer={"en": "2.5"}, tolerance=-0.1)],
        "items.jsonl:1",
        "tolerance must be a finite number",
    ),
    (
        "repeated-choice-label",
        lambda items: [dict(items[0], answer_type="choice", answer={"en": "B"}, choice_labels="ABCA")],
        "items.jsonl:1",
        "choice_labels must list",
    ),
]


@pytest.mark.parametrize("case", BAD_ITEMS, ids=[c[0] for c in BAD_ITEMS])
def test_bad_items_name_file_and_line(case, inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, change, where, needle = case
    path = items_file(tmp_path, change(soohak_items()))
    result = run("dataset", "create", "soohak", "--root", inst.root, "--items", path)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert where in result.output and needle in result.output, result.output
    assert not (inst.root / DS).exists() or not any((inst.root / DS).iterdir())


@pytest.mark.parametrize("gold", ["3", "③", "C", "3번"])
def test_a_kcsat_choice_gold_is_accepted_stored_either_way(gold, inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    items = soohak_items()
    items[0] = dict(items[0], answer_type="choice", answer={lang: gold for lang in items[0]["answer"]}, choice_labels="①②③④⑤")
    result = run("dataset", "create", "soohak", "--root", inst.root, "--items", items_file(tmp_path, items))
    assert result.exit_code == 0, result.output


def test_refuses_to_overwrite_and_unknown_benchmark(inst, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = items_file(tmp_path, soohak_items())
    assert run("dataset", "create", "soohak", "--root", inst.root, "--items", path).exit_code == 0
    result = run("dataset", "create", "soohak", "--root", inst.root, "--items", path)
    assert result.exit_code == 1 and "exists already" in result.output and "raise 'version'" in result.output
    result = run("dataset", "create", "nope", "--root", inst.root, "--items", path)
    assert result.exit_code == 1 and "no leaderboard config for 'nope'" in result.output
    result = run("dataset", "create", "soohak", "--root", inst.root, "--items", tmp_path / "missing.jsonl")
    assert result.exit_code == 2 and "cannot read" in result.output and "Traceback" not in result.output
    result = run("dataset", "sign", "nope", "--root", inst.root, "--key", keyfile(inst, "m1"))
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_help_has_examples() -> None:
    for command in ("create", "sign"):
        result = run("dataset", command, "--help")
        assert result.exit_code == 0 and "Example" in result.output and "sealboard dataset" in result.output
