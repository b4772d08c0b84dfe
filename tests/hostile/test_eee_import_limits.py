"""``sealboard import eee`` on hostile instance files (issue 44, class 8).

Each case is one line a lab's file could hold, refused with its exact reason, naming the
file and line, with no traceback and no results written: ``1e999`` (which json read as
infinity and wrote as a silent ``null``), an integer of 10^30, a lone surrogate escape, two
log ids mapped onto one item by ``--map``, and a line of millions of empty objects (20x
its size in memory). Control: the same file without the hostile part imports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builder.cli import main

GOOD = {
    "schema_version": "0.3.0", "evaluation_id": "soohak/acme/m/1", "model_id": "acme/m", "evaluation_name": "soohak",
    "evaluation_result_id": "soohak/accuracy", "sample_id": "s1", "interaction_type": "single_turn",
    "input": {"raw": "What is 6 x 7?", "reference": ["42"]}, "output": {"raw": ["42"]},
    "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": "42", "extraction_method": "regex", "is_terminal": True}],
    "evaluation": {"score": 1.0, "is_correct": True}, "token_usage": {"output_tokens": 120}, "performance": {"latency_ms": 2500},
    "error": None, "metadata": {"lang": "en"},
}  # fmt: skip


def _line(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes})


def _run(tmp_path: Path, lines: list[str], *extra: str) -> Any:
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["import", "eee", str(path), "--out", str(out), "--describe-out", str(tmp_path / "run.yaml"), *extra])
    return result, out


CASES = {
    "infinite-latency-1e999": (
        _line().replace('"latency_ms": 2500', '"latency_ms": 1e999'),
        "number-out-of-range",
        "holds a number a double cannot hold (1e999)",
    ),
    "score-1e999": (
        _line().replace('"score": 1.0', '"score": -1e999'),
        "number-out-of-range",
        "holds a number a double cannot hold (-1e999)",
    ),
    "tokens-10-to-the-30": (
        _line().replace('"output_tokens": 120', '"output_tokens": ' + "1" + "0" * 30),
        "number-out-of-range",
        "holds an integer beyond ±2^53 (1000000000000000000000000000000)",
    ),
    "lone-surrogate-in-answer": (
        _line().replace('"extracted_value": "42"', '"extracted_value": "4\\ud8002"'),
        "bad-encoding",
        "holds a lone surrogate escape",
    ),
    "lone-surrogate-in-a-key": (
        _line().replace('"metadata": {"lang": "en"}', '"metadata": {"lang": "en", "x\\udfff": "y"}'),
        "bad-encoding",
        "holds a lone surrogate escape",
    ),
    "millions-of-empty-objects": (
        _line().replace('"input": {', '"junk": [' + "{}," * (2 << 20) + '{}], "input": {'),
        "oversize",
        "JSON objects and arrays in",
    ),
}


@pytest.mark.parametrize("line,reason,text", CASES.values(), ids=CASES.keys())
def test_hostile_line_is_refused_with_its_reason(tmp_path: Path, line: str, reason: str, text: str) -> None:
    from builder.errors import ParseError
    from builder.importers.eee_instances import import_instances

    result, out = _run(tmp_path, [_line(sample_id="s0"), line])
    assert result.exit_code == 1 and "Traceback" not in result.output and not out.exists(), result.output
    assert "samples.jsonl:2: " in result.output and text in result.output, result.output
    with pytest.raises(ParseError) as err:
        import_instances([tmp_path / "samples.jsonl"])
    assert (err.value.reason, err.value.line) == (reason, 2)


def test_two_log_ids_mapped_onto_one_item_are_refused(tmp_path: Path) -> None:
    from builder.errors import ParseError
    from builder.importers.common import IdMap
    from builder.importers.eee_instances import import_instances

    id_map = tmp_path / "map.csv"
    id_map.write_text("source,item\ns1,m001\ns2,m001\n")
    result, out = _run(tmp_path, [_line(sample_id="s1"), _line(sample_id="s2")], "--map", str(id_map))
    assert result.exit_code == 1 and "ids 's1' and 's2' of the logs both name item 'm001'" in result.output, result.output
    assert not out.exists()
    with pytest.raises(ParseError) as err:
        import_instances([tmp_path / "samples.jsonl"], id_map=IdMap.load(id_map))
    assert err.value.reason == "colliding-ids"


def test_control_the_same_lines_without_the_hostile_part_import(tmp_path: Path) -> None:
    id_map = tmp_path / "map.csv"
    id_map.write_text("source,item\ns1,m001\ns2,m002\n")
    tex = "\\frac{a}{b} " * 5000  # braces in strings are text, not containers
    result, out = _run(
        tmp_path, [_line(sample_id="s1"), _line(sample_id="s2", output={"raw": [tex]}), _line(sample_id="s1")], "--map", str(id_map)
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(r) for r in out.read_text().splitlines()]
    assert sorted((r["item"], r["sample"]) for r in rows) == [("m001", 0), ("m001", 1), ("m002", 0)]
    assert rows[0]["latency_s"] == 2.5 and rows[0]["output_tokens"] == 120
