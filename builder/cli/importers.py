"""``sealboard import inspect-ai | lm-eval | eee`` — results.jsonl and a run.yaml from harness logs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from builder.cli.common import progress, root_option, translate_errors
from builder.errors import BuilderError, ParseError
from builder.importers.limits import shown

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def _common(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--out",
            "out",
            type=click.Path(dir_okay=False, path_type=Path),
            default=Path("results.jsonl"),
            show_default=True,
            help="Where to write the results.",
        ),
        click.option(
            "--describe-out",
            type=click.Path(dir_okay=False, path_type=Path),
            default=Path("run.yaml"),
            show_default=True,
            help="Where to write the run.yaml skeleton.",
        ),
        click.option("--force", is_flag=True, help="Overwrite --out and --describe-out."),
        click.option("--lang", help="Language of every sample (when the log does not say), e.g. en."),
        click.option("--lang-field", default="lang", show_default=True, help="Per-sample field holding the language, when present."),
        click.option("--map", "map_path", type=_FILE, help="CSV: id in the log, benchmark item id (one pair per line)."),
        click.option(
            "--field",
            "fields",
            multiple=True,
            metavar="NAME=KEY",
            help="Copy a per-sample field into a result field, e.g. variant=variant (repeatable).",
        ),
        click.option("--benchmark", help="Check the imported results against this benchmark's dataset and config now."),
        click.option(
            "--no-gold",
            "no_gold",
            type=_FILE,
            metavar="ITEMS",
            help="You hold no gold answers: ITEMS is your opened item copy; samples of answer types the benchmark regrades are "
            "written ungraded (correct: null), Sealboard's regrade decides them. Needs --benchmark.",
        ),
        root_option,
    ]
    import functools

    @functools.wraps(func)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("no_gold") is not None and not kwargs.get("benchmark"):  # before any log is read
            raise click.UsageError("--no-gold needs --benchmark (its regraded answer types decide which samples are left ungraded)")
        return func(*args, **kwargs)

    for option in reversed(options):
        checked = option(checked)
    return checked


def _fields(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, key = value.partition("=")
        if not sep or not name or not key:
            raise click.BadParameter(f"{value!r} is not NAME=KEY", param_hint="--field")
        out[name] = key
    return out


def _finish(report: Any, out: Path, describe_out: Path, force: bool, benchmark: str | None, root: Path, no_gold: Path | None) -> None:
    from builder.importers.common import check_unique, write_outputs

    check_unique(report.rows, str(out))
    if no_gold is not None:
        from builder.bundles.create import benchmark_config
        from builder.importers.no_gold import leave_ungraded

        leave_ungraded(report, no_gold, benchmark_config(root, benchmark or "").scoring)
    write_outputs(report, out, describe_out, force=force)
    items = len({r["item"] for r in report.rows})
    langs = sorted({r["lang"] for r in report.rows})
    click.echo(
        f"Wrote {out}: {len(report.rows)} sample(s) of {items} item(s) in {', '.join(langs)}; and {describe_out} (check and complete it)."
    )
    for line in report.summary_lines():
        click.echo(f"  {shown(line)}")
    if benchmark:
        _check(out, benchmark, root)
    click.echo(
        f"Next: sealboard bundle create --benchmark {benchmark or '<benchmark>'} --lab <lab> --submission <id> --results {out} --describe {describe_out}"
    )


def _check(results: Path, benchmark: str, root: Path) -> None:
    from builder.bundles.coverage import load_dataset_manifest, measure
    from builder.bundles.create import benchmark_config
    from builder.bundles.results import parse_results

    config = benchmark_config(root, benchmark)
    data = results.read_bytes()
    frame = parse_results(data, str(results), config.scoring.results_extras())
    coverage = measure(frame, load_dataset_manifest(root, config.id, config.version), config.scoring, str(results), data)
    click.echo(
        f"Coverage OK for {config.id}: {coverage.items} items × {', '.join(coverage.languages)} × {coverage.samples} sample(s) = {coverage.rows} rows"
    )


def _escaped(func: Callable[..., Any]) -> Callable[..., Any]:
    """Every error message with its control characters escaped: a log's ids and field names
    (and a file's name) reach it, and a terminal escape sequence must not reach the terminal."""
    import functools

    from builder.importers.limits import shown

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BuilderError as exc:
            exc.message, exc.hint = shown(exc.message), exc.hint and shown(exc.hint)
            exc.where = exc.where and shown(exc.where)
            exc.args = (str(exc),)
            raise
        except RecursionError:  # a last guard: no traceback, whatever nesting got through
            raise ParseError("nests too deeply to import", reason="too-deep") from None

    return wrapper


def _guard(where: str, func: Callable[[], Any]) -> Any:
    """Logs are free-form JSON: a shape the reader did not expect is a clear error, not a traceback."""
    try:
        return func()
    except BuilderError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise ParseError(
            f"has a shape this importer does not understand ({type(exc).__name__})",
            where=where,
            reason="bad-log",
            hint="is it a log of the harness this command imports?",
        ) from None


@click.group("import")
def import_group() -> None:
    """Convert evaluation logs of common harnesses into results.jsonl and run.yaml."""


@import_group.command("inspect-ai")
@click.argument("logs", nargs=-1, required=True, type=_FILE)
@click.option("--id-field", help="Sample metadata field holding the item id (default: the sample id).")
@click.option("--scorer", help="The scorer whose answer and value are imported (default: the only one).")
@click.option(
    "--errored-as-incorrect", is_flag=True, help="Count a sample that ended in an error as an incorrect answer (default: refuse the log)."
)
@_common
@translate_errors
@_escaped
def inspect_command(
    logs: tuple[Path, ...],
    id_field: str | None,
    scorer: str | None,
    errored_as_incorrect: bool,
    out: Path,
    describe_out: Path,
    force: bool,
    lang: str | None,
    lang_field: str,
    map_path: Path | None,
    fields: tuple[str, ...],
    benchmark: str | None,
    no_gold: Path | None,
    root: Path,
) -> None:
    """Import inspect_ai logs (.eval or .json): one row per sample and epoch.

    \b
    Example:
      sealboard import inspect-ai logs/2026-11-30T12-00-00_soohak_*.eval --lang en --benchmark soohak
    """
    from builder.importers.common import IdMap
    from builder.importers.inspect_log import import_logs

    id_map = IdMap.load(map_path)
    progress(f"Reading {len(logs)} inspect log(s)…")
    report = _guard(
        str(logs[0]),
        lambda: import_logs(
            list(logs),
            lang=lang,
            lang_field=lang_field,
            id_field=id_field,
            id_map=id_map,
            scorer=scorer,
            fields=_fields(fields),
            errored_as_incorrect=errored_as_incorrect,
        ),
    )
    _finish(report, out, describe_out, force, benchmark, root, no_gold)


@import_group.command("lm-eval")
@click.argument("samples", nargs=-1, required=True, type=_FILE)
@click.option("--id-field", default="id", show_default=True, help="Field of each document holding the item id.")
@click.option("--metric", help="The per-document metric that says correct (1) or not (0) (default: the only one).")
@click.option("--filter", "filter_name", help="The filter whose responses are imported (default: the only one).")
@click.option("--grade-by-target", is_flag=True, help="With repeats > 1: a response is correct when it equals the target.")
@_common
@translate_errors
@_escaped
def lm_eval_command(
    samples: tuple[Path, ...],
    id_field: str,
    metric: str | None,
    filter_name: str | None,
    grade_by_target: bool,
    out: Path,
    describe_out: Path,
    force: bool,
    lang: str | None,
    lang_field: str,
    map_path: Path | None,
    fields: tuple[str, ...],
    benchmark: str | None,
    no_gold: Path | None,
    root: Path,
) -> None:
    """Import lm-evaluation-harness samples files (lm_eval --log_samples).

    Pass one file per sampling run to report several samples per item (sample 0 is the
    first file). The run.yaml comes from the results_<date>.json beside the first file.

    \b
    Example:
      sealboard import lm-eval out/*/samples_kcsat_*.jsonl --lang ko --benchmark kcsat-ml
    """
    from builder.importers.common import IdMap
    from builder.importers.lm_eval_samples import import_samples

    id_map = IdMap.load(map_path)
    progress(f"Reading {len(samples)} lm-eval samples file(s)…")
    report = _guard(
        str(samples[0]),
        lambda: import_samples(
            list(samples),
            lang=lang,
            lang_field=lang_field,
            id_field=id_field,
            id_map=id_map,
            metric=metric,
            filter_name=filter_name,
            grade_by_target=grade_by_target,
            fields=_fields(fields),
        ),
    )
    _finish(report, out, describe_out, force, benchmark, root, no_gold)


@import_group.command("eee")
@click.argument("files", nargs=-1, required=True, type=_FILE)
@click.option("--id-field", help="Sample metadata field holding the item id (default: sample_id).")
@click.option("--evaluation", help="The evaluation_result_id (or evaluation_name) imported (default: the only one).")
@click.option(
    "--errored",
    type=click.Choice(["refuse", "skip"]),
    default="refuse",
    show_default=True,
    help="Samples that ended in an error: stop, or leave them out (never scored as wrong).",
)
@_common
@translate_errors
def eee_command(
    files: tuple[Path, ...],
    id_field: str | None,
    evaluation: str | None,
    errored: str,
    out: Path,
    describe_out: Path,
    force: bool,
    lang: str | None,
    lang_field: str,
    map_path: Path | None,
    fields: tuple[str, ...],
    benchmark: str | None,
    no_gold: Path | None,
    root: Path,
) -> None:
    """Import Every Eval Ever instance-level JSONL (schema 0.3): one row per line. With
    --benchmark, the result fields it declares (LiveMathematicianBench's sketch and variant,
    KCSAT-ML's budget) are read from the metadata key of the same name and typed.

    \b
    Example:
      sealboard import eee data/livemathematicianbench/acme/model-x/*_samples.jsonl --benchmark livemathematicianbench
    """
    from builder.importers.common import IdMap
    from builder.importers.eee_instances import import_instances

    declared = None
    if benchmark:  # its declared result fields decide the metadata's types: read before any file
        from builder.bundles.create import benchmark_config

        declared = benchmark_config(root, benchmark).scoring.results_extras()
    id_map = IdMap.load(map_path)
    progress(f"Reading {len(files)} Every Eval Ever instance file(s)…")
    report = _guard(
        str(files[0]),
        lambda: import_instances(
            list(files),
            lang=lang,
            lang_field=lang_field,
            id_field=id_field,
            id_map=id_map,
            evaluation=evaluation,
            errored=errored,
            fields=_fields(fields),
            declared=declared,
        ),
    )
    _finish(report, out, describe_out, force, benchmark, root, no_gold)
