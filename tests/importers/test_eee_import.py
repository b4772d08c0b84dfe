"""``sealboard import eee``: Every Eval Ever instance-level JSONL in, results.jsonl and run.yaml out.

The instance file is written by hand from the schema and checked against the vendored
``instance_level_eval.schema.json`` (0.3.0) first, so the importer is tested on what a
conforming producer writes; hostile files assert the exact refusal reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.errors import BuilderError, ParseError
from builder.importers import eee_instances
from builder.importers.common import IdMap
from builder.importers.eee_instances import import_instances

SCHEMA = json.loads((Path(eee_instances.__file__).parents[1] / "formats" / "eee" / "instance_level_eval.schema.json").read_text())
EVAL_ID = "soohak/acme/model-x/1764633600"


def _instance(sample_id: str, answer: str | None, correct: bool, **extra: Any) -> dict[str, Any]:
    """One single-turn instance record as EEE 0.3 defines it."""
    rec: dict[str, Any] = {
        "schema_version": "0.3.0",
        "evaluation_id": EVAL_ID,
        "model_id": "acme/model-x",
        "evaluation_name": "soohak",
        "evaluation_result_id": "soohak/accuracy",
        "sample_id": sample_id,
        "interaction_type": "single_turn",
        "input": {"raw": "What is 6 x 7?", "reference": ["42"]},
        "output": {"raw": [f"The answer is {answer}." if answer is not None else "I cannot finish."]},
        "answer_attribution": []
        if answer is None
        else [
            {"turn_idx": 0, "source": "output.raw", "extracted_value": "41", "extraction_method": "regex", "is_terminal": False},
            {"turn_idx": 0, "source": "output.raw", "extracted_value": answer, "extraction_method": "regex", "is_terminal": True},
        ],
        "evaluation": {"score": 1.0 if correct else 0.0, "is_correct": correct},
        "token_usage": {"input_tokens": 30, "output_tokens": 120, "total_tokens": 150},
        "performance": {"latency_ms": 2500},
        "error": None,
        "metadata": {"lang": "en", "subject": "arithmetic"},
    }
    rec.update(extra)
    return rec


def _write(tmp_path: Path, records: list[Any], name: str = "samples.jsonl", validate: bool = True) -> Path:
    if validate:
        for rec in records:
            jsonschema.validate(rec, SCHEMA)  # the fixture is what a conforming producer writes
    path = tmp_path / name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def _refusal(path: Path, **kwargs: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        import_instances([path], **kwargs)
    assert info.value.where == str(path)
    return info.value


def test_instances_become_rows_with_samples_numbered_per_item(tmp_path: Path) -> None:
    path = _write(tmp_path, [_instance("s1", "42", True), _instance("s2", "7", False), _instance("s1", "43", False)])
    report = import_instances([path])
    rows = sorted(report.rows, key=lambda r: (r["item"], r["sample"]))
    assert rows == [
        {
            "item": "s1",
            "lang": "en",
            "answer": "42",
            "correct": True,
            "refused": False,
            "output_tokens": 120,
            "latency_s": 2.5,
            "sample": 0,
        },
        {
            "item": "s1",
            "lang": "en",
            "answer": "43",
            "correct": False,
            "refused": False,
            "output_tokens": 120,
            "latency_s": 2.5,
            "sample": 1,
        },
        {
            "item": "s2",
            "lang": "en",
            "answer": "7",
            "correct": False,
            "refused": False,
            "output_tokens": 120,
            "latency_s": 2.5,
            "sample": 0,
        },
    ]
    assert report.description["model"]["id"] == "acme/model-x"
    assert report.description["harness"] == {"name": "every-eval-ever", "version": "0.3"}
    # the item's own text and the transcript are never copied into the results
    assert report.not_imported["sample metadata fields"] == {"subject": 3}


def test_cli_writes_results_and_skeleton_with_map_and_field(tmp_path: Path) -> None:
    records = [
        _instance("q-1", "42", True, metadata={"lang": "ko", "variant": "a"}),
        _instance("q-2", None, False, metadata={"lang": "ko", "variant": "b"}),
    ]
    path = _write(tmp_path, records)
    id_map = tmp_path / "map.csv"
    id_map.write_text("source,item\nq-1,soohak-001\nq-2,soohak-002\n")
    out, describe = tmp_path / "results.jsonl", tmp_path / "run.yaml"
    result = CliRunner().invoke(
        main,
        [
            "import",
            "eee",
            str(path),
            "--map",
            str(id_map),
            "--field",
            "variant=variant",
            "--out",
            str(out),
            "--describe-out",
            str(describe),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["item"], r["lang"], r["variant"], r["answer"], r["correct"]) for r in rows] == [
        ("soohak-001", "ko", "a", "42", True),
        ("soohak-002", "ko", "b", None, False),
    ]
    assert yaml.safe_load(describe.read_text())["model"]["id"] == "acme/model-x"
    assert "Wrote" in result.output and "2 sample(s) of 2 item(s) in ko" in result.output


def test_errored_samples_stop_the_import_or_are_left_out_never_scored_wrong(tmp_path: Path) -> None:
    records = [_instance("s1", "42", True), _instance("s2", None, False, error="timeout after 600 s")]
    path = _write(tmp_path, records)
    exc = _refusal(path)
    assert exc.reason == "errored-samples"
    assert "line 2 (s2: timeout after 600 s)" in str(exc)
    report = import_instances([path], errored="skip")
    assert [r["item"] for r in report.rows] == ["s1"]  # s2 is missing, not a wrong answer
    assert any("left out 1 errored sample" in n for n in report.notes)
    result = CliRunner().invoke(
        main, ["import", "eee", str(path), "--out", str(tmp_path / "r.jsonl"), "--describe-out", str(tmp_path / "r.yaml")]
    )
    assert result.exit_code == 1 and "ended in an error" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r.jsonl").exists()


def test_two_evaluations_need_a_choice(tmp_path: Path) -> None:
    path = _write(tmp_path, [_instance("s1", "42", True), _instance("s1", "42", False, evaluation_result_id="soohak/strict")])
    assert _refusal(path).reason == "ambiguous-evaluation"
    report = import_instances([path], evaluation="soohak/strict")
    assert [(r["item"], r["correct"]) for r in report.rows] == [("s1", False)]
    assert _refusal(path, evaluation="nope").reason == "ambiguous-evaluation"


def test_two_models_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, [_instance("s1", "42", True), _instance("s2", "42", True, model_id="other/model")])
    assert _refusal(path).reason == "mixed-models"


HOSTILE: dict[str, tuple[bytes, str, int | None]] = {
    "not-json": (b"{not json}\n", "bad-log", 1),
    "nan-score": (json.dumps(_instance("s1", "42", True)).replace('"score": 1.0', '"score": NaN').encode() + b"\n", "bad-log", 1),
    "duplicate-key": (b'{"sample_id": "a", "sample_id": "b", "evaluation": {}}\n', "bad-log", 1),
    "aggregate-not-instance": (json.dumps({"schema_version": "0.3.0", "evaluation_results": []}).encode() + b"\n", "bad-log", 1),
    # 100,000 arrays in 200 kB: refused by the container bound (issue 44) before the parser recurses
    "deep-nesting": (b'{"sample_id": "a", "evaluation": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", "too-deep", 1),
    "deep-nesting-within-the-bound": (b'{"sample_id": "a", "evaluation": ' + b"[" * 5_000 + b"]" * 5_000 + b"}\n", "bad-log", 1),
    "not-utf8": (b'{"sample_id": "\xff", "evaluation": {}}\n', "bad-encoding", 1),
    "empty": (b"\n\n", "bad-log", None),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_file_is_refused_with_reason_and_line(tmp_path: Path, name: str) -> None:
    content, reason, line = HOSTILE[name]
    path = tmp_path / "samples.jsonl"
    path.write_bytes(content)
    exc = _refusal(path, lang="en")
    assert exc.reason == reason, str(exc)
    assert exc.line == line


FIELD_CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "is-correct-not-bool": ({"evaluation": {"score": 1, "is_correct": 1}}, "bad-score", "evaluation.is_correct is 1"),
    "is-correct-missing": ({"evaluation": {"score": 1}}, "bad-score", "evaluation.is_correct is None"),
    "old-schema": ({"schema_version": "0.2.1"}, "unsupported-version", "schema_version is '0.2.1'"),
    "sample-id-number": ({"sample_id": 7}, "bad-log", "sample_id is int"),
    "sample-id-huge": ({"sample_id": "x" * 10_000}, "oversize", "sample_id is 10000 characters"),
    "negative-tokens": (
        {"token_usage": {"input_tokens": 1, "output_tokens": -5, "total_tokens": 1}},
        "bad-log",
        "token_usage.output_tokens is -5",
    ),
    "latency-text": ({"performance": {"latency_ms": "fast"}}, "bad-log", "performance.latency_ms is 'fast'"),
    "metadata-not-strings": ({"metadata": {"lang": "en", "n": 3}}, "bad-log", "metadata.n is int"),
    "attribution-not-list": ({"answer_attribution": "42"}, "bad-log", "answer_attribution is not a list"),
    "terminal-not-bool": (
        {"answer_attribution": [{"extracted_value": "42", "is_terminal": "yes"}]},
        "bad-log",
        "is_terminal is not true or false",
    ),
    "interaction-unknown": ({"interaction_type": "telepathy"}, "bad-log", "interaction_type is 'telepathy'"),
    "no-language": ({"metadata": {}}, "missing-language", "no --lang was given"),
}


@pytest.mark.parametrize("name", FIELD_CASES)
def test_bad_field_names_line_and_reason(tmp_path: Path, name: str) -> None:
    change, reason, phrase = FIELD_CASES[name]
    good = _instance("s0", "1", True)
    path = _write(tmp_path, [good, {**_instance("s1", "42", True), **change}], validate=False)
    exc = _refusal(path)
    assert exc.reason == reason, str(exc)
    assert exc.line == 2
    assert phrase in str(exc)


def test_oversize_line_is_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eee_instances, "MAX_LINE_BYTES", 1000)
    rec = _instance("s1", "42", True, input={"raw": "x" * 2000, "reference": ["42"]})
    path = _write(tmp_path, [_instance("s0", "1", True), rec])
    exc = _refusal(path)
    assert exc.reason == "oversize" and exc.line == 2


def test_unmapped_id_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, [_instance("s1", "42", True)])
    mapping = tmp_path / "map.csv"
    mapping.write_text("other,soohak-001\n")
    with pytest.raises(ParseError) as info:
        import_instances([path], id_map=IdMap.load(mapping))
    assert info.value.reason == "unmapped-id"


# ---- benchmark-declared result fields: EEE metadata is text, the results are typed

LMB_IDS = [f"lmb-2026-01-{i:03d}" for i in range(1, 7)]
LMB_CELLS = [("standard", "false"), ("substitution", "false"), ("standard", "true"), ("substitution", "true")]


def _lmb_lines(cells: list[tuple[str, str]] = LMB_CELLS) -> list[dict[str, Any]]:
    """What an EEE producer writes for a LiveMathematicianBench run: variant and sketch as metadata text."""
    return [
        _instance(iid, "C", i % 2 == 0, metadata={"lang": "en", "variant": variant, "sketch": sketch})
        for variant, sketch in cells
        for i, iid in enumerate(LMB_IDS)
    ]


def _lmb_spec() -> Any:
    from builder.scoring import parse_scoring_config
    from builder.scoring.config import load_preset

    return parse_scoring_config(load_preset("livemathematicianbench"), "livemathematicianbench", benchmark="livemathematicianbench")


def test_declared_fields_take_their_types_so_the_rows_are_a_livemathematicianbench_submission(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    import orjson

    from builder.bundles.coverage import measure
    from builder.bundles.dataset import DatasetManifest
    from builder.bundles.results import parse_results

    spec = _lmb_spec()
    path = _write(tmp_path, _lmb_lines())
    report = import_instances([path], declared=spec.results_extras())
    assert {(r["variant"], r["sketch"]) for r in report.rows} == {
        ("standard", False),
        ("substitution", False),
        ("standard", True),
        ("substitution", True),
    }
    assert all(type(r["sketch"]) is bool and r["sample"] == 0 for r in report.rows)  # one sample per item in each cell
    assert "sample metadata fields" not in report.not_imported or not report.not_imported["sample metadata fields"]
    # the results parser and the coverage check of LiveMathematicianBench's bundles accept them
    data = b"".join(orjson.dumps(r) + b"\n" for r in report.rows)
    dataset = DatasetManifest(
        benchmark="livemathematicianbench",
        version="v1",
        created=datetime(2026, 1, 1, tzinfo=timezone.utc),
        splits={"main": 6},
        commitments={i: "0" * 64 for i in LMB_IDS},
        item_splits={i: "main" for i in LMB_IDS},
        items_sha256="0" * 64,
        items_bytes=0,
    )
    coverage = measure(parse_results(data, "results.jsonl", spec.results_extras()), dataset, spec, "results.jsonl", data)
    assert coverage.rows == 24 and len(coverage.variants) == 4
    # the control: the same lines without the declared types are text, which that parser refuses
    untyped = import_instances([path], fields={"variant": "variant", "sketch": "sketch"})
    assert {type(r["sketch"]) for r in untyped.rows} == {str}
    raw = b"".join(orjson.dumps(r) + b"\n" for r in untyped.rows)
    with pytest.raises(BuilderError) as refused:
        parse_results(raw, "results.jsonl", spec.results_extras())
    assert "sketch" in str(refused.value)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [("sketch", "yes", "true or false"), ("variant", "easy", "one of standard, substitution"), ("sketch", "", "true or false")],
)
def test_a_declared_field_of_another_type_is_refused_naming_line_and_field(tmp_path: Path, field: str, value: str, expected: str) -> None:
    lines = _lmb_lines([("standard", "false")])
    lines[2]["metadata"][field] = value
    exc = _refusal(_write(tmp_path, lines), declared=_lmb_spec().results_extras())
    assert (exc.reason, exc.line) == ("bad-field-value", 3)
    assert f"metadata.{field} is {value!r}; {field} is declared by the benchmark as {expected}" in exc.message


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("int", "8192", 8192),
        ("int", "-3", -3),
        ("number", "0.25", 0.25),
        ("number", "2", 2),
        ("bool", "True", True),
        ("bool", "false", False),
        (("a", "b"), "b", "b"),
        ("string", "x", "x"),
    ],
)
def test_declared_value_reads_each_kind(kind: Any, text: str, value: Any) -> None:
    assert eee_instances.declared_value(text, kind) == value and type(eee_instances.declared_value(text, kind)) is type(value)


@pytest.mark.parametrize(
    ("kind", "text"),
    [("int", "1.5"), ("int", "12345678901234567"), ("number", "nan"), ("number", "inf"), ("number", "x"), ("bool", "1"), (("a", "b"), "A")],
)
def test_declared_value_refuses_what_is_not_of_its_kind(kind: Any, text: str) -> None:
    with pytest.raises(ValueError):
        eee_instances.declared_value(text, kind)


def test_sealboards_own_samples_export_imports_back_to_the_same_rows(tmp_path: Path) -> None:
    """The round trip: a released LiveMathematicianBench run exported as EEE samples
    (builder.render.eee_samples) and imported with the benchmark's declared fields gives
    back the published rows."""
    from builder.render.eee_samples import samples_file

    rows = [
        {
            "submission": "acme/run-1",
            "item": iid,
            "lang": "en",
            "sample": 0,
            "answer": "C" if k % 2 else None,
            "correct": k % 3 == 0,
            "graded_by": "regrade",
            "lab_correct": k % 3 == 0,
            "regrade_correct": None,
            "refused": False,
            "latency_s": 1.25,
            "variant": variant,
            "sketch": sketch == "true",
        }
        for k, (iid, (variant, sketch)) in enumerate((iid, cell) for cell in LMB_CELLS for iid in LMB_IDS)
    ]
    items = {iid: {"id": iid, "question": {"en": f"Which option for {iid}?"}, "answer": {"en": "C"}} for iid in LMB_IDS}
    body = samples_file(
        rows,
        items,
        (),
        evaluation_id="sealboard/livemathematicianbench/acme/run-1",
        model_id="acme/model-x",
        benchmark="livemathematicianbench",
    )
    path = tmp_path / "x_samples.jsonl"
    path.write_bytes(body)
    for line in body.splitlines():
        jsonschema.validate(json.loads(line), SCHEMA)
    report = import_instances([path], declared=_lmb_spec().results_extras())
    keys = ("item", "lang", "sample", "answer", "correct", "variant", "sketch", "latency_s")
    assert [{k: r[k] for k in keys} for r in report.rows] == [{k: r[k] for k in keys} for r in rows]
    assert report.description["model"]["id"] == "acme/model-x"


def test_cli_with_benchmark_types_the_fields_and_checks_coverage(tmp_path: Path) -> None:
    """`sealboard import eee --benchmark livemathematicianbench` in a repository holding that
    benchmark's config and dataset: the written results cover it."""
    from builder.bundles.dataset import new_salt
    from builder.bundles.dataset_create import write_dataset
    from builder.config import load_config
    from builder.demo.instance import _config_text
    from builder.trust.seal import generate_identity
    from tests.factory import NOW, make_instance

    inst = make_instance(tmp_path / "inst")
    config_path = inst.root / "leaderboards" / "livemathematicianbench.yaml"
    config_path.write_text(
        _config_text("livemathematicianbench", "lmb-1", generate_identity().recipient, private=generate_identity().recipient)
    )
    items = [
        {
            "id": iid,
            "split": "main",
            "question": {"en": f"Which option holds for theorem {iid}? (A) (B) (C) (D) (E)"},
            "answer": {"en": "C"},
            "answer_type": "choice",
            "category": "Existence",
            "edition": "2026-01",
            "published": "2026-01-15",
        }
        for iid in LMB_IDS
    ]
    write_dataset(inst.root, load_config(config_path, inst.root), [dict(it, salt=new_salt()) for it in items], NOW)
    path = _write(tmp_path, _lmb_lines())
    out, describe = tmp_path / "results.jsonl", tmp_path / "run.yaml"
    result = CliRunner().invoke(
        main,
        [
            "import",
            "eee",
            str(path),
            "--benchmark",
            "livemathematicianbench",
            "--root",
            str(inst.root),
            "--out",
            str(out),
            "--describe-out",
            str(describe),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Coverage OK for livemathematicianbench: 6 items × en × 1 sample(s) = 24 rows" in result.output
    assert {json.loads(line)["sketch"] for line in out.read_text().splitlines()} == {True, False}
