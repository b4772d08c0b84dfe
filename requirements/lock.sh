#!/usr/bin/env bash
# Regenerate requirements/build.txt: every package the authorised build and the PR check
# install (runtime dependencies of pyproject.toml plus the build backend), pinned by version
# and sha256 hash, at the versions installed in the environment the test suite just passed in
# (so the workflows install exactly what was tested), with the `importers` extra (zstd .eval
# logs: labs install this same lock, see the labs page). Run after `bash .ci/run` passes:
#   bash requirements/lock.sh && git diff requirements/build.txt
# Needs uv (`pip install uv`); no other network than PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
python3 -m pip freeze --exclude-editable | grep -v '^sealboard' > "$constraints"
# The workflows run setup-python "3.11" (the newest 3.11.x) on ubuntu-latest, x86_64.
uv pip compile pyproject.toml requirements/build-system.in --extra importers \
  --constraint "$constraints" --generate-hashes \
  --python-version 3.11.7 --python-platform x86_64-manylinux_2_28 \
  --no-header --annotation-style line --quiet \
  --output-file requirements/build.txt
