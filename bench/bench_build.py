"""Benchmark the whole build on large synthetic instances and print per-stage figures.

    python bench/bench_build.py [--submissions 300] [--runs 3] [--keep DIR | --reuse DIR]
    python bench/bench_build.py --scaling 100,300,1000 [--runs 3] [--keep DIR]
    python bench/bench_build.py --hostile-mb 100

Builds a SOOHAK-shaped instance (1,141 items, 3 samples, en + ko: 6,846 rows per
submission; 300 submissions ≈ 2.05 million result rows, 274 MB of plaintext), runs the
authorised build --runs times and prints the median time of each stage, next to baselines
measured in the same run on the same bytes: reading every bundle file, decrypting every
sealed file with pyrage, and parsing the plaintext with orjson. Then:

- ratios: (ingest + verify + unseal) / (read + decrypt + parse), the issue's goal ≤ 1.5×;
  score / (ingest + verify + unseal), goal ≤ 0.25×; leak-scan throughput, goal ≥ 100 MB/s;
- peak memory of one more build run in a child process: its own peak RSS, and the peak
  proportional set size (PSS) of the child and its unseal workers together, sampled every
  20 ms (PSS counts pages shared after fork once), against the plaintext size (goal ≤ 4×);
- with --scaling, every stage and the peak for each size, and the growth per submission
  between sizes (linear growth keeps it flat);
- with --hostile-mb N, the peak memory of a build fed one bundle whose results are N MB
  of `{}` lines (validly signed and sealed), and the reason it was refused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
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
from builder.pipeline.build import build  # noqa: E402
from builder.trust.registry_admin import add_lab, init_registry, sign_registry  # noqa: E402
from builder.trust.seal import generate_identity, identity_file_text, load_identity, unseal  # noqa: E402
from builder.trust.sshkeys import generate_ed25519, load_private_key  # noqa: E402

NOW = datetime.now(timezone.utc)
STAGES = ("config", "ingest", "verify", "unseal", "screen", "score", "render", "mkdocs", "publish")


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
                        rows.append({"item": item["id"], "lang": lang, "sample": s, "answer": None, "correct": ok, "refused": ok, "output_tokens": 900, "cost_usd": 0.01})
                    else:
                        rows.append({"item": item["id"], "lang": lang, "sample": s, "answer": gold if ok else "0", "correct": ok, "refused": False, "output_tokens": 1200, "cost_usd": 0.02})
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


def baselines(root: Path, identity) -> dict[str, float]:
    files = sorted(root.glob("bundles/soohak/lab-*/*/results.jsonl.age"))
    t0 = time.perf_counter()
    blobs = [f.read_bytes() for f in files]
    t1 = time.perf_counter()
    plain = [unseal(b, [identity], "bench") for b in blobs]
    t2 = time.perf_counter()
    for p in plain:
        orjson.loads(b"[" + p.rstrip(b"\n").replace(b"\n", b",") + b"]")
    t3 = time.perf_counter()
    return {"read": t1 - t0, "decrypt": t2 - t1, "orjson": t3 - t2, "mb": sum(map(len, plain)) / 1e6}


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


def measure_memory(root: Path) -> dict[str, float]:
    """Run one build in a child process; return its peak RSS and the tree's peak PSS (MB)."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--child-build", str(root)], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
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


def child_build(root: Path) -> None:
    identity = load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
    report = build(root, root / "site", identities=[identity], now=NOW)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rejected = sorted({r.reason for r in report.rejections})
    print(json.dumps({"rss_mb": rss_mb, "worker_rss_mb": workers_mb, "rejected": rejected}))


# --- runs -------------------------------------------------------------------------------------


