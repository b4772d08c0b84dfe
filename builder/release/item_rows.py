"""The long row lists of the release pages, built in Python as one HTML fragment each.

An item page lists every opted-in submission (100+ rows on the demo's KCSAT-ML items), a
model page every released item (664): together ~140,000 rows on the demo. Through Jinja
each row cost a dozen attribute lookups and filter calls, and these two loops were half of
the render stage (bench/bench_site.py's demo build under cProfile). The rows are the very
bytes the templates' loops wrote (``tests/release/test_item_rows.py`` renders both), every
value escaped as ``e`` escapes it in the templates (templating.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from builder.render.escaping import page_text

ANSWERS_SHOWN = 6  # answers listed in a row; more are marked " …"
ANSWER_CHARS = 60  # of each answer


def _e(value: Any) -> str:
    return "" if value is None else page_text(str(value))


def verdict(r: dict[str, Any]) -> str:
    """A cell's colour class: 2 every sample correct, 1 some, 0 none."""
    return "2" if r["samples"] and r["correct"] == r["samples"] else "1" if r["correct"] else "0"


def submission_rows(subs: Iterable[dict[str, Any]], with_transcripts: Collection[str]) -> str:
    """The item page's results table body: one row per submission, end tags omitted (HTML5
    implies them), rows not separated (the template's loop wrote none)."""
    out = []
    for s in subs:
        samples = s["samples"]
        link = f'<a href="../models/{_e(s["submission"])}.html">{_e(s["model"])}</a>'
        if s["submission"] in with_transcripts:
            link += f' · <a href="#t-{s["anchor"]}">transcripts</a>'
        # out of the rows regraded, which need not be all samples (a variant the regrade
        # does not grade keeps the lab's verdict)
        regrade = "not regraded" if s["regrade_correct"] is None else f"{s['regrade_correct']} / {s['regraded']}"
        answers = ", ".join(f"<code>{_e(a[:ANSWER_CHARS])}</code>" for a in s["answers"][:ANSWERS_SHOWN])
        if len(s["answers"]) > ANSWERS_SHOWN:
            answers += " …"
        out.append(
            f'<tr id="{s["anchor"]}" class="sb-v{verdict(s)}"><td>{link}<td>{_e(s["lab"])}<td>{s["correct"]} / {samples}'
            f"<td>{s['lab_correct']} / {samples}<td>{regrade}<td>{answers}"
        )
    return "".join(out)


def item_rows(rows: Iterable[dict[str, Any]]) -> str:
    """A model page's per-item table body: one line per item, end tags omitted."""
    out = []
    for r in rows:
        rate = r["correct"] / r["samples"] if r["samples"] else 0
        out.append(
            f'<tr class="sb-v{verdict(r)}"><td><a href="../../items/{r["page"]}.html">{_e(r["id"])}</a>'
            f'<td class="sb-num" data-sort="{"%g" % rate}">{r["correct"]} / {r["samples"]}\n'
        )
    return "".join(out)
