"""Opted-in transcripts of released items: read in the build, published as data and on item pages.

Only when a release in force publishes transcripts, only of submissions whose manifests
opted in (``publish_on_release.transcripts``), and only the lines of released items: the
rest of the file is never kept in memory. They are opened with the embargo key alone
(builder.bundles.sealing), so after a full release a no-secret rebuild publishes the same.
A transcript that quotes embargoed item text (in any field, in any disguise the lab-text
scan folds, or split over several transcripts) is dropped with its submission's other
transcripts (``screen_transcripts``), so one lab's text never takes the site down.

Published as ``data/<benchmark>/transcripts/<lab>/<submission>.jsonl`` (keys sorted, one
line per item, language and sample); item pages show them collapsed, escaped and cut to
``PAGE_CHARS`` characters, with a link to the full text.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from builder.bundles.ingest import Rejection
from builder.bundles.manifest import TRANSCRIPTS
from builder.bundles.results import categorical
from builder.bundles.sealing import BenchmarkKeys
from builder.bundles.transcripts import read_transcripts
from builder.errors import BuilderError
from builder.leakscan.fold import words
from builder.leakscan.labtext import lab_needles, scan_alone, scan_sequence
from builder.report.records import BenchmarkState

PAGE_CHARS = 4000  # of one transcript on an item page; the data file holds it whole


def publishes_transcripts(state: BenchmarkState) -> bool:
    return bool(state.released_items) and state.release is not None and state.verdicts.publishes("transcripts")


def read_released(state: BenchmarkState, keys: BenchmarkKeys, rejections: list[Rejection]) -> BenchmarkState:
    """The state with ``transcripts`` (submission -> rows of released items) filled."""
    if not publishes_transcripts(state):
        return state
    # lines only of items whose governing statement publishes transcripts
    released = {it["id"] for it in state.released_items} & state.verdicts.published_ids("transcripts")
    found: dict[str, tuple[dict[str, Any], ...]] = {}
    for bundle in state.bundles:
        if not bundle.manifest.publish_transcripts or TRANSCRIPTS not in bundle.files:
            continue
        where = f"{bundle.where}/{TRANSCRIPTS}"
        try:
            plain = keys.open(bundle.files[TRANSCRIPTS], True, where)
            rows = read_transcripts(
                plain,
                where,
                state.config.scoring.primary_language,
                released.__contains__,
                conditions=categorical(state.config.scoring.results_extras()),
            )
        except BuilderError as exc:
            rejections.append(
                Rejection(where, exc.reason, f"transcripts not published: {exc}", exc.hint, state.config.id, bundle.manifest.lab)
            )
            continue
        if rows:
            found[bundle.manifest.key] = tuple(sorted(rows, key=lambda r: (r["item"], r["lang"], r["sample"], *_condition_key(r))))
    return replace(state, transcripts=found)


def screen_transcripts(states: list[BenchmarkState], needles: Any) -> tuple[list[BenchmarkState], list[Rejection]]:
    """The states without a submission's transcripts if any of them quotes an embargoed item
    (its canary or question text), as written or disguised
    (:func:`builder.leakscan.labtext.scan_alone`), and the rejections saying so: released
    items' transcripts may quote other, still embargoed items."""
    if needles.empty:
        return states, []
    folded = lab_needles(needles.patterns, needles.labels)

    def quotes(text: str) -> bool:  # as written, then in every disguise (look-alike letters, spacing, base64 …)
        return needles.scan_text(text) is not None or scan_alone(text, folded) is not None

    def leaks(rows: tuple[dict[str, Any], ...]) -> bool:
        # Every published string of every line (the text, and lang, which is free text),
        # then the submission's transcripts read together: an excerpt split over several
        # samples or items, in order or word by word.
        if any(quotes(v) for r in rows for v in r.values() if isinstance(v, str)):
            return True
        return scan_sequence([words(r["text"]) for r in rows], folded) is not None

    out: list[BenchmarkState] = []
    rejections: list[Rejection] = []
    for state in states:
        leaky = {key for key, rows in state.transcripts.items() if leaks(rows)}
        by_key = {b.manifest.key: b for b in state.bundles}
        for key in sorted(leaky):
            bundle = by_key[key]
            where = f"{bundle.where}/{TRANSCRIPTS}"
            rejections.append(
                Rejection(
                    where,
                    "embargoed-text",
                    f"{where}: a transcript of a released item quotes embargoed item text; this submission's transcripts are not published",
                    "transcripts are published for released items only; the quoted item is still embargoed",
                    state.config.id,
                    bundle.manifest.lab,
                )
            )
        out.append(replace(state, transcripts={k: v for k, v in state.transcripts.items() if k not in leaky}) if leaky else state)
    return out, rejections


def published(state: BenchmarkState) -> dict[str, tuple[dict[str, Any], ...]]:
    """Transcripts to publish: opted in (read_released reads no other) and of submissions
    still on the site (builder.report.records.restrict drops a rejected one's)."""
    return state.transcripts if publishes_transcripts(state) else {}


def transcript_files(state: BenchmarkState) -> dict[str, bytes]:
    return {
        f"{state.config.id}/transcripts/{key}.jsonl": b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in rows)
        for key, rows in sorted(published(state).items())
    }


_BASE = ("item", "lang", "sample", "text")


def _condition_key(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The row's categorical fields (variant, sketch …) as sortable (name, value) pairs."""
    return sorted((k, str(v)) for k, v in row.items() if k not in _BASE)


def _shown(value: Any) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def by_item(state: BenchmarkState) -> dict[str, list[dict[str, Any]]]:
    """Item id -> what its page shows: submission, model, lab, lang, sample, its conditions
    (categorical fields, so two transcripts of one sample are told apart), text (cut), more;
    ``first`` marks a submission's first transcript of the item (the verdict row links it)."""
    models = {b.manifest.key: (b.manifest.model.name, b.manifest.lab) for b in state.bundles}
    out: dict[str, list[dict[str, Any]]] = {}
    for key, rows in sorted(published(state).items()):
        model, lab = models[key]
        seen: set[str] = set()
        for r in rows:
            text = r["text"]
            out.setdefault(r["item"], []).append(
                {
                    "submission": key,
                    "model": model,
                    "lab": lab,
                    "lang": r["lang"],
                    "sample": r["sample"],
                    "conditions": [(k, _shown(r[k])) for k, _ in _condition_key(r)],
                    "first": r["item"] not in seen,
                    "text": text[:PAGE_CHARS],
                    "more": max(0, len(text) - PAGE_CHARS),
                }
            )
            seen.add(r["item"])
    return out
