"""`sealboard status`: a lab learns what happened to each of its bundles (issue 21)."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for

pytestmark = pytest.mark.slow  # builds sites


def status(root, *args):  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(main, ["status", "--root", str(root), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_published_rejected_pending_and_other_labs(tmp_path):
    inst = make_instance(tmp_path / "inst")
    inst.add_submission("acme", "run-1", results_for(inst.items))
    inst.add_submission("beta", "run-1", results_for(inst.items))
    # A bundle whose results the lab altered after signing: a no-secret check refuses it.
    tampered = inst.add_submission("acme", "run-2", results_for(inst.items))
    sealed = tampered / "results.jsonl.age"
    sealed.write_bytes(sealed.read_bytes()[:-1] + bytes([sealed.read_bytes()[-1] ^ 1]))
    build(inst.root, inst.root / "site", identities=[inst.identity], now=NOW)  # the last authorised build
    inst.add_submission("acme", "run-3", results_for(inst.items))  # merged since

    data = orjson.loads(status(inst.root, "--lab", "acme", "--json"))
    assert data["lab"] == "acme" and data["site"] == str(inst.root / "site")
    got = {b["submission"]: b for b in data["bundles"]}
    assert set(got) == {"run-1", "run-2", "run-3"}  # not beta's
    assert (got["run-1"]["status"], got["run-1"]["decided_by"]) == ("published", "last authorised build")
    assert got["run-2"]["status"] == "rejected" and got["run-2"]["decided_by"] == "no-secret checks"
    assert got["run-2"]["reason"] == "digest-mismatch" and "results.jsonl.age" in got["run-2"]["message"]
    assert got["run-3"]["status"] == "pending"

    text = status(inst.root, "--lab", "acme")
    assert "bundles/soohak/acme/run-2: rejected (digest-mismatch, by the no-secret checks)" in text
    assert "bundles/soohak/acme/run-1: published" in text and "bundles/soohak/acme/run-3: pending" in text


def test_rejected_by_the_last_authorised_build(tmp_path):
    # Only the identity shows that acme/run-1's results do not cover every item: the last
    # authorised build rejected it, and status reports that build's reason and hint.
    inst = make_instance(tmp_path / "inst")
    inst.add_submission("acme", "run-1", results_for(inst.items))
    build(inst.root, inst.root / "site", identities=[inst.identity], now=NOW)
    rejected = inst.root / "site" / "data" / "rejected.json"
    rejected.write_bytes(
        orjson.dumps(
            {
                "rejected": [
                    {
                        "where": "bundles/soohak/acme/run-1/results.jsonl.age",
                        "benchmark": "soohak",
                        "lab": "acme",
                        "reason": "coverage",
                        "message": "item m001 has 2 samples, not 3",
                        "hint": "rerun item m001",
                    }
                ]
            }
        )
    )
    for sub in (inst.root / "site" / "data").glob("*/submissions.json"):
        sub.write_bytes(orjson.dumps(dict(orjson.loads(sub.read_bytes()), rows=[])))
    got = orjson.loads(status(inst.root, "--json"))["bundles"]
    assert [(b["where"], b["status"], b["reason"], b["hint"], b["decided_by"]) for b in got] == [
        ("bundles/soohak/acme/run-1", "rejected", "coverage", "rerun item m001", "last authorised build")
    ]
