"""Benchmark `sealboard validate` against pull-request size: it must grow linearly.

    python bench/bench_validate.py                 # 2 000 and 20 000 bundle folders
    python bench/bench_validate.py --sizes 1000 5000 20000 --repeat 3

Builds one real git repository per size with the test instance as the base commit (real
registry and config) and a PR commit adding N bundle folders of one lab (each with a
manifest, a signature and a sealed file; the bytes are not valid bundles, so every folder
is read, parsed and reported, which is the path a hostile 20k-folder PR takes). Prints
the median wall time of `validate()` per size and the time per folder; per-folder time
that stays flat from 2k to 20k folders is linear growth. (Before the fix, each folder's
files were found by scanning the whole tree: 20k folders took about 2 minutes.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from builder.validate.pr import validate  # noqa: E402
from tests.factory import NOW, make_instance  # noqa: E402

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *args: str, input: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(root), *args], input=input, env=ENV, check=True, capture_output=True).stdout.decode().strip()


def make_repo(directory: Path, folders: int) -> Path:
    inst = make_instance(directory / "inst")
    root = inst.root
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    # The PR commit through fast-import: writing 3 × N files through the work tree would
    # measure the file system, not validate.
    stream = [b"commit refs/heads/pr\n", b"committer bench <bench@example.invalid> 0 +0000\n", b"data 2\nPR\n", b"from refs/heads/main\n"]
    for i in range(folders):
        base = f"bundles/soohak/acme/run-{i:06d}"
        for name, data in (
            ("manifest.json", b'{"format": "sealboard-bundle/1", "submission": "run-%06d"}\n' % i),
            ("manifest.json.sig", b"-----BEGIN SSH SIGNATURE-----\nnot a signature\n-----END SSH SIGNATURE-----\n"),
            ("results.jsonl.age", b"age-encryption.org/v1\n" + os.urandom(32)),
        ):
            stream.append(f"M 100644 inline {base}/{name}\ndata {len(data)}\n".encode() + data + b"\n")
    git(root, "fast-import", "--quiet", input=b"".join(stream))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'folders':>8}  {'median s':>9}  {'ms/folder':>9}  problems")
    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
            root = make_repo(Path(tmp), n)
            times, problems = [], 0
            for _ in range(args.repeat):
                start = time.perf_counter()
                report = validate(root, "main", "pr", now=NOW)
                times.append(time.perf_counter() - start)
                problems = len(report.problems)
            median = statistics.median(times)
            print(f"{n:>8}  {median:>9.2f}  {1000 * median / n:>9.3f}  {problems}")


if __name__ == "__main__":
    main()
