"""The release pages' long row lists (release/item_rows.py) are the bytes the templates'
Jinja loops wrote, for every value a lab controls: markup, quotes, None, many and long answers."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.release.item_rows import item_rows, submission_rows
from builder.release.templating import ENV
from builder.render.escaping import page_text

pytestmark = pytest.mark.slow  # property tests over the row builders (~30 s)

# The loops as the templates held them before the rows moved to Python (the Regrade column's
# denominator since made the rows regraded, not all samples: issue 40).
SUBMISSION_LOOP = """{% for s in subs %}
<tr id="{{ s.anchor }}" class="sb-v{{ verdict(s) }}"><td><a href="../models/{{ e(s.submission) }}.html">{{ e(s.model) }}</a>{% if s.submission in with_transcripts %} · <a href="#t-{{ s.anchor }}">transcripts</a>{% endif %}<td>{{ e(s.lab) }}<td>{{ s.correct }} / {{ s.samples }}<td>{{ s.lab_correct }} / {{ s.samples }}<td>{% if s.regrade_correct is none %}not regraded{% else %}{{ s.regrade_correct }} / {{ s.regraded }}{% endif %}<td>{% for a in s.answers[:6] %}<code>{{ e(a[:60]) }}</code>{% if not loop.last %}, {% endif %}{% endfor %}{% if s.answers | length > 6 %} …{% endif %}
{% endfor %}
"""
ITEM_LOOP = """{% for r in rows %}
<tr class="sb-v{{ verdict(r) }}"><td><a href="../../items/{{ r.page }}.html">{{ e(r.id) }}</a><td class="sb-num" data-sort="{{ '%g' % (r.correct / r.samples if r.samples else 0) }}">{{ r.correct }} / {{ r.samples }}
{% endfor %}
"""


@functools.cache  # compiled once, not once per example: this module 3.9 -> 2.7 CPU-s
def _template(source: str):
    return ENV.from_string(source)


def _jinja(source: str, **context):
    def verdict(r):
        return "2" if r["samples"] and r["correct"] == r["samples"] else "1" if r["correct"] else "0"

    return _template(source).render(e=page_text, verdict=verdict, **context)  # the templates' `e` (release/templating.py)


TEXT = st.text(alphabet=st.sampled_from(list("ab<>&\"' ·é한\\$[]{}*_`|")), max_size=80)
COUNTS = st.tuples(st.integers(0, 5), st.integers(0, 5)).map(sorted)


@st.composite
def submissions(draw):
    correct, samples = draw(COUNTS)
    return {
        "submission": draw(st.sampled_from(["lab-a/m-1", "lab-b/m<2>", "lab-c/m&3"])),
        "anchor": draw(st.sampled_from(["m-lab-a.m-1", "m-x"])),
        "model": draw(st.one_of(st.none(), TEXT)),
        "lab": draw(TEXT),
        "correct": correct,
        "samples": samples,
        "lab_correct": draw(st.integers(0, samples)),
        "regraded": (regraded := draw(st.integers(0, samples))),
        "regrade_correct": None if not regraded else draw(st.integers(0, regraded)),
        "answers": draw(st.lists(TEXT, max_size=9)),
    }


@settings(max_examples=300, deadline=None)
@given(st.lists(submissions(), max_size=6), st.sets(st.sampled_from(["lab-a/m-1", "lab-c/m&3"])))
def test_submission_rows_are_the_templates_bytes(subs, with_transcripts):
    assert submission_rows(subs, with_transcripts) == _jinja(SUBMISSION_LOOP, subs=subs, with_transcripts=with_transcripts)


@st.composite
def items(draw):
    correct, samples = draw(COUNTS)
    return {"id": draw(TEXT), "page": draw(st.sampled_from(["kcsat-2014-a-01", "x-6869"])), "correct": correct, "samples": samples}


@settings(max_examples=300, deadline=None)
@given(st.lists(items(), max_size=6))
def test_item_rows_are_the_templates_bytes(rows):
    assert item_rows(rows) == _jinja(ITEM_LOOP, rows=rows)


def test_a_lab_cannot_inject_markup_through_a_row():
    sub = {"submission": "lab-a/m-1", "anchor": "m-lab-a.m-1", "model": '<script>x</script>"', "lab": "<b>", "correct": 1, "samples": 1,
           "lab_correct": 1, "regraded": 0, "regrade_correct": None, "answers": ["</code><img src=x>"]}  # fmt: skip
    out = submission_rows([sub], set())
    assert "<script>" not in out and "<img" not in out and "<b>" not in out
    assert "&lt;script&gt;x&lt;/script&gt;&quot;" in out and "not regraded" in out
