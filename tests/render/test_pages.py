"""Pages and charts from board dicts: formats, row order, titles, provenance, and the
site-wide settings the plugin enforces (files, not directories; no webfont; plotly only
where a chart is)."""

from __future__ import annotations

import hashlib
import re

import orjson
import pytest

from builder.pipeline.build import build
from builder.render import pages
from builder.render.charts import chart_spec
from builder.render.labels import interval, metric_header, metric_title, natural_key, number, option_order
from tests.factory import NOW, make_instance, results_for

pytestmark = pytest.mark.slow  # builds a site


def test_intervals_read_with_negative_bounds_and_without_width():
    assert interval(-0.02, -0.01, "difference") == "[−2.0, −1.0]"
    assert interval(1.0, 1.0, "fraction") == "±0"
    assert interval(0.5, 0.75, "fraction") == "[50.0, 75.0]"
    assert interval(None, 0.2, "fraction") == ""
    assert number(-0.0001, "difference") == "0.0"
    assert number(0.25, "difference") == "+25.0"


def test_column_titles_are_human_readable():
    assert (
        metric_title({"name": "output_tokens", "title": "output_tokens", "unit": "tokens", "measure": "output_tokens"}) == "Output tokens"
    )
    assert (
        metric_header({"name": "output_tokens", "title": "output_tokens", "unit": "tokens"})
        == 'Output tokens <small class="sb-unit">tokens</small>'
    )
    msc = {"name": "msc=05", "title": "msc 05", "unit": "fraction", "group": {"field": "msc", "value": "05"}}
    assert metric_header(msc) == '05 <small class="sb-sub">Combinatorics</small> <small class="sb-unit">%</small>'
    tier = {"name": "tier=easy", "title": "tier easy", "unit": "fraction", "group": {"field": "tier", "value": "easy"}}
    assert metric_title(tier) == "Easy"
    # A config's own title wins.
    assert metric_title({"name": "gain", "title": "TTS gain", "unit": "difference"}) == "TTS gain"


def test_filter_options_order_numbers_by_value():
    # The item browser's difficulty (points) once offered 10 before 2: text order.
    assert option_order([10, 2, 3, 12, 2]) == ["2", "3", "10", "12"]
    assert option_order(["10", "2", "0.5", "-1"]) == ["-1", "0.5", "2", "10"]
    # Numbers first, then efforts low to high, then other labels in natural, case-blind order.
    assert option_order(["high", "low", "medium", "minimal"]) == ["minimal", "low", "medium", "high"]
    assert option_order(["Geometry", "algebra", "Level 10", "Level 9", "4", "high"]) == [
        "4",
        "high",
        "algebra",
        "Geometry",
        "Level 9",
        "Level 10",
    ]
    assert option_order(["nan", "inf", "7"]) == ["7", "inf", "nan"]  # words, not floats
    # Model names: digit runs as numbers, and a number never compared with a word.
    assert sorted(["Acme 14B", "Acme 8B", "Acme 0.6B", "Acme X"], key=natural_key) == ["Acme 0.6B", "Acme 8B", "Acme 14B", "Acme X"]
    assert sorted(["10", "abc", "2"], key=natural_key) == ["2", "10", "abc"]


def _board(rows, refs=(), rank_by="acc", higher=True):
    return {
        "board": "b", "title": "B", "description": "", "kind": "table", "rank_by": rank_by,
        "metrics": [{"name": "acc", "title": "acc", "description": "d", "unit": "fraction", "higher_is_better": higher}],
        "rows": [
            {"submission": f"lab/{m}", "model": m, "lab": "lab", "rank": rank, "metrics": {"acc": {"value": v, "ci_low": v - 0.1, "ci_high": v + 0.1, "n": 10}}}
            for m, rank, v in rows
        ],
        "reference_rows": [{"id": "r", "label": label, "note": "", "metrics": {"acc": {"value": v, "ci_low": None, "ci_high": None, "n": 0}}} for label, v in refs],
        "notes": [], "summary": {},
    }  # fmt: skip


def test_reference_rows_sit_where_they_rank():
    board = _board([("a", 1, 0.9), ("b", 2, 0.5), ("c", 3, 0.1)], refs=[("Human", 0.45), ("Random", 0.2)])
    order = [(i["row"].get("model") or i["row"]["label"], i["sort_rank"]) for i in pages.ordered_rows(board)]
    assert order == [("a", 1), ("b", 2), ("Human", 2.5), ("Random", 2.5), ("c", 3)]
    # Above every model, and below every model.
    assert [i["ref"] for i in pages.ordered_rows(_board([("a", 1, 0.5)], refs=[("Top", 0.9), ("Low", 0.0)]))] == [True, False, True]


def test_unranked_boards_list_models_by_natural_name_order():
    board = _board([("Qwen3-14B", None, 0.1), ("Qwen3-0.6B", None, 0.2), ("Qwen3-8B", None, 0.3), ("Qwen3-1.7B", None, 0.4)], rank_by=None)
    assert [i["row"]["model"] for i in pages.ordered_rows(board)] == ["Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-8B", "Qwen3-14B"]


