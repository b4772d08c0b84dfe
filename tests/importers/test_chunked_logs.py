"""`sealboard import inspect-ai` on inspect_ai's chunked sample layout (issue 42, item 4).

The log is written by the real inspect_ai (mockllm) and converted to the chunked layout by
inspect's own converter (``inspect log convert-chunked``): each sample becomes a folder
``samples/<id>_epoch_<n>/`` holding ``sample.json``, ``metadata.json``, sidecars and
transcript chunk files, which a ``samples/*.json`` glob would have read as samples. The
variants below are that real archive with entries removed, added or replaced.
"""

from __future__ import annotations

import re
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import ParseError
from builder.importers.inspect_log import _member, import_logs
from tests.importers.harness_logs import convert_chunked, require, run_inspect

pytestmark = pytest.mark.slow  # runs the real inspect_ai and its converter

# Ids as a lab writes them; "set/b-2" holds a '/', so its sample folder nests one level deeper.
SAMPLES = [
    {"id": "a-1", "input": "1+1", "target": "2", "reply": "ANSWER: 2", "metadata": {"lang": "en", "difficulty": "easy"}},
    {"id": "set/b-2", "input": "2+2", "target": "4", "reply": "ANSWER: 5", "metadata": {"lang": "en", "difficulty": "hard"}},
    {"id": "c-3", "input": "3+3", "target": "6", "reply": "ANSWER: 6", "metadata": {"lang": "en"}},
]
CHUNKED_STEM = re.compile(r"samples/(.+_epoch_[0-9]+)/")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    require("inspect_ai")
    tmp = tmp_path_factory.mktemp("chunked")
    classic = run_inspect(tmp, SAMPLES, epochs=2, log_format="eval")
    return {"classic": classic, "chunked": convert_chunked(classic, tmp / "chunked")}


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: _member(archive, name, path) for name in archive.namelist()}


def _rewrite(src: Path, dst: Path, edit: Callable[[dict[str, bytes]], Any]) -> Path:
    members = _members(src)
    edit(members)
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return dst


def _import(*args: str, tmp_path: Path, tag: str) -> tuple[Any, Path, Path]:
    out, describe = tmp_path / f"{tag}.jsonl", tmp_path / f"{tag}.yaml"
    result = CliRunner().invoke(main, ["import", "inspect-ai", *args, "--out", str(out), "--describe-out", str(describe)])
    assert "Traceback" not in result.output
    return result, out, describe


def _same_import(log: Path, logs: dict[str, Path], tmp_path: Path) -> None:
    """``log`` imports to byte-identical results and run.yaml as the classic log, with the
    same report of what was not imported."""
    outputs = {}
    for tag, path in (("classic", logs["classic"]), ("other", log)):
        result, out, describe = _import(str(path), tmp_path=tmp_path, tag=tag)
        assert result.exit_code == 0, result.output
        notes = [line.strip() for line in result.output.splitlines() if line.strip().startswith("not imported")]
        outputs[tag] = (out.read_bytes(), describe.read_bytes(), notes)
    assert outputs["other"] == outputs["classic"]
    rows, _, notes = outputs["classic"]
    assert len(rows.splitlines()) == 6 and notes == ["not imported — sample metadata fields: difficulty (4)"]


def test_the_converted_log_is_in_the_chunked_layout(logs: dict[str, Path]) -> None:
    """Guards the tests below against passing vacuously on a classic archive."""
    names = set(_members(logs["chunked"]))
    stems = {m.group(1) for name in names if (m := CHUNKED_STEM.match(name)) and name.endswith("/sample.json")}
    assert stems == {f"{s['id']}_epoch_{e}" for s in SAMPLES for e in (1, 2)}
    assert "samples/set/b-2_epoch_1/events/0.json" in names and "samples/a-1_epoch_2/messages/0.json" in names
    assert not any(n.endswith("_epoch_1.json") or n.endswith("_epoch_2.json") for n in names)


def test_chunked_log_imports_to_the_same_rows_as_the_classic_log(logs: dict[str, Path], tmp_path: Path) -> None:
    _same_import(logs["chunked"], logs, tmp_path)


