"""Per-benchmark steps of the build that sit between verification and rendering."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from builder.bundles.admissions import Admissions
from builder.bundles.clones import content_fingerprints, find_clones
from builder.bundles.dataset import ITEM_METADATA, VerifiedDataset, unseal_items
from builder.bundles.ingest import DATASET_DIR, RawBundle, Rejection
from builder.bundles.manifest import RESULTS
from builder.bundles.results import ResultsLimits
from builder.bundles.sealing import BenchmarkKeys
from builder.bundles.unseal import Columns, Expected, concat_results, unseal_many
from builder.bundles.verify import VerifiedBundle
from builder.config import BenchmarkConfig
from builder.errors import BuilderError
from builder.pipeline.isolation import isolate, rejection
from builder.pipeline.labels import distinct_models
from builder.release.apply import apply_release
from builder.release.dataset_admission import verify_dataset_admitted
from builder.release.transcripts import read_released
from builder.report.records import BenchmarkState, restrict
from builder.trust.registry import Registry
from builder.trust.seal import Identity


def verify_datasets(
    raws: dict[str, list[RawBundle]],
    registry: Registry,
    now: datetime,
    root: Path | None = None,
    admissions: Admissions | None = None,
) -> tuple[dict[str, dict[str, VerifiedDataset]], list[Rejection]]:
    """Verify every dataset bundle, its signers judged at its git admission
    (builder.release.dataset_admission); returns benchmark -> version -> dataset, and the
    rejections of the datasets that fail."""
    out: dict[str, dict[str, VerifiedDataset]] = {}
    rejections: list[Rejection] = []
    for benchmark, bundles in raws.items():
        for raw in bundles:
            if raw.owner != DATASET_DIR:
                continue
            try:
                out.setdefault(benchmark, {})[raw.name] = verify_dataset_admitted(raw, registry, now=now, root=root, admissions=admissions)
            except BuilderError as exc:
                rejections.append(Rejection(exc.where or raw.where, exc.reason, str(exc), exc.hint, benchmark, DATASET_DIR))
    return out, rejections


def submissions_frame(bundles: list[VerifiedBundle] | tuple[VerifiedBundle, ...]) -> pd.DataFrame:
    rows = []
    for b in bundles:
        m = b.manifest
        rows.append(
            {
                "submission": m.key,
                "lab": m.lab,
                "model_id": m.model.id,
                "model": m.model.name,
                "family": m.model.family,
                "open_weights": m.model.open_weights,
                "params_b": m.model.params_b,
                "active_params_b": m.model.active_params_b,
                "training_cutoff": pd.Timestamp(m.model.training_cutoff) if m.model.training_cutoff else pd.NaT,
                "release_date": pd.Timestamp(m.model.release_date) if m.model.release_date else pd.NaT,
                "reasoning": m.config.reasoning_effort,
                "thinking": m.config.thinking,
                "temperature": m.config.temperature,
                "max_output_tokens": m.config.max_output_tokens,
                "tts": m.config.tts,
                "harness": f"{m.harness_name} {m.harness_version}",
                "judge": m.judge,
                "created": m.created,
                "signer": b.signer,
            }
        )
    columns = ["submission", "lab", "model_id", "model", "family", "open_weights", "params_b", "tts"]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    frame["model"] = distinct_models(frame)  # same name twice on a board: qualified, once, here
    return frame


def items_frame(items: list[dict[str, Any]], primary_language: str) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "item": [it["id"] for it in items],
            "split": [it["split"] for it in items],
            "answer_type": [it["answer_type"] for it in items],
            "gold": [it["answer"].get(primary_language, next(iter(it["answer"].values()))) for it in items],
        }
    )
    for key in ITEM_METADATA:
        if any(key in it for it in items):
            frame[key] = [it.get(key) for it in items]
    if "published" in frame:
        frame["published"] = pd.to_datetime(frame["published"])
    return frame


def unseal_state(
    config: BenchmarkConfig,
    bundles: list[VerifiedBundle],
    datasets: dict[str, VerifiedDataset] | None,
    identities: list[Identity],
    rejections: list[Rejection],
    release: Any = None,
) -> BenchmarkState:
    dataset = (datasets or {}).get(config.version)
    keys = BenchmarkKeys.select(identities, config)  # embargo and private key, kept apart
    authorised = bool(keys.embargo)
    state = BenchmarkState(
        config=config,
        status="embargoed" if authorised else "sealed",
        bundles=tuple(bundles),
        dataset_where=dataset.where if dataset else None,
        dataset_commitments=dict(dataset.manifest.commitments) if dataset else {},
        submissions=submissions_frame(bundles),
        release=release,
    )
    if not authorised:
        return state
    if dataset is None:
        rejections.append(
            Rejection(
                f"bundles/{config.id}/{DATASET_DIR}/{config.version}",
                "missing-dataset",
                f"no verified dataset bundle for {config.id} version {config.version}; its boards cannot be scored",
                "add the signed dataset bundle for this version",
                config.id,
            )
        )
        return replace(state, status="sealed")

    try:
        items = unseal_items(dataset, keys.embargo)
    except Exception as exc:  # any failure of the dataset is the benchmark's, named
        failed = rejection(exc, where=dataset.where, stage="unseal", benchmark=config.id, lab=DATASET_DIR)
        rejections.append(failed)
        # the failure's hint: a BuilderError's own, or the generic one for any other exception
        # (which has no .hint: reading it here would crash the build this except contains)
        rejections.append(
            Rejection(
                dataset.where,
                "missing-dataset",
                f"the dataset of {config.id} version {config.version} cannot be read; its boards cannot be scored",
                failed.hint,
                config.id,
            )
        )
        return replace(state, status="sealed")
    spec = config.scoring
    item_ids = tuple(it["id"] for it in items)
    limits = ResultsLimits.for_benchmark(len(item_ids), len(spec.languages), spec.samples, spec.results_extras())
    expected = Expected(dataset=dataset.manifest, spec=spec, item_ids=item_ids, limits=limits)
    kept: list[VerifiedBundle] = []
    parts: list[Columns] = []
    bundles = keys.refuse_leaky_transcripts(bundles, rejections)
    for bundle, outcome in _unseal_isolated(bundles, keys, expected):
        if isinstance(outcome, Exception):
            rejections.append(rejection(outcome, where=bundle.where, stage="unseal", benchmark=config.id, lab=bundle.manifest.lab))
        else:
            parts.append(outcome)
            kept.append(bundle)
    results = concat_results(kept, parts, expected) if parts else None
    embargoed_text = tuple((it["id"], it["canary"], tuple(it["question"].values())) for it in items)
    # A release in force publishes its scope (builder.release.apply); the rest stays guarded.
    state = apply_release(
        replace(
            state,
            bundles=tuple(kept),
            submissions=state.submissions if tuple(kept) == state.bundles else submissions_frame(kept),
            items=items_frame(items, spec.primary_language),
            results=results,
            embargoed_text=embargoed_text,
        ),
        items,
        release,
    )
    return read_released(state, keys, rejections)  # opted-in transcripts, if the release publishes them


def reject_clones(state: BenchmarkState, admitted_first: list[str], rejections: list[Rejection]) -> BenchmarkState:
    """Refuse re-sealed clones (builder.bundles.duplicates): results row for row an earlier bundle's."""
    by_key = {b.manifest.key: b for b in state.bundles}
    key_of = {b.where: b.manifest.key for b in state.bundles}
    clones = find_clones(content_fingerprints(state.results), [key_of[w] for w in admitted_first if w in key_of])
    if not clones:
        return state
    for later, earlier in clones.items():
        bundle = by_key[later]
        where = f"{bundle.where}/{RESULTS}"
        rejections.append(
            Rejection(
                where,
                "duplicate-submission",
                f"{where}: its results are, row for row, those of {by_key[earlier].where} (re-sealed or re-configured); only the earlier is ranked",
                "withdraw the copy; a different run has its own results",
                state.config.id,
                bundle.manifest.lab,
            )
        )
    return restrict(state, set(by_key) - set(clones))