def test_board_page_rows_cells_and_links():
    board = _board([("a", 1, 0.9), ("b", 2, 0.5)], refs=[("Human", 0.7)])
    md = pages.board_page({"id": "soohak", "title": "S", "status": "embargoed"}, board, {}, {"lab": "Lab Name"})
    rows = re.findall(r"<tr[ >].*?</tr>", md, re.S)
    assert len(rows) == 4  # header, a, Human, b
    assert 'class="sb-reference"' in rows[2] and "Human" in rows[2]
    assert '<a href="models/lab/a.html">a</a>' in rows[1] and "Lab Name" in rows[1]
    assert '90.0 <span class="sb-ci">[80.0, 100.0]</span> <span class="sb-n">10</span>' in rows[1]
    assert '<div class="sb-chart">' in md  # the board charts
    # Its forest column: a's interval [80, 100] on the board's axis 40..100 (b's interval is [40, 60]).
    assert '<td class="sb-forest" style="--v:83.3;--l:66.7;--w:33.3"></td>' in rows[1], rows[1]
    # Empty descriptions are filled from what the board shows.
    assert "\nAcc.\n" in md


def test_chart_specs_show_the_boards_dimension_with_axis_titles():
    board = _board([("a", 1, 0.9), ("b", 2, 0.5)], refs=[("Human", 0.7)])
    spec = chart_spec(board)
    assert spec["type"] == "dots" and spec["x_title"] == "Acc (%)" and spec["y_title"] == "Model"
    assert [p["value"] for p in spec["points"]] == [90.0, 50.0] and spec["references"] == [{"label": "Human", "value": 70.0}]
    breakdown = dict(board, kind="breakdown", metrics=[
        board["metrics"][0],
        {"name": "msc=05", "title": "msc 05", "unit": "fraction", "measure": "avg@3", "group": {"field": "msc", "value": "05"}},
    ])  # fmt: skip
    for r in breakdown["rows"]:
        r["metrics"]["msc=05"] = {"value": 0.25, "ci_low": 0.2, "ci_high": 0.3, "n": 5}
    heat = chart_spec(breakdown)
    assert heat["type"] == "heatmap" and heat["x"] == ["05 Combinatorics"] and heat["x_title"] == "MSC subfield"
    assert heat["z"] == [[25.0], [25.0], [None]] and heat["z_title"] == "Avg@3 (%)"
    breakdown["metrics"][1]["group"] = {"field": "edition", "value": "2026-01"}
    assert chart_spec(breakdown)["type"] == "lines"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages") / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, False, False] for it in inst.items}))
    inst.add_submission("beta", "run-1", results_for(inst.items, {it["id"]: [True, True, True] for it in inst.items}))
    out = root.parent / "site"
    build(root, out, identities=[inst.identity], now=NOW)
    return root, out


def test_model_page_carries_full_provenance(built):
    root, site = built
    html = (site / "soohak/models/beta/run-1.html").read_text()
    subs = orjson.loads((site / "data/soohak/submissions.json").read_bytes())
    beta = next(r for r in subs["rows"] if r["submission"] == "beta/run-1")
    manifest = next(root.glob("bundles/soohak/beta/run-1/manifest.json")).read_bytes()
    assert beta["manifest_sha256"] == hashlib.sha256(manifest).hexdigest() and beta["manifest_sha256"] in html
    assert beta["signature"]["key"].startswith("SHA256:") and beta["signature"]["key"] in html  # in full
    for f in orjson.loads(manifest)["files"]:
        assert f["sha256"] in html and f"{f['bytes']:,}" in html
    assert "2025-01-01" in html  # training cutoff
    assert "key registry v" in html
    # Its standing on every board, linked.
    mini = orjson.loads((site / "data/soohak/mini.json").read_bytes())
    assert 'href="../../mini.html"' in html and mini["title"] in html
    assert (site / "labs/beta.html").is_file() and 'href="../soohak/models/beta/run-1.html"' in (site / "labs/beta.html").read_text()


def test_pages_are_files_without_webfonts_and_plotly_only_where_charted(built):
    _, site = built
    assert (site / "soohak/mini.html").is_file() and not (site / "soohak/mini").exists()
    home = (site / "index.html").read_text()
    assert "fonts.googleapis" not in home and "fonts.gstatic" not in home
    assert "plotly.min.js" not in home and "plotly.min.js" not in (site / "methodology.html").read_text()
    # A charting board names no chart library either: sealboard.js fetches the vendored
    # cartesian bundle (with its licence beside it) when the chart scrolls into view.
    assert "plotly.min.js" not in (site / "soohak/mini.html").read_text() and 'class="sb-chart"' in (site / "soohak/mini.html").read_text()
    assert (site / "assets/plotly.min.js").read_bytes().startswith(b"/**\n* plotly.js (cartesian - minified) v")
    assert (site / "assets/plotly-LICENSE.txt").is_file()
    # Home standings: the headline board's leader with its interval.
    beta_row = 'href="soohak/models/beta/run-1.html"'
    assert beta_row in home and "100.0" in home
    overview = (site / "soohak/index.html").read_text()
    assert "built-in method" not in overview and "Committed items</th><td>18<" in overview
    assert ":class:" not in (site / "methodology.html").read_text()
    assert 'href="/' not in (site / "404.html").read_text()


