"""Hostile harness logs (issue 22, "Hostile logs and answers"; issue 21: errored samples).

Each log is crafted as an attacker (or a broken harness) would: a zip member that lies
about its size, 200,000-deep JSON, ``epoch: 1e999``, a 200k-character ``--map`` cell, ids
that collide after ``--map`` or as ``1`` against ``"1"``, a terminal escape sequence in an
id, a sample that ended in an error. The library raises a ParseError with the exact
reason; the CLI prints one clear line (control characters escaped), no traceback, and
writes nothing. Controls: the honest version of each log imports.
"""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import ParseError
from builder.importers.common import IdMap
from builder.importers.inspect_log import import_logs
from builder.importers.lm_eval_samples import import_samples


def _log(samples: list[Any]) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "t",
            "model": "openai/gpt-x",
            "packages": {"inspect_ai": "0.3.0"},
            "model_generate_config": {},
            "config": {"epochs": 1},
        },
        "plan": {"config": {"temperature": 1.0}},
        "samples": samples,
    }


def _sample(sid: Any = "m000", epoch: Any = 1, **extra: Any) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": epoch,
        "output": {"choices": [{"stop_reason": "stop"}]},
        "scores": {"match": {"value": "C", "answer": "42"}},
        "metadata": {"lang": "en"},
        **extra,
    }


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _reason(func: Any) -> str:
    with pytest.raises(ParseError) as caught:
        func()
    assert "Traceback" not in str(caught.value)
    return caught.value.reason


def _cli(tmp_path: Path, *args: str) -> Any:
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["import", *args, "--out", str(out), "--describe-out", str(tmp_path / "run.yaml")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result, out


# --- a zip member that lies about its size -------------------------------------------------


def _lying_eval(path: Path, declared: int, inflated: int) -> None:
    """A .eval zip: an honest header.json, and a deflated sample whose entries declare
    ``declared`` bytes while its data inflates to ``inflated`` (zeros, then the JSON)."""
    header = json.dumps({k: v for k, v in _log([]).items() if k != "samples"}).encode()
    members = [("header.json", header, zlib.crc32(header), len(header))]
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk, body = bytes(1 << 20), []
    for _ in range(inflated >> 20):
        body.append(deflate.compress(chunk))
    body.append(deflate.flush())
    members.append(("samples/m000_epoch_1.json", b"".join(body), 0, declared))
    out, central = bytearray(), bytearray()
    for name, data, crc, size in members:
        method = 0 if name == "header.json" else 8
        offset = len(out)
        fields = struct.pack("<HHHHHIIIHH", 20, 0, method, 0, 0x21, crc, len(data), size, len(name), 0)
        out += b"PK\x03\x04" + fields + name.encode() + data
        central += b"PK\x01\x02" + struct.pack("<H", 20) + fields + struct.pack("<HHHII", 0, 0, 0, 0, offset) + name.encode()
    out += central + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(central), len(out), 0)
    path.write_bytes(bytes(out))


def test_zip_member_lying_about_its_size_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.eval"
    _lying_eval(path, declared=1024, inflated=256 << 20)
    assert path.stat().st_size < 1 << 20 and zipfile.is_zipfile(path)
    assert _reason(lambda: import_logs([path], lang="en")) == "zip-member-size"
    result, out = _cli(tmp_path, "inspect-ai", str(path), "--lang", "en")
    assert result.exit_code == 1 and "does not inflate to the 1024 bytes its entry declares" in result.output and not out.exists()


def test_control_an_honest_eval_archive_imports(tmp_path: Path) -> None:
    path = tmp_path / "ok.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({k: v for k, v in _log([]).items() if k != "samples"}))
        z.writestr("samples/m000_epoch_1.json", json.dumps(_sample()))
    assert [r["item"] for r in import_logs([path], lang="en").rows] == ["m000"]


# --- JSON shape, numbers, ids ----------------------------------------------------------------

DEEP = "[" * 200_000 + "]" * 200_000

