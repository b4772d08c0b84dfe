"""Benchmark the whole build on a large synthetic instance and print per-stage figures.

    python bench/bench_build.py [--submissions 300] [--runs 3] [--keep DIR]

Builds a SOOHAK-shaped instance (1,141 items, 3 samples, en + ko: 6,846 rows per
submission; 300 submissions ≈ 2.05 million result rows), then runs the authorised build
--runs times and prints the median time of each stage, next to baselines measured in the
same run on the same bytes: reading every bundle file, decrypting every sealed file with
pyrage, and parsing the plaintext with orjson. The builder's own work (verify, unseal,
parse, score, leak scan) should be of the same order as those baselines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
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


def make_instance(root: Path, submissions: int, seed: int = 1) -> tuple[object, int]:
    from builder.bundles.dataset import ITEMS, dataset_manifest_dict, new_salt
    from builder.bundles.manifest import MANIFEST, SIGNATURE
    from builder.trust.seal import seal
    from builder.trust.sshsig import NS_DATASET, sign

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
    salted = [dict(it, salt=new_salt()) for it in items]
    sealed = seal(b"".join(orjson.dumps(it) + b"\n" for it in salted), [identity.recipient])
    ds = root / "bundles/soohak/_dataset" / synth.version
    ds.mkdir(parents=True)
    manifest = orjson.dumps(dataset_manifest_dict("soohak", synth.version, NOW, salted, sealed))
    (ds / ITEMS).write_bytes(sealed)
    (ds / MANIFEST).write_bytes(manifest)
    # The registry's threshold is 2: both maintainers sign the dataset bundle.
    (ds / SIGNATURE).write_text("".join(sign(k, manifest, NS_DATASET) for k in maintainers.values()))

    config = load_config(root / "leaderboards/soohak.yaml", root)
    rng = np.random.default_rng(seed)
    template = synth.submissions[0]
    rows_total = 0
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
        lab = f"lab-{i % 20:02d}"
        model = dict(template.model, id=f"model-{i}", name=f"Model {i:03d}")
        path = create_bundle(
            root=root, benchmark="soohak", lab=lab, submission=f"run-{i:03d}",
            results=b"".join(orjson.dumps(r) + b"\n" for r in rows),
            description=Description(model=model, config=template.config, harness=template.harness, judge=template.judge, publish_results=True, publish_transcripts=False),
            created=NOW, config=config,
        )  # fmt: skip
        sign_bundle(path, labs[lab])
        if (i + 1) % 50 == 0:
            print(f"  made {i + 1}/{submissions} bundles", file=sys.stderr)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the instance here and keep it")
    parser.add_argument("--reuse", type=Path, help="reuse an instance made earlier with --keep")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        if args.reuse:
            root = args.reuse
            identity = load_identity((root / "bench-keys/identity.txt").read_text(), "bench identity")
            print(f"instance: reusing {root}")
        else:
            root = args.keep or Path(tmp) / "instance"
            t = time.perf_counter()
            identity, rows = make_instance(root, args.submissions)
            print(f"instance: {args.submissions} submissions, {rows:,} result rows (setup {time.perf_counter() - t:.1f}s)")
        stage_runs: dict[str, list[float]] = {}
        base_runs: dict[str, list[float]] = {}
        for run in range(args.runs):
            report = build(root, root / "site", identities=[identity], now=NOW)
            for name, value in report.timings.items():
                stage_runs.setdefault(name, []).append(value)
            for name, value in baselines(root, identity).items():
                base_runs.setdefault(name, []).append(value)
            print(f"  run {run + 1}: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items() if not k.startswith("leak_scan_")), file=sys.stderr)

        med = {k: statistics.median(v) for k, v in stage_runs.items()}
        base = {k: statistics.median(v) for k, v in base_runs.items()}
        floor = base["read"] + base["decrypt"] + base["orjson"]
        print(f"\nmedian of {args.runs} runs ({base['mb']:.0f} MB of results plaintext):")
        for name in ("config", "ingest", "verify", "unseal", "score", "render", "mkdocs", "publish"):
            if name in med:
                print(f"  {name:8s} {med[name]:7.2f}s")
        print("baselines on the same bytes:")
        print(f"  read     {base['read']:7.2f}s\n  decrypt  {base['decrypt']:7.2f}s (pyrage)\n  orjson   {base['orjson']:7.2f}s (parse only)")
        own = med.get("ingest", 0) + med.get("verify", 0) + med.get("unseal", 0)
        print(f"ratios: ingest+verify+unseal / (read+decrypt+orjson) = {own / floor:.2f}x; score / unseal = {med['score'] / med['unseal']:.2f}x")
        print(f"leak scan: {int(med.get('leak_scan_files', 0))} files, {med.get('leak_scan_bytes', 0) / 1e6:.1f} MB in publish {med['publish']:.2f}s")
        print(f"leak scan speed: {med.get('leak_scan_bytes', 0) / 1e6 / max(med.get('leak_scan_s', 0), 1e-9):.0f} MB/s of output (goal >= 100)")


if __name__ == "__main__":
    main()
