"""Dataset bundles: the maintainers' sealed items and their public commitments.

Layout ``bundles/<benchmark>/_dataset/<version>/``:

- ``manifest.json`` (public, signed under ``sealboard-dataset`` by the registry's
  maintainer THRESHOLD, as registry versions are: ``manifest.json.sig`` holds one armored
  SSHSIG block per maintainer, concatenated): ``format``, ``benchmark``, ``version``, ``created``, ``splits``
  (name → item count), ``items`` (``id``, ``split``, ``commitment`` for every item) and
  ``files`` (``items.jsonl.age``, its size and SHA-256).
- ``items.jsonl.age``: one item per line, sealed to the embargo recipient.

Commitment (so anyone can check after release that the published items are the ones
committed to during the embargo)::

    commitment = SHA-256( salt || canonical(item without "salt") )

where ``salt`` is 32 random bytes (hex in the item), and ``canonical`` is JSON with sorted
keys, no insignificant white space, UTF-8 (orjson ``OPT_SORT_KEYS``). The salt stops
anyone confirming a guessed item (e.g. a guessed integer answer) against the commitment.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from builder.bundles.ingest import RawBundle
from builder.bundles.manifest import MANIFEST, SIGNATURE, format_timestamp, parse_timestamp
from builder.bundles.verify import check_files
from builder.errors import BundleError, IntegrityError, ParseError
from builder.strict import check_fields, iter_jsonl, loads_json
from builder.trust.registry import Registry, require_threshold
from builder.trust.seal import Identity, unseal
from builder.trust.sshsig import NS_DATASET

FORMAT = "sealboard-dataset/1"
_MONTH = re.compile(r"[0-9]{4}-[0-9]{2}")
ITEMS = "items.jsonl.age"
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
ITEM_REQUIRED = {"id", "split", "question", "answer", "answer_type", "salt", "canary"}
# Metadata boards may group by; each benchmark uses the subset that fits it.
ITEM_METADATA = {
    "msc": str,
    "problem_type": str,
    "category": str,
    "edition": str,
    "published": str,
    "year": int,
    "points": int,
    "cohort_error_rate": float,
    "subset": str,  # a named item subset a board or reference row rests on (e.g. SOOHAK's human-79)
    "tolerance": float,  # numeric items: the absolute difference the regrade accepts (absent: exact)
    "choice_labels": str,  # choice items: the option labels in order, one character each ("ABCDE", "①②③④⑤")
}
ANSWER_TYPES = {"integer", "choice", "fraction", "decimal", "expression", "ill_posed", "text"}
_TOKEN = object()


def canonical(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def commitment(item: dict[str, Any]) -> str:
    body = {k: v for k, v in item.items() if k != "salt"}
    return hashlib.sha256(bytes.fromhex(item["salt"]) + canonical(body)).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(32)


@dataclass(frozen=True)
class DatasetManifest:
    benchmark: str
    version: str
    created: datetime
    splits: dict[str, int]
    commitments: dict[str, str]  # item id -> commitment
    item_splits: dict[str, str]
    items_sha256: str
    items_bytes: int
    # Items per edition month ("YYYY-MM"; {} when no item has one), so that a release scope
    # is judged with no secret; None in a manifest written before the field existed.
    editions: dict[str, int] | None = None


@dataclass(frozen=True)
class VerifiedDataset:
    manifest: DatasetManifest
    signer: str
    where: str
    sealed_items: bytes = field(repr=False)
    _token: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._token is not _TOKEN:
            raise TypeError("VerifiedDataset is only made by builder.bundles.dataset.verify_dataset")


def parse_dataset_manifest(data: bytes, where: str) -> DatasetManifest:
    raw = check_fields(
        loads_json(data, where),
        {"format", "benchmark", "version", "created", "splits", "items", "files"},
        {"editions"},
        where=where,
        context="dataset manifest",
    )
    if raw["format"] != FORMAT:
        raise ParseError(f"format must be {FORMAT!r}", where=where, reason="bad-format")
    splits = raw["splits"]
    if not isinstance(splits, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in splits.values()):
        raise ParseError("splits must map split names to item counts", where=where, reason="wrong-type")
    commitments, item_splits = _manifest_items(raw["items"], splits, where)
    counts = dict(Counter(item_splits.values()))
    if {k: v for k, v in splits.items() if v} != counts:
        raise ParseError("split counts do not match the items listed", where=where, reason="bad-split")
    editions = raw.get("editions")
    if editions is not None and (
        not isinstance(editions, dict)
        or not all(
            isinstance(k, str) and _MONTH.fullmatch(k) and isinstance(v, int) and not isinstance(v, bool) and v > 0
            for k, v in editions.items()
        )
        or sum(editions.values()) > len(commitments)
    ):
        raise ParseError("editions must map months (YYYY-MM) to item counts, at most the items listed", where=where, reason="wrong-type")
    f = _sealed_items_file(raw["files"], where)
    return DatasetManifest(
        benchmark=raw["benchmark"],
        version=raw["version"],
        created=parse_timestamp(raw["created"], where=where, field="created"),
        splits=dict(splits),
        commitments=commitments,
        item_splits=item_splits,
        items_sha256=f["sha256"],
        items_bytes=f["bytes"],
        editions=None if editions is None else dict(editions),
    )


def _manifest_items(entries: Any, splits: dict[str, int], where: str) -> tuple[dict[str, str], dict[str, str]]:
    """The manifest's items: (id -> commitment, id -> split)."""
    if not isinstance(entries, list):
        raise ParseError("items must be a list", where=where, reason="wrong-type")
    commitments: dict[str, str] = {}
    item_splits: dict[str, str] = {}
    for i, entry in enumerate(entries):
        entry = check_fields(entry, {"id", "split", "commitment"}, where=where, context=f"items[{i}]")
        if not isinstance(entry["id"], str) or entry["id"] in commitments:
            raise ParseError(f"items[{i}].id is missing or repeated", where=where, reason="duplicate-item")
        if not isinstance(entry["split"], str) or entry["split"] not in splits:
            raise ParseError(f"items[{i}].split {entry['split']!r} is not in splits", where=where, reason="bad-split")
        if not isinstance(entry["commitment"], str) or not _HEX64.match(entry["commitment"]):
            raise ParseError(f"items[{i}].commitment must be 64 hex digits", where=where, reason="bad-digest")
        commitments[entry["id"]] = entry["commitment"]
        item_splits[entry["id"]] = entry["split"]
    return commitments, item_splits


