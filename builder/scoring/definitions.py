"""Metric definitions as the papers state them; the board JSON carries these texts.

Quotes are from the seed documents (shared/seeds/README.md says which is which). The
Data and methodology pages render them, so visitors read the definition the code uses.
"""

from __future__ import annotations

from builder.scoring.spec import Measure
from builder.scoring.tables import MetricDef

# SOOHAK §3.4.5.
AVG_AT_K = (
    "avg@k = (1/N) Σ_i (1/k) Σ_j c_ij, where N is the number of questions, c_ij ∈ {0, 1} "
    'the correctness of sample j of question i (SOOHAK §3.4.5: "the expected fraction of '
    'correct answers when drawing a single sample from the model"). With n > k samples the '
    "item term is the mean of all n samples; an item with fewer than k samples leaves the "
    "cell undefined."
)
PASS_AT_K = (
    'pass@k = (1/N) Σ_i I[max_j c_ij = 1] (SOOHAK §3.4.5: "the fraction of questions for '
    'which at least one of the three samples is correct"). With n ≥ k samples of which c are '
    "correct, the item term is the unbiased estimator 1 − C(n−c, k)/C(n, k), which equals the "
    "indicator when n = k."
)
ACCURACY = "Fraction of items answered correctly (the mean over items of each item's fraction of correct samples)."
REFUSAL_RATE = (
    "Fraction of samples whose response declined to answer (the lab's `refused` flag), "
    "averaged per item then over items. On well-posed items this is the false-refusal rate "
    'the SOOHAK critique asks for: "the benchmark only measures false negatives — the '
    'failure to refuse when refusal is appropriate" (§3.4.4).'
)
REFUSAL_GRADING = (
    "Refusal items are graded by the lab's judge: \"The solver should explicitly indicate "
    'that the question has no well-defined answer as written or that it is underspecified" '
    "(SOOHAK §3.4.4, Appendix B.8)."
)
OUTPUT_TOKENS = 'Mean output tokens per item ("Avg.Tok (average generated output tokens per item)", KCSAT-ML §3.2).'
COST_PER_CORRECT = (
    'Total reported cost in USD divided by the number of correct samples ("the cost per correct answer", KCSAT-ML Appendix B).'
)
COMPOSITES = {
    "capability": "Capability = ½ (SOOHAK-Mini + Challenge), each term the split's pass@3 (SOOHAK §3.4.7).",
    "avg_r": (
        "Avg-R = ⅓ (SOOHAK-Mini + Challenge + Refusal) = Capability − ⅓ (Capability − Refusal), on "
        'pass@3: "A model with Capability = 70 and Refusal = 40 receives Avg-R = 70 − (1/3)(30) = 60" (§3.4.7).'
    ),
    "soohak_r": "SOOHAK-R = ½ (Challenge + Refusal), on pass@3 (SOOHAK §3.4.7).",
}
CONTAMINATION = (
    "Counts only items published strictly after the model's training cutoff: \"By restricting "
    "retrieval to papers published strictly after a model's training cutoff, we ensure that the "
    'resulting benchmark is contamination-free by construction" (LiveMathematicianBench §2, Stage 1).'
)
SCF = (
    "SCF_b = a_b / (a_b + ā_b), where a_b is the number of items in bin b where the model's error "
    "rate exceeds the human cohort's and ā_b the number where it falls below (ties count in "
    'neither); it "measures how often the model under-performs the human cohort within bin b" '
    "(KCSAT-ML §4.7)."
)
DRG = (
    "DRG = (SCF_H^off − SCF_H^on) − (SCF_E^off − SCF_E^on), taken at the first TTS turn-on: "
    '"Positive DRG means TTS preferentially closes the Hard-bin gap relative to humans; negative '
    'DRG means the gain is concentrated on Easy items while Hard failures remain" (KCSAT-ML §4.7). '
    "A fraction here; the paper prints percentage points."
)
SLOPE = (
    "OLS slope of per-item model error rate on cohort error rate over the core items: "
    '"slope (failure–difficulty alignment)" (KCSAT-ML §4.6).'
)
INTERCEPT = (
    "OLS intercept of that regression, as a fraction (the paper prints percentage points): "
    '"intercept (offset relative to the y=x diagonal)" (KCSAT-ML §4.6).'
)
GRADING = {
    "regraded_samples": "Samples of regraded answer types (the benchmark's regrade types) whose correctness Sealboard recomputed from the extracted answer and the gold answer: the verdict is Sealboard's.",
    "equivalence_graded": "Regraded samples decided by math-verify's symbolic equivalence (LaTeX, expressions) rather than by exact comparison of plain numbers or letters.",
    "judge_graded_samples": "Samples whose correctness is the lab's judge verdict (ill-posed and other judge-graded types): the verdict is the lab's.",
    "lab_ungraded_samples": "Samples the lab left ungraded (correct: null, a lab holding the questions but not the gold answers): all of them regraded, their verdict is Sealboard's.",
    "disagreements": "Regraded samples where the lab gave a verdict and it differs from Sealboard's.",
    "disagreement_rate": "Disagreements as a fraction of the regraded samples the lab gave a verdict on.",
    "unparsed_answers": "Regraded samples whose answer is missing, unreadable, or refused before grading (over-long, huge exponents; counted incorrect).",
}


def measure_def(
    name: str, measure: Measure, title: str | None = None, description: str | None = None, group: tuple[str, str] | None = None
) -> MetricDef:
    """The MetricDef of a column computed with `measure`."""
    kind = measure.kind
    if kind == "avg":
        text, unit, better = (ACCURACY if measure.name == "accuracy" else AVG_AT_K), "fraction", True
    elif kind == "pass":
        text, unit, better = PASS_AT_K, "fraction", True
    elif kind == "refusal_rate":
        text, unit, better = REFUSAL_RATE, "fraction", None
    elif kind == "output_tokens":
        text, unit, better = OUTPUT_TOKENS, "tokens", None
    else:
        text, unit, better = COST_PER_CORRECT, "usd", False
    return MetricDef(
        name=name,
        title=title or (name if group is None else f"{group[1]}"),
        description=description or text,
        unit=unit,
        higher_is_better=better,
        measure=measure.name,
        group=group,
    )
