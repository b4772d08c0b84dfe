"""Benchmark the whole build on large synthetic instances and print every goal of issue 12.

    python bench/bench_build.py                          # the issue's figures, one run
    python bench/bench_build.py --sizes 300 --runs 3     # one size only
    python bench/bench_build.py --hostile-mb 100

Builds SOOHAK-shaped instances (1,141 items, 3 samples, en + ko: 6,846 rows per
submission; 300 submissions ≈ 2.05 million result rows, 274 MB of plaintext), cached under
--cache (generating 1,000 submissions takes minutes; a cached instance is reused while its
keys are valid). For each size it runs the authorised build (--runs times at --ratio-size,
--scaling-runs times at the other sizes), each in a fresh process as `sealboard build`
runs it, and takes the median of each stage, in wall seconds and in CPU seconds (the
build's process plus the unseal workers it waited for: the machine is shared, and CPU
time is what the load does not inflate). Baselines are measured
in the same run on the same bytes, serially, in a fresh process (as a build runs): reading
every results file, decrypting it with pyrage, parsing the plaintext with orjson. Then it prints:

- ratio 1: (ingest + verify + unseal) / (read + decrypt + parse), goal <= 1.5x;
- ratio 2: score / (ingest + verify + unseal), goal <= 0.25x;
- the leak scan's throughput (publish's scan of the built site: walk, read, scan), in wall and
  CPU MB/s, goal >= 100 MB/s (bench/bench_leakscan.py measures the scan alone, on Korean too);
- peak memory of one more build in a child process: the peak proportional set size (PSS)
  of the child and its unseal workers together, sampled every 20 ms from
  /proc/<pid>/smaps_rollup (pages shared after fork count once), against the plaintext
  size, goal <= 4x; beside it the child's own peak RSS (VmHWM) and its largest worker's ru_maxrss;
- a scaling table: every stage's seconds per 100 submissions at each size (linear growth
  keeps a row flat) and the peak memory per MB of plaintext;
- with --hostile-mb N, the peak memory of a build fed one bundle whose results are N MB
  of `{}` lines (validly signed and sealed), and the reason it was refused.

The load average is printed before and after: on a loaded machine wall times (and so the
wall ratios) move with the neighbours; the CPU ratios move much less.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builder.bundles.create import Description, create_bundle, sign_bundle  # noqa: E402
from builder.config import load_config  # noqa: E402
from builder.demo import synth_soohak  # noqa: E402
from builder.demo.instance import MKDOCS_YML, _config_text  # noqa: E402
from builder.trust.registry_admin import add_lab, init_registry, sign_registry  # noqa: E402
from builder.trust.seal import generate_identity, identity_file_text, load_identity  # noqa: E402
from builder.trust.sshkeys import generate_ed25519, load_private_key  # noqa: E402

NOW = datetime.now(timezone.utc)
STAGES = ("config", "ingest", "verify", "unseal", "screen", "regrade", "score", "render", "mkdocs", "publish")


def make_instance(root: Path, submissions: int, seed: int = 1, hostile_mb: int = 0) -> tuple[object, int]:
    from builder.bundles.dataset import new_salt
    from builder.bundles.dataset_create import sign_dataset, write_dataset
    from builder.bundles.manifest import MANIFEST, RESULTS, dump_manifest
    from builder.trust.registry import load_registry
    from builder.trust.seal import seal

    synth = synth_soohak.generate(0)
    items = synth.items
    root.mkdir(parents=True)
    keys = root / "bench-keys"
    keys.mkdir()

    def key(name: str):
        private, _ = generate_ed25519(name)
        (keys / name).write_bytes(private)
        return load_private_key(keys / name)

    maintainers = {m: key(m) for m in ("m1", "m2")}
    init_registry(root, [{"id": m, "name": m, "key": k.public.openssh} for m, k in maintainers.items()], 2, NOW + timedelta(days=30))
    for k in maintainers.values():
        sign_registry(root, k)
    labs = {f"lab-{i:02d}": key(f"lab-{i:02d}") for i in range(20)}
    for lab, k in labs.items():
        add_lab(root, lab, lab.upper(), [k.public])
    for k in maintainers.values():
        sign_registry(root, k)

    identity = generate_identity()
    (keys / "identity.txt").write_text(identity_file_text(identity))  # throwaway bench key
    (root / "leaderboards").mkdir()
    (root / "leaderboards/soohak.yaml").write_text(_config_text("soohak", synth.version, identity.recipient))
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "site_src").mkdir()
    (root / "site_src/index.md").write_text("# Bench\n\n<!-- sealboard:benchmarks -->\n")
    config = load_config(root / "leaderboards/soohak.yaml", root)
    # The dataset bundle, signed by the maintainer threshold (both of 2-of-2).
    ds = write_dataset(root, config, [dict(it, salt=new_salt()) for it in items], NOW)
    registry = load_registry(root, NOW)
    for k in maintainers.values():
        sign_dataset(ds, k, registry)
    rng = np.random.default_rng(seed)
    template = synth.submissions[0]
    rows_total = 0

    def add(i: int, results: bytes) -> Path:
        lab = f"lab-{i % 20:02d}"
        model = dict(template.model, id=f"model-{i}", name=f"Model {i:04d}")
        path = create_bundle(
            root=root, benchmark="soohak", lab=lab, submission=f"run-{i:04d}", results=results,
            description=Description(model=model, config=template.config, harness=template.harness, judge=template.judge, publish_results=True, publish_transcripts=False),
            created=NOW, config=config,
        )  # fmt: skip
        sign_bundle(path, labs[lab])
        return path

    for i in range(submissions):
        skill = rng.uniform(0.1, 0.8)
        rows = []
        for item in items:
            p = skill if item["split"] != "challenge" else skill / 3
            gold = item["answer"]["en"]
            for lang in ("en", "ko"):
                for s in range(3):
                    ok = bool(rng.random() < p)
                    if item["answer_type"] == "ill_posed":
                        rows.append(
                            {
                                "item": item["id"],
                                "lang": lang,
                                "sample": s,
                                "answer": None,
                                "correct": ok,
                                "refused": ok,
                                "output_tokens": 900,
                                "cost_usd": 0.01,
                            }
                        )
                    else:
                        rows.append(
                            {
                                "item": item["id"],
                                "lang": lang,
                                "sample": s,
                                "answer": gold if ok else "0",
                                "correct": ok,
                                "refused": False,
                                "output_tokens": 1200,
                                "cost_usd": 0.02,
                            }
                        )
        rows_total += len(rows)
        add(i, b"".join(orjson.dumps(r) + b"\n" for r in rows))
        if (i + 1) % 100 == 0:
            print(f"  made {i + 1}/{submissions} bundles", file=sys.stderr)
    if hostile_mb:
        # The attack: a validly signed bundle of nothing but `{}` lines. `bundle
        # create` refuses such results, so a valid bundle's file is swapped and re-signed.
        path = add(submissions, b"".join(orjson.dumps(r) + b"\n" for r in rows))
        sealed = seal(b"{}\n" * (hostile_mb * 1_000_000 // 3), [identity.recipient])
        (path / RESULTS).write_bytes(sealed)
        manifest = orjson.loads((path / MANIFEST).read_bytes())
        [entry] = [f for f in manifest["files"] if f["path"] == RESULTS]
        entry.update(sha256=hashlib.sha256(sealed).hexdigest(), bytes=len(sealed))
        (path / MANIFEST).write_bytes(dump_manifest(manifest))
        sign_bundle(path, labs[f"lab-{submissions % 20:02d}"])
    return identity, rows_total


BASELINE_CHILD = """
import json, sys, time
from pathlib import Path
import orjson
from builder.trust.seal import load_identity, unseal
root = Path(sys.argv[1])
identity = load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
files = sorted(root.glob("bundles/soohak/lab-*/*/results.jsonl.age"))
wall, cpu = {}, {}
marks = [(time.perf_counter(), time.process_time())]
def mark(name):
    marks.append((time.perf_counter(), time.process_time()))
    wall[name], cpu[name] = marks[-1][0] - marks[-2][0], marks[-1][1] - marks[-2][1]
