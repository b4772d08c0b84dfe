"""Shared machinery of the synthetic generators: seeded randomness, exact counts, swaps.

The generators reproduce printed figures *exactly* (to the granularity the item count
allows) rather than in expectation: they decide how many items/samples are correct
first, then which ones, then repair secondary constraints (subfield leaders, coverage,
flips) with swaps that keep every already-fixed total unchanged.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction


def rng_for(seed: int, *labels: object) -> random.Random:
    """An independent, reproducible stream per (seed, labels): adding a model never
    changes another model's data. (Python's hash() is salted per process, so no hash().)"""
    digest = hashlib.blake2b(repr((seed, *labels)).encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def canaries(rng: random.Random, benchmark: str, n: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        c = f"SEALBOARD-CANARY-{benchmark}-{rng.getrandbits(64):016x}"
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def exact_count(pct: float, n: int, *, what: str = "figure") -> int:
    """The count out of n whose rate is nearest pct (percentage points); refuses a
    figure the item count cannot reproduce within 0.5 points."""
    k = round(pct * n / 100)
    if abs(100 * k / n - pct) > 0.5:
        raise ValueError(f"{what}: {pct} % is not reachable with {n} units")
    return k


def levels(total: int, solved: int, k: int = 3) -> tuple[int, int, int]:
    """(n1, n2, n3): how many solved items get 1, 2, 3 correct of k=3 samples so that
    n1+n2+n3 = solved and n1+2*n2+3*n3 = total. Chooses n1 ≈ n2 (a beta-binomial-like
    spread) within what the two totals allow."""
    if k != 3:
        raise ValueError("only k=3 is supported")
    if not solved <= total <= 3 * solved:
        raise ValueError(f"avg total {total} is incompatible with {solved} items solved")
    extra = total - solved
    lo, hi = max(0, extra - solved), extra // 2
    n3 = min(hi, max(lo, round((2 * extra - solved) / 3)))
    n2 = extra - 2 * n3
    n1 = solved - n2 - n3
    return n1, n2, n3


def counts_from_order(order: Sequence[int], solved: int, total: int) -> dict[int, int]:
    """Give the first `solved` items of `order` ≥1 correct sample, the best ones 3."""
    n1, n2, n3 = levels(total, solved)
    out = {}
    for rank, i in enumerate(order[:solved]):
        out[i] = 3 if rank < n3 else 2 if rank < n3 + n2 else 1
    return out


def largest_remainder(weights: dict[str, float], total: int, caps: dict[str, int]) -> dict[str, int]:
    """Integer quotas proportional to weights, summing to total, each within [0, cap]."""
    if total > sum(caps.values()):
        raise ValueError("total exceeds capacity")
    wsum = sum(weights.values()) or 1.0
    raw = {b: total * w / wsum for b, w in weights.items()}
    out = {b: min(caps[b], math.floor(v)) for b, v in raw.items()}
    while sum(out.values()) < total:
        b = max((b for b in out if out[b] < caps[b]), key=lambda b: raw[b] - out[b])
        out[b] += 1
    return out


class Guard:
    """Vetoes and records count changes during swaps (coverage, forbidden items…)."""

    def allowed(self, i: int, old: int, new: int) -> bool:  # pragma: no cover - interface
        return True

    def applied(self, i: int, old: int, new: int) -> None:  # pragma: no cover - interface
        return None


def shift_group(counts: list[int], group: Iterable[int], partners: Iterable[int], delta: int, rng: random.Random, guard: Guard | None = None) -> int:
    """Swap counts between `group` and `partners` items (one split: the multiset of
    counts, hence avg@k and pass@k, is unchanged) until the group's sum moved by
    `delta`. Returns what could not be moved (0 on success)."""
    guard = guard or Guard()
    gb: dict[int, list[int]] = {c: [] for c in range(4)}
    pb: dict[int, list[int]] = {c: [] for c in range(4)}
    for i in group:
        gb[counts[i]].append(i)
    for i in partners:
        pb[counts[i]].append(i)
    for bucket in (*gb.values(), *pb.values()):
        rng.shuffle(bucket)
    while delta:
        sign = 1 if delta > 0 else -1
        done = False
        for step in range(min(3, abs(delta)), 0, -1):
            pairs = [(cg, cg + sign * step) for cg in range(4) if 0 <= cg + sign * step <= 3]
            rng.shuffle(pairs)
            for cg, co in pairs:
                g = _pick(gb[cg], lambda i: guard.allowed(i, cg, co))
                if g is None:
                    continue
                o = _pick(pb[co], lambda i: guard.allowed(i, co, cg))
                if o is None:
                    continue
                gb[cg].remove(g)
                pb[co].remove(o)
                counts[g], counts[o] = co, cg
                gb[co].append(g)
                pb[cg].append(o)
                guard.applied(g, cg, co)
                guard.applied(o, co, cg)
                delta -= sign * step
                done = True
                break
            if done:
                break
        if not done:
            break
    return delta


def _pick(bucket: list[int], ok: Callable[[int], bool]) -> int | None:
    for i in bucket[:64]:
        if ok(i):
            return i
    for i in bucket[64:]:
        if ok(i):
            return i
    return None


def mean_lognormal(rng: random.Random, mean: float, sigma: float) -> float:
    """A lognormal draw whose expectation is `mean` (gauss: faster than lognormvariate)."""
    return math.exp(math.log(mean) - sigma * sigma / 2 + sigma * rng.gauss(0.0, 1.0))


def integer_totals(values: Sequence[float], total: int, fixed: dict[int, int] | None = None, minimum: int = 1) -> list[int]:
    """Round positive values to integers ≥ minimum summing exactly to `total`, keeping
    `fixed` positions as given and scaling the rest proportionally."""
    fixed = fixed or {}
    free = [i for i in range(len(values)) if i not in fixed]
    budget = total - sum(fixed.values())
    if budget < minimum * len(free):
        raise ValueError("token total too small for the fixed values")
    out = [0] * len(values)
    for i, v in fixed.items():
        out[i] = v
    # Iterate: scaling after clipping at the minimum changes the free sum slightly.
    scale_sum = sum(values[i] for i in free) or 1.0
    raw = {i: max(minimum, values[i] * budget / scale_sum) for i in free}
    for _ in range(8):
        excess = sum(raw.values()) - budget
        movable = [i for i in free if raw[i] > minimum]
        if abs(excess) < 1e-6 or not movable:
            break
        msum = sum(raw[i] for i in movable)
        for i in movable:
            raw[i] = max(minimum, raw[i] - excess * raw[i] / msum)
    floors = {i: max(minimum, math.floor(raw[i])) for i in free}
    short = budget - sum(floors.values())
    order = sorted(free, key=lambda i: raw[i] - floors[i], reverse=True)
    j = 0
    while short > 0:
        floors[order[j % len(order)]] += 1
        short -= 1
        j += 1
    while short < 0:
        i = order[j % len(order)]
        if floors[i] > minimum:
            floors[i] -= 1
            short += 1
        j += 1
    for i, v in floors.items():
        out[i] = v
    return out


# ---- plausible wrong answers ---------------------------------------------------------


def wrong_integer(gold: int, rng: random.Random) -> int:
    """A wrong integer of the kind models produce: off by one, a factor of two, a
    dropped or swapped digit, a sign slip, or a same-magnitude guess."""
    for _ in range(20):
        kind = rng.random()
        if kind < 0.22:
            w = gold + rng.choice((-1, 1))
        elif kind < 0.36:
            w = gold * 2 if rng.random() < 0.5 else gold // 2
        elif kind < 0.50:
            s = str(abs(gold))
            if len(s) >= 2:
                j = rng.randrange(len(s) - 1)
                s = s[:j] + s[j + 1] + s[j] + s[j + 2 :]
            w = int(s) * (1 if gold >= 0 else -1)
        elif kind < 0.58:
            w = -gold
        elif kind < 0.72:
            w = gold + rng.choice((-1, 1)) * rng.randint(2, 12)
        else:
            mag = max(10, abs(gold))
            w = rng.randint(max(0, mag // 3), mag * 3)
        if w != gold:
            return w
    return gold + 1


def wrong_fraction(gold: Fraction, rng: random.Random) -> Fraction:
    for _ in range(20):
        kind = rng.random()
        if kind < 0.3:
            w = Fraction(gold.numerator + rng.choice((-1, 1)), gold.denominator)
        elif kind < 0.55:
            w = Fraction(gold.numerator, max(1, gold.denominator + rng.choice((-1, 1, 2))))
        elif kind < 0.75:
            w = 1 / gold if gold else Fraction(1, 2)
        else:
            w = gold * rng.choice((2, 3, Fraction(1, 2)))
        if w != gold and w > 0:
            return w
    return gold + 1


def fmt_fraction(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
