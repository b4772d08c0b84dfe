"""The `.eval` sample layouts without a harness installed (the quick loop's share of issue 42,
item 4; test_chunked_logs.py runs the same checks on a log inspect_ai itself converted).

The archives follow inspect_ai 0.3.285's definition of the chunked layout
(``inspect_ai/log/_recorders/chunked/format.py`` lines 10-20: ``samples/<id>_epoch_<n>/``
holding ``sample.json``, ``metadata.json``, ``skeleton.json``, ``events/stats.json``,
``events/uuids.json`` and the chunk files ``messages|events|calls|attachments/<start>.json``;
``convert.py`` lines 265-270 and 332-336: the shell is the sample without its transcript and
``metadata``, which goes to ``metadata.json`` when not empty, plus ``message_refs``).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import ParseError
from builder.importers.eval_layout import sample_entries
from builder.importers.inspect_log import import_logs

HEADER = {
    "version": 2,
    "status": "success",
    "eval": {"task": "t", "model": "openai/gpt-x", "packages": {"inspect_ai": "0.3.285"}, "config": {"epochs": 2}},
    "plan": {"config": {"temperature": 1.0}},
}
MESSAGES = [{"role": "user", "content": "1+1"}, {"role": "assistant", "content": "ANSWER: 2"}]


def _sample(sid: Any, epoch: int, value: str) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": epoch,
        "input": "1+1",
        "target": "2",
        "messages": MESSAGES,
        "output": {"choices": [{"stop_reason": "stop"}], "usage": {"output_tokens": 7}},
        "scores": {"match": {"value": value, "answer": "2"}},
        "metadata": {"lang": "en", "source": "lab"},
        "model_usage": {"openai/gpt-x": {"output_tokens": 7}},
        "total_time": 1.5,
        "events": [{"event": "model"}],
        "attachments": {},
    }


SAMPLES = [_sample("m000", 1, "C"), _sample(7, 1, "I"), _sample("m000", 2, "I"), _sample(7, 2, "C")]


def _classic(sample: dict[str, Any]) -> dict[str, bytes]:
    return {f"samples/{sample['id']}_epoch_{sample['epoch']}.json": json.dumps(sample).encode()}


def _chunked(sample: dict[str, Any]) -> dict[str, bytes]:
    stem = f"samples/{sample['id']}_epoch_{sample['epoch']}"
    transcript = {"messages", "events", "attachments", "events_data", "metadata"}
    shell = {k: v for k, v in sample.items() if k not in transcript} | {"message_refs": [[0, 2]]}
    return {
        f"{stem}/sample.json": json.dumps(shell).encode(),
        f"{stem}/metadata.json": json.dumps(sample["metadata"]).encode(),
        f"{stem}/skeleton.json": b"{}",
        f"{stem}/events/stats.json": b'{"chunks": []}',
        f"{stem}/events/uuids.json": b'["u1"]',
        f"{stem}/messages/0.json": json.dumps(MESSAGES).encode(),
        f"{stem}/events/0.json": json.dumps(sample["events"]).encode(),
        f"{stem}/calls/0.json": b"[]",
    }


def _archive(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _all(layout: Any) -> dict[str, bytes]:
    return {name: data for sample in SAMPLES for name, data in layout(sample).items()}


def test_chunked_and_mixed_archives_import_as_the_classic_one(tmp_path: Path) -> None:
    classic = import_logs([_archive(tmp_path / "classic.eval", _all(_classic))])
    assert len(classic.rows) == 4 and classic.summary_lines() == ["not imported — sample metadata fields: source (4)"]
    mixed = _chunked(SAMPLES[0]) | _classic(SAMPLES[1]) | _chunked(SAMPLES[2]) | _classic(SAMPLES[3])
    for name, members in (("chunked", _all(_chunked)), ("mixed", mixed)):
        report = import_logs([_archive(tmp_path / f"{name}.eval", members)])
        assert (report.rows, report.description, report.summary_lines()) == (
            classic.rows,
            classic.description,
            classic.summary_lines(),
        ), name


def test_chunk_files_are_never_read(tmp_path: Path) -> None:
    members = _all(_chunked)
    for name in members:
        if not name.endswith(("/sample.json", "/metadata.json")):
            members[name] = b"\x00 not JSON, and not read"
    assert len(import_logs([_archive(tmp_path / "garbled.eval", members)]).rows) == 4


def test_sample_entries_classify_names() -> None:
    names = ["header.json", "samples/", "samples/a/b_epoch_1/sample.json", "samples/a/b_epoch_1/events/0.json", "samples/x_epoch_2.json"]
    entries = sample_entries(names + ["samples/x_epoch_2.json"], "log.eval")
    assert [(e.stem, e.shell, e.metadata, e.chunked) for e in entries] == [
        ("samples/a/b_epoch_1", "samples/a/b_epoch_1/sample.json", None, True),
        ("samples/x_epoch_2", "samples/x_epoch_2.json", None, False),
    ]


CASES = {
    "stray-chunk-under-samples": ({"samples/0.json": b"[]"}, "entry 'samples/0.json' is neither a sample file"),
    "chunk-named-as-a-sample": ({"samples/z_epoch_1.json": b"[]"}, "entry 'samples/z_epoch_1.json' holds a JSON list, not a sample"),
    "chunks-without-their-shell": ({"samples/z_epoch_1/events/0.json": b"[]"}, "with no samples/z_epoch_1/sample.json (a partial"),
    "undefined-entry-in-a-sample-folder": ({"samples/m000_epoch_1/notes.txt": b"hi"}, "is not part of the chunked sample layout"),
    "both-layouts-for-one-sample": (_classic(SAMPLES[0]), "sample 'samples/m000_epoch_1' is in both layouts"),
    "metadata-twice": (
        {"samples/m000_epoch_1/sample.json": json.dumps({**SAMPLES[0], "metadata": {"lang": "ko"}}).encode()},
        "has metadata both in",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_unknown_or_partial_layout_is_refused(tmp_path: Path, name: str) -> None:
    extra, phrase = CASES[name]
    path = _archive(tmp_path / "log.eval", _all(_chunked) | extra)
    with pytest.raises(ParseError) as caught:
        import_logs([path])
    assert caught.value.reason == "eval-layout" and phrase in caught.value.message, caught.value.message
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["import", "inspect-ai", str(path), "--out", str(out), "--describe-out", str(tmp_path / "run.yaml")])
    assert result.exit_code == 1 and phrase in result.output and "Traceback" not in result.output and not out.exists(), result.output
