"""Pull-request validation: what CI runs on a PR, offline and without any secret.

It reads the change between a base and a head revision from git objects
(:mod:`builder.validate.gitread`), then checks, trusting only the *base* revision's registry and
configs:

1. every changed path is a regular file (no symlinks, no submodules, no ``..``);
2. registry changes extend the base chain (old versions byte-identical) and the head chain
   verifies, each transition signed by a threshold of the previous maintainers;
3. a change that adds bundles touches only ``bundles/<benchmark>/<one lab>/…``;
4. every new or changed bundle passes the build's own checks (layout, signature by a key
   registered to its lab in the base registry, digests) — no decryption.

Problems are collected, never raised one at a time, and rendered as Markdown.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from builder.bundles.ingest import DATASET_DIR, MAX_FILES_PER_BUNDLE, MAX_MANIFEST_BYTES, MAX_SEALED_BYTES, MAX_SIGNATURE_BYTES, RawBundle
from builder.bundles.verify import verify_bundle
from builder.config import load_configs
from builder.errors import BuilderError
from builder.trust.registry import describe_pending, load_registry
from builder.trust.registry_format import REGISTRY_DIR
from builder.validate.gitread import MODE_EXEC, MODE_FILE, MODE_LINK, MODE_SUBMODULE, Repo, safe_path


@dataclass(frozen=True)
class Problem:
    path: str
    reason: str
    message: str
    hint: str | None = None


@dataclass
class ValidationReport:
    base: str
    head: str
    problems: list[Problem] = field(default_factory=list)
    verified: list[str] = field(default_factory=list)
    registry: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, path: str, reason: str, message: str, hint: str | None = None) -> None:
        self.problems.append(Problem(path, reason, message, hint))

    def add_error(self, exc: BuilderError, fallback: str) -> None:
        self.add(exc.where or fallback, exc.reason, exc.message + (f" (line {exc.line})" if exc.line else ""), exc.hint)

    def markdown(self) -> str:
        head = f"`{self.base[:12]}..{self.head[:12]}`"
        lines = [f"## Sealboard validation {'passed' if self.ok else 'failed'} — {head}", ""]
        if self.problems:
            lines.append(f"{len(self.problems)} problem(s):")
            lines.append("")
            for p in self.problems:
                hint = f" — hint: {p.hint}" if p.hint else ""
                lines.append(f"- `{_md(p.path)}` — **{p.reason}**: {_md(p.message)}{_md(hint)}")
            lines.append("")
        if self.registry:
            lines.append(f"- registry: {self.registry}")
        for where in self.verified:
            lines.append(f"- verified: `{where}`")
        if not self.problems and not self.verified and not self.registry:
            lines.append("No bundle or registry change to check.")
        return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    # Problems quote untrusted names; keep them from forming links or breaking the list.
    return text.replace("\n", " ").replace("`", "'").replace("<", "&lt;").replace("[", "\\[")


def _cap(name: str) -> int:
    return MAX_MANIFEST_BYTES if name.endswith(".json") else MAX_SIGNATURE_BYTES if name.endswith(".sig") else MAX_SEALED_BYTES


def validate(root: Path, base: str, head: str = "HEAD", *, now: datetime) -> ValidationReport:
    repo = Repo(root)
    base_c, head_c = repo.commit(base), repo.commit(head)
    report = ValidationReport(base_c, head_c)
    changes = repo.changes(base_c, head_c)
    head_tree = repo.tree(head_c)

    # 1. Every changed path must be a regular file with a safe name.
    for change in changes:
        if not safe_path(change.path):
            report.add(ascii(change.path), "bad-path", "unsafe path", "use plain relative paths")
            continue
        if change.path == ".gitmodules":
            report.add(change.path, "submodule", "submodules are not accepted", "remove .gitmodules")
        entry = head_tree.get(change.path)
        if entry is None:
            continue
        if entry.mode == MODE_LINK:
            report.add(change.path, "symlink", "is a symbolic link", "commit the file itself")
        elif entry.mode == MODE_SUBMODULE:
            report.add(change.path, "submodule", "is a submodule", "commit files, not submodules")
        elif entry.mode not in (MODE_FILE, MODE_EXEC):
            report.add(change.path, "not-a-file", f"has git mode {entry.mode}", "commit a regular file")

    with tempfile.TemporaryDirectory(prefix="sealboard-validate-") as tmp:
        base_dir, head_dir = Path(tmp) / "base", Path(tmp) / "head"
        # Trust comes from the base revision only: a PR cannot vouch for itself.
        repo.materialise(base_c, REGISTRY_DIR, base_dir)
        repo.materialise(base_c, "leaderboards", base_dir)
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

        # 2. Registry changes.
        if any(c.path.startswith(REGISTRY_DIR + "/") for c in changes):
            _check_registry(repo, base_c, head_c, head_dir, report, now, registry.version)

        # 3. Which bundles changed, and is the change confined to one lab?
        bundle_dirs: set[tuple[str, str, str]] = set()
        removed: set[str] = set()
        others: list[str] = []
        for change in changes:
            parts = change.path.split("/")
            if parts[0] == "bundles" and len(parts) >= 4:
                prefix = "/".join(parts[:4]) + "/"
                if change.status == "D" and not any(path.startswith(prefix) for path in head_tree):
                    if prefix not in removed:
                        removed.add(prefix)
                        report.add(prefix.rstrip("/"), "removed-bundle", "removes a bundle", "only maintainers withdraw bundles")
                    continue
                bundle_dirs.add((parts[1], parts[2], parts[3]))
            elif not change.path.startswith(REGISTRY_DIR + "/"):
                others.append(change.path)
        labs = sorted({lab for _, lab, _ in bundle_dirs})
        if bundle_dirs and (len(labs) > 1 or others or any(c.path.startswith(REGISTRY_DIR + "/") for c in changes)):
            outside = others[:3] or [f"bundles/*/{lab}/" for lab in labs[1:]] or [REGISTRY_DIR]
            report.add(
                outside[0],
                "outside-lab",
                f"a change that adds bundles may touch only bundles/<benchmark>/<one lab>/; this one also touches {', '.join(outside)}",
                "split it: one pull request per lab, with nothing else in it",
            )

        # 4. Verify every new or changed bundle with the base registry.
        for bench, owner, name in sorted(bundle_dirs):
            where = f"bundles/{bench}/{owner}/{name}"
            if bench not in configs:
                report.add(where, "unknown-benchmark", f"no leaderboards/{bench}.yaml in the base revision", "check the directory name")
                continue
            raw = _raw_bundle(repo, head_tree, bench, owner, name, report)
            if raw is None:
                continue
            if owner == DATASET_DIR:
                report.add(where, "dataset-change", "changes a dataset bundle", "dataset bundles are added by maintainers")
                continue
            try:
                verify_bundle(raw, registry, now=now, benchmark_version=configs[bench].version)
            except BuilderError as exc:
                report.add_error(exc, where)
            else:
                report.verified.append(where)
    return report


def _raw_bundle(repo: Repo, tree: dict, bench: str, owner: str, name: str, report: ValidationReport) -> RawBundle | None:
    where = f"bundles/{bench}/{owner}/{name}"
    entries = [e for path, e in tree.items() if path.startswith(where + "/")]
    if any(p.path.startswith(where + "/") for p in report.problems):
        return None  # a link or submodule in it was reported already; its bytes mean nothing
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
    if len(report.problems) > problems_before:
        return None
    blobs = repo.blobs([e.oid for e in entries])
    files = {e.path[len(where) + 1 :]: blobs[e.oid] for e in entries}
    return RawBundle(benchmark=bench, owner=owner, name=name, where=where, files=files)


def _check_registry(repo: Repo, base: str, head: str, head_dir: Path, report: ValidationReport, now: datetime,
                    base_in_force: int) -> None:
    base_tree = repo.tree(base, REGISTRY_DIR)
    head_tree = repo.tree(head, REGISTRY_DIR)
    for path, entry in base_tree.items():
        if path.endswith(".yaml") and (path not in head_tree or head_tree[path].oid != entry.oid):
            report.add(path, "history-rewritten", "changes or removes a registry version that is already in force", "add a new version instead")
    repo.materialise(head, REGISTRY_DIR, head_dir)
    try:
        registry = load_registry(head_dir, now)
    except BuilderError as exc:
        report.add_error(exc, REGISTRY_DIR)
        return
    rewritten = any(p.reason == "history-rewritten" for p in report.problems)
    if registry.version < base_in_force and not rewritten:  # e.g. a .sig file emptied: the files alone would roll back
        report.add(REGISTRY_DIR, "history-rewritten", f"version {base_in_force} is in force on the base branch but only "
                   f"version {registry.version} would be after this change", "restore the signatures; add a new version instead")
    report.registry = f"version {registry.version} verifies (threshold {registry.threshold})"
    if registry.pending is not None and registry.version >= base_in_force:
        # Harmless once merged (the build ignores it), but a registry PR is meant to deliver
        # a version in force: collect the signatures on the branch first.
        p = registry.pending
        report.add(p.doc.path, "below-threshold", describe_pending(p) + " — not in force until signed",
                   "collect the missing signatures with 'sealboard keys sign' on this branch")