CASES = {
    "json-200000-deep": ("inspect-ai", '{"eval": {}, "samples": ' + DEEP + "}", "too-deep"),
    "epoch-1e999": ("inspect-ai", json.dumps(_log([_sample()])).replace('"epoch": 1', '"epoch": 1e999'), "number-out-of-range"),
    "epoch-1e300": ("inspect-ai", json.dumps(_log([_sample(epoch=1e300)])), "number-out-of-range"),
    "epoch-fraction": ("inspect-ai", json.dumps(_log([_sample(epoch=1.5)])), "number-out-of-range"),
    "id-200k-characters": ("inspect-ai", json.dumps(_log([_sample("x" * 200_000)])), "id-too-long"),
    "ids-1-and-string-1": ("inspect-ai", json.dumps(_log([_sample(1), _sample("1")])), "colliding-ids"),
    "errored-sample": ("inspect-ai", json.dumps(_log([_sample(error={"message": "rate limited"})])), "errored-sample"),
    "lm-eval-200000-deep": ("lm-eval", '{"doc": ' + DEEP + ', "resps": []}\n', "too-deep"),
    "lm-eval-ids-1-and-string-1": ("lm-eval", "".join(
        json.dumps({"doc_id": i, "doc": {"id": sid}, "resps": [["4"]], "filtered_resps": ["4"], "filter": "none", "metrics": ["em"], "em": 1}) + "\n"
        for i, sid in enumerate([1, "1"])), "colliding-ids"),
}  # fmt: skip


@pytest.mark.parametrize("name", CASES)
def test_hostile_log_is_refused_with_its_reason(tmp_path: Path, name: str) -> None:
    command, content, reason = CASES[name]
    path = _write(tmp_path, "log.jsonl" if command == "lm-eval" else "log.json", content)
    importer = import_samples if command == "lm-eval" else import_logs
    assert _reason(lambda: importer([path], lang="en")) == reason
    result, out = _cli(tmp_path, command, str(path), "--lang", "en")
    assert result.exit_code == 1 and not out.exists(), result.output


def test_map_cell_of_200k_characters_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "map.csv", "source,item\nm000," + "y" * 200_000 + "\n")
    assert _reason(lambda: IdMap.load(path)) == "id-too-long"
    result, _ = _cli(tmp_path, "inspect-ai", str(_write(tmp_path, "log.json", json.dumps(_log([_sample()])))), "--map", str(path))
    assert result.exit_code == 1 and "longer than 256 characters" in result.output and "y" * 300 not in result.output


def test_ids_that_collide_after_the_map_are_refused(tmp_path: Path) -> None:
    mapping = _write(tmp_path, "map.csv", "source,item\nm000,soohak-0001\nm001,soohak-0001\n")
    log = _write(tmp_path, "log.json", json.dumps(_log([_sample("m000"), _sample("m001")])))
    assert _reason(lambda: import_logs([log], id_map=IdMap.load(mapping))) == "colliding-ids"


def test_terminal_escapes_in_ids_are_escaped_in_messages(tmp_path: Path) -> None:
    mapping = _write(tmp_path, "map.csv", "source,item\nm000,soohak-0001\n")
    evil = "\x1b[2J\x1b]0;pwned\x07m001"
    log = _write(tmp_path, "log.json", json.dumps(_log([_sample("m000"), _sample(evil)])))
    result, _ = _cli(tmp_path, "inspect-ai", str(log), "--map", str(mapping))
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b[2J\\x1b]0;pwned\\x07m001" in result.output


def test_errored_samples_counted_only_when_asked_and_reported(tmp_path: Path) -> None:
    log = _write(tmp_path, "log.json", json.dumps(_log([_sample("m000"), _sample("m001", error={"message": "timeout"}, scores={})])))
    result, out = _cli(tmp_path, "inspect-ai", str(log))
    assert result.exit_code == 1 and "ended in an error" in result.output and "--errored-as-incorrect" in result.output and not out.exists()
    result, out = _cli(tmp_path, "inspect-ai", str(log), "--errored-as-incorrect")
    assert result.exit_code == 0, result.output
    assert "1 sample(s) ended in an error and are counted as incorrect answers" in result.output
    rows = {r["item"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert (rows["m001"]["correct"], rows["m001"]["answer"]) == (False, None) and rows["m000"]["correct"] is True


def test_control_epochs_of_one_id_and_integer_ids_import(tmp_path: Path) -> None:
    log = _write(tmp_path, "log.json", json.dumps(_log([_sample(7, 1), _sample(7, 2), _sample(8, 1)])))
    report = import_logs([log])
    assert sorted((r["item"], r["sample"]) for r in report.rows) == [("7", 0), ("7", 1), ("8", 0)]
