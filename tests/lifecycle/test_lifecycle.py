"""One leaderboard's life, end to end, the way its people live it (issue 21).

A real git repository with a bare `origin`, real ssh-keygen keys and signatures, the real
age CLI, the `sealboard` command as installed, and a clock that moves: every commit is dated
(GIT_COMMITTER_DATE) along the leaderboard's story, which ends at the real time of the run,
when the scheduled authorised build publishes. The PR check and the authorised build run the
commands their workflow files hold (read from .github/workflows/, install steps aside).

Steps covered: init (3 maintainers, 2-of-3) → registry signed → dataset created and
threshold-signed → two labs registered, one granted items (opened with age: no answers) →
each lab makes, signs (ssh-keygen -Y sign) and pushes its bundle as a PR, one of them behind
main → the PR check (validate.yml's commands) → merge → the scheduled build (build.yml's
commands): embargoed site → a full release signed by 2 of 3 and merged in advance → the
build at its time shows the released boards → `release verify --site` of that site →
`release identity-due` names the benchmark. Not covered yet: harness logs (importers), key
retirement and compromise, a partial release and rehearsal, the identity-publication PR,
dataset 1.1 under a new embargo key.

Each step runs under `step(name)`: a failure names the step that broke.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
import yaml

from tests.factory import results_for, soohak_items
from tests.scaffold.wheel import make_wheel

ROOT = Path(__file__).resolve().parents[2]
REAL = datetime.now(timezone.utc).replace(microsecond=0)
T0 = REAL - timedelta(days=30)  # the leaderboard is created a month before this run

pytestmark = pytest.mark.skipif(not (shutil.which("age") and shutil.which("ssh-keygen") and shutil.which("git")),
                                reason="the lifecycle runs the real age, ssh-keygen and git")


@contextlib.contextmanager
def step(name: str):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    try:
        yield
    except BaseException as exc:  # name the step, keep the cause
        raise AssertionError(f"lifecycle step '{name}' broke: {exc}") from exc
    print(f"[lifecycle] {name}: {time.perf_counter() - start:.1f} s")  # shown with pytest -s


class World:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.invalid",
                    "GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@example.invalid"}
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
            stamp = f"{int(when.timestamp())} +0000"
            env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        return self.run(["git", "-C", str(cwd), *args], cwd, env=env).stdout

    def commit(self, repo: Path, message: str, when: datetime) -> None:
        self.git(repo, "add", "-A")
        self.git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message, when=when)

    def keygen(self, name: str) -> Path:
        path = self.tmp / "keys" / name
        path.parent.mkdir(exist_ok=True)
        self.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], self.tmp)
        return path


def workflow_runs(name: str, job: str) -> list[str]:
    """The run: commands of a job in the project's workflow (the scaffold's are the same but for the install)."""
    doc = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    return [s["run"] for s in doc["jobs"][job]["steps"] if "run" in s and "pip install" not in s["run"]]


def test_a_leaderboards_life(tmp_path: Path) -> None:
    w = World(tmp_path)
    keys = {n: w.keygen(n) for n in ("ada", "emmy", "sofia", "acme", "beta")}
    board, origin, secure = tmp_path / "board", tmp_path / "origin.git", tmp_path / "secure"
    identity = secure / "identity.txt"
    items = soohak_items()

    with step("init: three maintainers at 2-of-3, pushed to a bare origin"):
        people = [a for n in ("ada", "emmy", "sofia") for a in ("--maintainer", n, n.title(), f"{keys[n]}.pub")]
        w.sb(tmp_path, "init", board, "--title", "Life", "--benchmark", "soohak", "--threshold", 2, *people,
             "--identity-out", identity, "--wheel", make_wheel(tmp_path / "dist"))
        w.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], tmp_path)
        w.git(board, "init", "-q", "-b", "main")
        w.git(board, "remote", "add", "origin", str(origin))
        w.commit(board, "sealboard init", T0)

    with step("registry signed by 2 of 3"):
        for m in ("ada", "emmy"):
            w.sb(board, "keys", "sign", "--key", keys[m])
        assert "v0001" in w.sb(board, "keys", "status").stdout
        w.commit(board, "registry v0001 signed", T0 + timedelta(minutes=10))

    with step("dataset created and threshold-signed"):
        plain = tmp_path / "maintainer" / "items.jsonl"  # outside the repository, as the checklist says
        plain.parent.mkdir()
        plain.write_bytes(b"".join(orjson.dumps(it) + b"\n" for it in items))
        w.sb(board, "dataset", "create", "soohak", "--items", plain, "--key", keys["ada"])
        assert "2 of 2" in w.sb(board, "dataset", "sign", "soohak", "--key", keys["sofia"]).stdout
        w.commit(board, "dataset", T0 + timedelta(hours=1))

    with step("two labs registered, acme granted the items (questions only)"):
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
        copy = next((board / "keys" / "access" / "soohak").glob("*/acme.jsonl.age"))
        opened = w.run(["age", "-d", "-i", str(keys["acme"]), str(copy)], tmp_path).stdout
        got = [orjson.loads(line) for line in opened.splitlines()]
        assert [it["id"] for it in got] == [it["id"] for it in items]
        assert all("answer" not in it and "salt" not in it for it in got)

    def lab_pr(lab: str, when: datetime, number: int, behind: str | None = None) -> None:
        clone = tmp_path / f"{lab}-clone"
        w.run(["git", "clone", "-q", str(origin), str(clone)], tmp_path)
        if behind:
            w.git(clone, "checkout", "-q", behind)
        w.git(clone, "checkout", "-q", "-b", f"{lab}-run-1")
        work = tmp_path / f"{lab}-work"  # plaintext stays outside the repository
        work.mkdir()
        correct = {it["id"]: [i % 2 == 0, lab == "acme", False] for i, it in enumerate(items)}
        (work / "results.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in results_for(items, correct)))
        (work / "run.yaml").write_text(
            f"model: {{id: {lab}-m1, name: {lab.title()} Model, family: {lab.title()}, open_weights: false, params_b: null,\n"
            "        active_params_b: null, training_cutoff: '2025-01-01', release_date: '2025-06-01'}\n"
            "config: {reasoning_effort: high, thinking: true, temperature: 1.0, max_output_tokens: 32768, tts: false, notes: ''}\n"
            "harness: {name: test-harness, version: '1.0'}\njudge: none\npublish_on_release: {results: true, transcripts: false}\n")
        w.sb(clone, "bundle", "create", "--benchmark", "soohak", "--lab", lab, "--submission", "run-1",
             "--results", work / "results.jsonl", "--describe", work / "run.yaml")
        manifest = clone / "bundles" / "soohak" / lab / "run-1" / "manifest.json"
        w.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "sealboard-bundle", "-f", str(keys[lab]), str(manifest)], tmp_path)
        w.commit(clone, f"{lab} run-1", when)
        w.git(clone, "push", "-q", "origin", f"HEAD:refs/pull/{number}/head")

    def pr_check(number: int) -> subprocess.CompletedProcess[str]:
        ci = tmp_path / f"ci-validate-{number}"
        w.run(["git", "clone", "-q", str(origin), str(ci / "trusted")], tmp_path) if not ci.exists() else None
        summary = ci / "summary.md"
        last = None
        for command in workflow_runs("validate.yml", "validate"):
            script = command.replace("sealboard ", f"{sys.executable} -c 'from builder.cli import main; main()' ")
            last = w.run(["bash", "-ec", script], ci, env={"PR_NUMBER": str(number), "GITHUB_STEP_SUMMARY": str(summary)}, ok=False)
            assert last.returncode == 0, f"{command}: {last.stdout[-2000:]}{last.stderr[-2000:]}"
        assert last is not None and summary.read_text()
        return last

    with step("labs open PRs from branches, one behind main"):
        main_before = w.git(board, "rev-parse", "HEAD").strip()
        lab_pr("acme", T0 + timedelta(days=1), 1)
        # main moves on (a maintainers' page edit) before beta, working from the older main, pushes.
        (board / "site_src" / "about.md").write_text("# About\n\nA leaderboard.\n")
        w.commit(board, "about page", T0 + timedelta(days=1, hours=2))
        w.git(board, "push", "-q", "origin", "main")
        lab_pr("beta", T0 + timedelta(days=1, hours=3), 2, behind=main_before)

    with step("the PR check runs validate.yml's commands"):
        for number in (1, 2):
            out = pr_check(number).stdout
            assert "passed" in out.lower(), out

    with step("merge both PRs"):
        for number, when in ((1, T0 + timedelta(days=2)), (2, T0 + timedelta(days=2, hours=1))):
            w.git(board, "fetch", "-q", "origin", f"refs/pull/{number}/head")
            w.git(board, "-c", "commit.gpgsign=false", "merge", "-q", "--no-ff", "-m", f"Merge pull request #{number}", "FETCH_HEAD", when=when)
        w.git(board, "push", "-q", "origin", "main")

    identity_env = {"SEALBOARD_IDENTITY": identity.read_text()}

    def scheduled_build() -> Path:
        ci = tmp_path / f"ci-build-{datetime.now().timestamp()}"
        w.run(["git", "clone", "-q", str(origin), str(ci)], tmp_path)
        for command in workflow_runs("build.yml", "build"):
            script = command.replace("sealboard ", f"{sys.executable} -c 'from builder.cli import main; main()' ")
            w.run(["bash", "-ec", script], ci, env=identity_env)
        return ci / "site"

    with step("the scheduled authorised build (build.yml's commands): embargoed"):
        site = scheduled_build()
        index = orjson.loads((site / "data" / "index.json").read_bytes())
        soohak = index["benchmarks"][0]
        assert (soohak["id"], soohak["status"], soohak["submissions"]) == ("soohak", "embargoed", 2)
        assert orjson.loads((site / "data" / "rejected.json").read_bytes())["rejected"] == []
        # 18 items under the default grid: every board says why nothing shows, and what it needs.
        boards = [p for p in (site / "soohak").glob("*.html") if "Embargoed: only aggregate scores are shown" in p.read_text()]
        assert boards and all("at least 41 items; this benchmark has 18 items in all" in p.read_text() for p in boards), boards

    with step("a full release, signed by 2 of 3, merged in advance"):
        not_before = REAL - timedelta(days=2)
        w.sb(board, "release", "flip", "soohak", "--not-before", not_before.strftime("%Y-%m-%dT%H:%M:%SZ"))
        for m in ("ada", "emmy"):
            w.sb(board, "release", "sign", "soohak", "--key", keys[m])
        w.commit(board, "release soohak", REAL - timedelta(days=3))
        w.git(board, "push", "-q", "origin", "main")

    with step("the build at the release time shows the released boards"):
        site = scheduled_build()
        index = orjson.loads((site / "data" / "index.json").read_bytes())
        assert index["benchmarks"][0]["status"] == "released", index["benchmarks"][0]
        assert index["benchmarks"][0]["released_items"] == len(items)

    with step("release verify of the deployed site, and identity-due"):
        w.sb(board, "release", "verify", "--site", site)
        assert w.sb(board, "release", "identity-due").stdout.split() == ["soohak"]
