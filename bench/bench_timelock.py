"""Time the time-lock's operations (builder.timelock) and print the figures.

    python bench/bench_timelock.py              # 20 runs each, median and max in ms
    python bench/bench_timelock.py --runs 100

Measures, on drand's real quicknet chain and a real round signature (the one drand/tlock's
tests pin): scheduling (encrypting an identity-sized file to a round), verifying a round
signature, and opening (verify + decrypt), all in this process with py-arkworks-bls12381.
With --py-ecc it also times one pure-Python BLS12-381 pairing (py_ecc, if installed), the
alternative this choice was measured against.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.timelock import ibe, tle  # noqa: E402
from builder.timelock.chain import QUICKNET  # noqa: E402
from tests.timelock.vectors import QUICKNET_ROUND, QUICKNET_SIGNATURE  # noqa: E402

IDENTITY = b"# The embargo identity ...\nAGE-SECRET-KEY-1" + b"Q" * 58 + b"\n"


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--py-ecc", action="store_true")
    args = parser.parse_args()
    pk = QUICKNET.public_key_bytes
    sealed = tle.encrypt(IDENTITY, pk, QUICKNET.hash, QUICKNET_ROUND)
    rows = {
        "schedule (tle.encrypt, identity-sized)": lambda: tle.encrypt(IDENTITY, pk, QUICKNET.hash, QUICKNET_ROUND),
        "verify a round signature (BLS, 2 pairings)": lambda: ibe.verify_round_signature(pk, QUICKNET_ROUND, QUICKNET_SIGNATURE),
        "open (verify + tle.decrypt)": lambda: (
            ibe.verify_round_signature(pk, QUICKNET_ROUND, QUICKNET_SIGNATURE),
            tle.decrypt(sealed, QUICKNET_SIGNATURE, "bench"),
        ),
    }
    for name, fn in rows.items():
        median, worst = timed(fn, args.runs)
        print(f"{name:45s} median {median:7.2f} ms   max {worst:7.2f} ms   ({args.runs} runs)")
    if args.py_ecc:
        from py_ecc.optimized_bls12_381 import G1, G2, pairing

        median, worst = timed(lambda: pairing(G2, G1), 3)
        print(f"{'py_ecc: one pairing (pure Python)':45s} median {median:7.2f} ms   max {worst:7.2f} ms   (3 runs)")


if __name__ == "__main__":
    main()
