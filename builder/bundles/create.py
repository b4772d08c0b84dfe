"""The lab side of result bundles: create, sign and check one before opening a PR."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from builder.bundles.ingest import read_bundle
from builder.bundles.manifest import MANIFEST, RESULTS, SIGNATURE, TRANSCRIPTS, dump_manifest, manifest_dict, parse_manifest
from builder.bundles.sealing import recipients_for
from builder.bundles.transcripts import read_transcripts
from builder.bundles.verify import VerifiedBundle, verify_bundle
from builder.config import CONFIG_DIR, BenchmarkConfig, load_config
from builder.errors import BuilderError, BundleError, ConfigError
from builder.strict import IDENTIFIER_RE, check_fields, loads_yaml
from builder.trust.registry import Registry
from builder.trust.seal import seal
from builder.trust.sshkeys import PrivateKey
from builder.trust.sshsig import NS_BUNDLE, sign

# What a lab describes about its run (the rest of the manifest is computed).
DESCRIPTION_FIELDS = {"model", "config", "harness", "judge", "publish_on_release"}


@dataclass(frozen=True)
class Description:
    model: dict[str, Any]
    config: dict[str, Any]
    harness: dict[str, Any]
    judge: str | None
    publish_results: bool
    publish_transcripts: bool


def load_description(path: Path) -> Description:
    """Read a lab's run description (YAML or JSON; JSON is YAML) strictly."""
    where = str(path)
    raw = check_fields(
        loads_yaml(path.read_bytes(), where),
        DESCRIPTION_FIELDS - {"judge", "publish_on_release"},
        {"judge", "publish_on_release"},
        where=where,
        context="description",
    )
    publish = raw.get("publish_on_release", {"results": True, "transcripts": False})
    publish = check_fields(publish, {"results", "transcripts"}, where=where, context="publish_on_release")
    return Description(
        model=raw["model"],
        config=raw["config"],
        harness=raw["harness"],
        judge=raw.get("judge"),
        publish_results=bool(publish["results"]),
        publish_transcripts=bool(publish["transcripts"]),
    )


def benchmark_config(root: Path, benchmark: str) -> BenchmarkConfig:
    """The config of ``benchmark`` in the leaderboard repository ``root``, or a clear error.

    Benchmark ids are lower-case, so ``SOOHAK`` means ``soohak``; a directory that is not
    a leaderboard repository is named as such (not as a missing registry).
    """
    require_instance(root)
    name = benchmark.strip().lower()
    path = root / CONFIG_DIR / f"{name}.yaml"
    if not IDENTIFIER_RE.match(name) or not path.is_file():
        known = sorted(p.stem for p in (root / CONFIG_DIR).glob("*.yaml"))
        raise ConfigError(
            f"no benchmark {benchmark!r} in this repository",
            where=CONFIG_DIR,
            reason="unknown-benchmark",
            hint=f"benchmarks here: {', '.join(known) or 'none'}",
        )
    return load_config(path, root)


def require_instance(root: Path) -> None:
    if not (root / CONFIG_DIR).is_dir():
        raise ConfigError(
            f"is not a leaderboard repository (it has no {CONFIG_DIR}/ directory)",
            where=str(root),
            reason="not-an-instance",
            hint="run the command in the root of your clone of the leaderboard repository, or pass --root PATH",
        )


def _entry(name: str, data: bytes) -> dict[str, Any]:
    return {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "sealed": True}


