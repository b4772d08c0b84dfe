"""``sealboard import … --no-gold ITEMS``: a lab that holds the questions but not the gold answers.

Its harness graded every sample against an empty target, so every verdict it logged is
"incorrect": imported as they are, each regraded sample the model got right would show as a
disagreement with Sealboard on the grading board. With ``--no-gold`` the importer writes
``correct: null`` on the samples whose item is of an answer type the benchmark regrades
(read from the lab's own item copy, the opened ``keys/access`` file, since answer types are
embargoed; under the benchmark's ``regrade.when``), so Sealboard's verdict stands alone
there; samples of every other type (``ill_posed`` and judge-graded ones) keep the harness's
verdict, which the lab's judge decides without a gold answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builder.errors import ParseError
from builder.importers.common import ImportReport, read_capped
from builder.scoring.config_base import token
from builder.strict import iter_jsonl


def answer_types(copy: Path) -> dict[str, str]:
    """Item id -> answer type, from the lab's opened item copy (JSON Lines)."""
    out = {}
    for line, item in iter_jsonl(read_capped(copy), str(copy)):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("answer_type"), str):
            raise ParseError(
                "is not an item copy: each line needs an id and an answer_type",
                where=f"{copy}:{line}",
                reason="bad-item-copy",
                hint="pass the copy opened from keys/access/<benchmark>/<version>/<lab>.jsonl.age",
            )
        out[item["id"]] = item["answer_type"]
    return out


def leave_ungraded(report: ImportReport, copy: Path, scoring: Any) -> None:
    """Set ``correct`` to None on every row the benchmark's regrade decides; note how many."""
    types = answer_types(copy)
    regraded = set(scoring.regrade_types)
    when = list(scoring.regrade_when.equals)
    unknown = sorted({r["item"] for r in report.rows} - set(types))
    if unknown:
        raise ParseError(
            f"has no entry for {len(unknown)} item(s) of the results (first: {unknown[0]})",
            where=str(copy),
            reason="bad-item-copy",
            hint="pass the item copy of this benchmark's current version",
        )
    n = 0
    for row in report.rows:
        if types[row["item"]] in regraded and all(token(row.get(name)) in values for name, values in when):
            row["correct"] = None
            n += 1
    report.notes.append(
        f"{n} sample(s) of regraded answer types written ungraded (correct: null, --no-gold): Sealboard's regrade decides them; "
        f"{len(report.rows) - n} keep the harness's verdict"
    )
