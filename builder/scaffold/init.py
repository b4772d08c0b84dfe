"""Write a new leaderboard repository: the layout of the design, ready for its first build.

What it writes (nothing secret inside the repository):

- ``mkdocs.yml``, ``site_src/index.md``: the site;
- ``leaderboards/<benchmark>.yaml``: the benchmark (``scoring: {extends: <preset>}`` for a
  shipped preset, so the scoring follows Sealboard's declaration), version ``v1``, and the
  recipient of a fresh embargo identity;
- ``keys/registry/v0001.yaml``: the genesis registry (unsigned: maintainers sign it);
- ``.github/workflows/`` (this project's, installing the pinned Sealboard), ``CODEOWNERS``,
  ``requirements/build.txt`` (Sealboard's dependencies pinned by hash), ``vendor/`` (the
  Sealboard wheel given with --wheel) and ``requirements/sealboard.txt`` (its sha256, which
  the workflows' pip checks), ``README.md`` (the maintainers' checklist), ``.gitignore``.

The embargo identity goes to a file the caller names, which must lie outside the new
repository (so ``git add -A`` can never pick it up), written 0600.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from builder.errors import BuilderError, ConfigError
from builder.scaffold.ignore import gitignore_text
from builder.strict import check_identifier
from builder.trust.registry_admin import init_registry
from builder.trust.seal import generate_identity, identity_file_text

PRESETS = ("soohak", "livemathematicianbench", "kcsat-ml")
VERSION = "v1"
# The project's workflows install Sealboard from its own source tree, after its hash-locked
# requirements/build.txt; a leaderboard repository installs the same lock, then the Sealboard
# wheel it commits in vendor/, pinned by sha256 (no package index holds Sealboard). This is
# the only difference.
_SOURCE_INSTALL = re.compile(
    r"\|\n(?:          #.*\n)*"
    r"          python -m pip install --require-hashes --no-deps -r (trusted/)?requirements/build\.txt\n"
    r"          python -m pip install --no-deps --no-build-isolation --no-index \S+"
)


WHEEL_DIR = "vendor"
WHEEL_LOCK = "requirements/sealboard.txt"
DEPENDENCY_LOCK = "requirements/build.txt"


def _pinned_install(match: re.Match[str]) -> str:
    # pip reads the wheel's path in the lock relative to the working directory, so the PR
    # check (the base branch checked out in trusted/) installs from inside trusted/.
    prefix = match.group(1) or ""
    pinned = f"python -m pip install --require-hashes --no-deps --no-index -r {WHEEL_LOCK}"
    return (
        "|\n"
        "          # Sealboard's dependencies pinned by hash (requirements/build.txt), then the Sealboard\n"
        "          # wheel committed in vendor/, checked against the sha256 in requirements/sealboard.txt.\n"
        f"          python -m pip install --require-hashes --no-deps -r {prefix}{DEPENDENCY_LOCK}\n"
        f"          {f'(cd {prefix.rstrip(chr(47))} && {pinned})' if prefix else pinned}"
    )


def adapt_workflow(text: str) -> str:
    """The project's workflow text as a leaderboard repository runs it: the same hash-locked
    dependencies, and Sealboard from the wheel the repository pins by hash (no index holds it)."""
    return _SOURCE_INSTALL.sub(_pinned_install, text)


def lock_wheel(target: Path, wheel: Path) -> list[str]:
    """Copy a Sealboard wheel into target/vendor/ and pin it by sha256 in requirements/sealboard.txt.
    Returns the paths written. Used by init and, to upgrade, by `sealboard pin-wheel`."""
    import hashlib
    import shutil

    wheel = Path(wheel)
    if not (wheel.is_file() and wheel.name.startswith("sealboard-") and wheel.name.endswith(".whl")):
        raise BuilderError(
            "is not a Sealboard wheel (sealboard-<version>-py3-none-any.whl)",
            where=str(wheel),
            reason="bad-wheel",
            hint="build one from the Sealboard commit to pin: python -m pip wheel --no-deps <sealboard checkout> -w dist",
        )
    vendor = target / WHEEL_DIR
    vendor.mkdir(parents=True, exist_ok=True)
    for old in vendor.glob("sealboard-*.whl"):
        old.unlink()  # one pinned Sealboard at a time
    shutil.copyfile(wheel, vendor / wheel.name)
    digest = hashlib.sha256((vendor / wheel.name).read_bytes()).hexdigest()
    lock = target / WHEEL_LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(
        "# The Sealboard this repository's workflows install: the wheel in vendor/, pinned by sha256.\n"
        "# Upgrade: see README.md, 'Upgrading Sealboard'.\n"
        f"./{WHEEL_DIR}/{wheel.name} --hash=sha256:{digest}\n",
        encoding="utf-8",
    )
    return [f"{WHEEL_DIR}/{wheel.name}", WHEEL_LOCK]


def _file(name: str) -> str:
    return resources.files("builder.scaffold").joinpath("files", name).read_text(encoding="utf-8")


def _workflows() -> dict[str, str]:
    directory = resources.files("builder.scaffold").joinpath("files", "workflows")
    return {p.name: p.read_text(encoding="utf-8") for p in directory.iterdir() if p.name.endswith(".yml")}


@dataclass(frozen=True)
class Scaffolded:
    root: Path
    benchmark: str
    recipient: str
    identity_file: Path
    files: tuple[str, ...]


def _config_text(benchmark: str, preset: str | None, title: str, recipient: str, private: str) -> str:
    scoring = (
        f"scoring:\n  extends: {preset}\n"
        if preset
        else (
            "scoring:\n"
            "  # Declare the samples, languages, item fields and boards (see the 'Adding a benchmark' page).\n"
            f"  benchmark: {benchmark}\n  samples: 1\n  primary_language: en\n  languages: [en]\n"
            "  item_fields:\n    split: [test]\n"
            "  boards:\n    - id: test\n      title: Accuracy\n      items: {split: test}\n      metrics: [avg@1]\n"
        )
    )
    return (
        f"# Bundles must name benchmark_version {VERSION!r}; a new dataset is a new version.\n"
        f"benchmark: {benchmark}\n"
        f"title: {title}\n"
        f'version: "{VERSION}"\n'
        f"# The embargo key: the dataset and what labs opt to publish; published at a full release.\n"
        f"embargo_recipient: {recipient}\n"
        f"# The private results key: what labs keep private; never published.\n"
        f"private_recipient: {private}\n"
        f"{scoring}"
    )


def scaffold(
    target: Path,
    *,
    title: str,
    benchmark: str,
    maintainers: list[dict[str, Any]],
    threshold: int,
    identity_out: Path,
    now: datetime,
    wheel: Path,
) -> Scaffolded:
    target = Path(target).resolve()
    identity_out = Path(identity_out).expanduser().resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BuilderError(
            "exists and is not an empty directory",
            where=str(target),
            reason="not-empty",
            hint="give a new directory for the leaderboard repository",
        )
    if identity_out.is_relative_to(target):
        raise BuilderError(
            "the embargo identity must not be written inside the repository",
            where=str(identity_out),
            reason="identity-inside-repo",
            hint="choose --identity-out outside it, e.g. ~/secure/identity.txt",
        )
    if identity_out.exists():
        raise BuilderError(
            "exists already; refusing to overwrite an identity",
            where=str(identity_out),
            reason="exists",
            hint="choose a new --identity-out file",
        )
    benchmark = check_identifier(benchmark, where="--benchmark", field="benchmark")
    if threshold > len(maintainers):
        raise ConfigError(
            f"threshold {threshold} exceeds the {len(maintainers)} maintainer(s)",
            where="--threshold",
            hint="give at least as many --maintainer as the threshold",
        )

    # One identity file, two keys: the embargo key first, then the private results key
    # (builder.bundles.sealing); publish-identity only ever publishes the first.
    identity, private = generate_identity(), generate_identity()
    identity_out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(identity_out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(identity_file_text(identity, now) + identity_file_text(private, now))

    written: list[str] = []

    def write(rel: str, text: str) -> None:
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(rel)

    preset = benchmark if benchmark in PRESETS else None
    fields = {"title": title, "benchmark": benchmark, "threshold": threshold, "recipient": identity.recipient}
    write("mkdocs.yml", _file("mkdocs.yml").format(**fields))
    write("site_src/index.md", _file("index.md").format(**fields))
    write("README.md", _file("README.md").format(**fields))
    write(f"leaderboards/{benchmark}.yaml", _config_text(benchmark, preset, title, identity.recipient, private.recipient))
    write(DEPENDENCY_LOCK, _file("requirements-build.txt"))
    written += lock_wheel(target, wheel)
    write(".gitignore", gitignore_text())
    write(".github/CODEOWNERS", _file("CODEOWNERS"))
    for name, text in sorted(_workflows().items()):
        write(f".github/workflows/{name}", text)
    init_registry(target, maintainers, threshold, now + timedelta(days=365))
    written.append("keys/registry/v0001.yaml")
    return Scaffolded(target, benchmark, identity.recipient, identity_out, tuple(written))
