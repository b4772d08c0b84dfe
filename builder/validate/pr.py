"""Pull-request validation: what CI runs on a PR, offline and without any secret.

It judges the PR's *own* change: the diff from the merge base of the target branch and the
PR head to the head (git objects only, :mod:`builder.gitrepo.gitread`), so what has landed
on the target since the PR was opened is not held against it. Trust, tombstones and the
submission budget come from the target branch's tip (the newest state maintainers signed
off), never from the PR.

Three outcomes (``ValidationReport.status``):

- **passed** — the change is one lab's new bundles under ``bundles/<benchmark>/<lab>/``
  (or a threshold-signed registry version), and each verifies as the build would;
- **maintainer review required** — the change touches anything else (site config, pages,
  workflows, code, configs, tombstones, another lab's folder, a dataset) or removes a
  withdrawn bundle's files (its tombstone in the merged tree: how maintainers take a leaking
  bundle out; without one, removing a merged bundle fails as ``removed-bundle``). Not a
  defect in itself, but not a lab's to make: the lab check fails and a maintainer
  (CODEOWNERS) must review and merge;
- **failed** — something is wrong: bad signature, unsafe path, a symlink, a withdrawn or
  over-budget submission, a stale ``created``, mkdocs config the build would refuse, a
  recorded deploy (``attestations/``) changed, removed, or not verifying, key-shaped text in
  a manifest (``key-material``), plaintext results, transcripts or items anywhere in the
  change (``plaintext-in-bundle``, ``plaintext-in-pr``: a leak, with what to do)…

Problems are collected, never raised one at a time, and rendered as Markdown whose
untrusted text sits in code spans (no links, images, HTML or @-mentions).
"""

from __future__ import annotations

import tempfile
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from builder.attest.record import AUDITS
from builder.attest.record import DIR as RECORDS
from builder.attest.snapshots import snapshots
from builder.bundles.access import ACCESS_DIR
from builder.bundles.access import review as review_access
from builder.bundles.admission_policy import Facts, Submission, decide, screen
from builder.bundles.budget import check_fresh
from builder.bundles.coverage import check_against_dataset
from builder.bundles.ingest import DATASET_DIR, MAX_FILES_PER_BUNDLE, MAX_MANIFEST_BYTES, MAX_SEALED_BYTES, MAX_SIGNATURE_BYTES, RawBundle
from builder.bundles.manifest import MANIFEST, SIGNATURE, Manifest, parse_manifest
from builder.bundles.plaintext import WHAT_TO_DO, is_plaintext_name
from builder.bundles.sealing import check_private_key
from builder.bundles.verify import verify_bundle
from builder.bundles.withdrawn import SUFFIX as WITHDRAWN
from builder.bundles.withdrawn import Tombstone, bundle_of, parse_tombstone, unreadable
from builder.config import BenchmarkConfig, load_configs
from builder.errors import BuilderError
from builder.gitrepo.gitread import MODE_EXEC, MODE_FILE, MODE_LINK, MODE_SUBMODULE, Change, Entry, Repo, safe_path
from builder.leakscan.labkeys import refuse_key_text
from builder.leakscan.rejections import withhold_where
from builder.render.site_guard import (
    GITATTRIBUTES,
    MAX_TEMPLATE_BYTES,
    MKDOCS_CONFIG,
    SITE_SRC,
    Finding,
    check_gitattributes,
    check_mkdocs_config,
    check_site_paths,
    check_theme_template,
    custom_dir_of,
)
from builder.strict import loads_yaml
from builder.trust.registry import Registry, describe_pending, load_registry
from builder.trust.registry_format import REGISTRY_DIR
from builder.trust.sshsig import NS_BUNDLE, verify

PASSED, REVIEW, FAILED = "passed", "maintainer review required", "failed"
READ_CHUNK = 64 << 20
MAX_REPORT_LINES = 500  # per kind; a 20k-path PR still gets a readable report
_ADMITTED = datetime(1970, 1, 1, tzinfo=timezone.utc)  # the target's bundles: "before anything the PR adds"


