"""Maintainers' side of dataset bundles: turn an items.jsonl into a sealed, committed bundle,
and add maintainers' signatures to it until the registry's threshold is met.

``sealboard dataset create`` and ``sealboard dataset sign`` are thin clients of this; the
demo and the tests write their datasets through it too, so there is one writer of the
format that ``builder.bundles.dataset`` reads.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from builder.bundles.access import access_path, seal_for_lab
from builder.bundles.dataset import (
    ITEMS,
    check_item,
    dataset_manifest_dict,
    new_salt,
    parse_dataset_manifest,
    parse_items,
    verify_dataset,
)
from builder.bundles.ingest import BUNDLES_DIR, DATASET_DIR, read_bundle
from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.config import BenchmarkConfig
from builder.errors import BundleError, ParseError, TrustError
from builder.strict import iter_jsonl
from builder.trust.registry import Registry, tally, verify_signatures
from builder.trust.registry_admin import write_atomic
from builder.trust.seal import Identity, seal, unseal
from builder.trust.sshkeys import PrivateKey
from builder.trust.sshsig import NS_DATASET, sign

MAX_ITEMS_BYTES = 256 << 20  # far above any benchmark's questions; keeps a typo'd path from eating memory


def dataset_dir(root: Path, benchmark: str, version: str) -> Path:
    return Path(root) / BUNDLES_DIR / benchmark / DATASET_DIR / version


def read_items(data: bytes, where: str) -> list[dict[str, Any]]:
    """Parse a maintainer's items.jsonl strictly. A missing ``salt`` is drawn fresh (32
    random bytes) and a missing ``canary`` is generated; given ones are kept, so the same
    file always gives the same commitments. Every error names the line."""
    items: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(data, where):
        if not isinstance(obj, dict):
            raise ParseError("each line must be a JSON object (one item)", where=where, line=line, reason="wrong-type")
        obj = dict(obj)
        obj.setdefault("salt", new_salt())
        # The leak scan looks for this string in every published byte while the item is embargoed.
        obj.setdefault("canary", f"SEALBOARD-CANARY-{secrets.token_hex(12)}")
        obj = check_item(obj, where, line)
        if obj["id"] in seen:
            raise ParseError(
                f"item {obj['id']!r} repeats line {seen[obj['id']]}",
                where=where,
                line=line,
                reason="duplicate-item",
                hint="every item id must be unique",
            )
        seen[obj["id"]] = line
        items.append(obj)
    if not items:
        raise ParseError(
            "holds no items", where=where, reason="empty", hint="one JSON object per line: id, split, question, answer, answer_type"
        )
    return items


def write_dataset(root: Path, config: BenchmarkConfig, items: list[dict[str, Any]], created: datetime) -> Path:
    """Seal the (salted) items to the benchmark's embargo recipient only and write the public
    manifest with one commitment per item. Unsigned: maintainers sign with sign_dataset."""
    target = dataset_dir(root, config.id, config.version)
    if target.exists() and any(target.iterdir()):
        raise BundleError(
            "a dataset bundle for this version exists already",
            where=str(target.relative_to(root)),
            reason="dataset-exists",
            hint="a new dataset is a new benchmark version: raise 'version' in the leaderboard config first",
        )
    sealed = seal(b"".join(orjson.dumps(it) + b"\n" for it in items), [config.embargo_recipient])
    manifest = orjson.dumps(dataset_manifest_dict(config.id, config.version, created, items, sealed), option=orjson.OPT_INDENT_2) + b"\n"
    target.mkdir(parents=True, exist_ok=True)
    write_atomic(target / ITEMS, sealed)
    write_atomic(target / MANIFEST, manifest)
    return target


def sign_dataset(directory: Path, private: PrivateKey, registry: Registry) -> tuple[int, int]:
    """Append this maintainer's signature (namespace sealboard-dataset) to manifest.json.sig.

    Refuses keys that are not unrevoked maintainers of the registry in force (their block
    would make the bundle invalid, not merely uncounted). Returns (signatures counted,
    threshold)."""
    where = f"{directory.name}/{MANIFEST}"
    manifest = (directory / MANIFEST).read_bytes()
    parse_dataset_manifest(manifest, where)
    sig_path = directory / SIGNATURE
    existing = sig_path.read_bytes() if sig_path.exists() else b""
    signers = verify_signatures(manifest, existing or None, where, NS_DATASET)
    if private.public in tally(None, registry, [private.public]).strangers:
        raise TrustError(
            f"key {private.public.fingerprint} is not an unrevoked maintainer of registry v{registry.version:04d}",
            where=str(directory),
            reason="signer-not-maintainer",
            hint="dataset bundles are signed by maintainers' keys",
        )
    if private.public not in signers:
        if existing and not existing.endswith(b"\n"):
            existing += b"\n"
        write_atomic(sig_path, existing + sign(private, manifest, NS_DATASET).encode("ascii"))
        signers.append(private.public)
    return len(tally(None, registry, signers).old_signers), registry.threshold


GOLD_FIELDS = ("answer", "salt")


def without_gold(items: list[dict[str, Any]]) -> bytes:
    """The items as a lab granted questions only receives them: no gold answer, and no salt
    either (with the salt and every other field, a guessed answer could be confirmed against
    the item's public commitment, e.g. a small integer)."""
    return b"".join(orjson.dumps({k: v for k, v in item.items() if k not in GOLD_FIELDS}) + b"\n" for item in items)


def share_items(root: Path, config: BenchmarkConfig, registry: Registry, lab_id: str, identities: list[Identity], now: datetime) -> int:
    """Write the lab's copy of the dataset's committed items (see builder.bundles.access)."""
    directory = dataset_dir(root, config.id, config.version)
    where = directory.relative_to(Path(root)).as_posix() if directory.is_relative_to(Path(root)) else str(directory)
    lab = registry.lab(lab_id)
    if lab is None:
        raise TrustError(f"lab {lab_id!r} is not in the registry", where=registry.path, reason="unknown-lab")
    # Only what the threshold signed and the commitments vouch for is shared.
    dataset = verify_dataset(read_bundle(directory, where, config.id, DATASET_DIR), registry, now=now)
    plain = unseal(dataset.sealed_items, identities, f"{where}/{ITEMS}")
    items = parse_items(plain, dataset.manifest, f"{where}/{ITEMS}")
    grant = next((g for g in lab.item_access if g.benchmark == config.id), None)
    if grant is not None and not grant.answers:
        plain = without_gold(items)
    sealed = seal_for_lab(plain, lab, registry, config.id)
    target = Path(root) / access_path(config.id, config.version, lab_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, sealed)
    return len(items)
