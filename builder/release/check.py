"""``sealboard release verify``: re-check a release with no secret.

Against a built site (``--site``): the site is not a rehearsal (rehearsals are never
deployed: this is the check the deploy path runs), and every published copy of an item
says the same committed item: ``items.jsonl`` matches the commitments published during
the embargo (``data/<benchmark>/commitments.json``; and, given the repository, the
commitments its dataset version was first committed with), ``items.csv`` is exactly the
CSV of those items, and each item page shows exactly their question and gold-answer
texts (and there is no page of an item not published); every item of the results matrix
is a published item. Against the repository: every release statement's verdict
(including ``commitment-changed``), and every published identity opens its dataset
bundle, whose items match their commitments.
"""

from __future__ import annotations

import csv
import io
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from builder.bundles.dataset import commitment
from builder.errors import BuilderError, ReleaseError
from builder.release.commitment_history import changed_commitment, first_commitments
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
                where=where,
                reason="commitment-mismatch",
                hint="the published item differs from the one committed to; the release of this item is void",
            )


class _ItemTexts(HTMLParser):
    """The question (``sb-item-text``) and gold answer (``sb-gold``) texts of an item page, by language."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, list[tuple[str, str]]] = {"sb-item-text": [], "sb-gold": []}
        self._open: tuple[str, str, str, list[str]] | None = None  # (kind, lang, tag, text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        kind = next((k for k in self.texts if k in (a.get("class") or "").split()), None)
        if kind is not None:
            self._open = (kind, a.get("data-lang") or "", tag, [])

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[2]:
            kind, lang, _, text = self._open
            self.texts[kind].append((lang, "".join(text)))
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[3].append(data)


def _copy_mismatch(
    what: str, where: str, hint: str = "the copies of a released item must all say what was committed; rebuild the site"
) -> ReleaseError:
    return ReleaseError(what, where=where, reason="copy-mismatch", hint=hint)


def check_items_csv(items: list[dict[str, Any]], data: bytes, where: str) -> None:
    """items.csv is exactly the CSV of the items in items.jsonl; the first differing line is named."""
    from builder.release.outputs import items_csv

    expected = items_csv(items).decode("utf-8").splitlines()
    got = data.decode("utf-8", "replace").splitlines()
    for line, (want, have) in enumerate(zip(expected, got), start=1):
        if want != have:
            raise ReleaseError(
                "differs from the items in items.jsonl",
                where=where,
                line=line,
                reason="copy-mismatch",
                hint="the copies of a released item must all say what was committed; rebuild the site",
            )
    if len(expected) != len(got):
        raise ReleaseError(
            f"has {len(got) - 1} item row(s), items.jsonl {len(expected) - 1}",
            where=where,
            reason="copy-mismatch",
            hint="the copies of a released item must all say what was committed; rebuild the site",
        )


def check_item_pages(items: list[dict[str, Any]], site: Path, bid: str) -> int:
    """Each published item's page shows exactly its committed question and gold answer texts,
    and no page under <benchmark>/items/ is of an item not published. Returns pages checked."""
    from builder.release.pages import page_name

    pages_dir = site / bid / "items"
    expected = {page_name(it["id"]): it for it in items}
    present = {p.stem: p for p in pages_dir.glob("*.html")} if pages_dir.is_dir() else {}
    stray = sorted(set(present) - set(expected))
    if stray:
        raise ReleaseError(
            "is the page of an item not in items.jsonl",
            where=f"{bid}/items/{stray[0]}.html",
            reason="unreleased-item",
            hint="a page of an unpublished item: the release of this site is void",
        )
    for name, item in sorted(expected.items()):
        rel = f"{bid}/items/{name}.html"
        if name not in present:
            raise ReleaseError("is missing: every released item has its page", where=rel, reason="missing-file")
        parser = _ItemTexts()
        parser.feed(_read(present[name], site).decode("utf-8", "replace"))
        for kind, field in (("sb-item-text", "question"), ("sb-gold", "answer")):
            shown = sorted(parser.texts[kind])
            committed = sorted(item[field].items())
            if shown != committed:
                raise _copy_mismatch(f"shows a {field} text of item {item['id']!r} that is not the committed one", rel)
    return len(expected)


def verify_site(site: Path, root: Path | None = None) -> list[str]:
    """Check a built site; returns one line per benchmark checked, raises on the first failure.
    With `root` (the repository), the site's commitments must also be those its dataset
    version was first committed with (builder.release.commitment_history)."""
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
        if root is not None:
            # an earlier version's folder is "<benchmark>@<version>"; its dataset is the benchmark's
            changed = changed_commitment(
                first_commitments(root, bench.get("benchmark") or bid, bench.get("version", "")),
                commitments,
                f"data/{bid}/commitments.json",
            )
            if changed is not None:
                raise changed
        where = f"data/{bid}/items.jsonl"
        items = [obj for _, obj in iter_jsonl(_read(site / "data" / bid / "items.jsonl", site), where)]
        check_commitments(items, commitments, where)
        check_items_csv(items, _read(site / "data" / bid / "items.csv", site), f"data/{bid}/items.csv")
        pages = check_item_pages(items, site, bid)
        published = {it["id"] for it in items}
        matrix = site / "data" / bid / "matrix.csv"
        rows = 0
        if matrix.is_file():
            for row in csv.DictReader(io.StringIO(_read(matrix, site).decode("utf-8"))):
                rows += 1
                if row["item"] not in published:
                    raise ReleaseError(
                        f"the results matrix has item {row['item']!r}, which is not published",
                        where=f"data/{bid}/matrix.csv",
                        reason="unreleased-item",
                    )
        lines.append(
            f"{bid}: {bench['status']}: {len(items)} item(s) match their commitments; items.csv and {pages} item page(s) agree; "
            f"matrix {rows} row(s) on published items only"
        )
    return lines


# The reasons of builder.timelock's refusals (reasons.yaml): an unopened time-lock, not a wrong identity.
_TIMELOCK_REASONS = ("beacon-", "round-not-reached", "timelock-")


def verify_repo(root: Path, clock: Any) -> list[str]:
    """Statements' verdicts and published identities, checked with no secret."""
    from builder.config import load_configs
    from builder.release.identity import published_identities
    from builder.release.status import dataset_facts, release_states
    from builder.trust.registry import load_registry

    configs = load_configs(root)
    registry = load_registry(root, clock)
    for config in configs:  # a dataset version changed after its commitments were published
        facts = dataset_facts(root, config.id, config.version)
        if facts is not None and facts.changed is not None:
            raise facts.changed
    states = release_states(root, configs, registry, clock)
    lines = [f"{bid}: {s.summary()}" for bid, s in states.items()]
    identities, found = published_identities(root, configs, states)
    # A time-lock that cannot be opened yet (its round's signature not committed, no relay) or
    # at all falls back to the maintainers' route: a line to act on, as before.
    lines += [f"problem: {p}" for p in found if p.reason.startswith(_TIMELOCK_REASONS)]
    problems = [p for p in found if not p.reason.startswith(_TIMELOCK_REASONS)]
    if problems:
        # A published identity that its release does not authorise (published before the
        # release, or unreadable) is a failed check, not a line to read past (issue 44).
        first = problems[0]
        others = f" (and {len(problems) - 1} more: {'; '.join(str(p) for p in problems[1:])})" if len(problems) > 1 else ""
        raise ReleaseError(f"{first.message}{others}", where=first.where, reason=first.reason, hint=first.hint)
    return lines + (_opened_datasets(root, configs, registry, identities, clock) if identities else [])