@dataclass(frozen=True)
class Problem:
    path: str
    reason: str
    message: str
    hint: str | None = None
    review: bool = False  # True: needs a maintainer, not a fix


@dataclass
class ValidationReport:
    base: str  # the merge base the change is judged against
    head: str
    target: str = ""  # the target branch tip trust is taken from
    problems: list[Problem] = field(default_factory=list)
    verified: list[str] = field(default_factory=list)
    registry: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def status(self) -> str:
        if not self.problems:
            return PASSED
        return REVIEW if all(p.review for p in self.problems) else FAILED

    def add(self, path: str, reason: str, message: str, hint: str | None = None) -> None:
        self.problems.append(Problem(withhold_where(path), reason, message, hint))

    def review(self, path: str, reason: str, message: str, hint: str | None = None) -> None:
        # A key-shaped folder name is not repeated into the CI log (builder.leakscan.rejections).
        self.problems.append(Problem(withhold_where(path), reason, message, hint, review=True))

    def add_error(self, exc: BuilderError, fallback: str) -> None:
        self.add(exc.where or fallback, exc.reason, exc.message + (f" (line {exc.line})" if exc.line else ""), exc.hint)

    def to_dict(self) -> dict[str, object]:
        """The report for ``sealboard validate --json`` (untrusted text as it is: JSON quotes it)."""
        return {
            "status": self.status, "base": self.base, "head": self.head, "target": self.target,
            "problems": [{"path": p.path, "reason": p.reason, "message": p.message, "hint": p.hint, "review": p.review} for p in self.problems],
            "verified": list(self.verified), "registry": self.registry,
        }  # fmt: skip

    def markdown(self) -> str:
        title = {PASSED: "passed", REVIEW: "maintainer review required", FAILED: "failed"}[self.status]
        lines = [f"## Sealboard validation {title} — `{self.base[:12]}..{self.head[:12]}`", ""]
        for kind, label in ((False, "problem(s)"), (True, "change(s) that need a maintainer's review")):
            mine = [p for p in self.problems if p.review == kind]
            if not mine:
                continue
            lines += [f"{len(mine)} {label}:", ""]
            for p in mine[:MAX_REPORT_LINES]:
                hint = f" — hint: {code(p.hint)}" if p.hint else ""
                lines.append(f"- {code(p.path)} — **{p.reason}**: {code(p.message)}{hint}")
            if len(mine) > MAX_REPORT_LINES:
                lines.append(f"- … and {len(mine) - MAX_REPORT_LINES} more")
            lines.append("")
        if self.status == REVIEW:
            lines += [
                "A lab's pull request may add only `bundles/<benchmark>/<its lab>/<submission>/`; maintainers review anything else.",
                "",
            ]
        if self.registry:
            lines.append(f"- registry: {code(self.registry)}")
        for where in self.verified:
            lines.append(f"- verified: {code(where)}")
        return "\n".join(lines) + "\n"


def code(text: str) -> str:
    """Untrusted text as one Markdown code span: nothing inside renders (no link, image,
    HTML or @-mention); control, bidi and zero-width characters become U+FFFD so the text
    reads as it is. The fence is one backtick longer than any run of them inside."""
    clean = "".join("\ufffd" if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)
    longest = run = 0
    for ch in clean:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if clean.startswith("`") or clean.endswith("`") or not clean.strip() else ""
    return f"{fence}{pad}{clean}{pad}{fence}"


def _cap(name: str) -> int:
    return MAX_MANIFEST_BYTES if name.endswith(".json") else MAX_SIGNATURE_BYTES if name.endswith(".sig") else MAX_SEALED_BYTES


def _bundle_dir(path: str) -> str | None:
    parts = path.split("/", 4)
    return "/".join(parts[:4]) if len(parts) == 5 and parts[0] == "bundles" else None


