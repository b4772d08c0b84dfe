"""The duplicate rule: one ranked row per run, one lab per model name.

Applied identically by the build (over every verified bundle) and by ``sealboard validate``
(over every bundle in the pull request's head tree), to signed manifest facts only, so no
identity is needed. Bundles are taken in order of admission: bundles already in the
repository first (in the build, by the commit that admitted them; in ``validate``, every
base-revision bundle precedes the pull request's), then by ``created``, then by path. A
lab-written ``created`` therefore cannot jump ahead of a bundle already admitted.

- ``duplicate-submission``: a bundle whose sealed results file has the same SHA-256 as an
  earlier bundle's of the same benchmark (a byte-for-byte clone, whoever signs it: another
  lab cannot re-seal a copy, as it cannot decrypt), or a lab's second bundle of the same
  run, i.e. the same ``model.id``, configuration (reasoning effort, thinking, temperature,
  max output tokens, TTS), harness and judge on the same benchmark. Only the earlier one
  is ranked.
- ``model-name-taken``: a bundle whose model display name (compared case-folded, NFKC) is
  already used by another lab's earlier bundle, on any benchmark. A lab may reuse its own.

The build alone (it holds the plaintext) adds one more, after unsealing: a re-sealed clone
(builder.bundles.clones).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from builder.bundles.manifest import MANIFEST, RESULTS, Manifest
from builder.errors import BundleError


@dataclass(frozen=True)
class Candidate:
    """One bundle as the rule sees it. ``admitted``: when it entered the repository, if known."""

    where: str
    manifest: Manifest
    admitted: datetime | None = None


def _order(c: Candidate) -> tuple:
    m = c.manifest
    return (c.admitted is None, c.admitted or m.created, m.created, c.where)


def admission_order(candidates: Iterable[Candidate]) -> list[str]:
    """Bundle paths, earliest admitted first: the order every duplicate rule keeps the first of."""
    return [c.where for c in sorted(candidates, key=_order)]


def _run(m: Manifest) -> tuple:
    cfg = m.config
    return (m.benchmark, m.lab, m.model.id, cfg.reasoning_effort, cfg.thinking, cfg.temperature, cfg.max_output_tokens, cfg.tts,
            m.harness_name, m.harness_version, m.judge)  # fmt: skip


def name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def find_duplicates(candidates: Iterable[Candidate]) -> dict[str, BundleError]:
    """``where`` -> the error for every bundle the rule refuses (the earlier ones pass)."""
    results: dict[tuple[str, str], str] = {}
    runs: dict[tuple, str] = {}
    names: dict[str, tuple[str, str]] = {}
    refused: dict[str, BundleError] = {}
    for c in sorted(candidates, key=_order):
        m = c.manifest
        entry = m.file(RESULTS)
        digest = (m.benchmark, entry.sha256 if entry else "")
        where = f"{c.where}/{MANIFEST}"
        hint = "withdraw the copy; a different run needs its own model id or configuration"
        if entry is not None and digest in results:
            refused[c.where] = BundleError(f"its results file is byte-for-byte that of {results[digest]}; only the earlier is ranked",
                                           where=where, reason="duplicate-submission", hint=hint)  # fmt: skip
            continue
        if _run(m) in runs:
            refused[c.where] = BundleError(
                f"it is the same run (model.id, configuration, harness and judge) as {runs[_run(m)]}; only the earlier is ranked",
                where=where, reason="duplicate-submission", hint=hint)  # fmt: skip
            continue
        owner = names.get(name_key(m.model.name))
        if owner is not None and owner[0] != m.lab:
            refused[c.where] = BundleError(
                f"model.name {m.model.name!r} is already used by lab {owner[0]!r} ({owner[1]})",
                where=where, reason="model-name-taken", hint="name the model so that visitors can tell whose run it is")  # fmt: skip
            continue
        if entry is not None:
            results[digest] = c.where
        runs[_run(m)] = c.where
        names.setdefault(name_key(m.model.name), (m.lab, c.where))
    return refused