blobs = [f.read_bytes() for f in files]
mark("read")
plain = [unseal(b, [identity], "bench") for b in blobs]
mark("decrypt")
del blobs
for p in plain:
    orjson.loads(b"[" + p.rstrip(b"\\n").replace(b"\\n", b",") + b"]")
mark("parse")
wall["mb"] = cpu["mb"] = sum(map(len, plain)) / 1e6
print(json.dumps({"wall": wall, "cpu": cpu}))
"""


def baselines(root: Path) -> tuple[dict[str, float], dict[str, float]]:
    """(wall, cpu) seconds of reading, decrypting and parsing every results file, serially.

    Measured in a fresh process, as a build runs (`sealboard build`): in this one, after a
    build has freed its memory, decryption into new pages cost up to twice as much (0.90 s
    against 0.45 s for 274 MB), which would flatter ratio 1.
    """
    child = subprocess.run([sys.executable, "-c", BASELINE_CHILD, str(root)], capture_output=True, text=True, check=True, env=_child_env())
    got = json.loads(child.stdout)
    return got["wall"], got["cpu"]


# --- peak memory ----------------------------------------------------------------------------


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except OSError:
            pass
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _child_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]))


def measure_memory(root: Path) -> dict[str, float]:
    """Run one build in a child process; return its peak RSS and the tree's peak PSS (MB)."""
    # The child imports only what `sealboard build` imports (not this script's instance
    # generator and its modules), so its memory is the build's.
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root)], stdout=subprocess.PIPE, text=True, env=_child_env())
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, sum(_pss_kb(p) for p in _tree(child.pid)))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = child.communicate()
    done.set()
    sampler.join()
    if child.returncode:
        raise SystemExit(f"the measured build failed (exit {child.returncode})")
    result = json.loads(out.strip().splitlines()[-1])
    result["tree_pss_mb"] = peak / 1024
    return result


