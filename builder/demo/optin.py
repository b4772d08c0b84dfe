"""What the demo's labs opt to publish at release (``publish_on_release``), so the demo
shows every case the sealing design has (builder.bundles.sealing):

- most submissions publish their per-item results; the ones in ``PRIVATE_RESULTS`` keep
  them private: sealed to the benchmark's private results key, scored by the authorised
  build, never opened by the embargo identity that KCSAT-ML's full release publishes;
- in every benchmark one submission publishes its transcripts and one keeps them private
  (``TRANSCRIPTS``). A demo transcript is one line per result row of sample 0:
  ``{"item", "lang", "sample", "text"}`` plus the row's categorical fields (variant, sketch),
  which tell its transcripts apart (synthetic text that never quotes the question).
"""

from __future__ import annotations

import gzip
from typing import Any

import orjson

PRIVATE_RESULTS = {
    "soohak": {"lab-claude/claude-sonnet-4-5"},
    "livemathematicianbench": {"lab-grok/grok-4-1-fast"},
    "kcsat-ml": {"lab-gpt/gpt-oss-20b-default-base", "lab-gpt/gpt-oss-20b-default-tts"},
}
# submission -> whether its transcripts are published at release
TRANSCRIPTS = {
    "soohak": {"lab-gpt/gpt-5-medium": True, "lab-claude/claude-sonnet-4-5": False},
    "livemathematicianbench": {"lab-gpt/gpt-5-4": True, "lab-grok/grok-4-1-fast": False},
    "kcsat-ml": {"lab-solar/solar-10-7b-instruct-v1-0-default-base": True, "lab-gpt/gpt-oss-20b-default-base": False},
}


def opt_in(benchmark: str, key: str) -> tuple[bool, bool]:
    """(publish results, publish transcripts) of the demo submission ``lab/submission``."""
    return key not in PRIVATE_RESULTS.get(benchmark, set()), TRANSCRIPTS.get(benchmark, {}).get(key, False)


def transcripts(benchmark: str, key: str, model: str, results: list[dict[str, Any]], conditions: tuple[str, ...] = ()) -> bytes | None:
    """The demo transcripts.jsonl.gz of a submission that has one (gzip without a time
    stamp, so the demo is reproducible), else None."""
    if key not in TRANSCRIPTS.get(benchmark, {}):
        return None
    lines = []
    for row in results:
        if row["sample"] != 0:
            continue
        answer = row.get("answer")
        text = (
            f"[synthetic transcript] {model} worked on item {row['item']} ({row['lang']}) and "
            + ("declined to answer." if answer is None else f"gave the final answer {answer}.")
        )
        named = {k: row[k] for k in conditions if row.get(k) is not None}
        lines.append(orjson.dumps({"item": row["item"], "lang": row["lang"], "sample": 0, **named, "text": text}) + b"\n")
    return gzip.compress(b"".join(lines), mtime=0)