def _opened_datasets(root: Path, configs: Any, registry: Any, identities: Any, clock: Any) -> list[str]:
    """A line for each dataset a published identity opens, every item checked against its
    commitment; a published identity that opens a dataset not matching them fails."""
    from builder.bundles.dataset import unseal_items
    from builder.bundles.ingest import DATASET_DIR, RawBundle, discover
    from builder.release.dataset_admission import verify_dataset_admitted

    lines = []
    raws = [r for r in discover(root, {c.id for c in configs}) if isinstance(r, RawBundle) and r.owner == DATASET_DIR]
    for config in configs:
        ident = next((i for i in identities if config.embargo_recipient in i.recipients), None)
        raw = next((r for r in raws if r.benchmark == config.id and r.name == config.version), None)
        if ident is None or raw is None:
            continue
        try:  # unseal_items checks every item against its commitment
            items = unseal_items(verify_dataset_admitted(raw, registry, now=clock, root=root), [ident])
        except BuilderError as exc:
            raise ReleaseError(
                f"the published identity of {config.id} does not open a dataset that matches its commitments: {exc.message}",
                where=exc.where,
                reason=exc.reason,
            ) from None
        lines.append(
            f"{config.id}: the published identity opens dataset {config.version}; all {len(items)} item(s) match their commitments"
        )
    return lines
