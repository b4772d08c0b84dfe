"""KCSAT-ML Table 8 (Appendix A; Table 2 is a subset of it), one row per configuration.

Columns: model, budget label ("-" when the row has none), TTS (✓ = 1), Avg.Tok, Score.
Rows are transcribed in the paper's order. A family's rows share ``family`` (the TTS
pairing key); Instruct/Thinking checkpoints of one backbone form one family.
"""

from __future__ import annotations

import re
from typing import Any

TABLE_8 = """
Solar-10.7B-Instruct-v1.0 | - | 0 | 85 | 3.2
Solar-10.7B-Instruct-v1.0 | - | 1 | 700 | 0.0
Solar-Pro-Preview-Instruct-22B | - | 0 | 5 | 2.4
Solar-Pro-Preview-Instruct-22B | - | 1 | 686 | 0.0
Midm-2.0-Base-Instruct-12B | - | 0 | 11 | 3.8
Midm-2.0-Base-Instruct-12B | - | 1 | 695 | 8.6
SKT-AX-4.0-Light-7B | - | 0 | 465 | 22.7
SKT-AX-4.0-Light-7B | - | 1 | 1002 | 14.2
SKT-AX-4.0-72B | - | 0 | 9 | 5.3
SKT-AX-4.0-72B | - | 1 | 1873 | 20.1
GPT-OSS-20B | - | 0 | 2272 | 67.8
GPT-OSS-20B | - | 1 | 4283 | 58.4
Exaone-4.0-32B | - | 0 | 6 | 3.8
Exaone-4.0-32B | - | 1 | 2396 | 39.8
Kanana-2-30B-A3B-Instruct | - | 0 | 9 | 5.6
Kanana-2-30B-A3B-Instruct | - | 1 | 1324 | 27.1
Kanana-2-30B-A3B-Thinking | - | 1 | 9875 | 45.4
HyperCLOVA-X-Seed-14B | - | 0 | 55 | 6.8
HyperCLOVA-X-Seed-14B | Non-think | 1 | 990 | 8.8
HyperCLOVA-X-Seed-14B | Think | 1 | 8646 | 53.7
Qwen3-4B-Instruct | - | 0 | 7 | 5.9
Qwen3-4B-Instruct | - | 1 | 4274 | 49.6
Qwen3-4B-Thinking | - | 1 | 8558 | 64.3
GPT-OSS-120B | - | 0 | 1839 | 74.9
GPT-OSS-120B | - | 1 | 3552 | 67.6
Qwen3-30B-A3B-Instruct | - | 0 | 5 | 7.4
Qwen3-30B-A3B-Instruct | - | 1 | 4063 | 62.2
Qwen3-30B-A3B-Thinking | - | 1 | 7678 | 74.0
HyperCLOVA-X-Vision-3B | - | 0 | 9 | 1.5
HyperCLOVA-X-Vision-3B | - | 1 | 749 | 4.4
HyperCLOVA-X-Seed-Think-32B | Non-think | 0 | 746 | 39.5
HyperCLOVA-X-Seed-Think-32B | Think | 1 | 7431 | 87.2
Qwen3-VL-2B-Instruct | - | 0 | 821 | 1.2
Qwen3-VL-2B-Instruct | - | 1 | 10650 | 5.9
Qwen3-VL-2B-Thinking | - | 1 | 12379 | 18.3
Qwen3-VL-4B-Instruct | - | 0 | 112 | 3.2
Qwen3-VL-4B-Instruct | - | 1 | 6668 | 28.3
Qwen3-VL-4B-Thinking | - | 1 | 9975 | 35.4
Qwen3-VL-30B-A3B-Instruct | - | 0 | 92 | 7.7
Qwen3-VL-30B-A3B-Instruct | - | 1 | 5699 | 35.4
Qwen3-VL-30B-A3B-Thinking | - | 1 | 7602 | 45.4
Qwen3-VL-8B-Instruct | - | 0 | 58 | 6.5
Qwen3-VL-8B-Instruct | - | 1 | 5450 | 46.3
Qwen3-VL-8B-Thinking | - | 1 | 8842 | 52.2
Qwen3-VL-32B-Instruct | - | 0 | 5 | 6.5
Qwen3-VL-32B-Instruct | - | 1 | 3703 | 54.6
Qwen3-VL-32B-Thinking | - | 1 | 7808 | 61.7
GPT-5-Nano | Minimal | 0 | 10 | 1.2
GPT-5-Nano | Minimal | 1 | 657 | 2.7
GPT-5-Nano | Low | 1 | 1697 | 29.8
GPT-5-Nano | Medium | 1 | 6446 | 54.0
GPT-5-Nano | High | 1 | 13079 | 60.8
o4-Mini | Low | 0 | 9 | 73.2
o4-Mini | Low | 1 | 1674 | 59.9
o4-Mini | Medium | 1 | 2976 | 74.3
o4-Mini | High | 1 | 5350 | 83.5
GPT-5-Mini | Minimal | 0 | 9 | 5.0
GPT-5-Mini | Minimal | 1 | 957 | 21.8
GPT-5-Mini | Low | 1 | 1495 | 62.2
GPT-5-Mini | Medium | 1 | 2741 | 76.7
GPT-5-Mini | High | 1 | 5104 | 86.1
GPT-5 | Minimal | 0 | 8 | 7.7
GPT-5 | Minimal | 1 | 538 | 17.1
GPT-5 | Low | 1 | 2000 | 82.9
GPT-5 | Medium | 1 | 3808 | 91.2
GPT-5 | High | 1 | 6442 | 94.1
GPT-5.1 | None | 0 | 13 | 8.8
GPT-5.1 | None | 1 | 691 | 15.0
GPT-5.1 | Low | 1 | 1916 | 73.7
GPT-5.1 | Medium | 1 | 3933 | 90.0
GPT-5.1 | High | 1 | 6587 | 93.2
Claude-Sonnet-4 | Non-think | 0 | 328 | 15.6
Claude-Sonnet-4 | - | 1 | 827 | 16.5
Claude-Sonnet-4 | Lite-think | 1 | 2201 | 23.9
Claude-Sonnet-4 | Think | 1 | 3594 | 31.9
Claude-Sonnet-4.5 | Non-think | 0 | 549 | 33.3
Claude-Sonnet-4.5 | - | 1 | 868 | 19.8
Claude-Sonnet-4.5 | Lite-think | 1 | 2524 | 41.6
Claude-Sonnet-4.5 | Think | 1 | 3732 | 49.3
Claude-Haiku-4.5 | Non-think | 0 | 66 | 7.7
Claude-Haiku-4.5 | - | 1 | 833 | 13.9
Claude-Haiku-4.5 | Lite-think | 1 | 2824 | 25.7
Claude-Haiku-4.5 | Think | 1 | 4440 | 33.3
Claude-Opus-4.5 | Non-think | 0 | 7 | 13.3
Claude-Opus-4.5 | - | 1 | 736 | 44.5
Claude-Opus-4.5 | Lite-think | 1 | 2477 | 79.1
Claude-Opus-4.5 | Think | 1 | 3617 | 87.6
Gemini-2.5-Flash-Lite | - | 0 | 3 | 6.9
Gemini-2.5-Flash-Lite | - | 1 | 4850 | 8.8
Gemini-2.5-Flash-Lite | Think | 1 | 11933 | 66.7
Gemini-2.5-Flash | Non-think | 0 | 4 | 11.1
Gemini-2.5-Flash | - | 1 | 3218 | 17.7
Gemini-2.5-Flash | Think | 1 | 7595 | 86.7
Gemini-2.5-Pro | Think | 0 | 3 | 96.1
Gemini-2.5-Pro | Think | 1 | 6886 | 93.2
Gemini-3-Flash-Prev | Minimal | 0 | 1028 | 76.3
Gemini-3-Flash-Prev | Minimal | 1 | 1008 | 62.5
Gemini-3-Flash-Prev | Low | 1 | 3317 | 88.2
Gemini-3-Flash-Prev | Medium | 1 | 7362 | 96.2
Gemini-3-Flash-Prev | High | 1 | 6210 | 98.5
Gemini-3-Pro-Prev | Low | 0 | 23 | 37.4
Gemini-3-Pro-Prev | Low | 1 | 2345 | 83.8
Gemini-3-Pro-Prev | High | 1 | 6913 | 99.4
"""

