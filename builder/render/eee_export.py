"""``sealboard export eee DIR``: a built site's Every Eval Ever records, as one datastore.

Each benchmark folder of the site holds its own datastore (``data/<folder>/eee/data/…``,
written by ``builder.render.exports``); the export copies every one of them, byte for
byte, into ``DIR/data/<benchmark>/<developer>/<model>/<uuid4>.json`` (and the
``_samples.jsonl`` beside a record), ready for ``every_eval_ever validate`` and for a pull
request to the datastore. It reads only what the site publishes: to check that first,
``sealboard verify-site``.

Names are derived from each bundle's digest, so exporting the same site again writes the
same files: one already in DIR with the same bytes is left as it is; one with other bytes
stops the export (``export-conflict``) before anything is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from builder.errors import BuilderError, ConfigError
from builder.formats.eee.datastore import DATA, SAMPLES_NAME, is_datastore_file
from builder.render.exports import EEE_DIR


@dataclass(frozen=True)
class Exported:
    records: int  # aggregate records
    samples: int  # samples files beside them
    written: int  # files written (none is ever overwritten)
    unchanged: int  # already in DIR with the same bytes


def site_datastore(site: Path) -> dict[str, Path]:
    """Every datastore file the site publishes: ``data/<benchmark>/…`` (as in the datastore) -> its file."""
    data = site / "data"
    if not (data / "index.json").is_file():
        raise ConfigError(
            "is not a built Sealboard site (no data/index.json)",
            where=str(site),
            hint="build it first (sealboard build), or pass --site with the folder the site was built into",
        )
    found: dict[str, Path] = {}
    for folder in sorted(p for p in data.iterdir() if p.is_dir() and not p.is_symlink()):
        top = folder / EEE_DIR
        if not (top / DATA).is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(top / DATA):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath, name)
                rel = path.relative_to(top).as_posix()
                if path.is_symlink() or not is_datastore_file(rel):
                    raise BuilderError(
                        "is not a datastore file (data/<benchmark>/<developer>/<model>/<uuid4>.json or _samples.jsonl)",
                        where=str(path),
                        reason="export-bad-path",
                        hint="rebuild the site: Sealboard writes no other name there",
                    )
                if rel in found:
                    raise BuilderError(
                        f"is published twice, also as {found[rel]}",
                        where=str(path),
                        reason="export-conflict",
                        hint="two benchmark folders of the site file one record under one name; rebuild the site",
                    )
                found[rel] = path
    return found


def export_eee(site: Path, out: Path) -> Exported:
    """Copy the site's datastore files into ``out`` (``out/data/…``); see the module docstring."""
    files = site_datastore(site)
    if not files:
        raise ConfigError("publishes no Every Eval Ever records (no board row has a value yet)", where=str(site / "data"))
    plan: list[tuple[Path, bytes]] = []
    unchanged = 0
    for rel, path in files.items():
        data = path.read_bytes()
        target = out / rel
        if target.is_file() and not target.is_symlink():
            if target.read_bytes() == data:
                unchanged += 1
                continue
            raise BuilderError(
                "already exists with other bytes",
                where=str(target),
                reason="export-conflict",
                hint="export into an empty folder, or remove the old file: names are derived from the bundle, so a "
                "different file under the same name is a different site's record",
            )
        if target.exists() or target.is_symlink():
            raise BuilderError(
                "exists and is not a regular file", where=str(target), reason="export-conflict", hint="export into an empty folder"
            )
        plan.append((target, data))
    for target, data in plan:  # every check passed: only now is anything written
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    samples = sum(1 for rel in files if SAMPLES_NAME.fullmatch(rel.rsplit("/", 1)[1]))
    return Exported(records=len(files) - samples, samples=samples, written=len(plan), unchanged=unchanged)
