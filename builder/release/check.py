"""``sealboard release verify``: re-check a release with no secret.

Against a built site (``--site``): the site is not a rehearsal (rehearsals are never
deployed: this is the check the deploy path runs), and every published item matches the
commitment published during the embargo (``data/<benchmark>/commitments.json``), every
item of the results matrix is a published item. Against the repository: every release
statement's verdict, and every published identity opens its dataset bundle, whose items
match their commitments.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from builder.bundles.dataset import commitment
from builder.errors import BuilderError, ReleaseError
from builder.strict import iter_jsonl, loads_json

MAX_DATA_FILE = 1 << 30


def _read(path: Path, site: Path) -> bytes:
    rel = str(path.relative_to(site))
    if path.is_symlink() or not path.is_file():
        raise ReleaseError("is missing or not a regular file", where=rel, reason="missing-file")
    if path.stat().st_size > MAX_DATA_FILE:
        raise ReleaseError("is too large to check", where=rel, reason="too-large")
    return path.read_bytes()


def refuse_rehearsal(index: dict[str, Any]) -> None:
    if index.get("rehearsal") or index.get("as_of"):
        raise ReleaseError(
            f"this output is a rehearsal of the site as of {index.get('as_of')}; a rehearsal is never deployed",
            where="data/index.json",
            reason="rehearsal",
            hint="deploy the output of a plain 'sealboard build' (without --as-of)",
        )


def check_commitments(items: list[dict[str, Any]], commitments: dict[str, str], where: str) -> None:
    """Every published item matches its commitment; the first mismatch is named."""
    for item in items:
        iid = item.get("id")
        expected = commitments.get(iid) if isinstance(iid, str) else None
        if expected is None:
            raise ReleaseError(f"item {iid!r} was never committed to during the embargo", where=where, reason="uncommitted-item")
        if not isinstance(item.get("salt"), str) or commitment(item) != expected:
            raise ReleaseError(
                f"item {iid!r} does not match the commitment published during the embargo",
                where=where, reason="commitment-mismatch",
                hint="the published item differs from the one committed to; the release of this item is void",
            )


def verify_site(site: Path) -> list[str]:
    """Check a built site; returns one line per benchmark checked, raises on the first failure."""
    index = loads_json(_read(site / "data" / "index.json", site), "data/index.json")
    refuse_rehearsal(index)
    lines = []
    for bench in index.get("benchmarks", []):
        bid = bench["id"]
        if bench.get("status") not in ("released", "partly released"):
            lines.append(f"{bid}: {bench.get('status')} (nothing released to check)")
            continue
        if not (site / "data" / bid / "items.jsonl").exists() and not bench.get("released_items"):
            lines.append(f"{bid}: {bench['status']} (aggregates only: no items published)")
            continue
        commitments = loads_json(_read(site / "data" / bid / "commitments.json", site), f"data/{bid}/commitments.json")["commitments"]
        where = f"data/{bid}/items.jsonl"
        items = [obj for _, obj in iter_jsonl(_read(site / "data" / bid / "items.jsonl", site), where)]
        check_commitments(items, commitments, where)
        published = {it["id"] for it in items}
        matrix = site / "data" / bid / "matrix.csv"
        rows = 0
        if matrix.is_file():
            for row in csv.DictReader(io.StringIO(_read(matrix, site).decode("utf-8"))):
                rows += 1
                if row["item"] not in published:
                    raise ReleaseError(f"the results matrix has item {row['item']!r}, which is not published", where=f"data/{bid}/matrix.csv", reason="unreleased-item")
        lines.append(f"{bid}: {bench['status']}: {len(items)} item(s) match their commitments; matrix {rows} row(s) on published items only")
    return lines


def verify_repo(root: Path, clock: Any) -> list[str]:
    """Statements' verdicts and published identities, checked with no secret."""
    from builder.bundles.dataset import verify_dataset
    from builder.bundles.ingest import DATASET_DIR, RawBundle, discover
    from builder.bundles.unseal import unseal_items
    from builder.config import load_configs
    from builder.release.identity import published_identities
    from builder.release.status import release_states
    from builder.trust.registry import load_registry

    configs = load_configs(root)
    registry = load_registry(root, clock)
    states = release_states(root, configs, registry, clock)
    lines = [f"{bid}: {s.summary()}" for bid, s in states.items()]
    identities, problems = published_identities(root, configs, states)
    for problem in problems:
        lines.append(f"problem: {problem}")
    if identities:
        raws = [r for r in discover(root, {c.id for c in configs}) if isinstance(r, RawBundle) and r.owner == DATASET_DIR]
        for config in configs:
            ident = next((i for i in identities if config.embargo_recipient in i.recipients), None)
            raw = next((r for r in raws if r.benchmark == config.id and r.name == config.version), None)
            if ident is None or raw is None:
                continue
            try:  # unseal_items checks every item against its commitment
                items = unseal_items(verify_dataset(raw, registry, now=clock), [ident])
            except BuilderError as exc:
                raise ReleaseError(f"the published identity of {config.id} does not open a dataset that matches its commitments: {exc.message}",
                                   where=exc.where, reason=exc.reason) from None
            lines.append(f"{config.id}: the published identity opens dataset {config.version}; all {len(items)} item(s) match their commitments")
    return lines
