"""The deploy attestation in the ecosystem's formats (issue 42, item 3): DSSE envelopes that an
independent library (securesystemslib, in-toto's own DSSE and Ed25519 code) verifies, an SLSA
provenance that validates against the SLSA v1 schema (builder/formats/slsa/) and parses with
the in-toto project's bindings of SLSA v1's protobuf definition, a predicate
type under the site's own URL, and `verify-site` refusing each kind of tampering with them.

The unit tests sign small statements with a fresh key; the deploy tests read the signed demo
deploy, the shared demo site (tests/conftest.py, ``demo_site``)."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from google.protobuf import json_format
from in_toto_attestation.predicates.provenance.v1 import provenance_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.resource_descriptor import ResourceDescriptor
from in_toto_attestation.v1.statement import Statement as InTotoStatement
from jsonschema import Draft202012Validator
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

import builder.formats.slsa as slsa_formats
from builder.attest.dsse import PAYLOAD_TYPE, pae, sign_envelope, verify_envelope
from builder.attest.provenance import SLSA_PROVENANCE_V1, build_type, builder_id, provenance
from builder.attest.statement import LEGACY_PREDICATE_TYPE, SITE_TYPE_URN, Subject, canonical, parse, predicate_type, sha256sums, statement
from builder.attest.verify import verify_site
from builder.cli import main
from builder.errors import BuilderError
from builder.pipeline.attestation import generator_packages
from builder.trust.sshkeys import PrivateKey, PublicKey, generate_ed25519, load_private_key
from tests.attest.test_verify_site import copy, refused

SCHEMA = Draft202012Validator(json.loads((Path(slsa_formats.__file__).parent / "provenance-v1.schema.json").read_text()))


def sslib_key(public: PublicKey) -> SSlibKey:
    """securesystemslib's own key object for the build key: its raw 32 bytes, our keyid."""
    raw = public.crypto.public_bytes_raw()
    return SSlibKey(keyid=public.fingerprint, keytype="ed25519", scheme="ed25519", keyval={"public": raw.hex()})


def in_toto_parse(prov: dict) -> provenance_pb2.Provenance:
    """The in-toto project's own bindings: the Statement validated, the predicate parsed into
    SLSA v1's protobuf message (an unknown field or a wrong type raises), every dependency
    a valid ResourceDescriptor."""
    InTotoStatement.copy_from_pb(json_format.ParseDict(prov, statement_pb2.Statement())).validate()
    message = json_format.ParseDict(prov["predicate"], provenance_pb2.Provenance())
    for dep in message.build_definition.resolved_dependencies:
        ResourceDescriptor.copy_from_pb(dep).validate()
    return message


def sslib_verify(envelope: bytes, public: PublicKey) -> bytes:
    env = Envelope.from_dict(json.loads(envelope))
    assert env.payload_type == PAYLOAD_TYPE == "application/vnd.in-toto+json"
    accepted = env.verify([sslib_key(public)], 1)
    assert list(accepted) == [public.fingerprint]
    return env.pae()


@pytest.fixture(scope="module")
def key() -> PrivateKey:
    return load_private_key(generate_ed25519("build")[0])


def small_predicate(**extra) -> dict:
    return {
        "site_url": "https://board.example.org/lb",
        "repository": "https://github.com/example/board",
        "commit": "a" * 40,
        "built": "2026-03-02T12:30:00Z",
        "time_source": "commit",
        "authorised": True,
        "rehearsal": None,
        "registry": {"version": 2, "path": "keys/registry/v0002.yaml", "sha256": "b" * 64, "build_key": "SHA256:x"},
        "benchmarks": [{"id": "soohak", "version": "1", "status": "embargoed"}],
        "bundles": [{"benchmark": "soohak", "submission": "acme/run-1", "path": "bundles/soohak/acme/run-1", "manifest_sha256": "c" * 64}],
        "releases": [{"benchmark": "soohak", "statement": "releases/soohak/v1.yaml", "sha256": "d" * 64}],
        "sealboard": {"version": "0.9.0"},
        "generator": {
            "name": "mkdocs",
            "version": "1.6.1",
            "packages": {"mkdocs": "1.6.1", "mkdocs-material": "9.8.2", "Markdown": "3.11.3"},
        },
        **extra,
    }


def small_statement(**extra) -> tuple[bytes, bytes]:
    subjects = (Subject("data/index.json", "e" * 64), Subject("index.html", "f" * 64))
    return canonical(statement(subjects, small_predicate(**extra))), sha256sums(subjects)