def _index(tree: dict[str, Entry]) -> dict[str, list[Entry]]:
    """Bundle folder -> its entries, in one pass (looking them up per bundle was quadratic)."""
    index: dict[str, list[Entry]] = defaultdict(list)
    for path, entry in tree.items():
        folder = _bundle_dir(path)
        if folder is not None:
            index[folder].append(entry)
    return index


@dataclass
class _Change:
    """What a pull request's merge would change, sorted by who may make it."""

    bundle_dirs: set[str] = field(default_factory=set)  # new lab bundle folders (and datasets)
    bad_dirs: set[str] = field(default_factory=set)  # folders already refused by path or mode
    rewritten: set[str] = field(default_factory=set)  # merged folders the change edits in place
    registry_changed: bool = False
    site_changed: list[str] = field(default_factory=list)
    access_changed: set[str] = field(default_factory=set)  # labs' item copies under keys/access/
    attestations_changed: list[Change] = field(default_factory=list)  # recorded deploys under attestations/


def validate(root: Path, base: str, head: str = "HEAD", *, now: datetime) -> ValidationReport:
    """Judge the tree the merge of ``head`` into ``base`` would produce, against ``base``."""
    repo = Repo(root)
    repo.check_toplevel()
    target, head_c = repo.commit(base), repo.commit(head)
    bases = repo.merge_bases(target, head_c)
    report = ValidationReport(bases[0], head_c, target)
    if len(bases) > 1:
        # A criss-cross history: git's merge (ort) merges the bases into a virtual one, so no
        # single base shows what the merge does. Refused outright; the merged tree below still
        # names what the merge would do.
        report.add(
            head_c,
            "several-merge-bases",
            f"the pull request shares {len(bases)} merge bases with the target "
            f"({', '.join(b[:12] for b in bases)}); its merge cannot be judged from one of them",
            "rebase the branch on the target (git rebase origin/main) and push again",
        )
    merged, conflicts = repo.merge_tree(target, head_c)
    if conflicts:
        report.add(
            head_c,
            "merge-conflict",
            "the pull request does not merge cleanly into the target",
            "rebase the branch on the target and resolve the conflicts",
        )
        return report
    # The merge's effect on the target, not the branch's own diff: what lands on main.
    changes = repo.changes(target, merged)
    head_tree = repo.tree(merged)
    target_tree = repo.tree(target, "bundles")
    if not changes:
        report.review("(none)", "no-change", "the pull request changes no file", "a lab's pull request adds a bundle")
    head_bundles = _index(head_tree)
    change = _classify(changes, head_tree, head_bundles, _index(target_tree), report)

    with tempfile.TemporaryDirectory(prefix="sealboard-validate-") as tmp:
        base_dir, head_dir = Path(tmp) / "base", Path(tmp) / "head"
        # Trust comes from the target branch only: a PR cannot vouch for itself.
        repo.materialise(target, REGISTRY_DIR, base_dir)
        repo.materialise(target, "leaderboards", base_dir)
        try:
            registry = load_registry(base_dir, now)
        except BuilderError as exc:
            report.add_error(exc, REGISTRY_DIR)
            return report
        try:
            configs = {c.id: c for c in load_configs(base_dir)}
        except BuilderError as exc:
            report.add_error(exc, "leaderboards")
            configs = {}

        # 2. Registry changes: threshold-signed by the previous maintainers.
        if change.registry_changed:
            _check_registry(repo, target, merged, head_dir, report, now, registry.version)

        # 3. What the authorised build would refuse to run (builder.render.site_guard).
        if change.site_changed:
            _check_site(repo, head_tree, change.site_changed, sorted(configs), report)

        # 4. Item copies the build would list as rejected (builder.bundles.access).
        if change.access_changed:
            _check_access(repo, merged, Path(tmp) / "merged", change.access_changed, registry, configs, report)

        # 5. Recorded deploys the site's snapshots would list as not shown (builder.attest.snapshots).
        if change.attestations_changed:
            _check_attestations(repo, merged, base_dir, change.attestations_changed, report)

    _check_one_lab(change, report)
    _check_bundles(repo, target, target_tree, head_bundles, change, configs, registry, report, now)
    return report


