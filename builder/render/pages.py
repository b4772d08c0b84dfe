"""Markdown pages rendered from the board data dicts (never from frames directly).

Generated content (tables, facts, lists of models) is raw HTML blocks that Python-Markdown
passes through unparsed, every value escaped; their links are relative ``.html`` paths,
which is why the generated site config turns ``use_directory_urls`` off (site_tree.py).
Paths of the generated pages:

    <bench>/index.md, <bench>/<board>.md, <bench>/submissions.md
    <bench>/models/<lab>/<submission>.md     one per verified submission (not in the nav)
    labs/index.md, labs/<lab>.md             one per lab with a verified submission
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from builder.render import data_files
from builder.render.charts import chart_json, chart_spec
from builder.render.compare import compare_data, compare_json
from builder.render.escaping import page_text
from builder.render.forest import forest_axis, forest_cell, forest_head
from builder.render.formulas import has_math, tex_markdown
from builder.render.hf_results import site_base
from builder.render.labels import (
    field_title,
    interval,
    metric_header,
    metric_title,
    natural_key,
    number,
    option_order,
    summary_facts,
    unit_label,
)
from builder.render.page_templates import page_environment
from builder.scoring.tables import FLAGS

_ENV = page_environment("builder.render")  # every value goes through `e` (escaping.page_text) explicitly


def model_href(submission: str) -> str:
    """A submission's page, relative to its benchmark's directory (ids are [a-z0-9-])."""
    return f"models/{submission}.html"


# Why a cell shows no value, in a few words: "no items", "cutoff unknown" and an embargo
# withholding are different facts and read differently (tooltips: the Data page's FLAGS).
FLAG_LABELS = {"no-items": "no items", "cutoff-unknown": "cutoff unknown", "not-evaluated": "not evaluated", "not-reported": "not reported"}
WITHHELD_TITLE = "withheld under the embargo by the disclosure audit: the cell rests on too few embargoed items, or would reveal such a cell (see Methodology)"
LADDER_TITLE = (
    "withheld under the embargo by the Ladder: this later submission does not beat the lab's best shown value by the grid (see Methodology)"
)


def fmt_value(cell: dict[str, Any] | None, unit: str) -> str:
    if not cell:
        return "—"
    if cell.get("suppressed"):
        if cell.get("flag") == "ladder":
            return f'<span class="sb-suppressed" title="{LADDER_TITLE}">withheld (ladder)</span>'
        return f'<span class="sb-suppressed" title="{WITHHELD_TITLE}">withheld (embargo)</span>'
    if cell.get("value") is None:
        flag = cell.get("flag") or "n/a"
        title = FLAGS.get(flag, flag)
        return f'<span class="sb-na" title="{page_text(title)}">{page_text(FLAG_LABELS.get(flag, "n/a"))}</span>'
    return number(cell["value"], unit)


def withheld_line(counts: dict[str, int]) -> str:
    """The board page's count of cells withheld under the embargo (board JSON ``withheld_cells``)."""
    out = f"Under the embargo, {counts.get('disclosure', 0)} cell(s) of this board are withheld by the disclosure audit"
    return out + (f" and {counts['ladder']} by the Ladder." if counts.get("ladder") else ".")


def held(row: dict[str, Any], key: str) -> str:
    """The page text for a submissions field the publication gate withheld, else ""."""
    fields = (row.get("withheld") or {}).get("fields", ())
    return f'<em class="sb-withheld">{page_text(row["withheld"]["reason"])}</em>' if key in fields else ""


def fmt_ci(cell: dict[str, Any] | None, unit: str) -> str:
    if not cell or cell.get("value") is None:
        return ""
    return interval(cell.get("ci_low"), cell.get("ci_high"), unit)


def _sort_key(value: float) -> str:
    # Plain decimals (never "1e-05": tablesort's number sort drops the exponent), short.
    return f"{value:.6f}".rstrip("0").rstrip(".") or "0"


