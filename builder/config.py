"""Leaderboard configs: ``leaderboards/<benchmark>.yaml``, validated in one place.

A config says what a benchmark is (id, title, version, embargo recipient) and, under
``scoring:``, how it is scored (splits, samples, boards; see builder.scoring). Every
problem in a file is collected before failing, so a maintainer fixes them in one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import BuilderError, ConfigError
from builder.strict import IDENTIFIER_RE, loads_yaml

CONFIG_DIR = "leaderboards"
MAX_CONFIG_BYTES = 1 << 20
# Under embargo an aggregate is published rounded to this grid (a fraction: 0.05 = 5 points),
# so one changed answer moves no published number (see builder.scoring.engine).
DEFAULT_GRID = 0.05

# The submission budget (embargo.budget): how many bundles a lab may submit per window,
# enforced by the admission policy (builder.bundles.admission_policy) for build and validate.
DEFAULT_BUNDLES = 3
DEFAULT_WINDOW_DAYS = 30

# The benchmark's dataset on the Hugging Face Hub (``hf_dataset``), where its ``.eval_results``
# entries point: a repository id as huggingface_hub's validate_repo_id accepts one, the
# namespace required (an organisation or user owns a benchmark dataset): characters
# [A-Za-z0-9._-] in each part, neither starting nor ending with '.' or '-', no '--' or '..',
# not ending in '.git', at most 96 characters.
HF_DATASET_RE = re.compile(r"(?!.*(?:--|\.\.))[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
HF_ID_MAX = 96


def hf_dataset_problem(value: object) -> str | None:
    """Why ``value`` is not a Hub dataset id (``org/name``), or None."""
    if not isinstance(value, str):
        return "must be a string: the benchmark's Hugging Face dataset id, org/name"
    if len(value) > HF_ID_MAX or not HF_DATASET_RE.fullmatch(value) or value.endswith(".git"):
        return f"{value[:100]!r} is not a Hugging Face dataset id: org/name, letters, digits and . _ - (e.g. my-org/putnam-lite)"
    return None


@dataclass(frozen=True)
class Budget:
    bundles: int = DEFAULT_BUNDLES
    window_days: int = DEFAULT_WINDOW_DAYS

    def describe(self) -> str:
        return f"{self.bundles} submission(s) per lab per {self.window_days} days"


def parse_budget(value: object, where: str) -> Budget:
    """``embargo.budget`` of a leaderboard config: ``{bundles: int >= 1, window_days: int >= 1}``."""
    if value is None:
        return Budget()
    if not isinstance(value, dict) or set(value) - {"bundles", "window_days"}:
        raise ConfigError(
            "embargo.budget must be a mapping with bundles and window_days", where=where, hint="e.g. budget: {bundles: 3, window_days: 30}"
        )
    out = {}
    for key, default in (("bundles", DEFAULT_BUNDLES), ("window_days", DEFAULT_WINDOW_DAYS)):
        v = value.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 10_000:
            raise ConfigError(f"embargo.budget.{key} must be an integer from 1 to 10000", where=where)
        out[key] = v
    return Budget(**out)


_FIELDS = {
    "benchmark": "the benchmark id, equal to the file name (e.g. soohak)",
    "title": "the display title",
    "description": "one paragraph for the benchmark's page (optional)",
    "paper": "citation or URL of the paper that defines the metrics (optional)",
    "version": "the benchmark version that bundles must name in benchmark_version",
    "embargo_recipient": "the age recipient (age1…) that files published at release are sealed to (the dataset; opted-in results and transcripts)",
    "private_recipient": "the age recipient (age1…) of the private results key, never published: results and transcripts a lab does not opt to publish",
    "scoring": "boards, samples and breakdowns (see the Data page)",
    "embargo": "what a lab may submit and see during the embargo: budget {bundles, window_days}, grid (optional)",
    "hf_dataset": "the benchmark's dataset on the Hugging Face Hub, org/name: the site writes .eval_results entries for it (optional)",
}
_REQUIRED = {"benchmark", "title", "version", "embargo_recipient", "scoring"}


@dataclass(frozen=True)
class BenchmarkConfig:
    id: str
    title: str
    description: str
    paper: str
    version: str
    embargo_recipient: str
    scoring: Any  # builder.scoring.ScoringSpec
    path: str
    budget: Budget = Budget()  # per-lab submissions per window (builder.bundles.budget)
    embargo_grid: float | None = DEFAULT_GRID  # the Ladder's grid under embargo; None: exact (insecure)
    # The private results key (builder.bundles.sealing): never published, so what a lab keeps
    # private stays sealed after a full release publishes the embargo identity.
    private_recipient: str | None = None
    # Set on an earlier dataset version's config (builder.pipeline.earlier_versions): the
    # version that replaced it in leaderboards/<benchmark>.yaml. Its id is then
    # "<benchmark>@<version>", the folder its pages and data are published under.
    superseded_by: str | None = None
    # The benchmark's Hugging Face dataset (org/name): .eval_results entries name it
    # (builder.render.hf_results); without it none is written.
    hf_dataset: str | None = None

    @property
    def benchmark(self) -> str:
        """The benchmark's own id (bundles/<benchmark>/), an earlier version's included."""
        return benchmark_of(self.id)


# "<benchmark>@<version>": a benchmark id never holds "@" (IDENTIFIER_RE), so the folder of an
# earlier version can never be a benchmark's.
EARLIER_SEPARATOR = "@"


def benchmark_of(folder: str) -> str:
    """The benchmark a site folder (``<benchmark>`` or ``<benchmark>@<version>``) belongs to."""
    return folder.partition(EARLIER_SEPARATOR)[0]


def load_configs(root: Path) -> list[BenchmarkConfig]:
    """Load every ``leaderboards/*.yaml`` (release statements live beside them)."""
    directory = root / CONFIG_DIR
    if not directory.is_dir():
        raise ConfigError(f"no {CONFIG_DIR}/ directory", where=str(root), hint="run 'sealboard demo' to see a complete instance")
    configs = [load_config(p, root) for p in sorted(directory.glob("*.yaml")) if not p.is_symlink()]
    if not configs:
        raise ConfigError(f"{CONFIG_DIR}/ holds no benchmark config", where=str(directory), hint="add leaderboards/<benchmark>.yaml")
    return configs


def _key_problems(raw: dict[str, Any], where: str, stem: str) -> list[tuple[str, str]]:
    """(key, problem) for each top-level key of a config that is missing, unknown or wrong."""
    from builder.trust.seal import parse_recipient

    errors: list[tuple[str, str]] = []
    for key in sorted(set(raw) - set(_FIELDS)):
        errors.append((key, f"unknown key (allowed: {', '.join(_FIELDS)})"))
    for key in sorted(_REQUIRED - set(raw)):
        errors.append((key, f"missing: {_FIELDS[key]}"))
    for key in ("benchmark", "title", "version", "embargo_recipient", "private_recipient", "description", "paper"):
        if key in raw and not isinstance(raw[key], str):
            errors.append((key, "must be a string"))
    bench = raw.get("benchmark")
    if isinstance(bench, str):
        if not IDENTIFIER_RE.match(bench):
            errors.append(("benchmark", "must be 1–64 characters of a-z, 0-9 and '-'"))
        elif bench != stem:
            errors.append(("benchmark", f"is {bench!r} but the file is named {stem}.yaml; they must agree"))
    for key in ("embargo_recipient", "private_recipient"):
        if isinstance(raw.get(key), str):
            try:
                parse_recipient(raw[key], where)
            except BuilderError as exc:
                errors.append((key, exc.message))
    if "hf_dataset" in raw and (problem := hf_dataset_problem(raw["hf_dataset"])) is not None:
        errors.append(("hf_dataset", problem))
    if raw.get("private_recipient") is not None and raw.get("private_recipient") == raw.get("embargo_recipient"):
        errors.append(("private_recipient", "is the embargo recipient; it must be a key of its own, never published (age-keygen)"))
    return errors


def _embargo(embargo: Any, where: str, errors: list[tuple[str, str]]) -> tuple[Budget, float | None]:
    """The embargo's disclosure budget and grid (None: exact embargoed scores,
    insecure_exact_scores); a problem is added to `errors`."""
    budget = Budget()
    grid: float | None = DEFAULT_GRID
    if embargo is None:
        return budget, grid
    if not isinstance(embargo, dict) or set(embargo) - {"budget", "grid", "insecure_exact_scores"}:
        errors.append(("embargo", "must be a mapping with budget, grid and/or insecure_exact_scores"))
        return budget, grid
    try:
        budget = parse_budget(embargo.get("budget"), where)
    except ConfigError as exc:
        errors.append(("embargo", exc.message))
    g = embargo.get("grid", DEFAULT_GRID)
    if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0 < g <= 0.5:
        errors.append(("embargo", "grid must be a number in (0, 0.5], e.g. 0.05"))
    else:
        grid = float(g)
    # Exact embargoed scores let a lab recover the answer key by probing (see
    # builder.scoring.ladder): only for synthetic demos and tests of exact figures.
    exact = embargo.get("insecure_exact_scores", False)
    if not isinstance(exact, bool):
        errors.append(("embargo", "insecure_exact_scores must be true or false"))
    elif exact:
        grid = None
    return budget, grid


def load_config(path: Path, root: Path) -> BenchmarkConfig:
    where = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    return parse_config(path.read_bytes(), where, path.stem)


def parse_config(data: bytes, where: str, stem: str) -> BenchmarkConfig:
    """A config's bytes (a file's, or a past commit's: builder.pipeline.earlier_versions)."""
    from builder.scoring import parse_scoring_config

    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError("config is larger than 1 MiB", where=where)
    raw = loads_yaml(data, where)
    if not isinstance(raw, dict):
        raise ConfigError("a benchmark config must be a mapping", where=where)

    errors = _key_problems(raw, where, stem)
    bench = raw.get("benchmark")
    scoring = None
    if isinstance(raw.get("scoring"), dict):
        try:
            scoring = parse_scoring_config(raw["scoring"], where, benchmark=bench if isinstance(bench, str) else None)
        except ConfigError as exc:
            errors.append(("scoring", exc.message))
    elif "scoring" in raw:
        errors.append(("scoring", "must be a mapping"))
    budget, grid = _embargo(raw.get("embargo"), where, errors)
    if errors:
        listing = "; ".join(f"{key}: {msg}" for key, msg in errors)
        raise ConfigError(f"{len(errors)} problem(s): {listing}", where=where, hint="see the Data page for the config keys")
    return BenchmarkConfig(
        id=raw["benchmark"],
        title=raw["title"],
        description=raw.get("description", ""),
        paper=raw.get("paper", ""),
        version=raw["version"],
        embargo_recipient=raw["embargo_recipient"],
        scoring=scoring,
        path=where,
        budget=budget,
        embargo_grid=grid,
        private_recipient=raw.get("private_recipient"),
        hf_dataset=raw.get("hf_dataset"),
    )