def _sealed_items_file(files: Any, where: str) -> dict[str, Any]:
    """The manifest's one file entry: the sealed items."""
    if not isinstance(files, list) or len(files) != 1:
        raise ParseError(f"files must list exactly {ITEMS}", where=where, reason="bad-files")
    f = check_fields(files[0], {"path", "sha256", "bytes", "sealed"}, where=where, context="files[0]")
    if f["path"] != ITEMS or f["sealed"] is not True or not isinstance(f["sha256"], str) or not _HEX64.match(f["sha256"]):
        raise ParseError(f"files[0] must describe the sealed {ITEMS}", where=where, reason="bad-files")
    if not isinstance(f["bytes"], int) or isinstance(f["bytes"], bool) or f["bytes"] < 0:
        raise ParseError("files[0].bytes must be a size", where=where, reason="wrong-type")
    return f


def verify_dataset(raw: RawBundle, registry: Registry, *, now: datetime) -> VerifiedDataset:
    where = raw.where
    for required in (MANIFEST, SIGNATURE):
        if required not in raw.files:
            raise BundleError(f"{required} is missing", where=where, reason="missing-file")
    manifest = parse_dataset_manifest(raw.files[MANIFEST], f"{where}/{MANIFEST}")
    if manifest.benchmark != raw.benchmark or manifest.version != raw.name:
        raise BundleError(
            "benchmark/version do not match the directory",
            where=f"{where}/{MANIFEST}",
            reason="misplaced",
            hint="dataset bundles live at bundles/<benchmark>/_dataset/<version>/",
        )
    # The gold answers decide every score: one maintainer alone may not change them.
    signers = require_threshold(
        registry,
        raw.files[MANIFEST],
        raw.files[SIGNATURE],
        f"{where}/{MANIFEST}",
        NS_DATASET,
        sign_hint=f"other maintainers add theirs: sealboard dataset sign {raw.benchmark} --key KEY",
    )
    check_files(where, raw.files, {ITEMS: (manifest.items_bytes, manifest.items_sha256)})
    return VerifiedDataset(
        manifest=manifest, signer=", ".join(m.id for m in signers), where=where, sealed_items=raw.files[ITEMS], _token=_TOKEN
    )