def test_pae_is_the_spec_encoding_and_securesystemslib_computes_the_same():
    # DSSE protocol.md's own example.
    assert pae("http://example.com/HelloWorld", b"hello world") == b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    env = Envelope(payload=b"\x00 caf\xc3\xa9", payload_type=PAYLOAD_TYPE, signatures={})
    assert env.pae() == pae(PAYLOAD_TYPE, b"\x00 caf\xc3\xa9")


def test_envelope_verifies_with_securesystemslib_and_a_changed_one_does_not(key):
    data, _ = small_statement()
    envelope = sign_envelope(data, key)
    assert envelope.endswith(b"\n") and envelope.count(b"\n") == 1  # one line: an in-toto bundle
    assert sslib_verify(envelope, key.public) == pae(PAYLOAD_TYPE, data)
    assert verify_envelope(envelope, key.public, "e").payload == data
    # Control: one changed payload byte fails securesystemslib's check and ours.
    obj = json.loads(envelope)
    obj["payload"] = base64.b64encode(data.replace(b"embargoed", b"released!")).decode()
    changed = json.dumps(obj).encode()
    with pytest.raises(VerificationError):
        Envelope.from_dict(obj).verify([sslib_key(key.public)], 1)
    with pytest.raises(BuilderError) as exc:
        verify_envelope(changed, key.public, "e")
    assert exc.value.reason == "attestation-bad-envelope"
    # Another key's signature is refused too (securesystemslib: no key with that keyid verifies).
    other = load_private_key(generate_ed25519("other")[0])
    with pytest.raises(VerificationError):
        Envelope.from_dict(json.loads(sign_envelope(data, other))).verify([sslib_key(key.public)], 1)


def test_envelopes_are_deterministic(key):
    data, sums = small_statement()
    assert sign_envelope(data, key) == sign_envelope(data, key)
    prov = canonical(provenance(parse(data, "s"), sums))
    assert sign_envelope(prov, key) == sign_envelope(canonical(provenance(parse(data, "s"), sums)), key)


def test_predicate_type_derives_from_the_sites_own_url():
    assert predicate_type("https://board.example.org/lb") == "https://board.example.org/lb/data/#site-attestation-v1"
    assert predicate_type("https://board.example.org/") == "https://board.example.org/data/#site-attestation-v1"
    assert predicate_type(None) == predicate_type("") == predicate_type("not a url") == SITE_TYPE_URN == "urn:sealboard:site-attestation:v1"
    data, _ = small_statement()
    assert orjson.loads(data)["predicateType"] == "https://board.example.org/lb/data/#site-attestation-v1" and b".invalid" not in data
    # A statement claiming another site's type than its own site_url gives is refused; its control parses.
    obj = orjson.loads(data)
    obj["predicateType"] = "https://other.example.org/data/#site-attestation-v1"
    with pytest.raises(BuilderError) as exc:
        parse(canonical(obj), "s")
    assert exc.value.reason == "attestation-bad-statement"
    assert parse(data, "s").predicate["site_url"] == "https://board.example.org/lb"
    # Statements recorded before issue 42 (no site_url, the old placeholder type) still parse,
    # so a repository's attestations/ history reads; a new one never carries that type.
    legacy = {**obj, "predicateType": LEGACY_PREDICATE_TYPE, "predicate": {k: v for k, v in obj["predicate"].items() if k != "site_url"}}
    assert parse(canonical(legacy), "s").predicate["commit"] == "a" * 40
    with pytest.raises(BuilderError):
        parse(canonical({**obj, "predicateType": LEGACY_PREDICATE_TYPE}), "s")


