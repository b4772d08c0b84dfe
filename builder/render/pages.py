"""Markdown pages rendered from the board data dicts (never from frames directly)."""

from __future__ import annotations

import html
from typing import Any

import orjson
from jinja2 import Environment, PackageLoader, StrictUndefined

_ENV = Environment(
    loader=PackageLoader("builder.render", "templates"),
    undefined=StrictUndefined,
    autoescape=False,  # Markdown output; every value goes through `e` (html.escape) explicitly
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def fmt_value(cell: dict[str, Any] | None, unit: str) -> str:
    if not cell:
        return "—"
    value = cell.get("value")
    if cell.get("suppressed"):
        return '<span class="sb-suppressed" title="withheld during the embargo: fewer items than the minimum">suppressed</span>'
    if value is None:
        flag = cell.get("flag") or "n/a"
        return f'<span class="sb-na" title="{html.escape(flag)}">n/a</span>'
    return _number(value, unit)


def _number(value: float | int, unit: str) -> str:
    if unit == "fraction":
        return f"{100 * value:.1f}"
    if unit == "difference":
        return f"{100 * value:+.1f}"
    if unit == "usd":
        return f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}"
    if unit in ("tokens", "count"):
        return f"{value:,.0f}"
    return f"{value:.3f}"


def fmt_ci(cell: dict[str, Any] | None, unit: str) -> str:
    if not cell or cell.get("value") is None or cell.get("ci_low") is None:
        return ""
    return f"{_number(cell['ci_low'], unit)}–{_number(cell['ci_high'], unit)}"


def fmt_rank(row: dict[str, Any]) -> str:
    rng = row.get("rank_range")
    if row.get("rank") is None:
        return "—"
    if rng and rng[0] != rng[1]:
        return f'{row["rank"]} <span class="sb-rank-range" title="ranks not statistically separable">({rng[0]}–{rng[1]})</span>'
    return str(row["rank"])


def unit_label(unit: str) -> str:
    return {"fraction": "%", "difference": "pp", "usd": "USD", "tokens": "tokens"}.get(unit, "")


def chart_spec(board: dict[str, Any]) -> str | None:
    """Inline chart data for sealboard.js: the rank-by metric with its interval."""
    metric = board.get("rank_by") or (board["metrics"][0]["name"] if board["metrics"] else None)
    mdef = next((m for m in board["metrics"] if m["name"] == metric), None)
    if mdef is None or mdef["unit"] not in ("fraction", "difference"):
        return None
    points = []
    for row in board["rows"]:
        cell = row["metrics"].get(metric) or {}
        if cell.get("value") is None:
            continue
        points.append({"label": row["model"], "value": cell["value"], "lo": cell.get("ci_low"), "hi": cell.get("ci_high")})
    refs = []
    for ref in board.get("reference_rows", []):
        cell = ref["metrics"].get(metric) or {}
        if cell.get("value") is not None:
            refs.append({"label": ref["label"], "value": cell["value"]})
    if not points:
        return None
    spec = {"metric": mdef["title"], "unit": mdef["unit"], "points": points, "references": refs}
    # </script> can never appear: orjson escapes nothing, so escape '<' ourselves.
    return orjson.dumps(spec).decode().replace("<", "\\u003c")


# `baseline` is a submission id; its display name is in `baseline_model`.
_ROW_KEYS = {"submission", "model", "lab", "rank", "rank_range", "metrics", "baseline"}


def extra_columns(board: dict[str, Any]) -> list[str]:
    """Scalar per-row facts a board adds (rank shift, TTS pairing, profile…), in first-seen order."""
    keys: list[str] = []
    for row in board["rows"]:
        for key, value in row.items():
            if key not in _ROW_KEYS and key not in keys and (value is None or isinstance(value, (str, int, float, bool))):
                keys.append(key)
    return keys


def fmt_extra(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    return html.escape(str(value))


def _render(name: str, **context: Any) -> str:
    return _ENV.get_template(name).render(
        e=lambda s: html.escape(str(s)) if s is not None else "",
        fmt_value=fmt_value,
        fmt_ci=fmt_ci,
        fmt_rank=fmt_rank,
        unit_label=unit_label,
        extra_columns=extra_columns,
        fmt_extra=fmt_extra,
        **context,
    )


def board_page(bench: dict[str, Any], board: dict[str, Any]) -> str:
    return _render("board.md.j2", bench=bench, board=board, chart=chart_spec(board))


def benchmark_page(bench: dict[str, Any], config: Any, boards: list[dict[str, Any]], submissions: dict[str, Any]) -> str:
    return _render("benchmark.md.j2", bench=bench, config=config, boards=boards, submissions=submissions)


def submissions_page(bench: dict[str, Any], submissions: dict[str, Any]) -> str:
    return _render("submissions.md.j2", bench=bench, submissions=submissions)


def rejected_page(rejected: dict[str, Any]) -> str:
    return _render("rejected.md.j2", rejected=rejected["rejected"])


def access_page(access: dict[str, Any]) -> str:
    return _render("access.md.j2", access=access["item_access"])


def home_summary(index: dict[str, Any]) -> str:
    return _render("home_summary.md.j2", index=index)


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
        out.append({"id": state.config.id, "title": state.config.title, "boards": docs, "metrics": list(metrics.values())})
    return out


def methodology_page(report: Any, boards: dict[str, list[dict[str, Any]]]) -> str:
    from builder.scoring import METHODOLOGY, REGRADING, SUPPRESSION

    # The scoring modules' docstrings are the one source of these texts; drop their first
    # (module summary) paragraph.
    def body(text: str) -> str:
        return text.split("\n\n", 1)[1] if "\n\n" in text else text

    return _render(
        "methodology.md.j2",
        benchmarks=_bench_docs(report, boards),
        method=body(METHODOLOGY),
        regrading=body(REGRADING),
        suppression=body(SUPPRESSION),
    )


def data_page(report: Any, boards: dict[str, list[dict[str, Any]]]) -> str:
    from builder.scoring.tables import FLAGS

    return _render("data.md.j2", benchmarks=_bench_docs(report, boards), flags=FLAGS)
