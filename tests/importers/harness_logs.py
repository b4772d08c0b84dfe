"""Make evaluation logs with the REAL harnesses, offline, for the importer tests.

inspect_ai runs its ``mockllm`` provider with custom outputs (so no network and no
tokenizer download: usage is given); lm-evaluation-harness runs its own ``dummy`` model
(every generation is ``"lol"``) on a local JSON task. Each harness runs in a subprocess
of this interpreter, exactly as a lab would run it.

The harnesses come from the optional extra ``.[importers]`` that ``.ci/run`` installs.
Without them the tests skip — unless ``SEALBOARD_REQUIRE_IMPORTERS=1`` (set by ``.ci/run``),
where a missing harness fails the run instead of hiding the tests.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest


def require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("SEALBOARD_REQUIRE_IMPORTERS") == "1":
            pytest.fail(f"{module} is not installed: pip install -e '.[importers]'")
        pytest.skip(f"{module} not installed (pip install -e '.[importers]')")


OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}

INSPECT_SCRIPT = textwrap.dedent(
    '''
    """A lab's inspect task over the test items; mockllm answers from a fixed table."""
    import json, sys
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    spec = json.load(open(sys.argv[1]))
    answers = {s["input"]: s["reply"] for s in spec["samples"]}

    def outputs(input, tools, tool_choice, config):
        text = answers[input[-1].text]
        out = ModelOutput.from_content(model="mockllm", content=text)
        out.usage = ModelUsage(input_tokens=50, output_tokens=len(text) * 10, total_tokens=50 + len(text) * 10)
        return out

    task = Task(
        dataset=[Sample(id=s["id"], input=s["input"], target=s["target"], metadata=s["metadata"]) for s in spec["samples"]],
        solver=[generate()],
        scorer=match(numeric=True),
        epochs=spec["epochs"],
        name="soohak_mini_lab",
    )
    logs = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=outputs),
        log_dir=sys.argv[2],
        log_format=sys.argv[3],
        display="none",
        temperature=0.6,
        max_tokens=32768,
        reasoning_effort="high",
    )
    assert logs[0].status == "success", logs[0].error
    '''
)


def run_inspect(tmp: Path, samples: list[dict[str, Any]], epochs: int, log_format: str) -> Path:
    spec = tmp / "spec.json"
    spec.write_bytes(orjson.dumps({"samples": samples, "epochs": epochs}))
    script = tmp / "lab_task.py"
    script.write_text(INSPECT_SCRIPT)
    logs = tmp / f"logs-{log_format}"
    done = subprocess.run(
        [sys.executable, str(script), str(spec), str(logs), log_format],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **OFFLINE},
        cwd=tmp,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (log,) = logs.glob(f"*.{log_format}")
    return log


def run_lm_eval(tmp: Path, docs: list[dict[str, Any]], repeats: tuple[int, ...]) -> dict[int, Path]:
    """One local generate_until task per repeats value; returns repeats -> samples file."""
    data = tmp / "docs.jsonl"
    data.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in docs))
    tasks = tmp / "tasks"
    tasks.mkdir()
    names = []
    for r in repeats:
        name = f"sealboard_local_r{r}"
        names.append(name)
        (tasks / f"{name}.yaml").write_text(
            textwrap.dedent(
                f"""\
                task: {name}
                dataset_path: json
                dataset_kwargs:
                  data_files:
                    test: {data}
                test_split: test
                output_type: generate_until
                doc_to_text: "Problem: {{{{question}}}}\\nAnswer:"
                doc_to_target: "{{{{target}}}}"
                repeats: {r}
                generation_kwargs:
                  until: ["\\n"]
                  do_sample: false
                  max_gen_toks: 256
                metric_list:
                  - metric: exact_match
                    aggregation: mean
                    higher_is_better: true
                """
            )
        )
    out = tmp / "lm-eval-out"
    cmd = [
        sys.executable,
        "-m",
        "lm_eval",
        "--model",
        "dummy",
        "--tasks",
        ",".join(names),
        "--include_path",
        str(tasks),
        "--output_path",
        str(out),
        "--log_samples",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env={**os.environ, **OFFLINE}, cwd=tmp)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {r: next(out.rglob(f"samples_{name}_*.jsonl")) for r, name in zip(repeats, names)}


def convert_chunked(log: Path, out_dir: Path) -> Path:
    """The same .eval log in inspect_ai's chunked sample layout, written by inspect's own
    converter (``inspect log convert-chunked``, a hidden command of inspect_ai 0.3.285)."""
    require("inspect_ai.log._recorders.chunked")
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "log", "convert-chunked", str(log), "--output-dir", str(out_dir)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **OFFLINE},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out_dir / log.name
