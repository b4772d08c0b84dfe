"""Strict parsing of untrusted manifests and YAML (security invariant 3).

Every manifest here is *validly signed* by the bundle's own lab key, so the strict parser
is the only thing standing between the bytes and the build: each case must be refused for
its exact reason, naming manifest.json (and the line where the parser knows it), while
the other bundle still publishes. YAML cases poison a leaderboard config or the registry,
which are instance-wide: the build stops with the exact reason and file.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from builder.bundles.manifest import MANIFEST, dump_manifest, parse_manifest
from builder.errors import BuilderError, ParseError
from builder.trust.registry import load_registry
from hostile.support import ACME, BETA, NOW, Instance, assert_rejected, manifest_obj, run, where_of, write_manifest

MANIFEST_WHERE = where_of(ACME, MANIFEST)


@dataclass(frozen=True)
class Text:
    """A hostile manifest made by editing the signed manifest's text."""

    id: str
    edit: Callable[[bytes], bytes]
    reason: str
    line: int | None = None  # the line the error must name, when the parser knows it


def sub(old: bytes, new: bytes) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        assert old in data, old
        return data.replace(old, new, 1)

    return edit


def obj_edit(change: Callable[[dict], None]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        obj = orjson.loads(data)
        change(obj)
        return json.dumps(obj, indent=2, ensure_ascii=False).encode() + b"\n"

    return edit


def _name(value: str) -> Callable[[bytes], bytes]:
    return obj_edit(lambda o: o["model"].__setitem__("name", value))


# The dumped manifest puts "format" on line 2, "model" on 8, "name" on 10, config on 18…
CASES = [
    Text("json/duplicate-key-top", sub(b'  "lab": "acme",\n', b'  "lab": "acme",\n  "lab": "acme",\n'), "duplicate-key", 6),
    Text(
        "json/duplicate-key-nested",
        sub(b'    "name": "Model One",\n', b'    "name": "Model One",\n    "name": "Model Two",\n'),
        "duplicate-key",
        11,
    ),
    Text("json/nan", sub(b'"temperature": 1.0', b'"temperature": NaN'), "non-finite", 21),
    Text("json/infinity", sub(b'"temperature": 1.0', b'"temperature": Infinity'), "non-finite", 21),
    Text("json/negative-infinity", sub(b'"temperature": 1.0', b'"temperature": -Infinity'), "non-finite", 21),
    Text("json/float-overflow-1e999", sub(b'"temperature": 1.0', b'"temperature": 1e999'), "non-finite", 21),
    Text("json/big-int-2^64", sub(b'"max_output_tokens": 32768', b'"max_output_tokens": 18446744073709551616'), "big-int", 22),
    Text("json/big-int-2^53+1", sub(b'"max_output_tokens": 32768', b'"max_output_tokens": 9007199254740993'), "big-int", 22),
    Text("json/big-negative-int", sub(b'"params_b": null', b'"params_b": -18446744073709551616'), "big-int", 13),
    Text("json/invalid-utf8", sub(b'"Model One"', b'"Model \xff\xfe One"'), "invalid-utf8", 10),
    Text("json/overlong-utf8-slash", sub(b'"Model One"', b'"Model \xc0\xaf One"'), "invalid-utf8", 10),
    Text("json/utf8-bom", lambda d: b"\xef\xbb\xbf" + d, "bom"),
    Text("json/trailing-garbage", lambda d: d + b"{}", "invalid-json"),
    Text("json/two-documents", lambda d: d + d, "invalid-json"),
    Text("json/deep-nesting", sub(b'"notes": ""', b'"notes": ' + b"[" * 100_000 + b"]" * 100_000), "too-deep"),
    Text("name/zero-width-space", _name("Model\u200bOne"), "bad-display-name"),
    Text("name/zero-width-joiner", _name("Model\u200dOne"), "bad-display-name"),
    Text("name/bidi-override", _name("Model \u202eenO"), "bad-display-name"),
    Text("name/full-width-confusable", _name("\uff2d\uff4f\uff44\uff45\uff4c One"), "bad-display-name"),
    Text("name/nfkc-ligature", _name("Model \ufb01ne"), "bad-display-name"),
    Text("name/combining-decomposed", _name("Mode\u0301l One"), "bad-display-name"),
    Text("name/control-character", _name("Model\u0007One"), "bad-display-name"),
    Text("name/lone-surrogate", sub(b'"Model One"', b'"Model \\ud800 One"'), "invalid-utf8"),
    Text("name/repeated-spaces", _name("Model  One"), "bad-display-name"),
    Text("name/family-zero-width", obj_edit(lambda o: o["model"].__setitem__("family", "\u2060One")), "bad-display-name"),
    Text("field/unknown-top-level", obj_edit(lambda o: o.__setitem__("extra", 1)), "unknown-field"),
    Text("field/unknown-model-field", obj_edit(lambda o: o["model"].__setitem__("weights_url", "x")), "unknown-field"),
    Text("field/missing-top-level", obj_edit(lambda o: o.pop("judge")), "missing-field"),
    Text("field/not-an-object", lambda d: b"[]\n", "wrong-type"),
    Text("field/bad-format", obj_edit(lambda o: o.__setitem__("format", "sealboard-bundle/2")), "bad-format"),
    Text("field/bool-as-number", obj_edit(lambda o: o["model"].__setitem__("params_b", True)), "wrong-type"),
    Text("field/string-as-bool", obj_edit(lambda o: o["model"].__setitem__("open_weights", "false")), "wrong-type"),
    Text("field/negative-size", obj_edit(lambda o: o["files"][0].__setitem__("bytes", -1)), "out-of-range"),
    Text("field/uppercase-digest", obj_edit(lambda o: o["files"][0].__setitem__("sha256", o["files"][0]["sha256"].upper())), "bad-digest"),
    Text("field/non-utc-timestamp", obj_edit(lambda o: o.__setitem__("created", "2026-11-29T12:00:00+09:00")), "bad-timestamp"),
    Text("field/impossible-date", obj_edit(lambda o: o["model"].__setitem__("release_date", "2025-02-30")), "bad-date"),
    Text("field/model-id-with-space", obj_edit(lambda o: o["model"].__setitem__("id", "m 1")), "bad-identifier"),
    Text("field/lab-id-unicode", obj_edit(lambda o: o.__setitem__("lab", "acmе")), "bad-identifier"),  # Cyrillic е
    Text("field/submission-path", obj_edit(lambda o: o.__setitem__("submission", "../run-1")), "bad-identifier"),
    Text(
        "files/dotdot-path", obj_edit(lambda o: o["files"][0].__setitem__("path", "../../beta/run-2/results.jsonl.age")), "unexpected-file"
    ),
    Text("files/absolute-path", obj_edit(lambda o: o["files"][0].__setitem__("path", "/etc/passwd")), "unexpected-file"),
    Text("files/nested-path", obj_edit(lambda o: o["files"][0].__setitem__("path", "sub/results.jsonl.age")), "unexpected-file"),
    Text("files/dot-slash-path", obj_edit(lambda o: o["files"][0].__setitem__("path", "./results.jsonl.age")), "unexpected-file"),
    Text("files/unsealed", obj_edit(lambda o: o["files"][0].__setitem__("sealed", False)), "unsealed-file"),
    Text("files/listed-twice", obj_edit(lambda o: o["files"].append(dict(o["files"][0]))), "duplicate-file"),
    Text("files/results-not-listed", obj_edit(lambda o: o.__setitem__("files", [])), "missing-file"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_signed_hostile_manifest(case: Text, inst: Instance) -> None:
    bundle = inst.bundles[ACME]
    data = case.edit((bundle / MANIFEST).read_bytes())
    write_manifest(bundle, data, inst.lab_keys["acme"])  # a valid signature over the hostile bytes
    report = run(inst)
    assert_rejected(report, (MANIFEST_WHERE, case.reason), publishes=(BETA,))
    if case.line is not None:
        [rejection] = report.rejections
        assert rejection.message.startswith(f"{MANIFEST_WHERE}:{case.line}: "), rejection.message


# --- hostile values that crash the parser instead of being refused -------------------------


@pytest.mark.parametrize("value", [[], {}], ids=["list", "object"])
def test_files_path_of_wrong_type(value: object) -> None:
    obj = manifest_obj_template()
    obj["files"][0]["path"] = value
    with pytest.raises(BuilderError):
        parse_manifest(json.dumps(obj).encode(), "manifest.json")


def test_unsigned_crashing_manifest_is_one_rejection(inst: Instance) -> None:
    bundle = inst.bundles[ACME]
    obj = manifest_obj(bundle)
    obj["files"][0]["path"] = []
    write_manifest(bundle, dump_manifest(obj), None)  # anyone can commit this: no key needed
    report = run(inst)
    reason = next((r.reason for r in report.rejections if r.where == MANIFEST_WHERE), None)
    assert reason in {"wrong-type", "unexpected-file"}, report.rejections
    assert_rejected(report, (MANIFEST_WHERE, reason), publishes=(BETA,))


@pytest.mark.parametrize("value", [[], {}], ids=["list", "object"])
def test_unsigned_dataset_manifest_with_unhashable_split(value: object, inst: Instance) -> None:
    from hostile.support import DATASET

    path = inst.root / DATASET / MANIFEST
    obj = orjson.loads(path.read_bytes())
    obj["items"][0]["split"] = value
    path.write_bytes(orjson.dumps(obj))
    report = run(inst)
    reason = next((r.reason for r in report.rejections if r.where == f"{DATASET}/manifest.json"), None)
    assert reason in {"bad-split", "wrong-type"}, report.rejections
    assert_rejected(report, (f"{DATASET}/manifest.json", reason), (DATASET, "missing-dataset"), publishes=())


@pytest.mark.parametrize("field", ["harness.name", "config.notes", "judge"])
def test_lone_surrogate_escape_is_refused(field: str) -> None:
    obj = manifest_obj_template()
    section, _, key = field.rpartition(".")
    (obj[section] if section else obj)[key] = "\ud800"
    data = json.dumps(obj).encode()  # ensure_ascii writes the escape "\ud800"
    assert b"\\ud800" in data
    with pytest.raises(ParseError):
        parse_manifest(data, "manifest.json")


def test_lone_surrogate_in_signed_manifest_does_not_crash_the_site(inst: Instance, tmp_path: Path) -> None:
    from builder.pipeline.build import build

    bundle = inst.bundles[ACME]
    obj = manifest_obj(bundle)
    obj["harness"]["name"], obj["judge"] = "h\ud800", "j\udfff"
    write_manifest(bundle, json.dumps(obj, indent=2).encode() + b"\n", inst.lab_keys["acme"])
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert [r.where for r in report.rejections] == [MANIFEST_WHERE]


def manifest_obj_template() -> dict:
    from tests.factory import MODEL, RUN

    return {
        "format": "sealboard-bundle/1",
        "benchmark": "soohak",
        "benchmark_version": "test-1",
        "lab": "acme",
        "submission": "run-1",
        "created": "2026-11-29T12:00:00Z",
        "model": dict(MODEL),
        "config": dict(RUN),
        "harness": {"name": "h", "version": "1"},
        "judge": None,
        "files": [{"path": "results.jsonl.age", "sha256": "0" * 64, "bytes": 1, "sealed": True}],
        "publish_on_release": {"results": True, "transcripts": False},
    }


# --- YAML: leaderboard configs and the registry ------------------------------------------------

ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
)


def _config(inst: Instance) -> Path:
    return inst.root / "leaderboards" / "soohak.yaml"


def _registry(inst: Instance) -> Path:
    return inst.root / "keys" / "registry" / "v0002.yaml"


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text())


@dataclass(frozen=True)
class Yaml:
    id: str
    target: Callable[[Instance], Path]
    where: str
    text: Callable[[str], str]
    reason: str
    line: int


YAML_CASES = [
    Yaml("config/alias-bomb", _config, "leaderboards/soohak.yaml", lambda marker: ALIAS_BOMB, "yaml-alias", 1),
    Yaml("config/anchor-only", _config, "leaderboards/soohak.yaml", lambda marker: "x: &anchor 1\n", "yaml-alias", 1),
    Yaml("config/merge-key", _config, "leaderboards/soohak.yaml", lambda marker: "x: {<<: {a: 1}}\n", "yaml-alias", 1),
    Yaml(
        "config/python-object-tag",
        _config,
        "leaderboards/soohak.yaml",
        lambda marker: f'x: !!python/object/apply:os.system ["touch {marker}"]\n',
        "yaml-tag",
        1,
    ),
    Yaml("config/local-tag", _config, "leaderboards/soohak.yaml", lambda marker: "x: !custom 1\n", "yaml-tag", 1),
    Yaml("config/duplicate-key", _config, "leaderboards/soohak.yaml", lambda marker: "benchmark: soohak\n", "duplicate-key", 3),
    Yaml("registry/alias-bomb", _registry, "keys/registry/v0002.yaml", lambda marker: ALIAS_BOMB, "yaml-alias", 1),
    Yaml(
        "registry/python-object-tag",
        _registry,
        "keys/registry/v0002.yaml",
        lambda marker: f'x: !!python/object/apply:os.system ["touch {marker}"]\n',
        "yaml-tag",
        1,
    ),
    Yaml(
        "registry/python-name-tag", _registry, "keys/registry/v0002.yaml", lambda marker: "x: !!python/name:os.system ''\n", "yaml-tag", 1
    ),
    Yaml("registry/duplicate-key", _registry, "keys/registry/v0002.yaml", lambda marker: "threshold: 1\n", "duplicate-key", 5),
]


@pytest.mark.parametrize("case", YAML_CASES, ids=[c.id for c in YAML_CASES])
def test_hostile_yaml(case: Yaml, inst: Instance, tmp_path: Path) -> None:
    marker = tmp_path / f"pwned-{uuid.uuid4().hex}"
    target = case.target(inst)
    _prepend(target, case.text(str(marker)))
    with pytest.raises(BuilderError) as info:
        run(inst)
    err = info.value
    assert (err.reason, err.where) == (case.reason, case.where), str(err)
    assert err.line == case.line, str(err)
    assert not marker.exists(), "a YAML tag ran code"


def test_registry_yaml_is_refused_before_any_signature_is_trusted(inst: Instance) -> None:
    """A validly *re-signed* registry version with an alias is still refused as YAML."""
    from builder.trust.sshsig import NS_REGISTRY, sign

    path = _registry(inst)
    path.write_text("x: &a 1\n" + path.read_text())
    data = path.read_bytes()
    sig = "".join(sign(inst.maintainer_keys[m], data, NS_REGISTRY) for m in ("m1", "m2"))
    path.with_name("v0002.yaml.sig").write_text(sig)
    with pytest.raises(BuilderError) as info:
        load_registry(inst.root, NOW)
    assert (info.value.reason, info.value.where) == ("yaml-alias", "keys/registry/v0002.yaml")
