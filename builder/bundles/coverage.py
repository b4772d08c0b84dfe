"""Coverage: do a bundle's results answer exactly what the benchmark asks?

A complete submission has, for every item of the benchmark's dataset (its public manifest
lists the ids and splits), for the primary language and for every other declared language
it reports, and for every combination of the benchmark's categorical result fields it
reports (e.g. LiveMathematicianBench ``variant`` × ``sketch``), exactly ``samples`` samples
numbered ``0 … samples-1``. Anything less is refused, because a partial submission would
be scored on fewer items than its neighbours on the same board.

Three places run these checks, with the same reasons:

- ``sealboard bundle create`` measures the plaintext (:func:`measure`) and signs the
  summary into the manifest (:class:`builder.bundles.manifest.Coverage`);
- ``sealboard bundle verify`` and PR validation check that summary against the public
  dataset manifest and the config, with no secret (:func:`check_summary`);
- the authorised build measures the decrypted plaintext again and rejects a bundle whose
  results are incomplete or disagree with its signed summary (:func:`check_unsealed`).

Stable reasons: ``unknown-item``, ``undeclared-language``, ``wrong-sample-count``,
``incomplete-coverage``, ``bad-variant``, ``coverage-mismatch``, ``missing-coverage``,
``missing-dataset``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.bundles.dataset import DatasetManifest, parse_dataset_manifest, verify_dataset
from builder.bundles.ingest import DATASET_DIR, read_bundle
from builder.bundles.manifest import MANIFEST, Coverage, Manifest
from builder.errors import BundleError, ResultsError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

SHOW = 5  # ids quoted in a message; the count says how many more


def variant_fields(spec: Any) -> list[str]:
    """The categorical result fields (enum or bool) that make one sample a distinct run."""
    return sorted(name for name, t in spec.result_fields.items() if t.kind in ("enum", "bool"))


def default_variant(spec: Any) -> tuple[tuple[str, Any], ...]:
    """The combination every board uses unless it says otherwise (``result_defaults``)."""
    defaults = dict(spec.result_defaults.equals)
    out = []
    for name in variant_fields(spec):
        value = defaults[name][0] if name in defaults else None
        # Filters hold tokens as written in YAML; a bool field's token is "true"/"false".
        if spec.result_fields[name].kind == "bool" and isinstance(value, str):
            value = value == "true"
        out.append((name, value))
    return tuple(out)


def _ids(values: Sequence[str] | Any) -> str:
    values = sorted(values)
    shown = ", ".join(values[:SHOW])
    return shown + (f" and {len(values) - SHOW} more" if len(values) > SHOW else "")


def _label(lang: str, combo: tuple[tuple[str, Any], ...]) -> str:
    return lang + "".join(f", {k}={_value(v)}" for k, v in combo)


def _value(v: Any) -> str:
    return "null" if v is None else ("true" if v is True else "false" if v is False else str(v))


def _by_split(missing: Sequence[str], dataset: DatasetManifest) -> str:
    counts: dict[str, int] = {}
    for item in missing:
        split = dataset.item_splits[item]
        counts[split] = counts.get(split, 0) + 1
    return ", ".join(f"{split} {counts[split]} of {dataset.splits[split]}" for split in dataset.splits if split in counts)


def _factorize(column: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """(codes, values): plain Python values (str, bool) with None appended last for missing
    ones, and each row's index into them."""
    import numpy as np
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        # The build's frames (builder.bundles.unseal): the codes are already there. Unused
        # categories only add values no row points to.
        codes, values = column.cat.codes.to_numpy(), column.cat.categories.tolist() + [None]
        return np.where(codes < 0, len(values) - 1, codes).astype(np.int64, copy=False), values
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    # tolist() of an object array: one conversion, not a Python step per Arrow element
    values = np.asarray(uniques, dtype=object).tolist() + [None]
    codes = np.asarray(codes, dtype=np.int64)
    return np.where(codes < 0, len(values) - 1, codes), values