def fmt_cell(cell: dict[str, Any] | None, unit: str, inline: bool) -> str:
    """One table cell: the value, then interval and n smaller — on the same line for
    narrow boards, in a tooltip (dotted underline; hover, or tap on a phone) for wide
    ones. Kept terse: a 100-row board with 13 columns has 1,300 of them."""
    value = fmt_value(cell, unit)
    if not cell or cell.get("value") is None:
        return f'<td class="sb-num">{value}</td>'
    sort = _sort_key(cell["value"])
    ci = fmt_ci(cell, unit)
    n = cell.get("n")
    if inline:
        extra = f' <span class="sb-ci">{ci}</span>' if ci else ""
        extra += f' <span class="sb-n">{n}</span>' if n else ""
        return f'<td data-sort="{sort}">{value}{extra}</td>'
    detail = " ".join(x for x in (ci, f"n={n}" if n else "") if x)
    tip = f' data-tip="{detail}"' if detail else ""
    # The cell's text is the value alone: tablesort's number sort reads it right unless it
    # is negative (a true minus sign), so only those carry a sort key.
    key = f' data-sort="{sort}"' if cell["value"] < 0 else ""
    return f"<td{key}{tip}>{value}</td>"


def fmt_rank(row: dict[str, Any]) -> str:
    rng = row.get("rank_range")
    if row.get("rank") is None:
        return "—"
    if rng and rng[0] != rng[1]:
        return f'{row["rank"]}<small class="sb-rank-range" title="ranks not statistically separable">{rng[0]}–{rng[1]}</small>'
    return str(row["rank"])


# `baseline` is a submission id; its display name is in `baseline_model`.
_ROW_KEYS = {"submission", "model", "lab", "rank", "rank_range", "metrics", "baseline"}
_EXTRA_TITLES = {
    "baseline_model": "TTS-off baseline", "first_turn_on": "First turn-on", "profile": "Profile",
    "family": "Family", "rank_capability": "Rank by capability", "rank_avg_r": "Rank by Avg-R",
    "rank_shift": "Rank shift",
}  # fmt: skip


def extra_columns(board: dict[str, Any]) -> list[str]:
    """Scalar per-row facts a board adds (rank shift, TTS pairing, profile…), in first-seen order."""
    keys: list[str] = []
    for row in board["rows"]:
        for key, value in row.items():
            if key not in _ROW_KEYS and key not in keys and (value is None or isinstance(value, (str, int, float, bool))):
                keys.append(key)
    return keys


def extra_title(key: str) -> str:
    return _EXTRA_TITLES.get(key) or key.replace("_", " ").capitalize()


