"""Coverage rules per benchmark shape: KCSAT-ML (ko only, 1 sample) and
LiveMathematicianBench (variant × sketch), on the real presets and parse_results frames."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import orjson
import pytest

from builder.bundles.coverage import check_summary, measure
from builder.bundles.dataset import DatasetManifest
from builder.bundles.manifest import Coverage
from builder.bundles.results import parse_results
from builder.errors import BuilderError
from builder.scoring import parse_scoring_config
from builder.scoring.config import load_preset


def _spec(name: str) -> Any:
    return parse_scoring_config(load_preset(name), name, benchmark=name)


def _dataset(ids: list[str], split: str = "core") -> DatasetManifest:
    return DatasetManifest(
        benchmark="x",
        version="v1",
        created=datetime(2026, 1, 1, tzinfo=timezone.utc),
        splits={split: len(ids)},
        commitments={i: "0" * 64 for i in ids},
        item_splits={i: split for i in ids},
        items_sha256="0" * 64,
        items_bytes=0,
    )


def _measure(rows: list[dict[str, Any]], spec: Any, dataset: DatasetManifest) -> Coverage:
    data = b"".join(orjson.dumps(r) + b"\n" for r in rows)
    return measure(parse_results(data, "r.jsonl", spec.results_extras()), dataset, spec, "r.jsonl", data)


def _row(item: str, lang: str, sample: int = 0, **extra: Any) -> dict[str, Any]:
    return {"item": item, "lang": lang, "sample": sample, "answer": "1", "correct": False, "refused": False, **extra}


KCSAT_IDS = [f"k{i:03d}" for i in range(7)]


def test_kcsat_complete_korean_passes_and_summary_checks() -> None:
    spec, ds = _spec("kcsat-ml"), _dataset(KCSAT_IDS)
    cov = _measure([_row(i, "ko", budget=8192) for i in KCSAT_IDS], spec, ds)
    assert (cov.items, cov.languages, cov.samples, cov.rows, cov.variants) == (7, ("ko",), 1, 7, ())
    check_summary(cov, ds, spec, "m")


def test_kcsat_refuses_the_readme_example_language_en() -> None:
    spec, ds = _spec("kcsat-ml"), _dataset(KCSAT_IDS)
    with pytest.raises(BuilderError) as err:
        _measure([_row(i, "en") for i in KCSAT_IDS], spec, ds)
    assert err.value.reason == "undeclared-language"
    assert err.value.line == 1 and "declares ko" in err.value.message


LMB_IDS = [f"l{i:03d}" for i in range(6)]
CELLS = [("standard", False), ("substitution", False), ("standard", True), ("substitution", True)]


def _lmb(cells: list[tuple[str | None, bool | None]], ids: list[str] = LMB_IDS) -> list[dict[str, Any]]:
    rows = []
    for variant, sketch in cells:
        for i in ids:
            extra = {k: v for k, v in (("variant", variant), ("sketch", sketch)) if v is not None}
            rows.append(_row(i, "en", **extra))
    return rows


def test_lmb_all_four_cells_recorded_as_variants() -> None:
    spec, ds = _spec("livemathematicianbench"), _dataset(LMB_IDS)
    cov = _measure(_lmb(CELLS), spec, ds)
    assert cov.rows == 24 and len(cov.variants) == 4
    assert (("sketch", False), ("variant", "standard")) in cov.variants
    check_summary(cov, ds, spec, "m")
    assert Coverage(**{**cov.__dict__}).to_dict()["variants"][0].keys() == {"sketch", "variant"}


def test_lmb_default_cell_alone_passes() -> None:
    spec, ds = _spec("livemathematicianbench"), _dataset(LMB_IDS)
    assert len(_measure(_lmb([("standard", False)]), spec, ds).variants) == 1


def test_lmb_without_the_default_cell_is_refused() -> None:
    spec, ds = _spec("livemathematicianbench"), _dataset(LMB_IDS)
    with pytest.raises(BuilderError) as err:
        _measure(_lmb([(None, None)]), spec, ds)  # fields omitted: boards filter on standard/no sketch
    assert err.value.reason == "bad-variant"
    assert "sketch=false, variant=standard" in err.value.message


def test_lmb_partial_cell_is_refused_naming_it() -> None:
    spec, ds = _spec("livemathematicianbench"), _dataset(LMB_IDS)
    rows = _lmb([("standard", False)]) + _lmb([("substitution", True)], LMB_IDS[:2])
    with pytest.raises(BuilderError) as err:
        _measure(rows, spec, ds)
    assert err.value.reason == "incomplete-coverage"
    assert err.value.message.startswith(
        "en, sketch=true, variant=substitution: 4 of 6 items have no samples (core 4 of 6): l002, l003, l004, l005"
    )


def test_summary_of_invented_variant_value_is_refused() -> None:
    spec, ds = _spec("livemathematicianbench"), _dataset(LMB_IDS)
    cov = _measure(_lmb(CELLS), spec, ds)
    forged = Coverage(**{**cov.__dict__, "variants": (*cov.variants[:3], (("sketch", False), ("variant", "easy")))})
    with pytest.raises(BuilderError) as err:
        check_summary(forged, ds, spec, "m")
    assert err.value.reason == "bad-variant"


def test_many_missing_items_are_summarised_not_listed() -> None:
    spec, ds = _spec("kcsat-ml"), _dataset([f"k{i:04d}" for i in range(500)])
    with pytest.raises(BuilderError) as err:
        _measure([_row("k0000", "ko")], spec, ds)
    assert "499 of 500 items have no samples (core 499 of 500): k0001, k0002, k0003, k0004, k0005 and 494 more" in err.value.message