def _classify(
    changes: list[Change],
    head_tree: dict[str, Entry],
    head_bundles: dict[str, list[Entry]],
    target_bundles: dict[str, list[Entry]],
    report: ValidationReport,
) -> _Change:
    """1. Every changed path must be a regular file with a safe name; where it sits decides
    whether a lab may make the change at all. A bundle folder the target already holds is
    merged, so immutable: changing or removing it is refused (design invariant 9)."""
    out = _Change()
    for change in changes:
        path = change.path
        if not safe_path(path):
            report.add(ascii(path), "bad-path", "unsafe path", "use plain relative paths")
            continue
        entry = head_tree.get(path)
        folder = _bundle_dir(path)
        _check_mode(path, entry, report)
        if entry is not None and is_plaintext_name(path) and (folder is None or folder.split("/")[2] == DATASET_DIR):
            # In a lab's bundle folder, verify's step 0 says the same of any unsealed file.
            report.add(
                path,
                reason="plaintext-in-pr",
                hint=WHAT_TO_DO,
                message="is a file Sealboard writes plaintext to (results, transcripts or items in the clear): pushed to a pull request, it is public",
            )
        if path == MKDOCS_CONFIG or path.startswith(SITE_SRC + "/") or path.rsplit("/", 1)[-1] == GITATTRIBUTES:
            out.site_changed.append(path)
        if folder is not None:
            _classify_bundle(folder, folder in target_bundles, folder in head_bundles, folder + WITHDRAWN in head_tree, out, report)
            if entry is not None and entry.mode not in (MODE_FILE, MODE_EXEC):
                out.bad_dirs.add(folder)
        elif path.startswith(REGISTRY_DIR + "/"):
            out.registry_changed = True
        elif path.startswith(RECORDS + "/") and not path.startswith(f"{RECORDS}/{AUDITS}/"):
            out.attestations_changed.append(change)
            report.review(
                path,
                "maintainer-review",
                "records a deploy: maintainer review required",
                "the scheduled build's recording pull request adds these",
            )
        elif path.startswith(ACCESS_DIR + "/"):
            out.access_changed.add(path)
            report.review(
                path,
                "maintainer-review",
                "changes a lab's item copy: maintainer review required",
                "maintainers write item copies with 'sealboard dataset share'",
            )
        elif bundle_of(path) is not None:
            report.review(
                path, "withdrawal", "adds, changes or removes a tombstone (a withdrawal)", "only maintainers withdraw submissions"
            )
        else:
            report.review(
                path,
                "maintainer-review",
                "is outside bundles/<benchmark>/<lab>/: maintainer review required",
                "a lab's pull request adds only its own bundles",
            )
    return out


def _check_attestations(repo: Repo, merged: str, base_dir: Path, changes: list[Change], report: ValidationReport) -> None:
    """A recorded deploy is written once, by the recording pull request, and is history: a
    change to or removal of one is refused; a new one must verify as the snapshot pages
    verify it (signed by the target registry's build key, every board copy attested)."""
    new: set[str] = set()
    for change in changes:
        folder = "/".join(change.path.split("/")[:2])
        if change.status != "A":
            report.add(
                change.path,
                "attestation-immutable",
                "changes or removes a recorded deploy",
                "a recorded deploy is history: record a new deploy instead (sealboard record-attestation)",
            )
        elif folder.count("/") == 1:
            new.add(folder.split("/")[1])
    if not new:
        return
    repo.materialise(merged, RECORDS, base_dir)  # beside the target's registry: trust comes from there
    for snap in snapshots(base_dir):
        if snap.name in new and snap.problem is not None:
            reason, _, message = snap.problem.partition(": ")
            report.add(f"{RECORDS}/{snap.name}", reason, message, "record the site the authorised build wrote and signed")


