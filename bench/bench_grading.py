"""What grading one answer costs: per 1,000 answers on the exact path and through math-verify.

    python bench/bench_grading.py            # median of 5 runs, CPU seconds

Answers are the spellings of tests/scoring/grading_cases.csv, repeated with fresh values so
that no cache answers for the grader: the exact path gets plain numbers, letters and
options with words around them (and the claim rules every answer passes), the
equivalence path LaTeX that only math-verify reads (``\\sqrt{..}``, ``2^{..}``, ``\\frac{..}{..}``
inside a sentence). Its cache is cleared before each run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.scoring import equivalence as E  # noqa: E402
from builder.scoring import regrade as R  # noqa: E402

EXACT = ["{n}", "The answer is {n}.", "답은 {n}입니다", "\\boxed{{{n}}}", "not {n}", "약 {n}", "{n} 이상", "{n} or {m}"]
CHOICE = ["({c})", "정답은 {o}", "{k}번", "I think the answer is {c}", "not {c}"]
LATEX = ["\\sqrt{{{sq}}}", "2^{{{e}}}", "\\frac{{{n2}}}{{2}}", "The answer is $\\sqrt{{{sq}}}$", "{n} \\cdot 1"]


def exact_batch(k: int) -> list[tuple[str, str, str]]:
    out = []
    for i in range(k):
        n = 10 + i
        if i % 3 == 2:
            c = "ABCDE"[i % 5]
            out.append(("choice", "C", CHOICE[i % len(CHOICE)].format(c=c, o=chr(0x2460 + i % 5), k=1 + i % 5)))
        else:
            out.append(("integer", str(n), EXACT[i % len(EXACT)].format(n=n, m=n + 1)))
    return out


def latex_batch(k: int, offset: int) -> list[tuple[str, str, str]]:
    out = []
    for i in range(k):
        n = 11 + i + offset
        out.append(("expression", str(n), LATEX[i % len(LATEX)].format(sq=n * n, e=n % 30, n2=2 * n, n=n)))
    return out


def cpu(pairs: list[tuple[str, str, str]], clear: bool) -> float:
    if clear:
        R.equivalent.cache_clear()
        E.gold_parsed.cache_clear()
    t0 = time.process_time()
    for t, g, a in pairs:
        R.grade(t, g, a)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--answers", type=int, default=1000)
    args = ap.parse_args()
    E.warm()
    exact = [cpu(exact_batch(args.answers), clear=False) for _ in range(args.runs)]
    paths = {R.grade(*p).how for p in exact_batch(args.answers)}
    assert paths == {"exact"}, paths
    latex = [cpu(latex_batch(args.answers, 7 * r), clear=True) for r in range(args.runs)]
    hows = [R.grade(*p).how for p in latex_batch(args.answers, 0)]
    scale = 1000 / args.answers
    print(
        f"exact path:       {statistics.median(exact) * scale:7.3f} CPU s per 1,000 answers (median of {args.runs}; runs {', '.join(f'{x:.3f}' for x in exact)})"
    )
    print(
        f"math-verify path: {statistics.median(latex) * scale:7.3f} CPU s per 1,000 answers (median of {args.runs}; runs {', '.join(f'{x:.3f}' for x in latex)};"
        f" {hows.count('equivalence')}/{len(hows)} decided by equivalence)"
    )


if __name__ == "__main__":
    main()
