"""The SOOHAK model panel: who was evaluated, how, and the figures the paper prints.

Figures are (avg@3, pass@3) per split in percentage points with a source tag:
``T2`` Table 2 / Section 5 text, ``T5`` Table 5 (Qwen3 sizes), ``T6`` Table 6 (test-time
scaling), ``c`` chosen by us where the paper prints nothing. Chosen values respect the
narrative: GPT-5 > Gemini-3-Pro > Grok-4.1-Fast lead Mini; Gemini-3-Pro then GPT-5 lead
Challenge; Claude-Sonnet-4.5 is weakest on both; closed models cluster at 41–43 % on
Refusal; and the pass@3 composites reproduce Figure 4 (GPT-5 first on Avg-R, Gemini-3-Pro
first on Capability, GLM-5 up three ranks, Kimi-2.5 down three).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SPLITS = ("mini", "challenge", "refusal")


@dataclass(frozen=True)
class Spec:
    sub: str
    lab: str
    model: dict
    config: dict
    figures: dict  # split -> (avg, avg_src, pass, pass_src)
    default_panel: bool = False  # one of the eleven Table 2 systems in their default configuration
    aff: dict = field(default_factory=dict)  # msc -> ranking bonus (subfield strengths, Table 7)
    noise: float = 0.75
    ko_drop: float = 0.05  # chance a correct English sample is wrong in Korean
    false_refusal: float = 0.02  # share of wrong well-posed samples that refuse
    truncation: float = 0.01  # share of wrong samples cut at max_output_tokens
    tokens: int = 8000  # mean output tokens on Mini
    tps: float = 80.0
    price: tuple[float, float] | None = None  # USD per 1M input/output tokens; None: self-hosted, cost unknown


def _m(id_, name, family, open_w, params, active, cutoff, release):
    return {
        "id": id_,
        "name": name,
        "family": family,
        "open_weights": open_w,
        "params_b": params,
        "active_params_b": active,
        "training_cutoff": cutoff,
        "release_date": release,
    }


def _c(effort, thinking, temp, max_tokens, notes, tts=False):
    return {"reasoning_effort": effort, "thinking": thinking, "temperature": temp, "max_output_tokens": max_tokens, "tts": tts, "notes": notes}


def _f(mini, challenge, refusal):
    return {"mini": mini, "challenge": challenge, "refusal": refusal}


_DEFAULT = "Default configuration of Table 2 (Section 4; Appendix D.1, Table 4)."
_QWEN5 = "Qwen3 size sweep (Appendix D.2, Table 5); thinking mode; self-hosted, cost not reported."

PANEL: tuple[Spec, ...] = (
    Spec(
        "gpt-5-medium", "lab-gpt",
        _m("gpt-5-2025-08-07", "GPT-5 (medium)", "GPT-5", False, None, None, "2024-09-30", "2025-08-07"),
        _c("medium", True, 1.0, 128000, _DEFAULT + " GPT-5.1 and GPT-5.2 scored lower (Section 4, footnote)."),
        _f((72.22, "T2", 81.48, "T2"), (26.37, "T2", 40.88, "T2"), (43.09, "T2", 62.63, "c")),
        default_panel=True, aff={"11": 0.1}, ko_drop=0.04, false_refusal=0.03, tokens=9000, tps=60, price=(1.25, 10.0),
    ),
    Spec(
        "gemini-3-pro", "lab-gemini",
        _m("gemini-3-pro-preview", "Gemini-3-Pro", "Gemini 3", False, None, None, "2025-01-31", "2025-11-18"),
        _c("high", True, 1.0, 65536, _DEFAULT),
        _f((71.70, "T2", 80.63, "T2"), (30.39, "T2", 44.12, "T2"), (41.41, "T2", 57.58, "c")),
        default_panel=True, aff={"11": 0.5, "26": 0.5, "05": 0.3, "16": 0.9, "52": 0.8}, ko_drop=0.03, tokens=8000, tps=70, price=(2.0, 12.0),
    ),
    Spec(
        "grok-4-1-fast", "lab-grok",
        _m("grok-4-1-fast-reasoning", "Grok-4.1-Fast", "Grok 4", False, None, None, None, "2025-11-19"),
        _c(None, True, 0.6, 65536, _DEFAULT),
        _f((70.66, "T2", 79.91, "c"), (19.80, "c", 31.47, "c"), (38.38, "c", 55.56, "c")),
        default_panel=True, aff={"40": 0.9, "51": 0.6, "60": 0.9}, ko_drop=0.06, tokens=7000, tps=120, price=(0.2, 0.5),
    ),
    Spec(
        "gemini-3-flash", "lab-gemini",
        _m("gemini-3-flash-preview", "Gemini-3-Flash", "Gemini 3", False, None, None, "2025-01-31", "2025-12-17"),
        _c("high", True, 1.0, 65536, _DEFAULT),
        _f((68.85, "c", 78.21, "c"), (22.16, "c", 34.41, "c"), (43.10, "T2", 60.61, "c")),
        default_panel=True, ko_drop=0.04, false_refusal=0.03, tokens=7000, tps=150, price=(0.5, 3.0),
    ),
    Spec(
        "gpt-5-mini-medium", "lab-gpt",
        _m("gpt-5-mini-2025-08-07", "GPT-5-Mini (medium)", "GPT-5", False, None, None, "2024-05-31", "2025-08-07"),
        _c("medium", True, 1.0, 128000, _DEFAULT),
        _f((64.20, "c", 74.07, "c"), (12.06, "c", 20.29, "c"), (41.08, "T2", 58.59, "c")),
        default_panel=True, ko_drop=0.05, false_refusal=0.03, tokens=7500, tps=90, price=(0.25, 2.0),
    ),
    Spec(
        "kimi-2-5", "lab-kimi",
        _m("kimi-k2.5", "Kimi-2.5", "Kimi K2", True, 1040.0, 32.0, None, "2026-01-27"),
        _c(None, True, 0.6, 65536, _DEFAULT),
        _f((66.07, "T2", 74.93, "T2"), (13.87, "T2", 22.94, "c"), (29.97, "T2", 43.43, "c")),
        default_panel=True, ko_drop=0.05, false_refusal=0.015, tokens=9500, tps=40, price=(0.6, 3.0),
    ),
    Spec(
        "glm-5", "lab-glm",
        _m("glm-5", "GLM-5", "GLM", True, 744.0, 40.0, None, "2026-02-11"),
        _c(None, True, 0.6, 65536, _DEFAULT),
        _f((63.11, "T2", 72.08, "c"), (9.61, "T2", 16.47, "c"), (49.49, "T2", 73.74, "T2")),
        default_panel=True, ko_drop=0.05, false_refusal=0.06, tokens=9000, tps=45, price=(1.0, 3.2),
    ),
    Spec(
        "gpt-oss-120b-medium", "lab-gpt",
        _m("gpt-oss-120b", "GPT-OSS-120B (medium)", "GPT-OSS", True, 117.0, 5.1, "2024-06-30", "2025-08-05"),
        _c("medium", True, 1.0, 16384, _DEFAULT),
        _f((61.02, "T2", 75.21, "T6"), (11.27, "T2", 18.53, "T6"), (43.77, "T2", 60.61, "T6")),
        default_panel=True, ko_drop=0.07, false_refusal=0.05, truncation=0.12, tokens=6500, tps=150, price=(0.1, 0.5),
    ),
    Spec(
        "claude-opus-4-5", "lab-claude",
        _m("claude-opus-4-5-20251101", "Claude-Opus-4.5", "Claude 4.5", False, None, None, "2025-03-31", "2025-11-24"),
        _c(None, True, 0.6, 64000, _DEFAULT + " Provider-default extended thinking."),
        _f((52.42, "c", 63.53, "c"), (10.39, "T2", 18.82, "T2"), (26.60, "T2", 40.40, "c")),
        default_panel=True, ko_drop=0.04, false_refusal=0.04, tokens=6000, tps=45, price=(5.0, 25.0),
    ),
    Spec(
        "qwen3-235b-a22b-thinking-2507", "lab-qwen",
        _m("qwen3-235b-a22b-thinking-2507", "Qwen3-235B-A22B-Thinking-2507", "Qwen3", True, 235.0, 22.0, None, "2025-07-25"),
        _c(None, True, 0.6, 16384, _DEFAULT + " Output length is a bottleneck at 16,384 tokens (Appendix D.2)."),
        _f((56.22, "T2", 67.66, "T6"), (8.04, "T2", 15.00, "T6"), (2.69, "T2", 5.05, "T2")),
        default_panel=True, ko_drop=0.06, false_refusal=0.002, truncation=0.30, tokens=11000, tps=50, price=(0.2, 0.6),
    ),
    Spec(
        "claude-sonnet-4-5", "lab-claude",
        _m("claude-sonnet-4-5-20250929", "Claude-Sonnet-4.5", "Claude 4.5", False, None, None, "2025-01-31", "2025-09-29"),
        _c(None, True, 0.6, 64000, _DEFAULT + " Provider-default extended thinking."),
        _f((40.88, "T2", 51.85, "c"), (5.69, "T2", 10.59, "c"), (27.61, "T2", 41.41, "c")),
        default_panel=True, ko_drop=0.04, false_refusal=0.04, tokens=5500, tps=60, price=(3.0, 15.0),
    ),
    # Test-time scaling (Appendix D.3, Table 6): only pass@3 is printed.
    Spec(
        "gpt-oss-120b-high", "lab-gpt",
        _m("gpt-oss-120b", "GPT-OSS-120B (high)", "GPT-OSS", True, 117.0, 5.1, "2024-06-30", "2025-08-05"),
        _c("high", True, 1.0, 16384, "Test-time scaling: 'hard' reasoning effort (Appendix D.3, Table 6).", tts=True),
        _f((63.39, "c", 76.78, "T6"), (15.59, "c", 26.47, "T6"), (37.04, "c", 52.53, "T6")),
        ko_drop=0.07, false_refusal=0.04, truncation=0.18, tokens=9000, tps=150, price=(0.1, 0.5),
    ),
    Spec(
        "gpt-oss-120b-high-ctx81920", "lab-gpt",
        _m("gpt-oss-120b", "GPT-OSS-120B (high, 81,920 tokens)", "GPT-OSS", True, 117.0, 5.1, "2024-06-30", "2025-08-05"),
        _c("high", True, 1.0, 81920, "Test-time scaling: 'hard' effort with an 81,920-token budget (Appendix D.3, Table 6).", tts=True),
        _f((66.71, "c", 80.91, "T6"), (17.84, "c", 29.71, "T6"), (38.38, "c", 55.56, "T6")),
        aff={"15": 1.2}, ko_drop=0.07, false_refusal=0.04, truncation=0.03, tokens=14000, tps=150, price=(0.1, 0.5),
    ),
    Spec(
        "qwen3-235b-a22b-thinking-2507-ctx81920", "lab-qwen",
        _m("qwen3-235b-a22b-thinking-2507", "Qwen3-235B-A22B-Thinking-2507 (81,920 tokens)", "Qwen3", True, 235.0, 22.0, None, "2025-07-25"),
        _c(None, True, 0.6, 81920, "Test-time scaling: 81,920-token budget; no exposed effort parameter (Appendix D.3, Table 6).", tts=True),
        _f((58.92, "c", 70.23, "T6"), (12.35, "c", 22.35, "T6"), (4.71, "c", 9.09, "T6")),
        ko_drop=0.06, false_refusal=0.003, truncation=0.05, tokens=16000, tps=50, price=(0.2, 0.6),
    ),
    # Qwen3 parameter scaling (Appendix D.2, Table 5): pass@3 on Challenge and Refusal at every size,
    # on Mini at 0.6B and 32B (and the 30B-A3B thinking checkpoint).
    Spec(
        "qwen3-0-6b", "lab-qwen", _m("qwen3-0.6b", "Qwen3-0.6B", "Qwen3", True, 0.6, 0.6, None, "2025-04-29"),
        _c(None, True, 0.6, 16384, _QWEN5), _f((21.94, "c", 35.75, "T5"), (1.18, "c", 2.94, "T5"), (5.05, "c", 11.11, "T5")),
        noise=0.9, ko_drop=0.12, false_refusal=0.01, truncation=0.15, tokens=7000, tps=300,
    ),
    Spec(
        "qwen3-1-7b", "lab-qwen", _m("qwen3-1.7b", "Qwen3-1.7B", "Qwen3", True, 1.7, 1.7, None, "2025-04-29"),
        _c(None, True, 0.6, 16384, _QWEN5), _f((30.20, "c", 45.73, "c"), (2.25, "c", 5.59, "T5"), (2.36, "c", 5.05, "T5")),
        noise=0.9, ko_drop=0.10, false_refusal=0.01, truncation=0.15, tokens=8000, tps=250,
    ),
    Spec(
        "qwen3-8b", "lab-qwen", _m("qwen3-8b", "Qwen3-8B", "Qwen3", True, 8.2, 8.2, None, "2025-04-29"),
        _c(None, True, 0.6, 16384, _QWEN5), _f((43.64, "c", 58.97, "c"), (3.73, "c", 8.82, "T5"), (2.02, "c", 5.05, "T5")),
        noise=0.85, ko_drop=0.09, false_refusal=0.01, truncation=0.15, tokens=9000, tps=150,
    ),
    Spec(
        "qwen3-14b", "lab-qwen", _m("qwen3-14b", "Qwen3-14B", "Qwen3", True, 14.8, 14.8, None, "2025-04-29"),
        _c(None, True, 0.6, 16384, _QWEN5), _f((49.53, "c", 64.96, "c"), (5.39, "c", 12.06, "T5"), (9.76, "c", 21.21, "T5")),
        noise=0.85, ko_drop=0.08, false_refusal=0.02, truncation=0.15, tokens=9500, tps=110,
    ),
    Spec(
        "qwen3-32b", "lab-qwen", _m("qwen3-32b", "Qwen3-32B", "Qwen3", True, 32.8, 32.8, None, "2025-04-29"),
        _c(None, True, 0.6, 16384, _QWEN5), _f((55.51, "c", 70.80, "T5"), (7.25, "c", 15.29, "T5"), (14.81, "c", 28.28, "T5")),
        noise=0.8, ko_drop=0.07, false_refusal=0.03, truncation=0.15, tokens=10000, tps=70,
    ),
    Spec(
        "qwen3-30b-a3b-thinking-2507", "lab-qwen",
        _m("qwen3-30b-a3b-thinking-2507", "Qwen3-30B-A3B-Thinking-2507", "Qwen3", True, 30.5, 3.3, None, "2025-07-30"),
        _c(None, True, 0.6, 16384, _QWEN5), _f((56.79, "c", 71.23, "T5"), (7.55, "c", 15.59, "T5"), (8.75, "c", 19.19, "c")),
        noise=0.8, ko_drop=0.07, false_refusal=0.01, truncation=0.15, tokens=10500, tps=160,
    ),
)

# Table 7 (Appendix D.5): subfield leaders, avg@3 over every item of the subject.
# MSC 51's leading value is not printed; Grok-4.1-Fast must still lead it.
MSC_LEADERS: dict[str, tuple[str, float | None]] = {
    "11": ("gemini-3-pro", 71.9),
    "26": ("gemini-3-pro", 75.1),
    "05": ("gemini-3-pro", 51.9),
    "16": ("gemini-3-pro", 48.6),
    "52": ("gemini-3-pro", 57.8),
    "40": ("grok-4-1-fast", 80.6),
    "60": ("grok-4-1-fast", 59.7),
    "51": ("grok-4-1-fast", None),
    "15": ("gpt-oss-120b-high-ctx81920", 55.6),
}
MSC_51_CHOSEN = 63.16  # Grok-4.1-Fast on geometry (our choice; the paper names the leader only)

# Deliberate lab-grading disagreements (judge errors a regrade should surface), in pairs
# that leave avg@3 and pass@3 unchanged either way: submission -> number of pairs.
DISAGREEMENT_PAIRS = {"kimi-2-5": 2, "grok-4-1-fast": 1}
UNSOLVED_CHALLENGE = 124  # Section 5 / Figure 2 (right): unsolved by every default-panel model