def create_bundle(
    *,
    root: Path,
    benchmark: str,
    lab: str,
    submission: str,
    results: bytes,
    description: Description,
    transcripts: bytes | None = None,
    maintainer_recipients: tuple[str, ...] = (),
    out: Path | None = None,
    created: datetime | None = None,
    config: BenchmarkConfig | None = None,
    results_where: str = "results.jsonl",
) -> Path:
    """Validate results, seal them, write the manifest. Returns the bundle directory.

    Results are parsed with the same strict parser the build uses, so a lab sees every
    problem before it signs. Results and transcripts the lab does not opt to publish are
    sealed to the benchmark's private results key (and the maintainers' recipients), never
    to the embargo key: its identity is published at a full release and must not open them.
    """
    # The results parser and coverage need pandas; `bundle sign` (this module too) does not.
    from builder.bundles.coverage import load_dataset_manifest, measure
    from builder.bundles.results import categorical, parse_results

    config = config or load_config(root / "leaderboards" / f"{benchmark}.yaml", root)
    frame = parse_results(results, results_where, config.scoring.results_extras())
    # The build refuses incomplete results after unsealing; refuse them here first, and
    # sign what they cover so PR validation can check it without the secret.
    dataset = load_dataset_manifest(root, benchmark, config.version)
    coverage = measure(frame, dataset, config.scoring, results_where, results)
    if transcripts is not None:  # the format the build reads at release (builder.bundles.transcripts)
        read_transcripts(
            transcripts,
            "transcripts.jsonl.gz",
            config.scoring.primary_language,
            keep=lambda _: False,
            check_all=True,
            conditions=categorical(config.scoring.results_extras()),
        )
    # Each file to the key its opt-in names (builder.bundles.sealing): opted in, the embargo
    # key (published at a full release); kept private, the private results key (never published).
    files = {RESULTS: seal(results, recipients_for(config, description.publish_results, maintainer_recipients, RESULTS))}
    if transcripts is not None:
        files[TRANSCRIPTS] = seal(transcripts, recipients_for(config, description.publish_transcripts, maintainer_recipients, TRANSCRIPTS))
    manifest = manifest_dict(
        benchmark=benchmark,
        benchmark_version=config.version,
        lab=lab,
        submission=submission,
        created=created or datetime.now(timezone.utc),
        model=description.model,
        config=description.config,
        harness=description.harness,
        judge=description.judge,
        files=[_entry(name, data) for name, data in sorted(files.items())],
        publish_results=description.publish_results,
        publish_transcripts=description.publish_transcripts,
        coverage=coverage.to_dict(),
    )
    manifest_bytes = dump_manifest(manifest)
    target = out or root / "bundles" / benchmark / lab / submission
    # Parse what we are about to write, so create never produces a bundle verify refuses.
    parse_manifest(manifest_bytes, str(target / MANIFEST))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BundleError("already exists and is not empty", where=str(target), reason="exists", hint="choose a new submission id")
    # Write into a sibling temporary directory and rename it into place, so an interrupted
    # create never leaves a half-written bundle behind.
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        (staging / MANIFEST).write_bytes(manifest_bytes)
        if target.exists():
            target.rmdir()
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def sign_bundle(bundle_dir: Path, private: PrivateKey) -> Path:
    """Write ``manifest.json.sig``: what ``ssh-keygen -Y sign -n sealboard-bundle`` writes."""
    manifest = bundle_dir / MANIFEST
    if not manifest.is_file():
        raise BundleError(
            "manifest.json is missing", where=str(bundle_dir), reason="missing-file", hint="run 'sealboard bundle create' first"
        )
    data = manifest.read_bytes()
    parse_manifest(data, str(manifest))
    target = bundle_dir / SIGNATURE
    tmp = target.with_name(SIGNATURE + ".tmp")
    tmp.write_text(sign(private, data, NS_BUNDLE))
    os.replace(tmp, target)
    return target


def check_bundle(root: Path, bundle_dir: Path, registry: Registry, now: datetime) -> VerifiedBundle:
    """Run the build's own checks (not decryption) on one bundle directory.

    Besides layout, signature, key and digests: the signed coverage summary against the
    benchmark's verified dataset manifest and config, as PR validation does.
    """
    from builder.bundles.coverage import check_against_dataset

    bundle_dir = bundle_dir.resolve()
    try:
        rel = bundle_dir.relative_to(root.resolve())
    except ValueError:
        raise BundleError(
            "is not inside the instance", where=str(bundle_dir), reason="bad-path", hint="pass --root, the leaderboard repository"
        ) from None
    parts = rel.parts
    if len(parts) != 4 or parts[0] != "bundles":
        raise BundleError("is not at bundles/<benchmark>/<lab>/<submission>", where=str(rel), reason="misplaced")
    config = benchmark_config(root, parts[1])
    raw = read_bundle(bundle_dir, rel.as_posix(), parts[1], parts[2])
    verified = verify_bundle(raw, registry, now=now, benchmark_version=config.version)
    check_against_dataset(verified.manifest, root, config.scoring, registry, now, f"{rel.as_posix()}/{MANIFEST}")
    return verified


def blame_description(exc: BuilderError, description: Path) -> BuilderError:
    """A manifest check that failed on a field the lab wrote in its run description (run.yaml)
    names run.yaml and the field's line, not the manifest.json the lab never wrote by hand."""
    import yaml

    try:
        root = yaml.compose(description.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return exc
    lines: dict[str, int] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                path = f"{prefix}{key.value}"
                lines[path] = key.start_mark.line + 1
                walk(value, path + ".")

    walk(root, "")
    message = exc.message
    found = [path for path in lines if path in message]
    if not found:
        return exc
    field = max(found, key=len)  # the most specific field the message names
    return type(exc)(
        message, where=str(description), line=lines[field], hint=exc.hint or f"fix {field} in {description.name}", reason=exc.reason
    )