# Table 2 (Section 3.2) rows, as (model, label, tts): the selected subset of Table 8.
TABLE_2 = {
    ("Exaone-4.0-32B", "-", False), ("Exaone-4.0-32B", "-", True),
    ("Qwen3-30B-A3B-Instruct", "-", False), ("Qwen3-30B-A3B-Instruct", "-", True), ("Qwen3-30B-A3B-Thinking", "-", True),
    ("HyperCLOVA-X-Seed-Think-32B", "Non-think", False), ("HyperCLOVA-X-Seed-Think-32B", "Think", True),
    ("Qwen3-VL-8B-Instruct", "-", False), ("Qwen3-VL-8B-Instruct", "-", True), ("Qwen3-VL-8B-Thinking", "-", True),
    ("Qwen3-VL-32B-Instruct", "-", False), ("Qwen3-VL-32B-Instruct", "-", True), ("Qwen3-VL-32B-Thinking", "-", True),
    ("GPT-5.1", "None", False), ("GPT-5.1", "High", True),
    ("Claude-Opus-4.5", "Non-think", False), ("Claude-Opus-4.5", "Think", True),
    ("Gemini-3-Pro-Prev", "Low", False), ("Gemini-3-Pro-Prev", "High", True),
}

# model -> (lab, model id, family, open weights, params_b, active_params_b, training cutoff,
#           release date, input: "image" (VLM) | "ocr" (LLM on OCR text), $/1M in, $/1M out)
# Cutoffs and prices are approximate public figures or left unknown (None); GPT-5's cutoff
# (~September 2024) is the one the paper anchors its contamination check on (Section 3.2).
MODELS = {
    "Solar-10.7B-Instruct-v1.0": ("lab-solar", "upstage/SOLAR-10.7B-Instruct-v1.0", "Solar-10.7B", True, 10.7, 10.7, None, "2023-12-13", "ocr", None),
    "Solar-Pro-Preview-Instruct-22B": ("lab-solar", "upstage/solar-pro-preview-instruct", "Solar-Pro", True, 22.1, 22.1, None, "2024-09-11", "ocr", None),
    "Midm-2.0-Base-Instruct-12B": ("lab-midm", "K-intelligence/Midm-2.0-Base-Instruct", "Midm-2.0-Base", True, 11.5, 11.5, None, "2025-07-04", "ocr", None),
    "SKT-AX-4.0-Light-7B": ("lab-ax", "skt/A.X-4.0-Light", "A.X-4.0-Light", True, 7.3, 7.3, None, "2025-07-03", "ocr", None),
    "SKT-AX-4.0-72B": ("lab-ax", "skt/A.X-4.0", "A.X-4.0", True, 72.7, 72.7, None, "2025-07-03", "ocr", None),
    "GPT-OSS-20B": ("lab-gpt", "openai/gpt-oss-20b", "GPT-OSS-20B", True, 20.9, 3.6, "2024-06-30", "2025-08-05", "ocr", None),
    "Exaone-4.0-32B": ("lab-exaone", "LGAI-EXAONE/EXAONE-4.0-32B", "EXAONE-4.0-32B", True, 32.0, 32.0, None, "2025-07-15", "ocr", None),
    "Kanana-2-30B-A3B-Instruct": ("lab-kanana", "kakaocorp/kanana-2-30b-a3b-instruct", "Kanana-2-30B-A3B", True, 30.0, 3.0, None, None, "ocr", None),
    "Kanana-2-30B-A3B-Thinking": ("lab-kanana", "kakaocorp/kanana-2-30b-a3b-thinking", "Kanana-2-30B-A3B", True, 30.0, 3.0, None, None, "ocr", None),
    "HyperCLOVA-X-Seed-14B": ("lab-hyperclova", "naver-hyperclovax/HyperCLOVAX-SEED-Think-14B", "HyperCLOVA-X-Seed-14B", True, 14.7, 14.7, None, "2025-07-22", "ocr", None),
    "Qwen3-4B-Instruct": ("lab-qwen", "Qwen/Qwen3-4B-Instruct-2507", "Qwen3-4B", True, 4.0, 4.0, None, "2025-08-06", "ocr", None),
    "Qwen3-4B-Thinking": ("lab-qwen", "Qwen/Qwen3-4B-Thinking-2507", "Qwen3-4B", True, 4.0, 4.0, None, "2025-08-06", "ocr", None),
    "GPT-OSS-120B": ("lab-gpt", "openai/gpt-oss-120b", "GPT-OSS-120B", True, 117.0, 5.1, "2024-06-30", "2025-08-05", "ocr", None),
    "Qwen3-30B-A3B-Instruct": ("lab-qwen", "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B", True, 30.5, 3.3, None, "2025-07-29", "ocr", None),
    "Qwen3-30B-A3B-Thinking": ("lab-qwen", "Qwen/Qwen3-30B-A3B-Thinking-2507", "Qwen3-30B-A3B", True, 30.5, 3.3, None, "2025-07-30", "ocr", None),
    "HyperCLOVA-X-Vision-3B": ("lab-hyperclova", "naver-hyperclovax/HyperCLOVAX-SEED-Vision-Instruct-3B", "HyperCLOVA-X-Vision-3B", True, 3.2, 3.2, None, "2025-04-22", "image", None),
    "HyperCLOVA-X-Seed-Think-32B": ("lab-hyperclova", "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", "HyperCLOVA-X-Seed-Think-32B", True, 32.0, 32.0, None, "2025-12-29", "image", None),
    "Qwen3-VL-2B-Instruct": ("lab-qwen", "Qwen/Qwen3-VL-2B-Instruct", "Qwen3-VL-2B", True, 2.1, 2.1, None, "2025-10-21", "image", None),
    "Qwen3-VL-2B-Thinking": ("lab-qwen", "Qwen/Qwen3-VL-2B-Thinking", "Qwen3-VL-2B", True, 2.1, 2.1, None, "2025-10-21", "image", None),
    "Qwen3-VL-4B-Instruct": ("lab-qwen", "Qwen/Qwen3-VL-4B-Instruct", "Qwen3-VL-4B", True, 4.4, 4.4, None, "2025-10-15", "image", None),
    "Qwen3-VL-4B-Thinking": ("lab-qwen", "Qwen/Qwen3-VL-4B-Thinking", "Qwen3-VL-4B", True, 4.4, 4.4, None, "2025-10-15", "image", None),
    "Qwen3-VL-30B-A3B-Instruct": ("lab-qwen", "Qwen/Qwen3-VL-30B-A3B-Instruct", "Qwen3-VL-30B-A3B", True, 31.1, 3.0, None, "2025-10-03", "image", None),
    "Qwen3-VL-30B-A3B-Thinking": ("lab-qwen", "Qwen/Qwen3-VL-30B-A3B-Thinking", "Qwen3-VL-30B-A3B", True, 31.1, 3.0, None, "2025-10-03", "image", None),
    "Qwen3-VL-8B-Instruct": ("lab-qwen", "Qwen/Qwen3-VL-8B-Instruct", "Qwen3-VL-8B", True, 8.8, 8.8, None, "2025-10-15", "image", None),
    "Qwen3-VL-8B-Thinking": ("lab-qwen", "Qwen/Qwen3-VL-8B-Thinking", "Qwen3-VL-8B", True, 8.8, 8.8, None, "2025-10-15", "image", None),
    "Qwen3-VL-32B-Instruct": ("lab-qwen", "Qwen/Qwen3-VL-32B-Instruct", "Qwen3-VL-32B", True, 33.4, 33.4, None, "2025-10-21", "image", None),
    "Qwen3-VL-32B-Thinking": ("lab-qwen", "Qwen/Qwen3-VL-32B-Thinking", "Qwen3-VL-32B", True, 33.4, 33.4, None, "2025-10-21", "image", None),
    "GPT-5-Nano": ("lab-gpt", "gpt-5-nano-2025-08-07", "GPT-5-Nano", False, None, None, "2024-05-31", "2025-08-07", "image", (0.05, 0.40)),
    "o4-Mini": ("lab-gpt", "o4-mini-2025-04-16", "o4-Mini", False, None, None, "2024-06-01", "2025-04-16", "image", (1.10, 4.40)),
    "GPT-5-Mini": ("lab-gpt", "gpt-5-mini-2025-08-07", "GPT-5-Mini", False, None, None, "2024-05-31", "2025-08-07", "image", (0.25, 2.00)),
    "GPT-5": ("lab-gpt", "gpt-5-2025-08-07", "GPT-5", False, None, None, "2024-09-30", "2025-08-07", "image", (1.25, 10.0)),
    "GPT-5.1": ("lab-gpt", "gpt-5.1-2025-11-13", "GPT-5.1", False, None, None, "2024-09-30", "2025-11-13", "image", (1.25, 10.0)),
    "Claude-Sonnet-4": ("lab-claude", "claude-sonnet-4-20250514", "Claude-Sonnet-4", False, None, None, "2025-03-31", "2025-05-22", "image", (3.0, 15.0)),
    "Claude-Sonnet-4.5": ("lab-claude", "claude-sonnet-4-5-20250929", "Claude-Sonnet-4.5", False, None, None, "2025-01-31", "2025-09-29", "image", (3.0, 15.0)),
    "Claude-Haiku-4.5": ("lab-claude", "claude-haiku-4-5-20251001", "Claude-Haiku-4.5", False, None, None, "2025-02-28", "2025-10-15", "image", (1.0, 5.0)),
    "Claude-Opus-4.5": ("lab-claude", "claude-opus-4-5-20251101", "Claude-Opus-4.5", False, None, None, "2025-03-31", "2025-11-24", "image", (5.0, 25.0)),
    "Gemini-2.5-Flash-Lite": ("lab-gemini", "gemini-2.5-flash-lite", "Gemini-2.5-Flash-Lite", False, None, None, "2025-01-31", "2025-07-22", "image", (0.10, 0.40)),
    "Gemini-2.5-Flash": ("lab-gemini", "gemini-2.5-flash", "Gemini-2.5-Flash", False, None, None, "2025-01-31", "2025-06-17", "image", (0.30, 2.50)),
    "Gemini-2.5-Pro": ("lab-gemini", "gemini-2.5-pro", "Gemini-2.5-Pro", False, None, None, "2025-01-31", "2025-06-17", "image", (1.25, 10.0)),
    "Gemini-3-Flash-Prev": ("lab-gemini", "gemini-3-flash-preview", "Gemini-3-Flash", False, None, None, "2025-01-31", "2025-12-17", "image", (0.50, 3.00)),
    "Gemini-3-Pro-Prev": ("lab-gemini", "gemini-3-pro-preview", "Gemini-3-Pro", False, None, None, "2025-01-31", "2025-11-18", "image", (2.00, 12.0)),
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def rows() -> list[dict]:
    """Table 8 as dicts: model, label, tts, avg_tok, score, sub (bundle directory name)."""
    out: list[dict[str, Any]] = []
    for line in TABLE_8.strip().splitlines():
        model, label, tts, tok, score = (x.strip() for x in line.split("|"))
        tts_on = tts == "1"
        budget = "default" if label == "-" else slug(label)
        sub = f"{slug(model)}-{budget}-{'tts' if tts_on else 'base'}"
        out.append({"model": model, "label": label, "tts": tts_on, "avg_tok": int(tok), "score": float(score), "budget": budget, "sub": sub, "table2": (model, label, tts_on) in TABLE_2})
    subs = [r["sub"] for r in out]
    if len(set(subs)) != len(subs) or any(len(s) > 64 for s in subs):
        raise AssertionError()
    return out