def load_dataset_manifest(root: Path, benchmark: str, version: str) -> DatasetManifest:
    """The public manifest of the dataset a bundle for ``benchmark`` ``version`` must cover."""
    rel = f"bundles/{benchmark}/{DATASET_DIR}/{version}/{MANIFEST}"
    path = root / rel
    if not path.is_file():
        raise BundleError(
            f"no dataset manifest for {benchmark} version {version}, so coverage cannot be checked",
            where=rel,
            reason="missing-dataset",
            hint="update your checkout of the leaderboard repository; maintainers publish it with 'sealboard dataset create'",
        )
    manifest = parse_dataset_manifest(path.read_bytes(), rel)
    if manifest.benchmark != benchmark or manifest.version != version:
        raise BundleError("names another benchmark or version than its directory", where=rel, reason="misplaced")
    return manifest


def check_against_dataset(manifest: Manifest, root: Path, spec: Any, registry: Any, now: Any, where: str) -> None:
    """Check a manifest's signed coverage summary against the benchmark's dataset bundle in
    ``root`` (verified: signed by a maintainer, digests matching), without any secret."""
    load_dataset_manifest(root, manifest.benchmark, manifest.benchmark_version)  # a clear missing-dataset error first
    rel = f"bundles/{manifest.benchmark}/{DATASET_DIR}/{manifest.benchmark_version}"
    dataset = verify_dataset(read_bundle(root / rel, rel, manifest.benchmark, DATASET_DIR), registry, now=now)
    check_summary(manifest.coverage, dataset.manifest, spec, where)