def check_item(obj: Any, where: str, line: int | None) -> dict[str, Any]:
    """One item's fields and types (not its commitment): shared by parsing and creation."""
    obj = check_fields(obj, ITEM_REQUIRED, ITEM_METADATA, where=where, line=line, context="item")
    if not isinstance(obj["id"], str) or not obj["id"] or len(obj["id"]) > 128 or not obj["id"].isprintable():
        raise ParseError("id must be a non-empty printable string of at most 128 characters", where=where, line=line, reason="wrong-type")
    if not isinstance(obj["split"], str) or not obj["split"]:
        raise ParseError("split must be a non-empty string", where=where, line=line, reason="wrong-type")
    if obj["answer_type"] not in ANSWER_TYPES:
        raise ParseError(
            f"answer_type {obj['answer_type']!r} is not one of {sorted(ANSWER_TYPES)}", where=where, line=line, reason="bad-answer-type"
        )
    for key in ("question", "answer"):
        if not isinstance(obj[key], dict) or not all(isinstance(v, str) for v in obj[key].values()) or not obj[key]:
            raise ParseError(f"{key} must map language codes to text", where=where, line=line, reason="wrong-type")
    _check_metadata(obj, where, line)
    if not isinstance(obj["salt"], str) or not _HEX64.match(obj["salt"]):
        raise ParseError("salt must be 64 hex digits", where=where, line=line, reason="bad-salt")
    if not isinstance(obj["canary"], str) or len(obj["canary"]) < 8:
        raise ParseError("canary must be a string of at least 8 characters", where=where, line=line, reason="wrong-type")
    return obj


def _check_metadata(obj: dict[str, Any], where: str, line: int | None) -> None:
    """An item's optional metadata: types, a tolerance, choice labels."""
    for key, kind in ITEM_METADATA.items():
        value = obj.get(key)
        if value is not None and not (isinstance(value, kind) or (kind is float and type(value) is int)) or isinstance(value, bool):
            raise ParseError(f"{key} has the wrong type", where=where, line=line, reason="wrong-type")
    tolerance = obj.get("tolerance")
    if tolerance is not None and not (tolerance >= 0 and tolerance == tolerance and tolerance != float("inf")):
        raise ParseError(
            "tolerance must be a finite number ≥ 0 (the absolute difference the regrade accepts)",
            where=where,
            line=line,
            reason="wrong-type",
        )
    labels = obj.get("choice_labels")
    if labels is not None and not (
        2 <= len(labels) <= 20 and len(set(labels)) == len(labels) and labels.isprintable() and " " not in labels
    ):
        raise ParseError(
            'choice_labels must list 2 to 20 distinct option labels, one character each (e.g. "ABCDE" or "①②③④⑤")',
            where=where,
            line=line,
            reason="wrong-type",
        )


def parse_items(data: bytes, manifest: DatasetManifest, where: str) -> list[dict[str, Any]]:
    """Parse decrypted items strictly and check each against its public commitment."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line, obj in iter_jsonl(data, where):
        obj = check_item(obj, where, line)
        item_id = obj["id"]
        if item_id in seen:
            raise ParseError(f"item {item_id!r} appears twice", where=where, line=line, reason="duplicate-item")
        seen.add(item_id)
        expected = manifest.commitments.get(item_id)
        if expected is None:
            raise IntegrityError(
                f"item {item_id!r} is not listed in the signed manifest", where=where, line=line, reason="uncommitted-item"
            )
        if commitment(obj) != expected:
            raise IntegrityError(f"item {item_id!r} does not match its commitment", where=where, line=line, reason="commitment-mismatch")
        if manifest.item_splits[item_id] != obj["split"]:
            raise IntegrityError(
                f"item {item_id!r} is in split {obj['split']!r} but committed to {manifest.item_splits[item_id]!r}",
                where=where,
                line=line,
                reason="commitment-mismatch",
            )
        items.append(obj)
    missing = set(manifest.commitments) - seen
    if missing:
        raise IntegrityError(
            f"{len(missing)} committed item(s) are missing, e.g. {sorted(missing)[0]!r}", where=where, reason="missing-item"
        )
    return items


def dataset_manifest_dict(benchmark: str, version: str, created: datetime, items: list[dict[str, Any]], sealed: bytes) -> dict[str, Any]:
    splits: dict[str, int] = {}
    editions: dict[str, int] = {}
    for item in items:
        splits[item["split"]] = splits.get(item["split"], 0) + 1
        if item.get("edition") is not None:
            month = str(item["edition"])[:7]
            editions[month] = editions.get(month, 0) + 1
    return {
        "format": FORMAT,
        "benchmark": benchmark,
        "version": version,
        "created": format_timestamp(created),
        "splits": splits,
        "editions": dict(sorted(editions.items())),
        "items": [{"id": it["id"], "split": it["split"], "commitment": commitment(it)} for it in items],
        "files": [{"path": ITEMS, "sha256": hashlib.sha256(sealed).hexdigest(), "bytes": len(sealed), "sealed": True}],
    }


def unseal_items(dataset: VerifiedDataset, identities: Sequence[Identity]) -> list[dict[str, Any]]:
    """The dataset's items, decrypted in memory and each checked against its commitment."""
    where = f"{dataset.where}/{ITEMS}"
    plaintext = unseal(dataset.sealed_items, list(identities), where)
    return parse_items(plaintext, dataset.manifest, where)
