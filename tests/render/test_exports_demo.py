"""Every export of the whole demo: the official Every Eval Ever validator reports 0 errors and
0 warnings over every record and samples file, every board cell the site publishes is in a
record, Hugging Face's reader parses every entry and every URL is absolute, and ``sealboard
export eee`` writes the site's records byte for byte, twice.

The session's shared demo build is used (tests/conftest.py: authorised, with a ``site_url``
in its ``mkdocs.yml`` and a Hub dataset in two of its configs, as a deployed board has).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import orjson
import pytest
import yaml
from click.testing import CliRunner
from huggingface_hub import parse_eval_result_entries

from builder.cli import main
from tests.peers import eee_findings, eee_validate
from tests.shared_demo import DEMO_HUB as HUB
from tests.shared_demo import DEMO_SITE_URL as SITE_URL

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(demo_site) -> Path:
    """The session's authorised demo site (tests/conftest.py: site_url and Hub datasets set)."""
    return demo_site.site


def _datastore(site: Path) -> list[Path]:
    return sorted(p for p in (site / "data").glob("*/eee/data/**/*") if p.is_file())


def test_validator_passes_every_demo_export_with_no_warning(site) -> None:
    files = _datastore(site)
    records = [p for p in files if p.suffix == ".json"]
    samples = [p for p in files if p.suffix == ".jsonl"]
    assert len(records) >= 100 and samples  # released benchmarks publish their opted-in samples
    assert eee_findings(eee_validate(files)) == []


def test_every_published_board_cell_is_in_a_record(site) -> None:
    data = site / "data"
    published = 0
    for board_path in data.glob("*/*.json"):
        board = orjson.loads(board_path.read_bytes())
        if board.get("format") == "sealboard-board/1":
            published += sum(1 for row in board["rows"] for cell in row["metrics"].values() if isinstance(cell["value"], (int, float)))
    exported = sum(len(orjson.loads(p.read_bytes())["evaluation_results"]) for p in _datastore(site) if p.suffix == ".json")
    assert exported == published > 0


def test_hub_reader_parses_every_entry_and_every_url_is_absolute(site) -> None:
    files = sorted((site / "data").glob("*/eval_results/*/*.yaml"))
    assert {p.relative_to(site / "data").parts[0] for p in files} == set(HUB)  # soohak names no Hub dataset: none written
    entries = [e for p in files for e in parse_eval_result_entries(yaml.safe_load(p.read_bytes()))]
    assert len(entries) >= len(files)
    for e in entries:
        assert e.dataset_id in HUB.values()
        for url in [e.source_url, *(w.rstrip(";") for w in e.notes.split() if "://" in w)]:
            parts = urlsplit(url)
            assert parts.scheme == "https" and parts.netloc and url.startswith(SITE_URL), url
            assert (site / parts.path.removeprefix(urlsplit(SITE_URL).path)).is_file(), url  # and it is on the site


def test_export_is_the_sites_records_byte_for_byte_every_time(site, tmp_path) -> None:
    out = tmp_path / "eee"
    on_site = {p.relative_to(p.parents[4]).as_posix(): p.read_bytes() for p in _datastore(site)}
    for run in range(2):
        result = CliRunner().invoke(main, ["export", "eee", str(out), "--site", str(site)])
        assert result.exit_code == 0, result.output
        assert {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == on_site, run