def test_provenance_validates_against_the_slsa_v1_schema_and_names_every_input():
    data, sums = small_statement()
    prov = provenance(parse(data, "s"), sums)
    SCHEMA.validate(prov)
    assert prov["predicateType"] == SLSA_PROVENANCE_V1 == "https://slsa.dev/provenance/v1"
    assert prov["subject"] == [
        {"name": "attestation/SHA256SUMS", "digest": {"sha256": hashlib.sha256(sums).hexdigest()}},
        {"name": "attestation/statement.json", "digest": {"sha256": hashlib.sha256(data).hexdigest()}},
    ]
    definition = prov["predicate"]["buildDefinition"]
    assert definition["buildType"] == "https://board.example.org/lb/data/#sealboard-build-v1"
    assert definition["externalParameters"] == {"repository": "https://github.com/example/board", "commit": "a" * 40}
    deps = {d["name"]: d for d in definition["resolvedDependencies"]}
    assert deps["source"] == {
        "name": "source",
        "uri": "git+https://github.com/example/board@" + "a" * 40,
        "digest": {"gitCommit": "a" * 40},
    }
    assert deps["keys/registry/v0002.yaml"]["digest"] == {"sha256": "b" * 64}
    assert deps["bundles/soohak/acme/run-1/manifest.json"]["digest"] == {"sha256": "c" * 64}
    assert deps["releases/soohak/v1.yaml"]["digest"] == {"sha256": "d" * 64}
    assert deps["mkdocs-material"]["uri"] == "pkg:pypi/mkdocs-material@9.8.2" and deps["Markdown"]["uri"] == "pkg:pypi/markdown@3.11.3"
    builder = prov["predicate"]["runDetails"]["builder"]
    assert builder == {"id": "https://github.com/example/board/blob/main/.github/workflows/build.yml", "version": {"sealboard": "0.9.0"}}
    message = in_toto_parse(prov)
    assert message.run_details.builder.id == builder["id"] and len(message.build_definition.resolved_dependencies) == len(deps)
    with pytest.raises(json_format.ParseError):  # control: a field SLSA does not define
        in_toto_parse({**prov, "predicate": {**prov["predicate"], "sealboard": {}}})
    # Control: the schema is not a rubber stamp.
    for broken in (
        {**prov, "predicateType": "https://slsa.dev/provenance/v0.2"},
        {**prov, "predicate": {"runDetails": prov["predicate"]["runDetails"]}},
        {**prov, "subject": [{"name": "x", "digest": {}}]},
    ):
        assert list(SCHEMA.iter_errors(broken)), broken


def test_without_site_or_repository_url_the_types_are_urns():
    data, sums = small_statement(site_url=None, repository=None)
    prov = provenance(parse(data, "s"), sums)
    SCHEMA.validate(prov)
    assert orjson.loads(data)["predicateType"] == SITE_TYPE_URN
    assert prov["predicate"]["buildDefinition"]["buildType"] == build_type(None) == "urn:sealboard:build:v1"
    assert prov["predicate"]["runDetails"]["builder"]["id"] == builder_id(None, None) == "urn:sealboard:authorised-build"
    assert builder_id(None, "https://b.example.org") == "https://b.example.org/data/#sealboard-builder"


def test_generator_packages_record_zensical_ui_when_it_is_installed(tmp_path, monkeypatch):
    """Real package metadata: a zensical-ui distribution put on the path is found and recorded."""
    assert {"mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions"} <= generator_packages("mkdocs").keys()
    before = generator_packages("zensical")
    assert "zensical-ui" not in before and "mkdocs" not in before
    info = tmp_path / "zensical_ui-0.0.74.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zensical-ui\nVersion: 0.0.74\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert generator_packages("zensical")["zensical-ui"] == "0.0.74"
    assert "zensical-ui" not in generator_packages("mkdocs")


# --- the signed demo deploy ------------------------------------------------------------------


def envelope_of(site: Path, name: str) -> bytes:
    return (site / "attestation" / name).read_bytes()


def build_public(demo_site) -> PublicKey:
    return load_private_key(demo_site.root / "keys/demo/build_key").public


def test_the_deploys_envelopes_verify_with_securesystemslib(demo_site):
    public = build_public(demo_site)
    statement_bytes = (demo_site.site / "attestation/statement.json").read_bytes()
    sums = (demo_site.site / "attestation/SHA256SUMS").read_bytes()
    for name in ("statement.intoto.jsonl", "provenance.intoto.jsonl"):
        sslib_verify(envelope_of(demo_site.site, name), public)
    payload = base64.b64decode(json.loads(envelope_of(demo_site.site, "statement.intoto.jsonl"))["payload"])
    assert payload == statement_bytes
    prov = json.loads(base64.b64decode(json.loads(envelope_of(demo_site.site, "provenance.intoto.jsonl"))["payload"]))
    SCHEMA.validate(prov)
    in_toto_parse(prov)
    assert {s["name"]: s["digest"]["sha256"] for s in prov["subject"]} == {
        "attestation/SHA256SUMS": hashlib.sha256(sums).hexdigest(),
        "attestation/statement.json": hashlib.sha256(statement_bytes).hexdigest(),
    }
    # Every admitted bundle's signed manifest and the registry version, with the digests of the files in the repository.
    deps = {d["name"]: d for d in prov["predicate"]["buildDefinition"]["resolvedDependencies"]}
    pred = orjson.loads(statement_bytes)["predicate"]
    manifests = [name for name in deps if name.endswith("/manifest.json")]
    assert len(manifests) == len(pred["bundles"]) == sum(len(s.bundles) for s in demo_site.report.benchmarks) > 0
    for name in manifests:
        assert deps[name]["digest"]["sha256"] == hashlib.sha256((demo_site.root / name).read_bytes()).hexdigest(), name
    assert (
        deps["keys/registry/v0002.yaml"]["digest"]["sha256"]
        == hashlib.sha256((demo_site.root / "keys/registry/v0002.yaml").read_bytes()).hexdigest()
    )
    assert deps["source"]["digest"]["gitCommit"] == pred["commit"]
    # The packages that shaped the pages (mkdocs ran), each with its installed version.
    assert {"mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions"} <= set(pred["generator"]["packages"])
    assert all(deps[name]["uri"] == f"pkg:pypi/{name.lower()}@{v}" for name, v in pred["generator"]["packages"].items())