def _check_mode(path: str, entry: Entry | None, report: ValidationReport) -> None:
    if path == ".gitmodules":
        report.add(path, "submodule", "submodules are not accepted", "remove .gitmodules")
    elif entry is not None and entry.mode == MODE_LINK:
        report.add(path, "symlink", "is a symbolic link", "commit the file itself")
    elif entry is not None and entry.mode == MODE_SUBMODULE:
        report.add(path, "submodule", "is a submodule", "commit files, not submodules")
    elif entry is not None and entry.mode not in (MODE_FILE, MODE_EXEC):
        report.add(path, "not-a-file", f"has git mode {entry.mode}", "commit a regular file")


def _classify_bundle(folder: str, merged: bool, kept: bool, tombstoned: bool, out: _Change, report: ValidationReport) -> None:
    """A changed path inside a bundle folder: a new folder is judged; a merged one (the
    target holds it) is refused, once: changed in place (immutable), or removed without a
    tombstone. Removing a withdrawn bundle's files (its tombstone in the merged tree, added
    by this change or before) is a maintainers' withdrawal: the tombstone keeps the name
    retired and the budget spent, so nothing a lab could gain by it remains; it is how
    maintainers take a leaking bundle out of the checkout (the maintainers' page)."""
    if folder in out.bundle_dirs:
        return
    out.bundle_dirs.add(folder)
    if not merged or folder.split("/")[2] == DATASET_DIR:
        return
    if kept:
        out.rewritten.add(folder)  # refused by the admission policy (withdrawn first, then immutable)
    elif tombstoned:
        report.review(
            folder,
            "withdrawal",
            "removes a withdrawn bundle's files (its tombstone stays)",
            "only maintainers withdraw submissions; the tombstone keeps the name retired and the budget spent",
        )
        out.bad_dirs.add(folder)  # nothing left to verify
    else:
        report.add(
            folder,
            "removed-bundle",
            "removes a merged bundle without a tombstone",
            "maintainers remove a bundle by withdrawing it: commit its tombstone (bundles/<benchmark>/<lab>/<submission>.withdrawn) "
            "in the same pull request or before (see the maintainers' page)",
        )
        out.bad_dirs.add(folder)


def _check_access(
    repo: Repo, merged: str, out: Path, changed: set[str], registry: Registry, configs: dict[str, BenchmarkConfig], report: ValidationReport
) -> None:
    """The build's review of labs' item copies (grant in the registry, sealed to the lab's
    SSH keys only), over the merged tree's copies, reported for the ones the change touches."""
    repo.materialise(merged, ACCESS_DIR, out)
    _, problems = review_access(out, registry, {c.id: c.version for c in configs.values()})
    for p in problems:
        if p.where in changed:
            report.add(p.where, p.reason, p.message, p.hint)


def _check_one_lab(change: _Change, report: ValidationReport) -> None:
    """5. Is the change confined to one lab?"""
    labs = sorted({d.split("/")[2] for d in change.bundle_dirs if d.split("/")[2] != DATASET_DIR})
    for lab in labs[1:]:
        report.review(
            f"bundles/*/{lab}/",
            "outside-lab",
            f"also changes lab {lab!r}'s folder; a pull request holds one lab's bundles",
            "split it: one pull request per lab",
        )
    if change.bundle_dirs and change.registry_changed:
        report.review(
            REGISTRY_DIR,
            "outside-lab",
            "a change that adds bundles may not also change the registry",
            "split it: registry changes go in their own pull request",
        )


