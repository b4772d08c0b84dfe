"""What regrading costs: the exact path over millions of rows, math-verify per answer.

    python bench/bench_regrade.py                 # 2M rows, 2% of them LaTeX spellings
    python bench/bench_regrade.py --rows 500000 --latex 0.1

Prints (1) the one-off cost of loading math-verify and compiling its LaTeX grammar, (2) the
time per distinct (gold, answer) pair on the equivalence path, cold and cached, (3) the
time to regrade --rows result rows over 1,141 integer/fraction items with --latex of the
rows spelled in LaTeX (\\boxed{..}, \\frac{..}{..}, 10^{2}) and the rest plain, and (4) the
time to refuse pathological answers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.scoring import equivalence as E  # noqa: E402
from builder.scoring import regrade as R  # noqa: E402

LATEX = ["\\boxed{{{g}}}", "${g}$", "\\text{{Answer: }} {g}", "{g}.0", "$\\dfrac{{{g2}}}{{2}}$", "{g} \\cdot 1", "\\sqrt{{{sq}}}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--latex", type=float, default=0.02, help="share of rows spelled in LaTeX")
    ap.add_argument("--items", type=int, default=1141)
    args = ap.parse_args()
    rng = np.random.default_rng(3)

    t0 = time.perf_counter()
    E.warm()
    print(f"load math-verify + compile grammar (once per process): {time.perf_counter() - t0:6.2f} s")

    golds = [str(int(x)) for x in rng.integers(1, 1000, args.items)]
    pairs = [(g, LATEX[k % len(LATEX)].format(g=g, g2=2 * int(g), sq=int(g) ** 2)) for k, g in enumerate(golds[:300])]
    t0 = time.perf_counter()
    verdicts = [R.equivalent("integer", g, a) for g, a in pairs]
    cold = (time.perf_counter() - t0) / len(pairs)
    t0 = time.perf_counter()
    for g, a in pairs:
        R.equivalent("integer", g, a)
    warm = (time.perf_counter() - t0) / len(pairs)
    right = sum(v.correct for v in verdicts)
    print(f"equivalence path: {cold * 1e3:6.2f} ms per distinct pair, {warm * 1e6:6.2f} µs cached ({right}/{len(pairs)} judged equal)")

    item = rng.integers(0, args.items, args.rows)
    answers = np.array([golds[i] for i in item], dtype=object)
    latex_rows = np.flatnonzero(rng.random(args.rows) < args.latex)
    for r in latex_rows:
        g = golds[item[r]]
        answers[r] = LATEX[r % len(LATEX)].format(g=g, g2=2 * int(g), sq=int(g) ** 2)
    R.equivalent.cache_clear()
    item_type = np.zeros(args.items, dtype=np.int64)
    keys = [R.gold_key("integer", g) for g in golds]
    t0 = time.perf_counter()
    correct, parsed, how = R.regrade(answers, item, np.ones(args.rows, dtype=bool), item_type, keys, ("integer",), golds)
    spent = time.perf_counter() - t0
    distinct = len({(item[r], answers[r]) for r in latex_rows})
    print(
        f"regrade {args.rows:,} rows ({len(latex_rows):,} LaTeX, {distinct:,} distinct LaTeX pairs): {spent:6.2f} s, "
        f"{(how == 1).sum():,} exact, {(how == 2).sum():,} equivalence, {correct.mean():.4f} correct"
    )

    bad = ["1e9999", "10^{10^{10}}", "1" * 1_000_000, "\\boxed{99999!}"]
    t0 = time.perf_counter()
    reasons = [R.grade("integer", "12", a).reason for a in bad]
    print(f"refuse {len(bad)} pathological answers: {(time.perf_counter() - t0) * 1e3:6.2f} ms total ({', '.join(map(str, reasons))})")


if __name__ == "__main__":
    main()