CHILD = """
import json, resource, sys
from datetime import datetime, timezone
from pathlib import Path
from builder.pipeline.build import build
from builder.trust.seal import load_identity
root = Path(sys.argv[1])
identity = load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
report = build(root, root / "site", identities=[identity], now=datetime.now(timezone.utc))
# VmHWM, the peak RSS of this process's own memory: ru_maxrss would carry over the peak of the
# process that forked it (Linux keeps it across fork and exec), here the bench with its instances.
rss_mb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) / 1024
workers_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest one child reached
print(json.dumps({"rss_mb": rss_mb, "worker_rss_mb": workers_mb, "rejected": sorted({r.reason for r in report.rejections})}))
"""


# --- runs -------------------------------------------------------------------------------------


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs if k in r) for k in runs[0]}


TIMED_CHILD = """
import json, sys
from datetime import datetime, timezone
from pathlib import Path
from builder.pipeline.build import build
from builder.trust.seal import load_identity
root = Path(sys.argv[1])
identity = load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
report = build(root, root / "site", identities=[identity], now=datetime.now(timezone.utc))
print(json.dumps({"wall": report.timings, "cpu": report.cpu_seconds}))
"""


def timed_build(root: Path) -> tuple[dict[str, float], dict[str, float]]:
    """(wall, cpu) seconds of each stage of one build, run in a fresh process as `sealboard
    build` runs it. In this process, a build after other builds (and the instance
    generator) starts from their heap and objects: the first 1,000-submission build after
    seven at 300 once took 3.44 s to ingest, against 0.50-0.56 s in a fresh process."""
    child = subprocess.run([sys.executable, "-c", TIMED_CHILD, str(root)], capture_output=True, text=True, env=_child_env())
    if child.returncode:
        raise SystemExit(f"the timed build failed (exit {child.returncode}):\n{child.stderr[-2000:]}")
    got = json.loads(child.stdout.strip().splitlines()[-1])
    return got["wall"], got["cpu"]


