"""The Ladder in a real authorised build (rendered): an instance with the default embargo
(budget 3 per 30 days, grid 0.05) and 60-item splits, a lab that submits a baseline and
then a probe run differing in one answer. The site must not tell the two runs apart
beyond "not better by the grid", shows rates on the grid only, and withheld cells carry
no item count."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builder.demo.instance import DEMO_EMBARGO
from builder.pipeline.build import build
from tests.factory import NOW, make_instance, results_for, soohak_items

pytestmark = pytest.mark.slow  # builds a site

BENCH = "soohak"


def test_probe_run_is_invisible_in_the_published_site(tmp_path: Path) -> None:
    items = soohak_items(n_mini=60, n_challenge=60, n_refusal=6)
    inst = make_instance(tmp_path / "inst", items=items)
    config = inst.root / "leaderboards" / f"{BENCH}.yaml"
    config.write_text(config.read_text().replace(DEMO_EMBARGO, ""))  # the defaults
    base = {it["id"]: [True, True, False] if i % 3 else [False, False, False] for i, it in enumerate(items)}
    inst.add_submission("acme", "run-1", results_for(items, base, langs=("en", "ko")))
    target = next(it["id"] for i, it in enumerate(items) if it["split"] == "mini" and i % 3 == 0)
    inst.add_submission("acme", "run-3", results_for(items, base | {target: [True, True, True]}, langs=("en", "ko")))
    inst.add_submission("beta", "run-2", results_for(items, {it["id"]: [True, True, True] for it in items}, langs=("en", "ko")))
    out = tmp_path / "site"
    report = build(inst.root, out, identities=[inst.identity], now=NOW)
    assert not report.rejections, report.rejections

    mini = orjson.loads((out / "data" / BENCH / "mini.json").read_bytes())
    rows = {r["submission"]: r for r in mini["rows"]}
    first, probe = rows["acme/run-1"]["metrics"]["avg@3"], rows["acme/run-3"]["metrics"]["avg@3"]
    assert first["value"] == 0.45 and first["n"] == 60  # 2/3 of 40 items + 0 of 20 = 26.7/60 = 0.444 → 0.45
    assert probe == {"value": None, "ci_low": None, "ci_high": None, "n": None, "suppressed": True, "flag": "ladder"}
    assert rows["acme/run-1"]["rank"] is not None and rows["acme/run-3"]["rank"] is None

    for path in sorted(p for p in (out / "data" / BENCH).glob("*.json") if p.stem not in ("commitments", "submissions")):
        board = orjson.loads(path.read_bytes())
        assert board["summary"] == {}, path.name
        units = {m["name"]: m["unit"] for m in board["metrics"]}
        for r in board["rows"]:
            for name, cell in r["metrics"].items():
                if cell["value"] is None:
                    assert cell["n"] is None, (path.name, name, cell)
                elif units[name] in ("fraction", "difference"):
                    for x in (cell["value"], cell["ci_low"], cell["ci_high"]):
                        assert x is None or abs(x / 0.05 - round(x / 0.05)) < 1e-6, (path.name, r["submission"], name, cell)
    pages = list((out / BENCH).rglob("*.html"))
    assert pages and not any("n=None" in p.read_text() for p in pages)