def fmt_extra(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    return page_text(str(value))


def ordered_rows(board: dict[str, Any]) -> list[dict[str, Any]]:
    """Submission rows in rank order and reference rows placed where their value ranks.

    Each item is ``{"row": …, "ref": bool, "sort_rank": float}``; a reference row sits
    between the last submission it does not beat and the first it beats (sort_rank x.5).
    An unranked board lists models by name, digit runs read as numbers.
    """
    rows = list(board["rows"])
    refs = list(board.get("reference_rows", []))
    lead = next((m for m in board["metrics"] if m["name"] == board.get("rank_by")), None)
    if lead is None or not any(r.get("rank") is not None for r in rows):
        rows.sort(key=lambda r: natural_key(r["model"]))
        out = [{"row": r, "ref": False, "sort_rank": i + 1} for i, r in enumerate(rows)]
        return out + [{"row": ref, "ref": True, "sort_rank": len(rows) + 1 + i} for i, ref in enumerate(refs)]
    sign = -1 if lead.get("higher_is_better") is False else 1
    out = [{"row": r, "ref": False, "sort_rank": r["rank"] if r.get("rank") is not None else len(rows) + 1} for r in rows]
    for ref in refs:
        value = (ref["metrics"].get(lead["name"]) or {}).get("value")
        pos = len(out)
        if value is not None:
            for i, item in enumerate(out):
                v = (item["row"]["metrics"].get(lead["name"]) or {}).get("value")
                if v is not None and sign * v < sign * value:
                    pos = i
                    break
        before = next((o["sort_rank"] for o in reversed(out[:pos]) if not o["ref"]), 0)
        out.insert(pos, {"row": ref, "ref": True, "sort_rank": before + 0.5})
    return out


def _render(template: str, **context: Any) -> str:
    return _ENV.get_template(template).render(
        e=page_text,
        fmt_value=fmt_value,
        fmt_ci=fmt_ci,
        fmt_cell=fmt_cell,
        fmt_rank=fmt_rank,
        unit_label=unit_label,
        metric_header=metric_header,
        metric_title=metric_title,
        extra_columns=extra_columns,
        extra_title=extra_title,
        fmt_extra=fmt_extra,
        model_href=model_href,
        withheld_line=withheld_line,
        held=held,
        forest_cell=forest_cell,
        forest_head=forest_head,
        **context,
    )


def describe(board: dict[str, Any]) -> str:
    """The board's description, or one said from what it shows when the config has none."""
    if board.get("description"):
        return board["description"]
    groups = [m for m in board["metrics"] if m.get("group")]
    if groups:
        overall = next((m for m in board["metrics"] if not m.get("group")), None)
        base = metric_title(overall) if overall else "Score"
        return f"{base} by {field_title(groups[0]['group']['field']).lower()}, with the overall score first."
    return ", ".join(metric_title(m) for m in board["metrics"]) + "."


def _filters(rows: list[dict[str, Any]], subs: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The values each filter offers: only those present on this board."""
    facts = [subs.get(r["submission"], {}) for r in rows]
    return {
        "lab": sorted({r["lab"] for r in rows}),
        "family": sorted({f["family"] for f in facts if f.get("family")}, key=natural_key),
        "reasoning": option_order(f["reasoning_effort"] for f in facts if f.get("reasoning_effort")),
    }


def board_page(bench: dict[str, Any], board: dict[str, Any], subs: dict[str, dict[str, Any]] | None = None,
               labs: dict[str, str] | None = None, spec: Any = None, boards: dict[str, dict[str, Any]] | None = None) -> str:  # fmt: skip
    subs = subs or {}
    chart = chart_spec(board, spec, boards)
    metrics = sorted(board["metrics"], key=lambda m: m["name"] != board.get("rank_by"))
    return _render(
        "board.md.j2",
        bench=bench,
        board=board,
        description=describe(board),
        rows=ordered_rows(board),
        inline=len(board["metrics"]) <= 4,
        subs=subs,
        labs=labs or {},
        filters=_filters(board["rows"], subs),
        chart=chart_json(chart) if chart else None,
        chart_note=(chart or {}).get("note", ""),
        # The ranking metric first, so a wide board never hides what it ranks by.
        metrics=metrics,
        forest=forest_axis(board["rows"] + board.get("reference_rows", []), metrics[0] if metrics else None),
        plain_metrics=[m for m in board["metrics"] if not m.get("group")],
        groups=[m for m in board["metrics"] if m.get("group")],
        summary=summary_facts(board.get("summary") or {}),
    )


def headline(boards: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A benchmark's headline board: the first ranked board with rows."""
    return next((b for b in boards if b.get("rank_by") and any(r.get("rank") is not None for r in b["rows"])), None)


def standings(board: dict[str, Any] | None, top: int) -> list[dict[str, Any]]:
    """The top rows of a board (reference rows placed among them), for the home/overview."""
    if board is None:
        return []
    lead = next(m for m in board["metrics"] if m["name"] == board["rank_by"])
    out: list[dict[str, Any]] = []
    for item in ordered_rows(board):
        if not item["ref"] and item["row"].get("rank") is not None and item["row"]["rank"] > top:
            break
        if item["ref"] and len([o for o in out if not o["ref"]]) >= top:
            break
        cell = item["row"]["metrics"].get(lead["name"])
        out.append(
            {**item, "cell": cell, "value": fmt_value(cell, lead["unit"]), "ci": fmt_ci(cell, lead["unit"]), "n": (cell or {}).get("n")}
        )
    return out


def benchmark_page(
    bench: dict[str, Any], config: Any, boards: list[dict[str, Any]], submissions: dict[str, Any], earlier: Sequence[dict[str, Any]] = ()
) -> str:
    """``earlier``: index entries of the benchmark's earlier versions still shown."""
    board = headline(boards)
    lead = next((m for m in board["metrics"] if m["name"] == board["rank_by"]), None) if board else None
    return _render(
        "benchmark.md.j2",
        bench=bench,
        config=config,
        earlier=list(earlier),
        boards=boards,
        describe=describe,
        submissions=submissions,
        headline=board,
        lead=lead,
        standings=standings(board, 10),
        last_change=max((r["created"] for r in submissions["rows"]), default=None),
    )


def compare_page(
    bench: dict[str, Any], boards: list[dict[str, Any]], submissions: dict[str, Any], paired: Mapping[str, Any] | None = None
) -> str | None:
    """The benchmark's compare page (render/compare.py), or None when no board has a value;
    ``paired``: the release's pairable boards (builder.scoring.paired.PairedBoard by board id)."""
    data = compare_data(boards, submissions, paired)
    if data is None:
        return None
    headline = next(b for b in data["boards"] if b["board"] == data["headline"])
    return _render(
        "compare.md.j2",
        bench=bench,
        data=data,
        payload=compare_json(data),
        paired=bool(data["pairing"]),
        headline_title=f"{headline['title']}, {headline['metric']}",
    )


def submissions_page(bench: dict[str, Any], submissions: dict[str, Any], labs: dict[str, str] | None = None) -> str:
    return _render("submissions.md.j2", bench=bench, submissions=submissions, labs=labs or {})


def rejected_page(rejected: dict[str, Any]) -> str:
    return _render("rejected.md.j2", rejected=rejected["rejected"])


def home_summary(index: dict[str, Any], boards: dict[str, list[dict[str, Any]]] | None = None,
                 last_change: dict[str, str | None] | None = None) -> str:  # fmt: skip
    cards = []
    for b in index["benchmarks"]:
        board = headline((boards or {}).get(b["id"], []))
        lead = next((m for m in board["metrics"] if m["name"] == board["rank_by"]), None) if board else None
        rows = standings(board, 5)
        axis = forest_axis([s["row"] for s in rows], lead)
        cards.append(
            {"bench": b, "board": board, "lead": lead, "rows": rows, "axis": axis, "last_change": (last_change or {}).get(b["id"])}
        )
    return _render("home_summary.md.j2", index=index, cards=cards)


def standing(submission: str, boards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A submission's place on every board of its benchmark: rank of how many, lead value."""
    out = []
    for board in boards:
        row = next((r for r in board["rows"] if r["submission"] == submission), None)
        if row is None:
            continue
        lead = (
            next((m for m in board["metrics"] if m["name"] == board.get("rank_by")), None) or board["metrics"][0]
            if board["metrics"]
            else None
        )
        cell = row["metrics"].get(lead["name"]) if lead else None
        ranked = sum(1 for r in board["rows"] if r.get("rank") is not None)
        out.append(
            {
                "board": board,
                "rank": fmt_rank(row),
                "of": ranked,
                "metric": metric_title(lead) if lead else "",
                "unit": unit_label(lead["unit"]) if lead else "",
                "value": fmt_value(cell, lead["unit"]) if lead else "—",
                "ci": fmt_ci(cell, lead["unit"]) if lead else "",
                "n": (cell or {}).get("n"),
            }
        )
    return out


def model_page(bench: dict[str, Any], sub: dict[str, Any], boards: list[dict[str, Any]], labs: dict[str, str],
               elsewhere: list[dict[str, Any]], registry_version: int | None, items_section: str = "") -> str:  # fmt: skip
    """``items_section``: the submission's per-item results after a release (made by
    builder.release.pages, already escaped), or empty."""
    return _render(
        "model.md.j2",
        bench=bench,
        sub=sub,
        lab_name=labs.get(sub["lab"], sub["lab"]),
        standing=standing(sub["submission"], boards),
        elsewhere=elsewhere,
        registry_version=registry_version,
        items_section=items_section,
        math=has_math(sub.get("notes")),
    )


def lab_page(lab: str, name: str, entries: list[dict[str, Any]]) -> str:
    return _render("lab.md.j2", lab=lab, name=name, entries=entries)


def labs_index(labs: list[dict[str, Any]]) -> str:
    return _render("labs_index.md.j2", labs=labs)


def access_page(access: dict[str, Any]) -> str:
    return _render("access.md.j2", access=access["item_access"])


def _bench_docs(report: Any, boards: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Board ids, titles and metrics per benchmark: from this build's boards, or from the
    config's declarations where the build is sealed (metric names then come with scores)."""
    out = []
    for state in report.benchmarks:
        built = boards.get(state.config.id, [])
        if built:
            docs = [{"id": b["board"], "title": b["title"], "metrics": [m["name"] for m in b["metrics"]]} for b in built]
            metrics: dict[str, dict[str, Any]] = {}
            for b in built:
                for m in b["metrics"]:
                    if m.get("group") is None:
                        metrics.setdefault(m["name"], m)
        else:
            docs = [{"id": b.id, "title": b.title, "metrics": ["(sealed in this build)"]} for b in state.config.scoring.boards]
            metrics = {}
        out.append(
            {
                "id": state.config.id,
                "title": state.config.title,
                "boards": docs,
                "metrics": list(metrics.values()),
                "hf_dataset": state.config.hf_dataset,
            }
        )
    return out


_FORMULA_ROLE = re.compile(r":formula:`([a-z0-9_]+)`")
_MATH_ROLE = re.compile(r":math:`([^`]+)`")


def methodology_page(report: Any, boards: dict[str, list[dict[str, Any]]]) -> str:
    from builder.scoring import METHODOLOGY, REGRADING, SUPPRESSION
    from builder.scoring.uncertainty import FORMULAS

    def formula(m: re.Match[str]) -> str:
        if m.group(1) not in FORMULAS:
            raise ValueError(
                f"the methodology text cites :formula:`{m.group(1)}`, which builder.scoring.uncertainty.FORMULAS does not define"
            )
        return tex_markdown(FORMULAS[m.group(1)])

    # The scoring modules' docstrings are the one source of these texts; drop their first
    # (module summary) paragraph.
    def body(text: str) -> str:
        text = text.split("\n\n", 1)[1] if "\n\n" in text else text
        # Formulas are TeX, rendered by KaTeX: ":formula:`name`" is one the code defines
        # beside what computes it (uncertainty.FORMULAS), ":math:`x`" a symbol in the prose.
        text = _FORMULA_ROLE.sub(formula, text)
        text = _MATH_ROLE.sub(lambda m: tex_markdown(m.group(1)), text)
        # Docstrings are reStructuredText: ":class:`x`" and "``x``" become Markdown code,
        # a link "`text <url>`_" a Markdown link.
        text = re.sub(r"`([^`<>]+?)\s*<(https?://[^>\s]+)>`__?", r"[\1](\2)", text)
        return re.sub(r":[a-z]+:`([^`]+)`", r"`\1`", text).replace("``", "`")

    return _render(
        "methodology.md.j2",
        benchmarks=_bench_docs(report, boards),
        method=body(METHODOLOGY),
        regrading=body(REGRADING),
        suppression=body(SUPPRESSION),
    )


def data_page(report: Any, boards: dict[str, list[dict[str, Any]]], site_url: str | None = None, files: Sequence[str] = ()) -> str:
    """The Data page; ``site_url`` (mkdocs.yml) decides whether exports link absolutely and Hugging Face entries are written;
    ``files``: every path the build wrote under ``data/``, each linked from the page."""
    return _render(
        "data.md.j2",
        benchmarks=_bench_docs(report, boards),
        flags=FLAGS,
        recompute=_recomputable(report),
        site_url=site_base(site_url),
        files=data_files.group(files, boards),
        link=data_files.link,
        links=data_files.links,
    )


def _recomputable(report: Any) -> tuple[str, str] | None:
    """(benchmark, board) the Data page's script recomputes: the first released benchmark's
    first board with an ``accuracy`` column over every item and result (no filter, no
    training-cutoff rule), or None while nothing is released."""
    from builder.scoring.kinds.table import Params as TableParams
    from builder.scoring.spec import Filter

    for state in report.benchmarks:
        spec = state.config.scoring
        if state.status not in ("released", "partly released") or spec is None:
            continue
        for b in spec.boards:
            if b.items != Filter() or b.results != Filter() or (spec.contamination is not None and b.contamination):
                continue
            if not isinstance(b.params, TableParams):
                continue
            if any(m.name == "accuracy" and m.items == Filter() and m.results == Filter() for m in b.params.metrics):
                return state.config.id, b.id
    return None
