"""Make evaluation logs with the REAL harnesses, offline, for the importer tests.

inspect_ai runs its ``mockllm`` provider with custom outputs (so no network and no
tokenizer download: usage is given); lm-evaluation-harness runs its own ``dummy`` model
(every generation is ``"lol"``) on a local JSON task. Each harness runs in a subprocess
of this interpreter, as a lab would run it (lm-evaluation-harness through the Python API its
CLI calls: :data:`LM_EVAL_SCRIPT`).

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


# lm-evaluation-harness's Python API, as its CLI (`lm_eval --model dummy --tasks … --include_path
# … --output_path … --log_samples`) runs it, with the CLI's defaults, and saves its files (the
# same samples files byte for byte, and results file but for its timings), with one difference:
# the TaskManager indexes only the lab's own tasks. The CLI always indexes the harness's thousands
# of built-in task files too, 6.4 of the 9.3 CPU-s of a run (tests/lifecycle, py-spy).
LM_EVAL_SCRIPT = textwrap.dedent(
    """
    import sys
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    names, include_path, output_path = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
    tracker = EvaluationTracker(output_path=output_path)
    results = simple_evaluate(
        model="dummy",
        model_args={},
        tasks=names,
        batch_size=1,
        device="cuda:0",
        gen_kwargs={},
        fewshot_as_multiturn=None,
        log_samples=True,
        evaluation_tracker=tracker,
        task_manager=TaskManager(include_path=include_path, include_defaults=False),
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for name in results["configs"]:
        tracker.save_results_samples(task_name=name, samples=samples[name])
    """
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
    script = tmp / "lab_lm_eval.py"
    script.write_text(LM_EVAL_SCRIPT)
    cmd = [sys.executable, str(script), ",".join(names), str(tasks), str(out)]
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