def _unseal_isolated(
    bundles: list[VerifiedBundle], keys: BenchmarkKeys, expected: Expected
) -> Iterator[tuple[VerifiedBundle, Columns | Exception]]:
    """unseal_many, with any exception that escapes it pinned on one bundle.

    unseal_many yields a bundle's own BuilderError; anything else breaks the batch. Then the
    bundles not yet yielded are unsealed one at a time, so the failure lands on its bundle.
    """
    done = 0
    try:
        for bundle, outcome in unseal_many(bundles, keys, expected):
            done += 1
            yield bundle, outcome
        return
    except Exception:
        pass
    for bundle in bundles[done:]:
        try:
            yield from unseal_many([bundle], keys, expected)
        except Exception as exc:
            yield bundle, exc


def score_states(states: list[BenchmarkState]) -> tuple[list[BenchmarkState], list[Rejection]]:
    """Every benchmark scored, each within its isolation boundary; and the rejections of the
    submissions (or benchmarks) scoring could not take."""
    scored: list[BenchmarkState] = []
    rejections: list[Rejection] = []
    for state in states:
        if state.status == "sealed" or state.results is None:
            scored.append(state)
            continue
        try:
            scored.append(isolate(state, score_one, stage="score", rejections=rejections))
        except Exception as exc:
            # Not traceable to a submission (the dataset or config contradicts the scoring
            # declaration, or only a combination of submissions fails): this benchmark
            # publishes no scores, the others still build.
            rejections.append(rejection(exc, where=str(state.config.path), stage="score", benchmark=state.config.id, lab=None))
            scored.append(replace(state, boards=()))
    return scored, rejections


def score_one(state: BenchmarkState) -> BenchmarkState:
    """Score one benchmark. Its data files are written by the render stage, which has its
    own isolation boundary (builder.pipeline.isolation.isolate_render): a row that cannot
    be written rejects its submission there."""
    from builder.scoring import score_benchmark

    boards = score_benchmark(
        state.config.scoring,
        state.items,
        state.results,
        state.submissions,
        embargoed=state.status != "released",
        grid=state.config.embargo_grid,
        # a partial release lifts suppression for its published items only (the audit
        # treats them as constants; builder.scoring.disclosure)
        released=[it["id"] for it in state.released_items],
        verdicts=state.regrade_verdicts,
    )
    return replace(state, boards=tuple(boards))