def _check_bundles(
    repo: Repo,
    target: str,
    target_tree: dict[str, Entry],
    head_bundles: dict[str, list[Entry]],
    change: _Change,
    configs: dict[str, BenchmarkConfig],
    registry: Registry,
    report: ValidationReport,
    now: datetime,
) -> None:
    """6. Verify every new bundle with the target's registry, as the build would, then the
    admission policy (builder.bundles.admission_policy) with the target's bundles as context."""
    facts = Facts(
        tombstones=_tombstones(repo, target_tree), budgets={c.id: c.budget for c in configs.values()}, rewritten=frozenset(change.rewritten)
    )
    todo: list[tuple[str, list[Entry]]] = []
    for where in sorted(change.bundle_dirs - change.bad_dirs):
        _, bench, owner, name = where.split("/")
        if bench not in configs:
            report.add(where, "unknown-benchmark", f"no leaderboards/{bench}.yaml in the base revision", "check the directory name")
        elif owner == DATASET_DIR:
            report.review(where, "dataset-change", "changes a dataset bundle", "dataset bundles are added by maintainers")
        elif (error := screen(where, facts)) is not None:
            report.add(where, error.reason, error.message, error.hint)
        elif _precheck(head_bundles.get(where, []), where, report):
            todo.append((where, head_bundles.get(where, [])))
    new: list[Submission] = []
    with tempfile.TemporaryDirectory(prefix="sealboard-validate-datasets-") as tmp_datasets:
        for where, raw in _read_bundles(repo, todo):
            config = configs[raw.benchmark]
            try:
                refuse_key_text(raw.files.get(MANIFEST, b""), where)  # as the build does first (pipeline/admission.py)
                bundle = verify_bundle(raw, registry, now=now, benchmark_version=config.version)
                check_private_key(config, bundle.manifest, where)  # as the build refuses it (bundles/sealing.py)
                check_fresh(bundle.manifest.created, now, f"{where}/{MANIFEST}")
                # Content before merge: the signed coverage summary against the target's dataset.
                repo.materialise(target, f"bundles/{raw.benchmark}/{DATASET_DIR}/{config.version}", Path(tmp_datasets))
                check_against_dataset(bundle.manifest, Path(tmp_datasets), config.scoring, registry, now, f"{where}/{MANIFEST}")
            except BuilderError as exc:
                report.add_error(exc, where)
            else:
                new.append(Submission(where, bundle.manifest))
    if not new:
        return
    labs = {s.manifest.lab for s in new}
    decisions = decide([*_context(repo, target_tree, change.bundle_dirs, labs, registry, now), *new], facts)
    report.verified += list(sorted(decisions.admitted))
    for where, error in decisions.refused.items():
        report.add_error(error, where)


def _context(
    repo: Repo, target_tree: dict[str, Entry], changed: set[str], labs: set[str], registry: Registry, now: datetime
) -> list[Submission]:
    """The target's lab bundles as the policy's context: admitted already (so first), every
    one that parses taking part in the duplicate rule; those of the pull request's labs
    whose signature the build would accept counting toward the budget."""
    wanted: dict[str, dict[str, Entry]] = defaultdict(dict)
    for path, e in target_tree.items():
        folder = _bundle_dir(path)
        name = path.rsplit("/", 1)[1]
        if folder and folder.split("/")[2] != DATASET_DIR and name in (MANIFEST, SIGNATURE):
            wanted[folder][name] = e
    blobs = repo.blobs(sorted({e.oid for files in wanted.values() for e in files.values()}))
    out = []
    for folder, files in sorted(wanted.items()):
        if MANIFEST not in files:
            continue
        try:
            manifest = parse_manifest(blobs[files[MANIFEST].oid], f"{folder}/{MANIFEST}")
        except BuilderError:
            continue  # the build rejects it too, so it neither counts nor takes a name
        counts = (
            manifest.lab in labs
            and SIGNATURE in files
            and _signed(folder, manifest, blobs[files[SIGNATURE].oid], blobs[files[MANIFEST].oid], registry, now)
        )
        out.append(Submission(folder, manifest, _ADMITTED, judged=False, counts=counts))
    return out


