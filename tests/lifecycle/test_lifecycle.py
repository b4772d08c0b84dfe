"""One leaderboard's life, end to end, the way its people live it (issue 21).

A real git repository with a bare `origin`, real ssh-keygen keys and signatures, the real
age CLI, the real harnesses (lm-evaluation-harness's dummy model, inspect_ai's mock model
through its Python API), the `sealboard` command, and a clock that moves: every commit is
dated (GIT_COMMITTER_DATE) along the leaderboard's story, which ends at the real time of the
run, when the scheduled authorised build publishes what the story merged in advance. The PR
check, the authorised build and the identity-publication job run the commands their workflow
files hold (read from .github/workflows/, install steps aside; GitHub's API is a recording
`gh` on PATH and the push goes to the bare origin).

The story, one `life.step(name)` each (a failure names the step that broke; `pytest -s`
prints each step's wall time):
init (3 maintainers, 2-of-3) → registry signed → dataset created and threshold-signed → two
labs registered, one granted items (opened with age: questions, no answers) → acme runs
inspect_ai's mock model over its copy, beta lm-eval's dummy model over the public ids →
`sealboard import` → `bundle create` → signed (acme `sealboard bundle sign`, beta
`ssh-keygen -Y sign`) → PRs, beta's behind main → the PR check (validate.yml) → merge → the
scheduled build (build.yml): embargoed → acme's key retired (rotated: its next run verifies
only with the new key), beta's compromised: acme stays, beta leaves for the Rejected page →
a partial release (splits:mini) → a full release signed, rehearsed (`--as-of`: banner, noindex, refused by `release verify --site`),
merged in advance → the build at its time: released, `release verify --site` passes →
the identity-publication PR (build.yml's publish-identity job) → PR check, merge → the next
build, and a rebuild by anyone with no secret → dataset 1.1 under a new embargo key: 1.1
embargoed, 1.0's release still verifiable from the repository (the site shows the current
version only, so 1.0's boards and items leave it: an open gap, not asserted) → 1.1's release
time-locked to a drand round (a loopback beacon whose key the test made): after the round,
with no maintainer and no secret, anyone builds it released (round from the relay), commits
the round and the opened identity (`release open-timelock`), and an offline rebuild
reproduces it.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.factory import soohak_items
from tests.importers.harness_logs import require, run_inspect, run_lm_eval
from tests.scaffold.wheel import make_wheel
from tests.timelock.beacon_server import LoopbackBeacon, make_chain, serve

ROOT = Path(__file__).resolve().parents[2]
REAL = datetime.now(timezone.utc).replace(microsecond=0)
T0 = REAL - timedelta(days=30)  # the leaderboard is created a month before this run
SB = f"{sys.executable} -c 'from builder.cli import main; main()' "

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("age") and shutil.which("ssh-keygen") and shutil.which("git")),
        reason="the lifecycle runs the real age, ssh-keygen and git",
    ),
]  # slow: a leaderboard's whole life: harness runs, PRs, builds


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu_seconds() -> float:
    """CPU of this process and every child it waited for (the sealboard commands, harnesses,
    git): on a shared machine the step's own cost, where wall time also measures the others."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Life:
    """The story's steps: each named and timed (wall and CPU), and named again when it breaks."""

    def __init__(self) -> None:
        self.times: list[tuple[str, float, float]] = []

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        start, cpu = time.perf_counter(), cpu_seconds()
        try:
            yield
        except BaseException as exc:  # name the step, keep the cause
            done = "; ".join(f"{n} ({t:.1f} s)" for n, t, _ in self.times) or "none"
            raise AssertionError(f"lifecycle step '{name}' broke: {exc}\n(steps done before it: {done})") from exc
        self.times.append((name, time.perf_counter() - start, cpu_seconds() - cpu))
        print(f"[lifecycle] {name}: {self.times[-1][1]:.1f} s wall, {self.times[-1][2]:.1f} s CPU")  # shown with pytest -s