def resign_envelope(site: Path, name: str, key: PrivateKey, payload: bytes) -> None:
    (site / "attestation" / name).write_bytes(sign_envelope(payload, key))


def test_a_changed_envelope_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    path = site / "attestation/provenance.intoto.jsonl"
    obj = json.loads(path.read_bytes())
    prov = json.loads(base64.b64decode(obj["payload"]))
    prov["predicate"]["buildDefinition"]["resolvedDependencies"].pop()
    obj["payload"] = base64.b64encode(canonical(prov)).decode()
    path.write_bytes(orjson.dumps(obj) + b"\n")
    assert refused(site, demo_site.root) == "attestation-bad-envelope"


def test_a_missing_envelope_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    (site / "attestation/statement.intoto.jsonl").unlink()
    assert refused(site, demo_site.root) == "attestation-bad-envelope"


def test_an_envelope_signed_by_another_key_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    other = load_private_key(generate_ed25519("forger")[0])
    resign_envelope(site, "statement.intoto.jsonl", other, (site / "attestation/statement.json").read_bytes())
    assert refused(site, demo_site.root) == "attestation-bad-envelope"


def test_a_provenance_that_is_not_the_statements_is_refused_even_signed_by_the_build_key(demo_site, tmp_path):
    """The build key's signature alone is not enough: the provenance must be exactly what the
    statement and SHA256SUMS give (a dependency dropped), and the statement's envelope must
    carry the statement (here, the provenance instead)."""
    site = copy(demo_site.site, tmp_path)
    key = load_private_key(demo_site.root / "keys/demo/build_key")
    prov = json.loads(base64.b64decode(json.loads(envelope_of(site, "provenance.intoto.jsonl"))["payload"]))
    prov["predicate"]["buildDefinition"]["resolvedDependencies"].pop()
    resign_envelope(site, "provenance.intoto.jsonl", key, canonical(prov))
    assert refused(site, demo_site.root) == "attestation-provenance-mismatch"
    site2 = copy(demo_site.site, tmp_path / "2")
    shutil.copyfile(site2 / "attestation/provenance.intoto.jsonl", site2 / "attestation/statement.intoto.jsonl")
    assert refused(site2, demo_site.root) == "attestation-provenance-mismatch"
    assert verify_site(demo_site.site, demo_site.root).files > 400  # control: the deploy as built


def test_the_data_pages_dsse_check_runs_as_written(demo_site, tmp_path):
    """The Data page's securesystemslib script, taken from the page as published and run in
    the deploy's folder, verifies both envelopes; on a copy whose provenance another key
    signed it fails (a check that cannot fail would be no check)."""
    import re
    import subprocess

    page = (demo_site.root / ".sealboard/staged/pages/data.md").read_text(encoding="utf-8")
    script = re.search(r"<!-- sealboard:dsse-check -->\n```python\n(.*?)```", page, re.S).group(1)
    # The reader's step 1: the build key from the board's repository, never the site's copy.
    site = copy(demo_site.site, tmp_path / "good")
    wrote = CliRunner().invoke(
        main,
        ["keys", "allowed-signers", "--root", str(demo_site.root), "--namespace", "sealboard-site", "--out", str(site / "build_signers")],
    )
    assert wrote.exit_code == 0, wrote.output
    done = subprocess.run([sys.executable, "-c", script], cwd=site, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "both envelopes verify" in done.stdout, done.stderr
    assert "gh attestation verify attestation/SHA256SUMS" in page and "sealboard verify-site" in page and "ssh-keygen -Y verify" in page
    forged = copy(site, tmp_path / "forged")
    other = load_private_key(generate_ed25519("forger")[0])
    resign_envelope(
        forged, "provenance.intoto.jsonl", other, base64.b64decode(json.loads(envelope_of(forged, "provenance.intoto.jsonl"))["payload"])
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=forged, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "VerificationError" in done.stderr
