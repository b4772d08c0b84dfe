"""The site page "Adding a benchmark", done literally: its YAML and its items.jsonl (read
from the page itself), the real age-keygen, the maintainers' threshold, a lab receiving the
items with `age -d -i` and its SSH key, submitting, and the authorised build scoring the
fourth benchmark. Scores are checked against a hand computation."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from tests.factory import make_instance

PAGE = Path(__file__).resolve().parents[2] / "builder/render/site_template/docs/adding-a-benchmark.md"

# acme's verdicts per item (two samples each). Hand computation:
#   avg@2  = mean over items of (correct samples / 2) = 7 / 20 = 0.35
#   pass@2 = items with at least one correct sample     = 7 / 10 = 0.7
# Embargoed, the page's grid is 0.25 (rates over >= 2/0.25 + 1 = 9 items are shown):
#   avg@2 -> round(0.35 / 0.25) * 0.25 = 0.25, pass@2 -> round(0.7 / 0.25) * 0.25 = 0.75;
#   the five-item sessions (a: 4/10, b: 3/10) are withheld.
VERDICTS = {
    "a1": (1, 0),
    "a2": (1, 0),
    "a3": (0, 1),
    "a4": (1, 0),
    "a5": (0, 0),
    "b1": (1, 0),
    "b2": (0, 1),
    "b3": (0, 0),
    "b4": (1, 0),
    "b5": (0, 0),
}


def page_files() -> dict[str, str]:
    """The code block after each `<!-- file: NAME -->` marker on the page."""
    text = PAGE.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, re.S)}


def run(*args: object):  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.skipif(not (shutil.which("age") and shutil.which("age-keygen")), reason="the age CLI is the peer here")
def test_a_fourth_benchmark_from_yaml_and_a_dataset_alone(tmp_path: Path) -> None:
    inst = make_instance(tmp_path / "inst")
    root, keys = inst.root, tmp_path / "inst-keys"
    files = page_files()
    assert set(files) == {"leaderboards/putnam-lite.yaml", "items.jsonl"}

    # 1. An embargo key for it (the real age-keygen).
    secure = tmp_path / "secure"
    secure.mkdir()
    made = subprocess.run(["age-keygen", "-o", str(secure / "putnam-lite-identity.txt")], capture_output=True, text=True, check=True)
    recipient = re.search(r"age1[0-9a-z]+", made.stderr + made.stdout).group(0)
    made = subprocess.run(["age-keygen", "-o", str(secure / "putnam-lite-private.txt")], capture_output=True, text=True, check=True)
    private_recipient = re.search(r"age1[0-9a-z]+", made.stderr + made.stdout).group(0)

    # 2. The config, from the page.
    config = files["leaderboards/putnam-lite.yaml"].replace("PRIVATE_RECIPIENT", private_recipient).replace("AGE_RECIPIENT", recipient)
    (root / "leaderboards" / "putnam-lite.yaml").write_text(config)

    # 3. The dataset, from the page, signed by the threshold (2 of 3). The page's questions
    #    are public (the site prints them), and the leak scan rightly refuses a site showing
    #    an embargoed question: so, as the page says, the real questions differ from them.
    page_items = [orjson.loads(line) for line in files["items.jsonl"].splitlines()]
    private = [
        dict(it, question={"en": f"Private problem {it['id']} whose wording only the sealed dataset holds (zq{it['id']}x)."})
        for it in page_items
    ]
    (tmp_path / "items.jsonl").write_bytes(b"".join(orjson.dumps(it) + b"\n" for it in private))
    assert "1 of 2" in run("dataset", "create", "putnam-lite", "--root", root, "--items", tmp_path / "items.jsonl", "--key", keys / "m1")
    assert "2 maintainer signature(s), threshold 2" in run("dataset", "sign", "putnam-lite", "--root", root, "--key", keys / "m2")

    # 4. acme is granted the items and opens its copy with age and its SSH key.
    run("keys", "grant-items", "acme", "putnam-lite", "--root", root)
    for m in ("m1", "m3"):
        run("keys", "sign", "--root", root, "--key", keys / m)
    run("dataset", "share", "putnam-lite", "--root", root, "--lab", "acme", "--identity", secure / "putnam-lite-identity.txt")
    copy = root / "keys/access/putnam-lite/2026-12/acme.jsonl.age"
    opened = subprocess.run(["age", "-d", "-i", str(inst.lab_key_paths["acme"]), str(copy)], capture_output=True, check=True).stdout
    items = [orjson.loads(line) for line in opened.splitlines()]
    assert [it["id"] for it in items] == list(VERDICTS)
    assert all("answer" not in it for it in items)  # questions only: the grant did not include answers

    # The lab runs its model and submits as for any benchmark (the test plays the model: it
    # answers from the maintainers' dataset, which the lab's copy does not hold).
    gold_of = {it["id"]: it["answer"]["en"] for it in private}
    rows = []
    for it in items:
        gold = gold_of[it["id"]]
        for sample, ok in enumerate(VERDICTS[it["id"]]):
            rows.append(
                {
                    "item": it["id"],
                    "lang": "en",
                    "sample": sample,
                    "answer": gold if ok else str(int(gold) + 1),
                    "correct": bool(ok),
                    "refused": False,
                }
            )
    (tmp_path / "results.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    (tmp_path / "run.yaml").write_text(
        "model: {id: m-1, name: Model One, family: One, open_weights: false, params_b: null, active_params_b: null,\n"
        "        training_cutoff: '2025-01-01', release_date: '2025-06-01'}\n"
        "config: {reasoning_effort: high, thinking: true, temperature: 1.0, max_output_tokens: 32768, tts: false, notes: ''}\n"
        "harness: {name: test-harness, version: '1.0'}\njudge: none\npublish_on_release: {results: true, transcripts: false}\n"
    )
    run(
        "bundle",
        "create",
        "--root",
        root,
        "--benchmark",
        "putnam-lite",
        "--lab",
        "acme",
        "--submission",
        "run-1",
        "--results",
        tmp_path / "results.jsonl",
        "--describe",
        tmp_path / "run.yaml",
    )
    manifest = root / "bundles/putnam-lite/acme/run-1/manifest.json"
    subprocess.run(
        ["ssh-keygen", "-q", "-Y", "sign", "-n", "sealboard-bundle", "-f", str(inst.lab_key_paths["acme"]), str(manifest)], check=True
    )

    # 5. Build with both benchmarks' identities in one identity file.
    both = secure / "identity.txt"
    both.write_text(
        "".join(
            path.read_text() for path in (keys / "identity.txt", secure / "putnam-lite-identity.txt", secure / "putnam-lite-private.txt")
        )
    )
    output = run("build", "--root", root, "--identity", both)
    assert "putnam-lite: embargoed, 1 submission(s), 2 board(s)" in output and "rejected:" not in output

    overall = orjson.loads((root / "site/data/putnam-lite/overall.json").read_bytes())
    (row,) = overall["rows"]
    assert row["submission"] == "acme/run-1"
    assert row["metrics"]["avg@2"]["value"] == pytest.approx(0.25)
    assert row["metrics"]["pass@2"]["value"] == pytest.approx(0.75)
    assert row["metrics"]["avg@2"]["n"] == 10
    sessions = orjson.loads((root / "site/data/putnam-lite/sessions.json").read_bytes())
    (srow,) = sessions["rows"]
    shown = {k: v["value"] for k, v in srow["metrics"].items() if not v.get("suppressed")}
    assert shown == {"avg@2": pytest.approx(0.25)}
    assert srow["metrics"]["split=a"]["suppressed"] and srow["metrics"]["split=a"]["n"] is None
    assert (root / "site/putnam-lite/overall.html").is_file()
    assert "Adding a benchmark" in (root / "site/adding-a-benchmark.html").read_text()