class World:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "GIT_AUTHOR_NAME": "Ada",
            "GIT_AUTHOR_EMAIL": "ada@example.invalid",
            "GIT_COMMITTER_NAME": "GitHub",
            "GIT_COMMITTER_EMAIL": "noreply@example.invalid",
        }
        self.sealboard = [sys.executable, "-c", "from builder.cli import main; main()"]

    def run(self, args: list[str], cwd: Path, *, env: dict[str, str] | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(args, cwd=cwd, env={**self.env, **(env or {})}, capture_output=True, text=True, timeout=240)
        if ok and proc.returncode != 0:
            raise AssertionError(f"{' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc

    def sb(self, cwd: Path, *args: object, env: dict[str, str] | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run([*self.sealboard, *map(str, args)], cwd, env=env, ok=ok)

    def git(self, cwd: Path, *args: str, when: datetime | None = None) -> str:
        env = {}
        if when is not None:
            env = {"GIT_AUTHOR_DATE": f"{int(when.timestamp())} +0000", "GIT_COMMITTER_DATE": f"{int(when.timestamp())} +0000"}
        return self.run(["git", "-C", str(cwd), *args], cwd, env=env).stdout

    def commit(self, repo: Path, message: str, when: datetime) -> None:
        self.git(repo, "add", "-A")
        self.git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message, when=when)

    def keygen(self, name: str) -> Path:
        path = self.tmp / "keys" / name
        path.parent.mkdir(exist_ok=True)
        self.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], self.tmp)
        return path


def workflow_steps(name: str, job: str) -> list[dict[str, Any]]:
    """The run: steps of a job in the project's workflow, install steps aside (the scaffold's
    workflows are the same but for the install)."""
    doc = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    return [s for s in doc["jobs"][job]["steps"] if "run" in s and "pip install" not in s["run"]]


EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def step_env(spec: dict[str, Any], values: dict[str, str]) -> dict[str, str]:
    """A step's own env: block with its ${{ … }} expressions filled in: a secret reaches a
    step only where the workflow gives it (an expression the story does not know fails)."""

    def fill(match: re.Match[str]) -> str:
        assert match[1] in values, f"the lifecycle does not know the workflow expression {match[0]}: add it to the story"
        return values[match[1]]

    return {k: EXPRESSION.sub(fill, str(v)) for k, v in (spec.get("env") or {}).items()}


def step_runs(spec: dict[str, Any], values: dict[str, str]) -> bool:
    """Evaluate the one kind of if: the jobs use (`steps.X.outputs.Y != ''`)."""
    cond = spec.get("if")
    if cond is None:
        return True
    m = re.fullmatch(r"(steps\.\w+\.outputs\.\w+) != ''", cond)
    assert m, f"the lifecycle does not know the workflow condition {cond!r}: add it to the story"
    return values.get(m[1], "") != ""