def _signed(folder: str, manifest: Manifest, signature: bytes, message: bytes, registry: Registry, now: datetime) -> bool:
    """Whether the build would accept the merged bundle's signature (so it counts)."""
    try:
        signer = verify(signature, message, NS_BUNDLE, f"{folder}/{SIGNATURE}")
        registry.lab_key(manifest.lab, signer, now, folder)
    except BuilderError as exc:
        # A key that has since expired keeps its past bundles on the boards (the build
        # judges them at admission), so they count here too; counting more is the safe side.
        return exc.reason == "key-expired"
    return True


def _precheck(entries: list[Entry], where: str, report: ValidationReport) -> bool:
    """Layout and size caps from the tree alone, before any byte is read."""
    problems_before = len(report.problems)
    if len(entries) > MAX_FILES_PER_BUNDLE:
        report.add(where, "too-many-files", f"holds {len(entries)} files; at most {MAX_FILES_PER_BUNDLE}")
    for e in entries:
        rel = e.path[len(where) + 1 :]
        if "/" in rel:
            report.add(e.path, "not-a-file", "bundles hold files only, no subdirectories")
        elif e.mode not in (MODE_FILE, MODE_EXEC):
            report.add(e.path, "not-a-file", f"has git mode {e.mode}")
        elif e.size is not None and e.size > _cap(rel):
            report.add(e.path, "oversize", f"is {e.size} bytes; the limit for this file is {_cap(rel)}")
    return len(report.problems) == problems_before


def _read_bundles(repo: Repo, todo: list[tuple[str, list[Entry]]]) -> Iterator[tuple[str, RawBundle]]:
    """The bundles' bytes, read with one `git cat-file --batch` per READ_CHUNK bytes (a
    process per bundle made a 20k-folder PR take minutes), so memory stays bounded too."""
    chunk: list[tuple[str, list[Entry]]] = []
    size = 0
    for i, (where, entries) in enumerate(todo):
        chunk.append((where, entries))
        size += sum(e.size or 0 for e in entries)
        if size < READ_CHUNK and i + 1 < len(todo):
            continue
        blobs = repo.blobs(list({e.oid: None for _, es in chunk for e in es}))
        for folder, es in chunk:
            _, bench, owner, name = folder.split("/")
            files = {e.path[len(folder) + 1 :]: blobs[e.oid] for e in es}
            yield folder, RawBundle(benchmark=bench, owner=owner, name=name, where=folder, files=files)
        chunk, size = [], 0


def _tombstones(repo: Repo, target_tree: dict[str, Entry]) -> dict[str, Tombstone]:
    found = {path: e for path, e in target_tree.items() if bundle_of(path) is not None}
    blobs = repo.blobs([e.oid for e in found.values()])
    out: dict[str, Tombstone] = {}
    for path, e in found.items():
        try:
            stone = parse_tombstone(path, blobs[e.oid])
        except BuilderError:
            stone = unreadable(path)  # still withdrawn; the build reports the bad file
        out[stone.where] = stone
    return out


def _custom_dir(data: bytes) -> str | None:
    """theme.custom_dir of a mkdocs.yml's bytes (None if unreadable: check_mkdocs_config reports that)."""
    try:
        return custom_dir_of(loads_yaml(data, MKDOCS_CONFIG))
    except BuilderError:
        return None