def test_a_log_mixing_both_layouts_imports_to_the_same_rows(logs: dict[str, Path], tmp_path: Path) -> None:
    classic = _members(logs["classic"])

    def mix(members: dict[str, bytes]) -> None:  # epoch 2 back in the classic layout
        for name in [n for n in members if "_epoch_2/" in n]:
            del members[name]
        members.update({n: d for n, d in classic.items() if n.endswith("_epoch_2.json")})

    _same_import(_rewrite(logs["chunked"], tmp_path / "mixed.eval", mix), logs, tmp_path)


def test_chunk_files_are_never_read(logs: dict[str, Path], tmp_path: Path) -> None:
    def garble(members: dict[str, bytes]) -> None:  # every chunk and sidecar stops being JSON
        for name in members:
            if CHUNKED_STEM.match(name) and not name.endswith(("/sample.json", "/metadata.json")):
                members[name] = b"\x00 not JSON, and not read"

    _same_import(_rewrite(logs["chunked"], tmp_path / "garbled.eval", garble), logs, tmp_path)


def test_a_sample_relogged_under_its_name_is_one_sample(logs: dict[str, Path], tmp_path: Path) -> None:
    """inspect re-logs a requeued sample as a second entry of the same name; reading by name
    gives the last one (as inspect's reader does), and the sample is counted once."""
    members = _members(logs["classic"])
    path = tmp_path / "relogged.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of the duplicate name
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr("samples/a-1_epoch_1.json", members["samples/a-1_epoch_1.json"])
    assert len(zipfile.ZipFile(path).namelist()) == len(members) + 1
    _same_import(path, logs, tmp_path)


def _events_chunk(members: dict[str, bytes]) -> bytes:
    return members["samples/a-1_epoch_1/events/0.json"]


# name -> (edit of the chunked archive, phrase of the refusal)
LAYOUT_CASES: dict[str, tuple[Callable[[dict[str, bytes]], Any], str]] = {
    "stray-chunk-under-samples": (
        lambda m: m.update({"samples/0.json": _events_chunk(m)}),
        "entry 'samples/0.json' is neither a sample file nor part of a chunked sample",
    ),
    "chunk-named-as-a-classic-sample": (
        lambda m: m.update({"samples/z-9_epoch_1.json": _events_chunk(m)}),
        "entry 'samples/z-9_epoch_1.json' holds a JSON list, not a sample",
    ),
    "chunk-folder-without-its-shell": (
        lambda m: m.pop("samples/c-3_epoch_2/sample.json"),
        "is in a chunked sample folder with no samples/c-3_epoch_2/sample.json (a partial chunked layout)",
    ),
    "entry-the-layout-does-not-define": (
        lambda m: m.update({"samples/a-1_epoch_1/scores.json": b"{}"}),
        "entry 'samples/a-1_epoch_1/scores.json' is not part of the chunked sample layout",
    ),
    "chunk-with-a-range-name": (
        lambda m: m.update({"samples/a-1_epoch_1/events/0-50.json": _events_chunk(m)}),
        "entry 'samples/a-1_epoch_1/events/0-50.json' is not part of the chunked sample layout",
    ),
    "one-sample-in-both-layouts": (
        lambda m: m.update({"samples/a-1_epoch_1.json": m["samples/a-1_epoch_1/sample.json"]}),
        "sample 'samples/a-1_epoch_1' is in both layouts",
    ),
    "shell-of-another-sample": (
        lambda m: m.update({"samples/c-3_epoch_1/sample.json": m["samples/a-1_epoch_1/sample.json"]}),
        "entry 'samples/c-3_epoch_1/sample.json' holds sample 'a-1_epoch_1', not the one its name says",
    ),
}


@pytest.mark.parametrize("name", LAYOUT_CASES)
def test_unknown_or_partial_layout_is_refused_naming_it(logs: dict[str, Path], tmp_path: Path, name: str) -> None:
    edit, phrase = LAYOUT_CASES[name]
    path = _rewrite(logs["chunked"], tmp_path / f"{name}.eval", edit)
    with pytest.raises(ParseError) as caught:
        import_logs([path])
    assert caught.value.reason == "eval-layout" and phrase in caught.value.message, caught.value.message
    result, out, describe = _import(str(path), tmp_path=tmp_path, tag=name)
    assert result.exit_code == 1 and phrase in result.output and "chunked layout" in result.output, result.output
    assert not out.exists() and not describe.exists()