def test_demo_flag_travels_with_board_files(tmp_path):
    root = tmp_path / "inst"
    inst = make_instance(root)
    inst.add_submission("acme", "run-1", results_for(inst.items))
    report_site = tmp_path / "site"
    from builder.render.data import board_files

    report = build(root, report_site, identities=[inst.identity], now=NOW)
    state = report.benchmarks[0]
    boards, files = board_files(state, synthetic=True)
    data = orjson.loads(files["soohak/mini.json"])
    assert data["synthetic"] is True and boards[0]["synthetic"] is True
    header, first = files["soohak/mini.csv"].decode().splitlines()[:2]
    assert header.startswith("synthetic,") and first.startswith("true,")
    # A real instance's files carry no flag.
    _, plain = board_files(state)
    assert "synthetic" not in orjson.loads(plain["soohak/mini.json"])


def test_sitemap_lists_every_page_when_site_url_is_set(built, tmp_path):
    from builder.render.site import StagedSite

    root, site = built
    config = root / "mkdocs.yml"
    original = config.read_text()
    config.write_text(original + "site_url: https://example.org/board/\n")
    try:
        out = StagedSite(root=root, staged=root / ".sealboard/staged", out=tmp_path / "site").build()
    finally:
        config.write_text(original)
    locs = set(re.findall(r"<loc>(.*?)</loc>", (out / "sitemap.xml").read_text()))
    pages_on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*.html") if p.name != "404.html"}
    assert locs == {f"https://example.org/board/{p}" for p in pages_on_disk}
    assert "https://example.org/board/soohak/models/beta/run-1.html" in locs
    # With site_url the 404 page may use absolute links: they carry the sub-path.
    assert 'href="/assets' not in (out / "404.html").read_text() and 'href="/board/' in (out / "404.html").read_text()


def test_a_small_embargoed_board_says_why_nothing_shows():
    # issue 21: a 6-item board showed only "suppressed". The default grid 0.05 needs
    # ceil(2 / 0.05) + 1 = 41 items per cell (builder.scoring.ladder.min_items).
    from builder.scoring.ladder import min_items

    assert min_items(0.05) == 41 and min_items(0.25) == 9
    board = _board([])
    small = pages.board_page({"id": "soohak", "title": "S", "status": "embargoed", "min_cell_items": 41, "items": 6}, board, {}, {})
    assert "A rate is published once its cell rests on at least 41 items; this benchmark has 6 items in all" in small
    large = pages.board_page({"id": "soohak", "title": "S", "status": "embargoed", "min_cell_items": 41, "items": 1141}, board, {}, {})
    assert "at least 41 items." in large and "items in all" not in large
    released = pages.board_page({"id": "soohak", "title": "S", "status": "released", "min_cell_items": 41, "items": 6}, board, {}, {})
    assert "at least 41 items" not in released


def test_board_summary_facts_read_as_words_and_an_empty_one_is_left_out():
    # issue 25: the SOOHAK Challenge summary showed a bare "unsolved_items:" line.
    board = dict(_board([("a", 1, 0.9)]), summary={"items": 340, "unsolved_items": 124})
    md = pages.board_page({"id": "soohak", "title": "S", "status": "released"}, board, {}, {})
    assert "- **Items**: 340\n" in md and "- **Items solved by no submission**: 124\n" in md
    assert "unsolved_items" not in md
    empty = pages.board_page(
        {"id": "soohak", "title": "S", "status": "released"}, dict(board, summary={"items": 340, "unsolved_items": None}), {}, {}
    )
    assert "Items solved by no submission" not in empty and "- **Items**: 340\n" in empty
    assert "## Summary" not in pages.board_page(
        {"id": "soohak", "title": "S", "status": "released"}, dict(board, summary={"unsolved_items": ""}), {}, {}
    )


@pytest.mark.parametrize(
    ("text", "math"),
    [
        ("함수 $f(x) = x^3 -8x^2$ 에 대하여", True),  # Korean around a formula
        ("with $k=4$ samples", True),
        ("$x$", True),
        ("$$\\int_0^1 f$$", True),
        ("\\(a+b\\)", True),
        ("\\[a\\]", True),
        ("cost $0.18 per item, $1.20 in all", False),
        ("price $5 and $6", False),
        ("$ x $", False),
        ("no formula", False),
        (None, False),
    ],
)
def test_pages_with_formulas_are_told_from_prose_with_prices(text, math):
    from builder.render.formulas import has_math

    assert has_math(text) is math
