"""SOOHAK subject table and the (clearly synthetic) bilingual question templates.

MSC counts follow the seed paper's Table 1 and Table 7 (Section 3.5, Appendix D.5):
Algebra & Discrete 680 (number theory 269, combinatorics 131), Analysis 233 (real
functions 115), Geometry & Topology 175 (geometry 95), Applied/CS/OR 27, Probability &
Statistics 25, Logic 1; Table 7 sizes for MSC 16 (24), 52 (30), 40 (36), 60 (24), 15 (33).
The split of each subject across Mini/Challenge/Refusal and the long tail are our choices.
"""

from __future__ import annotations

import random

AREAS = {
    "alg": ("Algebra & Discrete", "대수 및 이산수학"),
    "ana": ("Analysis", "해석학"),
    "geo": ("Geometry & Topology", "기하 및 위상수학"),
    "app": ("Applied/CS/OR", "응용수학/전산/OR"),
    "prob": ("Probability & Statistics", "확률 및 통계"),
    "logic": ("Logic", "논리"),
}

# msc -> (area, English topic, Korean topic, total items)
MSC: dict[str, tuple[str, str, str, int]] = {
    "11": ("alg", "number theory", "정수론", 269),
    "05": ("alg", "combinatorics", "조합론", 131),
    "15": ("alg", "linear and multilinear algebra", "선형대수학", 33),
    "16": ("alg", "associative rings and algebras", "결합환과 대수", 24),
    "20": ("alg", "group theory", "군론", 50),
    "12": ("alg", "field theory and polynomials", "체론과 다항식", 45),
    "14": ("alg", "algebraic geometry", "대수기하학", 38),
    "13": ("alg", "commutative algebra", "가환대수학", 30),
    "06": ("alg", "order, lattices", "순서와 격자", 18),
    "08": ("alg", "general algebraic systems", "일반 대수계", 10),
    "17": ("alg", "nonassociative rings and algebras", "비결합환과 대수", 8),
    "18": ("alg", "category theory", "범주론", 12),
    "19": ("alg", "K-theory", "K-이론", 6),
    "22": ("alg", "topological groups", "위상군", 6),
    "26": ("ana", "real functions", "실함수론", 115),
    "40": ("ana", "sequences, series, summability", "수열, 급수, 총합법", 36),
    "30": ("ana", "functions of a complex variable", "복소함수론", 18),
    "33": ("ana", "special functions", "특수함수", 12),
    "34": ("ana", "ordinary differential equations", "상미분방정식", 14),
    "35": ("ana", "partial differential equations", "편미분방정식", 8),
    "42": ("ana", "harmonic analysis", "조화해석학", 10),
    "28": ("ana", "measure and integration", "측도와 적분", 10),
    "46": ("ana", "functional analysis", "함수해석학", 6),
    "47": ("ana", "operator theory", "작용소 이론", 4),
    "51": ("geo", "geometry", "기하학", 95),
    "52": ("geo", "convex and discrete geometry", "볼록 및 이산 기하학", 30),
    "53": ("geo", "differential geometry", "미분기하학", 16),
    "54": ("geo", "general topology", "일반위상수학", 8),
    "55": ("geo", "algebraic topology", "대수적 위상수학", 14),
    "57": ("geo", "manifolds and cell complexes", "다양체와 세포 복합체", 8),
    "58": ("geo", "global analysis", "대역해석학", 4),
    "68": ("app", "computer science", "전산학", 10),
    "90": ("app", "operations research", "경영과학", 7),
    "94": ("app", "information and communication", "정보와 통신", 4),
    "65": ("app", "numerical analysis", "수치해석학", 6),
    "60": ("prob", "probability theory", "확률론", 24),
    "62": ("prob", "statistics", "통계학", 1),
    "03": ("logic", "mathematical logic", "수리논리학", 1),
}

