"""What keeping files private costs the build (builder.bundles.sealing, builder.bundles.transcripts).

    python bench/bench_sealing.py [--rows 50000] [--repeat 5]

Prints, on one synthetic results file of ROWS lines (real age, throwaway keys):
- opening opted-in results with the embargo key, and private results with the private key
  after the check that the embargo key does not open them (the check's own cost: one
  failed header unwrap per private file);
- reading a transcripts.jsonl.gz of ROWS lines as a bounded stream, in MB/s of JSON Lines.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402

from builder.bundles.sealing import BenchmarkKeys  # noqa: E402
from builder.bundles.transcripts import read_transcripts  # noqa: E402
from builder.trust.seal import generate_identity, seal  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    embargo, private = generate_identity(), generate_identity()
    keys = BenchmarkKeys("bench", (embargo,), (private,))
    rows = b"".join(
        orjson.dumps({"item": f"i{n}", "lang": "en", "sample": n % 4, "answer": "42", "correct": True, "refused": False}) + b"\n"
        for n in range(args.rows)
    )
    public, hidden = seal(rows, [embargo.recipient]), seal(rows, [private.recipient])
    mb = len(rows) / 1e6
    for label, fn in (
        ("opted-in results, embargo key", lambda: keys.open(public, True, "r")),
        ("private results, check + private key", lambda: keys.open(hidden, False, "r")),
        ("  of which the embargo-key check", lambda: keys._refuse_embargo_opening(hidden, "r", "results", "r")),
    ):
        low, mid = best(fn, args.repeat)
        print(f"{label:40s} {1e3 * low:8.2f} ms (median {1e3 * mid:.2f} ms) for {mb:.1f} MB")
    lines = b"".join(orjson.dumps({"item": f"i{n}", "lang": "en", "sample": 0, "text": "word " * 200}) + b"\n" for n in range(args.rows))
    gz = gzip.compress(lines, mtime=0)
    keep = {f"i{n}" for n in range(0, args.rows, 2)}.__contains__
    low, mid = best(lambda: read_transcripts(gz, "t", "en", keep), args.repeat)
    print(
        f"{'transcripts read (half kept)':40s} {1e3 * low:8.2f} ms (median {1e3 * mid:.2f} ms): {len(lines) / 1e6 / low:.0f} MB/s of JSON Lines"
    )


if __name__ == "__main__":
    main()
