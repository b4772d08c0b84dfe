"""The Every Eval Ever datastore layout (0.3.0), restated from its validator.

An EEE datastore is a folder ``data/`` of ``<benchmark>/<developer>/<model>/<uuid4>.json``
aggregate records, each with an optional companion ``<uuid4>_samples.jsonl`` (instance
level) beside it. ``every_eval_ever validate`` checks (``validator/validation_core.py``):

1. the path has exactly five parts, starts with ``data/``, and no folder is ``data``, ``.``,
   ``..``, ends with a dot or a space, holds ``<>:"\\|?*`` or a control character, or is a
   Windows device name (``CON``, ``COM1``…);
2. the file name is a version-4 UUID (``…-4xxx-[89ab]xxx-…``) plus ``.json`` or
   ``_samples.jsonl``;
3. the developer and model folders are where the record's ``model_info`` files it
   (``helpers/io.py: datastore_path_components``): a model id ``dev/name`` files under
   ``dev/name`` (further slashes in the name become ``_``); a flat id files under
   ``model_info.developer``; ``:`` becomes ``_``; an empty or ``unknown`` part places
   nothing (a warning).

Sealboard writes every record through :func:`place`, so rule 3 holds by construction, and
names each file by :func:`record_uuid`: a UUID of version-4 *format* derived from the
bundle's manifest digest, so exporting the same site twice writes the same bytes.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from pathlib import PurePosixPath

SCHEMA_VERSION = "0.3.0"
DATA = "data"  # the datastore's root folder, and a name no folder below it may take
UNKNOWN = "unknown"  # the placeholder the datastore refuses as a developer or model
_INVALID_CHARS = re.compile(r'[<>:"\\|?*\x00-\x1f]')
_DEVICE_NAMES = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))})
_UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
AGGREGATE_NAME = re.compile(rf"{_UUID4}\.json")
SAMPLES_NAME = re.compile(rf"{_UUID4}_samples\.jsonl")
# Sealboard's namespace for the derived UUIDs: changing it renames every exported file.
UUID_NAMESPACE = b"sealboard/every-eval-ever/1"


def _component(value: str, what: str) -> str:
    """One folder name, as the datastore spells it (rule 1; ``:`` becomes ``_``)."""
    value = value.strip()
    if not value or value.lower() == UNKNOWN:
        raise ValueError(f"{what} is empty or {UNKNOWN!r}")
    value = value.replace(":", "_")
    if (
        value in (".", "..", DATA)
        or "/" in value
        or _INVALID_CHARS.search(value)
        or value.endswith((".", " "))
        or value.split(".", 1)[0].upper() in _DEVICE_NAMES
    ):
        raise ValueError(f"{what} {value!r} is not a portable folder name")
    return value


def path_components(collection: str, model_id: str, developer: str | None) -> tuple[str, str, str]:
    """``(benchmark, developer, model)`` folders for a record (rule 3), or ValueError."""
    parts = model_id.strip().split("/")
    if any(not p for p in parts):
        raise ValueError(f"model id {model_id!r} has an empty part")
    bench = "_".join(_component(p, "benchmark") for p in collection.split("/"))
    if len(parts) >= 2:
        return bench, _component(parts[0], "model developer"), "_".join(_component(p, "model name") for p in parts[1:])
    if developer is None:
        raise ValueError(f"model id {model_id!r} names no developer and none is given")
    return bench, _component(developer, "developer"), _component(parts[0], "model name")


def record_uuid(*parts: str) -> str:
    """A UUID of version-4 format (rule 2) derived from ``parts``: the same parts, the same name."""
    digest = hashlib.sha256(b"\0".join([UUID_NAMESPACE, *(p.encode() for p in parts)])).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


@dataclass(frozen=True)
class Placement:
    """Where one run's record lives, and the ``model_info`` that files it there."""

    model_id: str  # model_info.id
    developer: str  # model_info.developer
    developer_source: str  # why that developer (model_info.additional_details)
    folder: PurePosixPath  # data/<benchmark>/<developer>/<model>
    uuid: str

    @property
    def aggregate(self) -> str:
        return str(self.folder / f"{self.uuid}.json")

    @property
    def samples(self) -> str:
        return str(self.folder / f"{self.uuid}_samples.jsonl")


def _safe(value: str, fallback_prefix: str) -> str:
    """``value`` as a folder name, else the same with a prefix that makes it one."""
    try:
        return _component(value, "folder")
    except ValueError:
        return _component(f"{fallback_prefix}-{value}", "folder")


def place(collection: str, model_id: str, lab: str, key: tuple[str, ...]) -> Placement:
    """The record of ``lab``'s run of ``model_id`` in benchmark ``collection``; ``key`` names
    the run (the site folder and the manifest digest) and so the record's UUID.

    The developer is the model id's prefix when it has one, else the submitting lab (its
    registry id: the only organisation the signed bundle names). A model id that names no
    datastore folder (``a//b``, ``unknown``, ``CON``, a ``<``…) is filed flat under the lab
    with every unsafe character replaced; the caller keeps the id as signed in
    ``additional_details``. So every record is findable by path, none warned about.
    Benchmark and lab ids are ``a-z0-9-``: one the datastore reserves (``data``, ``con``,
    ``unknown``) takes a prefix (``benchmark-data``, ``lab-con``)."""
    name = record_uuid(*key)
    bench, lab_folder = _safe(collection, "benchmark"), _safe(lab, "lab")
    try:
        _, dev, model = path_components(bench, model_id, lab_folder)
    except ValueError:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("._-") or "model"
        flat = _safe(safe, "model")
        source = "the submitting lab (registry id): the model id as signed names no datastore folder"
        return Placement(flat, lab_folder, source, PurePosixPath(DATA, bench, lab_folder, flat), name)
    if "/" in model_id:
        return Placement(model_id, model_id.split("/", 1)[0], "the model id's prefix", PurePosixPath(DATA, bench, dev, model), name)
    return Placement(
        model_id,
        lab_folder,
        "the submitting lab (registry id): the model id names no developer",
        PurePosixPath(DATA, bench, dev, model),
        name,
    )


def is_datastore_file(rel: str) -> bool:
    """Whether ``rel`` (a POSIX path from the datastore's parent) has the shape rules 1–2 ask."""
    parts = rel.split("/")
    if len(parts) != 5 or parts[0] != DATA:
        return False
    try:
        for p in parts[1:4]:
            if _component(p, "folder") != p:
                return False
    except ValueError:
        return False
    return bool(AGGREGATE_NAME.fullmatch(parts[4]) or SAMPLES_NAME.fullmatch(parts[4]))