def run_instance(root: Path, runs: int) -> dict[str, dict[str, float]]:
    """Medians over `runs` builds (each in a fresh process): stage wall/cpu seconds and
    baseline wall/cpu seconds."""
    got: dict[str, list[dict[str, float]]] = {"wall": [], "cpu": [], "base_wall": [], "base_cpu": []}
    for run in range(runs):
        wall, cpu = timed_build(root)
        got["wall"].append(wall)
        got["cpu"].append(cpu)
        base_wall, base_cpu = baselines(root)
        got["base_wall"].append(base_wall)
        got["base_cpu"].append(base_cpu)
        print(f"  run {run + 1}: " + ", ".join(f"{k} {v:.2f}s" for k, v in wall.items() if k in STAGES), file=sys.stderr)
    return {k: median_of(v) for k, v in got.items()}


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def ratios(m: dict[str, dict[str, float]]) -> list[tuple[str, float, float, float]]:
    """(what, wall ratio, cpu ratio, goal: at most) for the two time goals."""
    out = []
    for kind in ("wall", "cpu"):
        st, base = m[kind], m[f"base_{kind}"]
        own = st["ingest"] + st["verify"] + st["unseal"]
        floor = base["read"] + base["decrypt"] + base["parse"]
        out.append((own / floor, st["score"] / own))
    return [
        ("ingest+verify+unseal / (read+decrypt+parse)", out[0][0], out[1][0], 1.5),
        ("score / (ingest+verify+unseal)", out[0][1], out[1][1], 0.25),
    ]


def report_one(n: int, runs: int, m: dict[str, dict[str, float]], memory: dict[str, float]) -> None:
    wall, cpu, bw, bc = m["wall"], m["cpu"], m["base_wall"], m["base_cpu"]
    print(f"\n{n} submissions, median of {runs} run(s), {bw['mb']:.0f} MB of results plaintext:")
    print(f"  {'stage':10s}{'wall':>9s}{'cpu':>9s}")
    for name in STAGES:
        if name in wall:
            print(f"  {name:10s}{wall[name]:8.2f}s{cpu.get(name, float('nan')):8.2f}s")
    print("  baselines on the same bytes, serial:")
    for name, what in (("read", "read"), ("decrypt", "decrypt (pyrage)"), ("parse", "parse (orjson)")):
        print(f"  {what:18s}{bw[name]:8.2f}s{bc[name]:8.2f}s")
    for what, r_wall, r_cpu, goal in ratios(m):
        print(f"  ratio {what} = {r_wall:.2f}x wall, {r_cpu:.2f}x cpu (goal <= {goal}x)")
    scanned = wall.get("leak_scan_bytes", 0) / 1e6
    scan_wall, scan_cpu = wall.get("leak_scan_s", 0), wall.get("leak_scan_cpu_s", 0)
    print(
        f"  leak scan (publish's scan_tree: walk, read, scan): {scanned:.1f} MB in {scan_wall:.2f}s wall, {scan_cpu:.2f}s cpu"
        f" = {scanned / max(scan_wall, 1e-9):.0f} MB/s wall, {scanned / max(scan_cpu, 1e-9):.0f} MB/s cpu of output (goal >= 100)"
    )
    print(
        f"  peak memory: process tree PSS {memory['tree_pss_mb']:.0f} MB = {memory['tree_pss_mb'] / bw['mb']:.2f}x the plaintext (goal <= 4x);"
        f" build process peak RSS (VmHWM) {memory['rss_mb']:.0f} MB, largest worker ru_maxrss {memory['worker_rss_mb']:.0f} MB (counts the pages it shares with the build process from the fork)"
    )