def measure(frame: pd.DataFrame, dataset: DatasetManifest, spec: Any, where: str, data: bytes | None = None) -> Coverage:
    """Check parsed results (builder.bundles.results.parse_results) for complete coverage.

    ``data`` (the plaintext) lets errors name the line of the first offending row.
    """
    # Only measuring a frame needs numpy and pandas: the summary checks (`bundle verify`,
    # the pull-request check) run without loading them.
    import numpy as np

    from builder.bundles.results import line_of_row

    k = spec.samples

    def line(mask: np.ndarray) -> int | None:
        return line_of_row(data, int(mask.argmax())) if data is not None else None

    # Per-row checks go through the few distinct values (pandas.factorize stays in C++ for
    # Arrow strings): a bundle has thousands of rows but about a thousand items, a handful
    # of languages and variants, and this runs once per bundle (in the build's unseal workers).
    item_codes, item_names = _factorize(frame["item"])
    known = np.array([name in dataset.item_splits for name in item_names])[item_codes]
    if not known.all():
        unknown = set(frame["item"][~known])
        raise ResultsError(
            f"{len(unknown)} item id(s) are not in the {spec.benchmark} dataset {dataset.version}: {_ids(unknown)}",
            where=where,
            line=line(~known),
            reason="unknown-item",
            hint="use the ids of the dataset you received (they are listed in the dataset bundle's manifest.json)",
        )
    lang_codes, lang_names = _factorize(frame["lang"])
    declared = np.array([name in spec.languages for name in lang_names])[lang_codes]
    if not declared.all():
        bad = sorted(set(frame["lang"].to_numpy(dtype=object)[~declared]))
        raise ResultsError(
            f"language(s) {', '.join(map(repr, bad))} are not declared by {spec.benchmark}; it declares {', '.join(spec.languages)}",
            where=where,
            line=line(~declared),
            reason="undeclared-language",
            hint=f"write lang exactly as declared (e.g. {spec.primary_language!r}, not a regional variant)",
        )
    samples = frame["sample"].to_numpy()
    over = samples >= k
    if over.any():
        i = int(over.argmax())
        raise ResultsError(
            f"item {frame['item'].iat[i]!r} has sample {int(samples[i])}, but {spec.benchmark} takes exactly {k} sample(s) per item and language, numbered 0–{k - 1}",
            where=where,
            line=line(over),
            reason="wrong-sample-count",
            hint=f"report samples 0 to {k - 1} for every item",
        )

    fields = variant_fields(spec)
    keys = ["lang", *fields]
    # One integer per (lang, variant…) combination, then one bincount of (combination,
    # item): the samples each item has in each combination. Absent fields are None.
    combined = np.zeros(len(frame), dtype=np.int64)
    values_of = []
    for name in keys:
        codes, values = (lang_codes, lang_names) if name == "lang" else _factorize(frame[name])
        values_of.append(values)
        combined = combined * len(values) + codes
    combos_present, combo_of_row = np.unique(combined, return_inverse=True)
    n_names = len(item_names)
    counts_of = np.bincount(combo_of_row.ravel() * n_names + item_codes, minlength=len(combos_present) * n_names).reshape(-1, n_names)
    names = np.asarray(item_names[:-1], dtype=object)
    # (lang, variant combination) -> samples per item name (every name a dataset item, checked above)
    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], np.ndarray] = {}
    for g, code in enumerate(combos_present.tolist()):
        parts = []
        for values in reversed(values_of):
            code, r = divmod(code, len(values))
            parts.append(values[r])
        lang, *rest = reversed(parts)
        groups[(lang, tuple(zip(fields, rest)))] = counts_of[g, :-1]
    present_langs = sorted({lang for lang, _ in groups})
    combos = sorted({combo for _, combo in groups}, key=repr)
    primary = spec.primary_language
    if primary not in present_langs:
        raise ResultsError(
            f"no samples in {primary!r}, the primary language of {spec.benchmark}; every board is computed from it",
            where=where,
            reason="incomplete-coverage",
            hint=f"run every item in {primary!r}; other declared languages ({', '.join(spec.languages)}) are optional but must then be complete",
        )
    default = default_variant(spec)
    if fields and default not in combos:
        raise ResultsError(
            f"no samples with {_label(primary, default)[len(primary) + 2 :]}, the combination the boards use by default",
            where=where,
            reason="bad-variant",
            hint="set these result fields explicitly on every row of the default run",
        )
    for lang in present_langs:
        for combo in combos:
            counts = groups.get((lang, combo))
            if counts is None:
                raise ResultsError(
                    f"{_label(lang, combo)}: no samples, but other rows report this language and this variant combination; every language × variant reported must be complete",
                    where=where,
                    reason="incomplete-coverage",
                    hint="run the missing combination or drop the partial one",
                )
            present = counts > 0
            short = present & (counts != k)
            if short.any():
                item = min(names[short])
                raise ResultsError(
                    f"{_label(lang, combo)}: {int(short.sum())} item(s) do not have exactly {k} sample(s): {_ids(names[short])} (e.g. {item!r} has {int(counts[names == item][0])})",
                    where=where,
                    reason="wrong-sample-count",
                    hint=f"report samples 0 to {k - 1} for every item",
                )
            # Names are distinct dataset items: as many present as the dataset has means all.
            if int(present.sum()) != len(dataset.item_splits):
                missing = sorted(set(dataset.item_splits) - set(names[present].tolist()))
                raise ResultsError(
                    f"{_label(lang, combo)}: {len(missing)} of {len(dataset.item_splits)} items have no samples ({_by_split(missing, dataset)}): {_ids(missing)}",
                    where=where,
                    reason="incomplete-coverage",
                    hint="a submission covers every item of the dataset; partial submissions are refused",
                )
    return Coverage(
        dataset=dataset.version,
        items=len(dataset.item_splits),
        splits=tuple(sorted(dataset.splits.items())),
        languages=tuple(present_langs),
        variants=tuple(c for c in combos) if fields else (),
        samples=k,
        rows=len(frame),
    )