def _check_site(repo: Repo, head_tree: dict[str, Entry], changed: list[str], benchmarks: list[str], report: ValidationReport) -> None:
    """The site guard's findings for the changed mkdocs.yml, site_src/ files and .gitattributes."""
    entries = {p: head_tree[p] for p in changed if p in head_tree}
    config = head_tree.get(MKDOCS_CONFIG)
    wanted = [e.oid for p, e in entries.items() if p == MKDOCS_CONFIG or p.endswith(GITATTRIBUTES)]
    blobs = repo.blobs(wanted + ([config.oid] if config is not None and config.mode in (MODE_FILE, MODE_EXEC) else []))
    # The head's theme.custom_dir, as the build reads it: its files are judged as theme
    # files (a main.html there replaces Sealboard's, with the banner and noindex).
    custom = _custom_dir(blobs[config.oid]) if config is not None and config.oid in blobs else None
    if custom is not None and MKDOCS_CONFIG in entries:
        # A PR that points custom_dir at a folder judges every file already in it too.
        entries.update({p: e for p, e in head_tree.items() if p.startswith(custom.rstrip("/") + "/")})
    # The theme's templates: what each includes, imports or extends (the guard's template rule).
    theme = {
        p: e
        for p, e in entries.items()
        if custom is not None and p.startswith(custom.rstrip("/") + "/") and e.mode in (MODE_FILE, MODE_EXEC)
    }
    blobs.update(repo.blobs([e.oid for e in theme.values()]))
    findings = _file_findings(entries, theme, blobs)
    findings += _path_findings(entries, benchmarks, custom)
    for f in findings:
        report.add(f.where, f.reason, f.message + " (the authorised build refuses to run with this)", f.hint)


def _path_findings(entries: dict[str, Entry], benchmarks: list[str], custom: str | None) -> list[Finding]:
    """What a changed site_src/ file's place and name mean (links and odd modes are
    reported by step 1 already)."""
    kinds = [
        (p, "link" if e.mode == MODE_LINK else "file" if e.mode in (MODE_FILE, MODE_EXEC) else "other")
        for p, e in entries.items()
        if p.startswith(SITE_SRC + "/")
    ]
    return [f for f in check_site_paths(kinds, benchmarks, custom) if f.reason in ("shadows-generated", "site-python-module")]


def _file_findings(entries: dict[str, Entry], theme: dict[str, Entry], blobs: dict[str, bytes]) -> list[Finding]:
    """The guard's findings on the changed mkdocs.yml, .gitattributes files and theme templates."""
    findings: list[Finding] = []
    for path, e in entries.items():
        if path == MKDOCS_CONFIG and e.mode in (MODE_FILE, MODE_EXEC):
            findings += check_mkdocs_config(blobs[e.oid])
        elif path.rsplit("/", 1)[-1] == GITATTRIBUTES and e.mode in (MODE_FILE, MODE_EXEC):
            findings += check_gitattributes(path, blobs[e.oid])
        elif path in theme and len(blobs[e.oid]) <= MAX_TEMPLATE_BYTES:
            findings += check_theme_template(path, blobs[e.oid])
    return findings


def _check_registry(repo: Repo, base: str, head: str, head_dir: Path, report: ValidationReport, now: datetime, base_in_force: int) -> None:
    base_tree = repo.tree(base, REGISTRY_DIR)
    head_tree = repo.tree(head, REGISTRY_DIR)
    for path, entry in base_tree.items():
        if path.endswith(".yaml") and (path not in head_tree or head_tree[path].oid != entry.oid):
            report.add(
                path, "history-rewritten", "changes or removes a registry version that is already in force", "add a new version instead"
            )
    repo.materialise(head, REGISTRY_DIR, head_dir)
    try:
        registry = load_registry(head_dir, now)
    except BuilderError as exc:
        report.add_error(exc, REGISTRY_DIR)
        return
    rewritten = any(p.reason == "history-rewritten" for p in report.problems)
    if registry.version < base_in_force and not rewritten:  # e.g. a .sig file emptied: the files alone would roll back
        report.add(
            REGISTRY_DIR,
            "history-rewritten",
            f"version {base_in_force} is in force on the base branch but only version {registry.version} would be after this change",
            "restore the signatures; add a new version instead",
        )
    report.registry = f"version {registry.version} verifies (threshold {registry.threshold})"
    if registry.pending is not None and registry.version >= base_in_force:
        # Harmless once merged (the build ignores it), but a registry PR is meant to deliver
        # a version in force: collect the signatures on the branch first.
        p = registry.pending
        report.add(
            p.doc.path,
            "below-threshold",
            describe_pending(p) + " — not in force until signed",
            "collect the missing signatures with 'sealboard keys sign' on this branch",
        )
