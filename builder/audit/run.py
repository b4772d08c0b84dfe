"""``sealboard audit --release B``: re-derive every figure shown while B was embargoed.

First the recorded history itself, trusting only what the build key signed: every deploy
folder under ``attestations/`` must be whole (builder.attest.record.check_complete: signed by
the registry's build key, in the folder its statement names, the index and every board copy
there and attested), whatever status it claims, and no record may be gone (the signed chain,
and git's first-parent history: builder.audit.history). Each exception is a **finding** with
its reason; any finding makes the verdict ``incomplete`` and the command exit 1, so an
edited, swapped, emptied or deleted record can never read as "agree".

Then, for each whole record whose signed statement says B was not yet fully released: rebuild
that commit's boards with B's released identity (builder.audit.rebuild) and compare them, cell
by cell (builder.audit.compare). A deploy **agrees** when no shown cell differs; cells of
submissions kept private cannot be re-derived from the released data and are counted apart,
never as agreeing.

What it proves, and what it does not, is on the site's Methodology page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.attest.record import RELEASED, Recorded, check_complete, deleted, folders, read_recorded, recorded_board, unaccounted
from builder.attest.statement import STATEMENT
from builder.audit.compare import BoardComparison, compare_board
from builder.audit.history import deleted_records
from builder.audit.rebuild import Rebuilt, rebuild
from builder.config import load_configs
from builder.errors import BuilderError, ConfigError
from builder.release.identity import identity_path
from builder.trust.registry_format import parse_time
from builder.trust.seal import Identity, load_identity


@dataclass
class DeployAudit:
    attestation: str  # folder under attestations/
    commit: str | None
    built: str | None
    status: str | None  # the benchmark's status in the statement
    verdict: str = "agree"  # agree | differs | unverified
    reason: str | None = None  # why unverified
    boards: list[BoardComparison] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "attestation": self.attestation,
            "commit": self.commit,
            "built": self.built,
            "status": self.status,
            "verdict": self.verdict,
            "reason": self.reason,
            "boards": [b.to_dict() for b in self.boards],
            "cells_agree": sum(b.agree for b in self.boards),
            "cells_differ": sum(len(b.differ) for b in self.boards),
            "cells_unverified": sum(b.unverified for b in self.boards),
            "private_rows": max((b.private_rows for b in self.boards), default=0),
        }


@dataclass(frozen=True)
class Finding:
    """A recorded deploy that is not as the build key signed it (or is gone)."""

    record: str  # the folder under attestations/
    reason: str  # attestation-incomplete, attestation-misfiled, attestation-record-deleted…
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"record": self.record, "reason": self.reason, "message": self.message}


@dataclass
class Audit:
    benchmark: str
    version: str
    identity: str
    deploys: list[DeployAudit]
    findings: list[Finding] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.findings:
            return "incomplete"
        if not self.deploys:
            return "none"
        if any(d.verdict == "differs" for d in self.deploys):
            return "differs"
        return "agree" if all(d.verdict == "agree" for d in self.deploys) else "unverified"

    def sentence(self) -> str:
        """What the released site and the command say."""
        d = self.to_dict()
        n = d["deploys"]
        if self.findings:
            return (
                f"the recorded deploy history is not as the build key signed it: {len(self.findings)} finding(s) "
                f"({', '.join(sorted({f.reason for f in self.findings}))}); nothing it shows can be called re-derived"
            )
        if not n:
            return f"no deploy was recorded while {self.benchmark} was embargoed: nothing to re-derive"
        head = f"every number shown during the embargo, {n} deploy{'s' if n != 1 else ''}, re-derived from the released data: "
        if self.verdict == "agree":
            head += "all agree"
        elif self.verdict == "differs":
            head += f"{d['differ']} of {n} differ"
        else:
            head += f"{d['agree']} agree, {d['unverified']} could not be checked"
        if d["private_rows"]:
            head += f" ({d['private_rows']} submission(s) kept private by their labs cannot be re-derived without the private key)"
        return head

    def to_dict(self) -> dict[str, Any]:
        deploys = [d.to_dict() for d in self.deploys]
        return {
            "benchmark": self.benchmark,
            "version": self.version,
            "identity": self.identity,
            "verdict": self.verdict,
            "deploys": len(deploys),
            "agree": sum(d["verdict"] == "agree" for d in deploys),
            "differ": sum(d["verdict"] == "differs" for d in deploys),
            "unverified": sum(d["verdict"] == "unverified" for d in deploys),
            "private_rows": max((d["private_rows"] for d in deploys), default=0),
            "deploy_results": deploys,
            "findings": [f.to_dict() for f in self.findings],
        }

    def summary(self) -> dict[str, Any]:
        """The record builder.release.audit_record keeps (the sentence, the counts, per deploy its verdict)."""
        d = self.to_dict()
        d["sentence"] = self.sentence()
        d["deploy_results"] = [
            {
                k: r[k]
                for k in (
                    "attestation",
                    "commit",
                    "built",
                    "verdict",
                    "reason",
                    "cells_agree",
                    "cells_differ",
                    "cells_unverified",
                    "private_rows",
                )
            }
            for r in d["deploy_results"]
        ]
        return d


def released_identity(root: Path, benchmark: str) -> tuple[Identity, str, str]:
    """(identity, its path, the benchmark's version) from keys/released/."""
    config = next((c for c in load_configs(root) if c.id == benchmark), None)
    if config is None:
        raise ConfigError(
            f"no benchmark {benchmark!r} in leaderboards/",
            where="--release",
            reason="unknown-benchmark",
            hint="name a benchmark of this repository",
        )
    path = identity_path(root, config.id, config.version)
    if not path.is_file():
        raise ConfigError(
            f"{benchmark} {config.version} has no published identity",
            where=str(path.relative_to(root)),
            reason="not-released",
            hint="the audit runs after the full release, once keys/released/ holds its identity",
        )
    return load_identity(path.read_bytes(), str(path.relative_to(root))), str(path.relative_to(root)), config.version


def _finding(folder: str, exc: BuilderError) -> Finding:
    where = f"{exc.where}: " if exc.where else ""
    return Finding(folder, exc.reason or "attestation-bad-statement", f"{where}{exc.message}")


def check_history(root: Path) -> tuple[list[tuple[Recorded, dict[str, list[str]]]], list[Finding]]:
    """Every record whole, and none gone: the whole records (with their boards) and the findings."""
    whole: list[tuple[Recorded, dict[str, list[str]]]] = []
    readable, findings = [], []
    for folder in folders(root):
        try:
            rec = read_recorded(folder)
            readable.append(rec)
            whole.append((rec, check_complete(root, rec)))
        except BuilderError as exc:
            findings.append(_finding(folder.name, exc))
    gone = {name: f"the signed statement of {by} says it was recorded" for name, by in unaccounted(root, readable).items()}
    for name, commit in deleted_records(root).items():
        gone.setdefault(name, "the checkout lacks it, though HEAD holds it" if commit == "HEAD" else f"commit {commit[:12]} removed it")
    findings += [_finding(name, deleted(name, why)) for name, why in sorted(gone.items())]
    return whole, findings


def audit(root: Path, benchmark: str, progress: Any = lambda _m: None) -> Audit:
    root = root.resolve()
    identity, identity_where, version = released_identity(root, benchmark)
    whole, findings = check_history(root)
    deploys = []
    cache: dict[str, Rebuilt] = {}
    for rec, listed in whole:
        status = rec.statement.status(benchmark)
        if status in (None, RELEASED):
            continue
        pred = rec.statement.predicate
        deploy = DeployAudit(rec.name, pred.get("commit"), pred.get("built"), status)
        deploys.append(deploy)
        boards = listed.get(benchmark, [])
        if not boards or not deploy.commit or not deploy.built:
            deploy.verdict, deploy.reason = "unverified", "the record holds no board files of this benchmark"
            continue
        key = f"{deploy.commit} {deploy.built}"
        if key not in cache:
            progress(f"Rebuilding {benchmark} at {deploy.commit[:12]} (deploy {rec.name}) with {identity_where}")
            cache[key] = rebuild(root, deploy.commit, benchmark, identity, parse_time(deploy.built, STATEMENT, "built"))
        again = cache[key]
        for name in boards:
            shown = recorded_board(root, rec, name) or b""  # present and attested: check_complete
            deploy.boards.append(compare_board(name, shown, again.boards.get(name), again.private))
        if any(b.differ for b in deploy.boards):
            deploy.verdict = "differs"
    return Audit(benchmark, version, identity_where, deploys, findings)