def check_summary(coverage: Coverage | None, dataset: DatasetManifest, spec: Any, where: str) -> None:
    """Check a signed coverage summary against the public dataset manifest and config (no secret)."""
    if coverage is None:
        raise BundleError(
            "the manifest has no coverage summary",
            where=where,
            reason="missing-coverage",
            hint="recreate the bundle with a current 'sealboard bundle create', which checks and records coverage",
        )

    def fail(message: str, reason: str, hint: str | None = None) -> None:
        raise BundleError(f"coverage: {message}", where=where, reason=reason, hint=hint)

    if coverage.dataset != dataset.version:
        fail(
            f"covers dataset {coverage.dataset!r}, but the benchmark is at {dataset.version!r}",
            "coverage-mismatch",
            "recreate the bundle against the current dataset",
        )
    expected_splits = tuple(sorted((s, n) for s, n in dataset.splits.items() if n))
    have_splits = tuple((s, n) for s, n in coverage.splits if n)
    if coverage.items != len(dataset.item_splits) or have_splits != expected_splits:
        fail(
            f"covers {coverage.items} item(s) ({', '.join(f'{s} {n}' for s, n in have_splits)}); the dataset has {len(dataset.item_splits)} ({', '.join(f'{s} {n}' for s, n in expected_splits)})",
            "incomplete-coverage",
            "a submission covers every item of the dataset",
        )
    undeclared = [lang for lang in coverage.languages if lang not in spec.languages]
    if undeclared:
        fail(
            f"language(s) {', '.join(undeclared)} are not declared; {spec.benchmark} declares {', '.join(spec.languages)}",
            "undeclared-language",
        )
    if spec.primary_language not in coverage.languages:
        fail(f"does not cover the primary language {spec.primary_language!r}", "incomplete-coverage")
    if coverage.samples != spec.samples:
        fail(f"records {coverage.samples} sample(s) per item; {spec.benchmark} takes exactly {spec.samples}", "wrong-sample-count")
    variants = _variant_problem(coverage, spec)
    if variants is not None:
        fail(variants, "bad-variant")
    expected_rows = coverage.items * len(coverage.languages) * max(1, len(coverage.variants)) * coverage.samples
    if coverage.rows != expected_rows:
        fail(f"records {coverage.rows} row(s); items × languages × variants × samples is {expected_rows}", "coverage-mismatch")


def _variant_problem(coverage: Coverage, spec: Any) -> str | None:
    """What is wrong with the summary's variants (combinations of the categorical result
    fields, the default one among them), or None."""
    fields = variant_fields(spec)
    if not fields:
        return f"lists variants, but {spec.benchmark} has no categorical result fields" if coverage.variants else None
    allowed = {name: (t.values if t.kind == "enum" else (True, False)) for name, t in spec.result_fields.items() if name in fields}
    for combo in coverage.variants:
        names = [name for name, _ in combo]
        if names != fields or not all(v is None or v in allowed[name] for name, v in combo):
            return f"variant {dict(combo)} is not a combination of {', '.join(fields)}"
    if default_variant(spec) not in coverage.variants:
        return f"does not cover the default combination {dict(default_variant(spec))}"
    return None


def check_unsealed(
    manifest: Manifest, frame: pd.DataFrame, dataset: DatasetManifest, spec: Any, where: str, data: bytes | None = None
) -> Coverage:
    """The build's check after unsealing: complete, and what the lab signed (when it did).

    ``data`` (the plaintext) lets errors name the line of the first offending row."""
    measured = measure(frame, dataset, spec, where, data)
    signed = manifest.coverage
    if signed is not None and signed != measured:
        diffs = [
            name
            for name in ("dataset", "items", "splits", "languages", "variants", "samples", "rows")
            if getattr(signed, name) != getattr(measured, name)
        ]
        raise ResultsError(
            f"the decrypted results disagree with the manifest's signed coverage summary ({', '.join(diffs)})",
            where=where,
            reason="coverage-mismatch",
            hint="recreate the bundle with 'sealboard bundle create' from the results you mean to submit",
        )
    return measured