# (mini, challenge, refusal) for the subjects the paper's Table 7 discusses; the rest of
# each subject is spread by weight (Challenge grows "a specialized long tail", Section 3.5).
# No Refusal item carries a Table 7 subject, so a subject's Table 1 count (24 for MSC 16…)
# is also its count on a Mini + Challenge subfield board, and Table 7's scores read the same
# whether a board includes Refusal or not. The 99 Refusal items come from the long tail.
FIXED_SPLITS: dict[str, tuple[int, int, int]] = {
    "11": (227, 42, 0),
    "26": (87, 28, 0),
    "05": (79, 52, 0),
    "51": (69, 26, 0),
    "16": (9, 15, 0),
    "52": (16, 14, 0),
    "40": (32, 4, 0),
    "60": (16, 8, 0),
    "15": (16, 17, 0),
}
CHALLENGE_HEAVY = {"14", "20", "55", "53", "18", "19", "17", "22", "57", "58", "46", "47", "35", "42"}
MINI_HEAVY = {"30", "33", "34", "28", "12", "13", "68", "90", "94", "65", "62", "06", "08", "03"}

_EN = [
    "[synthetic] In {topic}, let $N$ be the number of {obj} with parameter $n = {a}$ satisfying condition $C_{b}$ defined in the preamble. Find $N \\bmod {m}$.",
    "[synthetic] A {topic} problem: consider the family $\\mathcal{{F}}_{{{a}}}$ of {obj} described above, and let $S$ be the sum of their invariants $\\iota(F)$ over $F \\in \\mathcal{{F}}_{{{a}}}$. Compute $S$ (a single integer; reduce modulo {m} if it exceeds it).",
    "[synthetic] ({topic}) Let $f$ be the unique {obj} with $f({b}) = {a}$ and the symmetry stated in the setup. Determine the value of $f({c})$ as an exact number.",
    "[synthetic] ({topic}) For the configuration of {obj} with {a} marked elements and defect {b}, find the largest integer $k$ for which the extremal property holds.",
]
_KO = [
    "[합성 문항] {topic} 문제: 매개변수 $n = {a}$ 에 대하여 앞서 정의한 조건 $C_{b}$ 를 만족하는 {obj}의 개수를 $N$ 이라 하자. $N \\bmod {m}$ 을 구하시오.",
    "[합성 문항] {topic} 문제: 위에서 설명한 {obj}의 모임 $\\mathcal{{F}}_{{{a}}}$ 에 대하여 불변량 $\\iota(F)$ 의 합을 $S$ 라 하자. $S$ 를 구하시오 (값이 {m} 이상이면 {m} 으로 나눈 나머지).",
    "[합성 문항] {topic} 문제: $f({b}) = {a}$ 이고 주어진 대칭성을 갖는 유일한 {obj} $f$ 에 대하여 $f({c})$ 의 값을 정확히 구하시오.",
    "[합성 문항] {topic} 문제: 표시된 원소가 {a}개이고 결손이 {b}인 {obj}의 배치에 대하여 극값 성질이 성립하는 가장 큰 정수 $k$ 를 구하시오.",
]
_OBJ = {
    "alg": ("structures", "구조"),
    "ana": ("functions", "함수"),
    "geo": ("point configurations", "점 배치"),
    "app": ("instances", "인스턴스"),
    "prob": ("random walks", "확률 보행"),
    "logic": ("theories", "이론"),
}
# The flaw is built in (an inconsistent pair of hypotheses) but not announced.
_EN_FLAW = " Assume moreover that $n > {hi}$ and $n < {lo}$."
_KO_FLAW = " 또한 $n > {hi}$ 이고 $n < {lo}$ 라고 가정한다."


def question_texts(rng: random.Random, msc: str, split: str, canary: str) -> dict[str, str]:
    area, topic_en, topic_ko, _ = MSC[msc]
    t = rng.randrange(len(_EN))
    obj_en, obj_ko = _OBJ[area]
    params = {"a": rng.randint(3, 97), "b": rng.randint(2, 9), "c": rng.randint(10, 60), "m": rng.choice((1000, 997, 10007, 2026))}
    en = _EN[t].format(topic=topic_en, obj=obj_en, **params)
    ko = _KO[t].format(topic=topic_ko, obj=obj_ko, **params)
    if split == "refusal":
        hi = rng.randint(20, 90)
        lo = hi - rng.randint(1, 15)
        en += _EN_FLAW.format(hi=hi, lo=lo)
        ko += _KO_FLAW.format(hi=hi, lo=lo)
    return {"en": f"{en}\n\n[canary: {canary}]", "ko": f"{ko}\n\n[canary: {canary}]"}