def run_instance(root: Path, identity, runs: int) -> tuple[dict[str, float], dict[str, float]]:
    stage_runs: dict[str, list[float]] = {}
    base_runs: dict[str, list[float]] = {}
    for run in range(runs):
        report = build(root, root / "site", identities=[identity], now=NOW)
        for name, value in report.timings.items():
            stage_runs.setdefault(name, []).append(value)
        for name, value in baselines(root, identity).items():
            base_runs.setdefault(name, []).append(value)
        print(f"  run {run + 1}: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items() if not k.startswith("leak_scan_")), file=sys.stderr)
    med = {k: statistics.median(v) for k, v in stage_runs.items()}
    base = {k: statistics.median(v) for k, v in base_runs.items()}
    return med, base


def report_one(label: str, med: dict[str, float], base: dict[str, float], memory: dict[str, float]) -> None:
    floor = base["read"] + base["decrypt"] + base["orjson"]
    own = med.get("ingest", 0) + med.get("verify", 0) + med.get("unseal", 0)
    print(f"\n{label} ({base['mb']:.0f} MB of results plaintext):")
    for name in STAGES:
        if name in med:
            print(f"  {name:8s} {med[name]:7.2f}s")
    print("baselines on the same bytes:")
    print(f"  read     {base['read']:7.2f}s\n  decrypt  {base['decrypt']:7.2f}s (pyrage)\n  orjson   {base['orjson']:7.2f}s (parse only)")
    print(f"ratio ingest+verify+unseal / (read+decrypt+parse) = {own:.2f}s / {floor:.2f}s = {own / floor:.2f}x (goal <= 1.5x)")
    print(f"ratio score / (ingest+verify+unseal) = {med['score']:.2f}s / {own:.2f}s = {med['score'] / own:.2f}x (goal <= 0.25x)")
    scanned = med.get("leak_scan_bytes", 0) / 1e6
    print(f"leak scan: {int(med.get('leak_scan_files', 0))} files, {scanned:.1f} MB in publish {med['publish']:.2f}s")
    print(f"leak scan speed: {scanned / max(med.get('leak_scan_s', 0), 1e-9):.0f} MB/s of output (goal >= 100)")
    print(
        f"peak memory: build process RSS {memory['rss_mb']:.0f} MB, largest worker RSS {memory['worker_rss_mb']:.0f} MB,"
        f" process tree PSS {memory['tree_pss_mb']:.0f} MB = {memory['tree_pss_mb'] / base['mb']:.2f}x the plaintext (goal <= 4x)"
    )


def instance_at(args: argparse.Namespace, tmp: Path, submissions: int) -> tuple[Path, object]:
    if args.reuse:
        root = args.reuse if not args.scaling else args.reuse / str(submissions)
        print(f"instance: reusing {root}")
        return root, load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
    root = (args.keep or tmp) / str(submissions) if args.scaling else args.keep or tmp / "instance"
    t = time.perf_counter()
    identity, rows = make_instance(root, submissions)
    print(f"instance: {submissions} submissions, {rows:,} result rows (setup {time.perf_counter() - t:.1f}s)")
    return root, identity


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the instance(s) here and keep them")
    parser.add_argument("--reuse", type=Path, help="reuse instance(s) made earlier with --keep")
    parser.add_argument("--scaling", help="comma-separated submission counts, e.g. 100,300,1000")
    parser.add_argument("--hostile-mb", type=int, help="measure a build fed one results file of this many MB of {} lines")
    parser.add_argument("--child-build", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_build:
        child_build(args.child_build)
        return

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.hostile_mb:
            root = tmp / "hostile"
            make_instance(root, 1, hostile_mb=args.hostile_mb)
            memory = measure_memory(root)
            print(
                f"hostile: one bundle of {args.hostile_mb} MB of {{}} lines beside one valid bundle: refused as {', '.join(memory['rejected']) or 'nothing'};"
                f" peak build process RSS {memory['rss_mb']:.0f} MB, process tree PSS {memory['tree_pss_mb']:.0f} MB"
            )
            return
        sizes = [int(n) for n in args.scaling.split(",")] if args.scaling else [args.submissions]
        table: list[tuple[int, dict[str, float], dict[str, float], dict[str, float]]] = []
        for n in sizes:
            root, identity = instance_at(args, tmp, n)
            med, base = run_instance(root, identity, args.runs)
            memory = measure_memory(root)
            report_one(f"{n} submissions, median of {args.runs} runs", med, base, memory)
            table.append((n, med, base, memory))
        if len(table) > 1:
            print("\nscaling: seconds per stage (and per 100 submissions)")
            print("  " + "stage".ljust(10) + "".join(f"{n:>22,}" for n, *_ in table))
            for name in (*STAGES, "read", "decrypt", "orjson"):
                values = [(n, med.get(name, base.get(name))) for n, med, base, _ in table]
                if any(v is None for _, v in values):
                    continue
                print("  " + name.ljust(10) + "".join(f"{v:>10.2f}s ({100 * v / n:5.2f}s)" for n, v in values))
            print("  " + "peak PSS".ljust(10) + "".join(f"{m['tree_pss_mb']:>9.0f}MB ({m['tree_pss_mb'] / b['mb']:5.2f}x)" for _, _, b, m in table))


if __name__ == "__main__":
    main()