def page(site: Path, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")


def data(site: Path, rel: str) -> Any:
    return orjson.loads((site / "data" / rel).read_bytes())


FAKE_GH = """#!/bin/sh
# GitHub's API for the publish-identity job: no branch exists yet; a created PR is recorded.
echo "gh $*" >> "$GH_LOG"
case "$1" in api) exit 1 ;; pr) exit 0 ;; esac
exit 2
"""


@pytest.mark.long_running  # 2-3 minutes: every command of a leaderboard's life, as subprocesses
def test_a_leaderboards_life(tmp_path: Path) -> None:
    require("inspect_ai")
    require("lm_eval")
    life, w = Life(), World(tmp_path)
    keys = {n: w.keygen(n) for n in ("ada", "emmy", "sofia", "acme", "acme-2027", "beta", "build")}
    board, origin, secure = tmp_path / "board", tmp_path / "origin.git", tmp_path / "secure"
    identity = secure / "identity.txt"
    items = soohak_items()
    ids = [it["id"] for it in items]

    with life.step("init: three maintainers at 2-of-3, pushed to a bare origin"):
        people = [a for n in ("ada", "emmy", "sofia") for a in ("--maintainer", n, n.title(), f"{keys[n]}.pub")]
        w.sb(
            tmp_path,
            "init",
            board,
            "--title",
            "Life",
            "--benchmark",
            "soohak",
            "--threshold",
            2,
            *people,
            "--identity-out",
            identity,
            "--wheel",
            make_wheel(tmp_path / "dist"),
        )
        w.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], tmp_path)
        w.git(board, "init", "-q", "-b", "main")
        w.git(board, "remote", "add", "origin", str(origin))
        w.commit(board, "sealboard init", T0)

    with life.step("registry signed by 2 of 3"):
        for m in ("ada", "emmy"):
            w.sb(board, "keys", "sign", "--key", keys[m])
        assert "v0001" in w.sb(board, "keys", "status").stdout
        w.commit(board, "registry v0001 signed", T0 + timedelta(minutes=10))

    with life.step("the build key listed (signs every deploy's attestation), signed by 2 of 3"):
        w.sb(board, "keys", "set-build-key", f"{keys['build']}.pub")
        for m in ("emmy", "sofia"):
            w.sb(board, "keys", "sign", "--key", keys[m])
        w.commit(board, "build key", T0 + timedelta(minutes=20))

    with life.step("dataset created and threshold-signed"):
        plain = tmp_path / "maintainer" / "items.jsonl"  # outside the repository, as the checklist says
        plain.parent.mkdir()
        plain.write_bytes(b"".join(orjson.dumps(it) + b"\n" for it in items))
        w.sb(board, "dataset", "create", "soohak", "--items", plain, "--key", keys["ada"])
        assert "2 maintainer signature(s), threshold 2" in w.sb(board, "dataset", "sign", "soohak", "--key", keys["sofia"]).stdout
        w.commit(board, "dataset", T0 + timedelta(hours=1))

    with life.step("two labs registered, acme granted the items (questions only)"):
        for lab in ("acme", "beta"):
            w.sb(board, "keys", "add-lab", lab, "--name", f"{lab.title()} AI", "--key", f"{keys[lab]}.pub")
            for m in ("emmy", "sofia"):
                w.sb(board, "keys", "sign", "--key", keys[m])
        w.sb(board, "keys", "grant-items", "acme", "soohak")
        for m in ("ada", "sofia"):
            w.sb(board, "keys", "sign", "--key", keys[m])
        w.sb(board, "dataset", "share", "soohak", "--lab", "acme", "--identity", identity)
        w.commit(board, "labs acme and beta; acme granted items", T0 + timedelta(hours=2))
        w.git(board, "push", "-q", "origin", "main")

    work = {lab: tmp_path / f"{lab}-work" for lab in ("acme", "beta")}  # plaintext stays outside the repository
    with life.step("acme opens its copy with age and runs inspect_ai's mock model over it (Python API)"):
        work["acme"].mkdir()
        copy = next((board / "keys" / "access" / "soohak").glob("*/acme.jsonl.age"))
        opened = [orjson.loads(line) for line in w.run(["age", "-d", "-i", str(keys["acme"]), str(copy)], tmp_path).stdout.splitlines()]
        assert [it["id"] for it in opened] == ids
        assert all("answer" not in it and "salt" not in it for it in opened)
        # Outside the repository (the labs page's command writes items.jsonl, which .gitignore ignores).
        (work["acme"] / "items.jsonl").write_bytes(b"".join(orjson.dumps(it) + b"\n" for it in opened))
        gold = {it["id"]: it["answer"]["en"] for it in items}  # what the model happens to get right

        def reply(it: dict[str, Any]) -> str:
            if it["split"] == "mini":
                return f"ANSWER: {gold[it['id']]}"
            return "ANSWER: 7" if it["split"] == "refusal" else f"ANSWER: {int(gold[it['id']]) + 1}"

        # Neither lab holds gold answers: their tasks' targets are empty and the build grades.
        samples = [
            {"id": it["id"], "input": it["question"]["en"], "target": "", "reply": reply(it), "metadata": {"lang": "en"}} for it in opened
        ]
        acme_log = run_inspect(work["acme"], samples, epochs=3, log_format="eval")

    with life.step("beta runs lm-evaluation-harness's dummy model over the public item ids"):
        (public,) = (board / "bundles" / "soohak" / "_dataset").glob("*/manifest.json")  # init's version: v1
        public_ids = [entry["id"] for entry in orjson.loads(public.read_bytes())["items"]]
        assert sorted(public_ids) == sorted(ids)
        work["beta"].mkdir()
        docs = [{"id": iid, "question": "(beta's own prompt)", "target": ""} for iid in public_ids]
        beta_log = run_lm_eval(work["beta"], docs, repeats=(3,))[3]

    def lab_bundle(lab: str, clone: Path) -> None:
        """sealboard import → bundle create → sign, from the lab's work folder."""
        # acme holds no gold answers (its targets are empty): its regraded samples go ungraded.
        importer = (
            ["inspect-ai", acme_log, "--no-gold", work["acme"] / "items.jsonl"]
            if lab == "acme"
            else ["lm-eval", beta_log, "--lang", "en", "--grade-by-target"]
        )
        out = w.sb(work[lab], "import", *importer, "--benchmark", "soohak", "--root", clone).stdout
        assert "Coverage OK for soohak: 18 items × en × 3 sample(s) = 54 rows" in out, out
        if lab == "acme":
            assert "36 sample(s) of regraded answer types written ungraded (correct: null, --no-gold)" in out, out
        described = yaml.safe_load((work[lab] / "run.yaml").read_text())
        assert described["harness"]["name"] == ("inspect_ai" if lab == "acme" else "lm-evaluation-harness")
        # The lab fills in what the log cannot say.
        described["model"].update(
            {
                "id": f"{lab}-m1",
                "name": f"{lab.title()} Model",
                "family": lab.title(),
                "training_cutoff": "2025-01-01",
                "release_date": "2025-06-01",
            }
        )
        described["config"]["thinking"] = True
        described["judge"] = "none"
        (work[lab] / "run.yaml").write_text(yaml.safe_dump(described))
        w.sb(
            clone,
            "bundle",
            "create",
            "--benchmark",
            "soohak",
            "--lab",
            lab,
            "--submission",
            "run-1",
            "--results",
            work[lab] / "results.jsonl",
            "--describe",
            work[lab] / "run.yaml",
        )
        folder = clone / "bundles" / "soohak" / lab / "run-1"
        if lab == "acme":
            w.sb(clone, "bundle", "sign", folder, "--key", keys["acme"])
        else:
            w.run(
                ["ssh-keygen", "-q", "-Y", "sign", "-n", "sealboard-bundle", "-f", str(keys[lab]), str(folder / "manifest.json")], tmp_path
            )
        w.sb(clone, "bundle", "verify", folder)

    def lab_pr(lab: str, when: datetime, number: int, behind: str | None = None) -> None:
        clone = tmp_path / f"{lab}-clone"
        w.run(["git", "clone", "-q", str(origin), str(clone)], tmp_path)
        if behind:
            w.git(clone, "checkout", "-q", behind)
        w.git(clone, "checkout", "-q", "-b", f"{lab}-run-1")
        lab_bundle(lab, clone)
        w.commit(clone, f"{lab} run-1", when)
        assert w.git(clone, "show", "--stat", "--format=", "HEAD").count("bundles/soohak/") == 3  # manifest, signature, sealed results
        w.git(clone, "push", "-q", "origin", f"HEAD:refs/pull/{number}/head")

    def pr_check(number: int, *, expect_pass: bool = True) -> str:
        ci = tmp_path / f"ci-validate-{number}"
        w.run(["git", "clone", "-q", str(origin), str(ci / "trusted")], tmp_path)
        summary = ci / "summary.md"
        for spec in workflow_steps("validate.yml", "validate"):
            name, command = spec.get("name", ""), spec["run"]
            env = {"GITHUB_STEP_SUMMARY": str(summary), **step_env(spec, {"github.event.pull_request.number": str(number)})}
            last = w.run(["bash", "-ec", command.replace("sealboard ", SB)], ci, env=env, ok=False)
            if name.startswith("Validate"):
                assert (last.returncode == 0) is expect_pass, f"{command}: {last.stdout[-2000:]}{last.stderr[-2000:]}"
            else:
                assert last.returncode == 0, f"{command}: {last.stdout[-2000:]}{last.stderr[-2000:]}"
        assert summary.read_text()
        return last.stdout

    def merge(number: int, when: datetime) -> None:
        w.git(board, "fetch", "-q", "origin", f"refs/pull/{number}/head")
        w.git(board, "-c", "commit.gpgsign=false", "merge", "-q", "--no-ff", "-m", f"Merge pull request #{number}", "FETCH_HEAD", when=when)
        w.git(board, "push", "-q", "origin", "main")

    def push(message: str, when: datetime) -> None:
        w.commit(board, message, when)
        w.git(board, "push", "-q", "origin", "main")

    with life.step("each lab imports its log, creates and signs its bundle, and opens a PR (beta's behind main)"):
        main_before = w.git(board, "rev-parse", "HEAD").strip()
        lab_pr("acme", T0 + timedelta(days=1), 1)
        # main moves on (a maintainers' page edit) before beta, working from the older main, pushes.
        (board / "site_src" / "about.md").write_text("# About\n\nA leaderboard.\n")
        push("about page", T0 + timedelta(days=1, hours=2))
        lab_pr("beta", T0 + timedelta(days=1, hours=3), 2, behind=main_before)

    with life.step("the PR check runs validate.yml's commands"):
        for number in (1, 2):
            out = pr_check(number)
            assert "passed" in out.lower(), out

    with life.step("merge both PRs"):
        merge(1, T0 + timedelta(days=2))
        merge(2, T0 + timedelta(days=2, hours=1))

    secrets = {"secrets.SEALBOARD_IDENTITY": identity.read_text(), "secrets.SEALBOARD_BUILD_KEY": keys["build"].read_text()}
    builds = iter(range(1, 100))

    def scheduled_build() -> Path:
        """build.yml's build job on a fresh clone of origin; the site it would deploy."""
        ci = tmp_path / f"ci-build-{next(builds)}"
        w.run(["git", "clone", "-q", str(origin), str(ci)], tmp_path)
        for spec in workflow_steps("build.yml", "build"):
            w.run(["bash", "-ec", spec["run"].replace("sealboard ", SB)], ci, env=step_env(spec, secrets))
        return ci / "site"

    def soohak(site: Path, bid: str = "soohak") -> dict[str, Any]:
        (bench,) = [b for b in data(site, "index.json")["benchmarks"] if b["id"] == bid]
        return bench

    def rows(site: Path) -> list[str]:
        return sorted(row["submission"] for row in data(site, "soohak/submissions.json")["rows"])

    with life.step("the scheduled authorised build (build.yml's commands): embargoed, both harness runs on the board"):
        site = scheduled_build()
        bench = soohak(site)
        assert (bench["id"], bench["status"], bench["submissions"]) == ("soohak", "embargoed", 2)
        assert data(site, "rejected.json")["rejected"] == []
        assert rows(site) == ["acme/run-1", "beta/run-1"]
        # 18 items under the default grid: every board says why nothing shows, and what it needs.
        boards = [p for p in (site / "soohak").glob("*.html") if "Embargoed: only aggregate scores are shown" in p.read_text()]
        assert boards and all("at least 41 items; this benchmark has 18 items in all" in p.read_text() for p in boards), boards
        harness = {row["lab"]: row["harness"].split()[0] for row in data(site, "soohak/submissions.json")["rows"]}
        assert harness == {"acme": "inspect_ai", "beta": "lm-evaluation-harness"}, harness
        # The deploy is attested: anyone checks it offline against the registry's build key.
        assert "verified:" in w.sb(site.parent, "verify-site", site, "--root", site.parent).stdout

    with life.step("acme rotates its key (the old one retired), beta's key is compromised"):
        w.sb(board, "keys", "add-lab", "acme", "--key", f"{keys['acme-2027']}.pub")  # no --name: a key for a lab
        w.sb(board, "keys", "revoke", f"{keys['acme']}.pub", "--retire", "--at", stamp(T0 + timedelta(days=5)))
        w.sb(board, "keys", "revoke", f"{keys['beta']}.pub", "--compromised", "--reason", "laptop stolen")
        for m in ("ada", "emmy"):
            w.sb(board, "keys", "sign", "--key", keys[m])
        push("rotate acme's key; beta's key compromised", T0 + timedelta(days=5))
        # acme's next run: the retired key signs nothing new, the new one does.
        nxt = tmp_path / "acme-next"
        w.run(["git", "clone", "-q", str(origin), str(nxt)], tmp_path)
        w.sb(
            nxt,
            "bundle",
            "create",
            "--benchmark",
            "soohak",
            "--lab",
            "acme",
            "--submission",
            "run-2",
            "--results",
            work["acme"] / "results.jsonl",
            "--describe",
            work["acme"] / "run.yaml",
        )
        folder = nxt / "bundles" / "soohak" / "acme" / "run-2"
        w.sb(nxt, "bundle", "sign", folder, "--key", keys["acme"])
        refused = w.sb(nxt, "bundle", "verify", folder, ok=False)
        assert refused.returncode == 1 and "of lab 'acme' expired at" in refused.stderr, refused
        (folder / "manifest.json.sig").unlink()
        w.sb(nxt, "bundle", "sign", folder, "--key", keys["acme-2027"])
        w.sb(nxt, "bundle", "verify", folder)

    with life.step("the build after: acme's bundle stays, beta's is on the Rejected page"):
        site = scheduled_build()
        assert rows(site) == ["acme/run-1"]
        (rejected,) = data(site, "rejected.json")["rejected"]
        assert rejected["where"].startswith("bundles/soohak/beta/run-1/") and rejected["reason"] == "key-revoked", rejected
        assert "laptop stolen" in page(site, "rejected.html") and "beta" in page(site, "rejected.html")

    with life.step("a partial release (splits:mini), signed by 2 of 3, in force"):
        w.sb(board, "release", "flip", "soohak", "--not-before", stamp(REAL - timedelta(days=10)), "--scope", "splits:mini")
        for m in ("ada", "sofia"):
            w.sb(board, "release", "sign", "soohak", "--key", keys[m])
        push("release soohak's mini split", REAL - timedelta(days=12))
        site = scheduled_build()
        bench = soohak(site)
        assert bench["status"] == "partly released" and bench["released_items"] == 6, bench
        released = [orjson.loads(line) for line in (site / "data" / "soohak" / "items.jsonl").read_bytes().splitlines()]
        assert sorted(it["id"] for it in released) == sorted(it["id"] for it in items if it["split"] == "mini")
        assert not (site / "soohak" / "items" / "c000.html").exists() and (site / "soohak" / "items" / "m000.html").exists()

    full_at = REAL - timedelta(days=2)
    with life.step("the full release signed, rehearsed with --as-of (banner, noindex, refused for deployment)"):
        w.sb(board, "release", "flip", "soohak", "--not-before", stamp(full_at))
        for m in ("ada", "emmy"):
            w.sb(board, "release", "sign", "soohak", "--key", keys[m])
        w.commit(board, "release soohak", REAL - timedelta(days=3))
        rehearsal = tmp_path / "rehearsal"
        w.sb(board, "build", "--identity", identity, "--as-of", stamp(full_at), "--out", rehearsal)
        assert data(rehearsal, "index.json")["rehearsal"] is True
        home = page(rehearsal, "index.html")
        assert "Rehearsal: this site shows what would be public at" in home and 'name="robots" content="noindex' in home
        assert soohak(rehearsal)["status"] == "released"
        refused = w.sb(board, "release", "verify", "--site", rehearsal, ok=False)
        assert refused.returncode != 0 and "rehearsal" in refused.stdout + refused.stderr
        assert not w.git(board, "status", "--porcelain")  # the rehearsal left nothing in the checkout
        w.git(board, "push", "-q", "origin", "main")

    with life.step("the build at the release time shows the released boards; release verify --site passes"):
        site = scheduled_build()  # build.yml's own last command is release verify --site
        bench = soohak(site)
        assert bench["status"] == "released" and bench["released_items"] == len(items), bench
        assert "Rehearsal" not in page(site, "index.html")
        # The build's own grading: acme's mock model answered the mini items right, the rest wrong.
        scores = {
            board_id: {r["submission"]: r["metrics"]["avg@3"]["value"] for r in data(site, f"soohak/{board_id}.json")["rows"]}
            for board_id in ("mini", "challenge")
        }
        assert scores == {"mini": {"acme/run-1": 1.0}, "challenge": {"acme/run-1": 0.0}}, scores
        # acme graded nothing it could not: no false disagreements, its samples counted as lab-ungraded.
        (grading,) = [r["metrics"] for r in data(site, "soohak/grading.json")["rows"] if r["submission"] == "acme/run-1"]
        assert (grading["lab_ungraded_samples"]["value"], grading["disagreements"]["value"]) == (36, 0), grading
        assert "verified:" in w.sb(site.parent, "verify-site", site, "--root", site.parent).stdout
        assert w.sb(board, "release", "identity-due").stdout.split() == ["soohak"]

    with life.step("the identity-publication PR (build.yml's publish-identity job)"):
        ci = tmp_path / "ci-publish-identity"
        w.run(["git", "clone", "-q", str(origin), str(ci)], tmp_path)
        (tmp_path / "bin").mkdir()
        (tmp_path / "bin" / "gh").write_text(FAKE_GH)
        (tmp_path / "bin" / "gh").chmod(0o755)
        outputs, gh_log = tmp_path / "github_output", tmp_path / "gh.log"
        outputs.write_text("")
        repo_url = "https://x-access-token:token@github.com/life/board.git"
        base = {
            "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
            "GH_LOG": str(gh_log),
            "GITHUB_OUTPUT": str(outputs),
            "GITHUB_REPOSITORY": "life/board",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"url.{origin}.insteadOf",
            "GIT_CONFIG_VALUE_0": repo_url,
        }
        values = {**secrets, "github.token": "token"}
        for spec in workflow_steps("build.yml", "publish-identity"):
            if not step_runs(spec, values):
                continue
            w.run(["bash", "-ec", spec["run"].replace("sealboard ", SB)], ci, env={**base, **step_env(spec, values)})
            if spec.get("id"):  # its outputs, for the steps after it
                for line in outputs.read_text().splitlines():
                    key, _, value = line.partition("=")
                    values[f"steps.{spec['id']}.outputs.{key}"] = value
        due = {"benchmarks": values.get("steps.due.outputs.benchmarks", "")}
        assert due["benchmarks"] == "soohak"
        assert "gh pr create" in gh_log.read_text()
        branch = "sealboard/publish-identity/soohak-v1"
        assert branch in w.git(origin, "branch", "--list", "sealboard/*")
        assert w.git(origin, "show", "--stat", "--format=", branch).split()[0] == "keys/released/soohak-v1.txt"
        w.git(origin, "update-ref", "refs/pull/3/head", branch)

    with life.step("the identity PR is checked (maintainer review required), reviewed and merged"):
        out = pr_check(3, expect_pass=False)
        assert "maintainer review required" in out.lower(), out
        merge(3, REAL - timedelta(days=1))
        assert w.sb(board, "release", "identity-due").stdout.split() == []
        w.sb(board, "release", "verify", "--root", board)

    with life.step("the next build, and a rebuild by anyone with no secret"):
        site = scheduled_build()
        assert soohak(site)["status"] == "released"
        public = tmp_path / "anyone"
        w.run(["git", "clone", "-q", str(origin), str(public)], tmp_path)
        w.sb(public, "build", "--root", public, "--out", public / "site")
        assert soohak(public / "site")["status"] == "released" and soohak(public / "site")["released_items"] == len(items)
        assert rows(public / "site") == rows(site) == ["acme/run-1"]

    with life.step("dataset 1.1 under a new embargo key, threshold-signed"):
        new_key = secure / "soohak-1.1.txt"
        w.run(["age-keygen", "-o", str(new_key)], tmp_path)
        recipient = w.run(["age-keygen", "-y", str(new_key)], tmp_path).stdout.strip()
        config_path = board / "leaderboards" / "soohak.yaml"
        text = config_path.read_text()
        old = yaml.safe_load(text)
        text = text.replace(old["embargo_recipient"], recipient).replace('version: "v1"', 'version: "1.1"')
        config_path.write_text(text)
        assert yaml.safe_load(text)["version"] == "1.1" and yaml.safe_load(text)["embargo_recipient"] == recipient
        items_11 = soohak_items(n_mini=7)
        plain.write_bytes(b"".join(orjson.dumps(it) + b"\n" for it in items_11))
        w.sb(board, "dataset", "create", "soohak", "--items", plain, "--key", keys["emmy"])
        w.sb(board, "dataset", "sign", "soohak", "--key", keys["sofia"])
        push("soohak 1.1", REAL - timedelta(hours=12))

    with life.step("the build after 1.1: 1.1 embargoed under its new key; 1.0 stays on the site, released, and verifies"):
        secrets["secrets.SEALBOARD_IDENTITY"] = identity.read_text() + new_key.read_text()  # the secret, updated
        # A run of 1.0 merged after 1.1 replaced it (1.0's answers are public by now): ranked nowhere.
        late = board / "bundles" / "soohak" / "acme" / "run-2"
        shutil.copytree(folder, late)
        push("acme's late 1.0 run", REAL - timedelta(hours=6))
        site = scheduled_build()
        bench = soohak(site)
        assert (bench["version"], bench["status"], bench["items"], bench["released_items"]) == ("1.1", "embargoed", 19, 0), bench
        assert bench["release"]["summary"] == "embargoed: no release statement for version 1.1 (2 for other versions)", bench["release"]
        assert sorted(data(site, "soohak/commitments.json")["commitments"]) == sorted(it["id"] for it in items_11)
        # acme's 1.0 run is not a 1.1 result: it leaves 1.1's boards for 1.0's, which stay on
        # the site as soohak@v1 (released: nothing un-releases them), scored by 1.0's own config.
        assert [b["id"] for b in data(site, "index.json")["benchmarks"]] == ["soohak", "soohak@v1"]
        v1 = soohak(site, "soohak@v1")
        assert (v1["version"], v1["status"], v1["superseded_by"], v1["benchmark"], v1["released_items"], v1["submissions"]) == (
            "v1",
            "released",
            "1.1",
            "soohak",
            len(items),
            1,
        ), v1
        assert sorted(r["submission"] for r in data(site, "soohak@v1/submissions.json")["rows"]) == ["acme/run-1"]
        assert len((site / "data" / "soohak@v1" / "items.jsonl").read_text().splitlines()) == len(items)
        assert (site / "data" / "soohak@v1" / "matrix.csv").is_file() and (
            site / "soohak@v1" / "items" / f"{items[0]['id']}.html"
        ).is_file()
        assert "replaced by version 1.1" in (site / "soohak@v1" / "index.html").read_text()
        assert 'href="../soohak@v1/index.html">Version v1</a> (released)' in (site / "soohak" / "index.html").read_text()
        reasons = {(r["lab"], r["where"].split("/")[3], r["reason"]) for r in data(site, "rejected.json")["rejected"]}
        assert reasons == {("beta", "run-1", "key-revoked"), ("acme", "run-2", "wrong-version")}, reasons
        assert not (site / "data" / "soohak" / "items.jsonl").exists()  # nothing of 1.1 is public
        told = orjson.loads(w.sb(board, "status", "--lab", "acme", "--site", site, "--json").stdout)["bundles"]
        assert {(b["submission"], b["status"], b["reason"]) for b in told} == {
            ("run-1", "published", None),
            ("run-2", "rejected", "wrong-version"),
        }, told
        # 1.0's release stays checkable by anyone: its published identity opens its dataset,
        # whose every item matches the commitment made during its embargo; a rebuild with no
        # secret shows 1.0's boards as the authorised build does.
        w.sb(board, "release", "verify", "--root", board)
        assert w.sb(board, "release", "identity-due").stdout.split() == []
        w.run(["git", "-C", str(public), "pull", "-q", "--ff-only"], tmp_path)
        w.sb(public, "build", "--root", public, "--out", public / "site")
        assert soohak(public / "site", "soohak@v1")["status"] == "released"
        assert (public / "site" / "data" / "soohak@v1" / "mini.json").read_bytes() == (
            site / "data" / "soohak@v1" / "mini.json"
        ).read_bytes()

    with life.step("1.1's release time-locked to a beacon round: at its time, with every maintainer gone, anyone opens and rebuilds it"):
        # The beacon: a drand chain whose BLS key the test made, served on loopback as relays serve drand.
        beacon_secret, chain = make_chain()
        info = tmp_path / "chain-info.json"
        info.write_bytes(orjson.dumps(LoopbackBeacon(beacon_secret, chain).info()))
        due = REAL - timedelta(hours=2)
        flipped = w.sb(
            board, "release", "flip", "soohak", "--not-before", stamp(due), "--timelock", "--chain-info", info, "--identity", new_key
        ).stdout
        assert "time-locked to round" in flipped, flipped
        for m in ("ada", "sofia"):
            w.sb(board, "release", "sign", "soohak", "--key", keys[m])
        push("release soohak 1.1, time-locked", REAL - timedelta(hours=3))
        # From here on no maintainer key and no identity is used: the maintainers are gone.
        with serve(LoopbackBeacon(beacon_secret, chain)) as beacon:
            first = tmp_path / "anyone-1.1"
            w.run(["git", "clone", "-q", str(origin), str(first)], tmp_path)
            assert "time-locked to round" in w.sb(first, "release", "status", "--root", first).stdout
            w.sb(first, "build", "--root", first, "--out", first / "site", "--beacon-relay", beacon.url)
            bench = soohak(first / "site")
            assert (bench["version"], bench["status"], bench["released_items"]) == ("1.1", "released", 19), bench
            # anyone commits the round's signature and the opened identity, as publish-identity would
            opened = w.sb(first, "release", "open-timelock", "soohak", "--root", first, "--beacon-relay", beacon.url).stdout
            assert "keys/released/soohak-1.1.txt" in opened and ".beacon.json" in opened, opened
        w.commit(first, "open soohak 1.1's time-lock", REAL - timedelta(minutes=30))
        w.git(first, "push", "-q", "origin", "main")
        # A rebuild from the repository alone (no relay, no secret) reproduces the release.
        second = tmp_path / "anyone-1.1-offline"
        w.run(["git", "clone", "-q", str(origin), str(second)], tmp_path)
        w.sb(second, "build", "--root", second, "--out", second / "site")
        assert soohak(second / "site")["status"] == "released"
        released = {p.relative_to(first / "site"): p.read_bytes() for p in (first / "site" / "data" / "soohak").rglob("*") if p.is_file()}
        assert Path("data/soohak/items.jsonl") in released and len(released[Path("data/soohak/items.jsonl")].splitlines()) == 19
        assert {rel: (second / "site" / rel).read_bytes() for rel in released} == released

    wall, cpu = sum(t for _, t, _ in life.times), sum(c for _, _, c in life.times)
    print(f"[lifecycle] {len(life.times)} steps: {wall:.1f} s wall, {cpu:.1f} s CPU (load average {os.getloadavg()[0]:.1f})")