def instance_at(cache: Path, submissions: int) -> tuple[Path, object]:
    """The cached instance of `submissions` submissions, made if missing or about to expire."""
    root = cache / str(submissions)
    stamp = root / "bench-made.json"
    if stamp.is_file():
        made = datetime.fromisoformat(json.loads(stamp.read_text())["made"])
        if datetime.now(timezone.utc) - made < timedelta(days=20):  # the registry expires 30 days after
            print(f"instance: {submissions} submissions, cached in {root} (made {made:%Y-%m-%d %H:%M} UTC)")
            return root, load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
    if root.exists():
        shutil.rmtree(root)
    t = time.perf_counter()
    identity, rows = make_instance(root, submissions)
    stamp.write_text(json.dumps({"made": NOW.isoformat(), "rows": rows}))
    print(f"instance: {submissions} submissions, {rows:,} result rows, made in {time.perf_counter() - t:.0f}s, cached in {root}")
    return root, identity


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,300,1000", help="comma-separated submission counts (default 100,300,1000)")
    parser.add_argument("--ratio-size", type=int, default=300, help="the size whose ratios are the goals' figures (default 300)")
    parser.add_argument("--runs", type=int, default=3, help="builds at --ratio-size (median; default 3)")
    parser.add_argument("--scaling-runs", type=int, default=1, help="builds at the other sizes (default 1)")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "sealboard-bench-build", help="where generated instances are kept"
    )
    parser.add_argument("--hostile-mb", type=int, help="measure a build fed one results file of this many MB of {} lines")
    args = parser.parse_args()
    if args.hostile_mb:
        with tempfile.TemporaryDirectory() as tmp_name:
            root = Path(tmp_name) / "hostile"
            make_instance(root, 1, hostile_mb=args.hostile_mb)
            memory = measure_memory(root)
            print(
                f"hostile: one bundle of {args.hostile_mb} MB of {{}} lines beside one valid bundle: refused as {', '.join(memory['rejected']) or 'nothing'};"
                f" peak build process RSS {memory['rss_mb']:.0f} MB, process tree PSS {memory['tree_pss_mb']:.0f} MB"
            )
        return

    sizes = sorted({int(n) for n in args.sizes.split(",")} | {args.ratio_size})
    print(f"bench_build: sizes {', '.join(map(str, sizes))}; {load()}")
    table: list[tuple[int, dict[str, dict[str, float]], dict[str, float]]] = []
    for n in sizes:
        root, _ = instance_at(args.cache, n)
        runs = args.runs if n == args.ratio_size else args.scaling_runs
        m = run_instance(root, runs)
        memory = measure_memory(root)
        report_one(n, runs, m, memory)
        table.append((n, m, memory))
    print(f"\n{load()} (after)")

    print(f"\nGOALS at {args.ratio_size} submissions (median of {args.runs}; wall is the goal's measure, cpu beside it):")
    m = next(m for n, m, _ in table if n == args.ratio_size)
    for what, r_wall, r_cpu, goal in ratios(m):
        print(f"  {what:45s} {r_wall:5.2f}x wall  {r_cpu:5.2f}x cpu   goal <= {goal:<5}x {'MET' if r_wall <= goal else 'not met'}")
    for n, m, memory in table:
        # Two measures: the sampled PSS of the process tree (shared pages once; may miss a
        # peak shorter than its sampling interval) and the build process's exact high-water
        # RSS (VmHWM; it alone, without the workers' private memory).
        for what, mb in (("tree PSS", memory["tree_pss_mb"]), ("build peak RSS", memory["rss_mb"])):
            r = mb / m["base_wall"]["mb"]
            print(
                f"  {f'peak memory ({what}) / plaintext at {n}':45s} {r:5.2f}x                  goal <= 4    x {'MET' if r <= 4 else 'not met'}"
            )

    if len(table) > 1:
        runs_note = f"{args.runs} run(s) at {args.ratio_size}, {args.scaling_runs} at the others"
        print(f"\nscaling ({runs_note}): seconds per 100 submissions, wall | cpu (flat across a row = linear)")
        print("  " + "stage".ljust(10) + "".join(f"{n:>20,}" for n, *_ in table))
        for name in (*STAGES, "read", "decrypt", "parse"):
            kind = "base_" if name in ("read", "decrypt", "parse") else ""
            cells = []
            for n, m, _ in table:
                w, c = m[f"{kind}wall"].get(name), m[f"{kind}cpu"].get(name)
                cells.append("n/a".rjust(20) if w is None else f"{100 * w / n:8.3f} | {100 * c / n:7.3f}s".rjust(20))
            print("  " + name.ljust(10) + "".join(cells))
        print(
            "  "
            + "peak PSS".ljust(10)
            + "".join(f"{mem['tree_pss_mb']:>9.0f} MB ({mem['tree_pss_mb'] / m['base_wall']['mb']:4.2f}x)" for _, m, mem in table)
        )
        print(
            "  "
            + "peak RSS".ljust(10)
            + "".join(f"{mem['rss_mb']:>9.0f} MB ({mem['rss_mb'] / m['base_wall']['mb']:4.2f}x)" for _, m, mem in table)
        )
        first, last = table[0], table[-1]
        print(f"  growth {first[0]} -> {last[0]} submissions ({last[0] / first[0]:.0f}x the rows): per-submission cost ratio, cpu")
        for name in STAGES:
            a, b = first[1]["cpu"].get(name), last[1]["cpu"].get(name)
            if a and b:
                print(f"    {name:10s} {(b / last[0]) / (a / first[0]):5.2f}x")


if __name__ == "__main__":
    main()
