"""The training path on a GPU, timed, then the hindsight pipeline end to end.

1. SFT and GRPO steps in bf16 (on a GPU) through promptmem's own ``sft`` and ``grpo`` (TRL;
   dynamic sampling on; transformers generation: no vLLM) on prompt/completion rows in the shape
   of the teacher's traces; reward: the gold answer in the completion, plus a small length term
   so a group has a spread. Needs torch, transformers, peft, accelerate, trl and datasets.
2. ``promptmem distill``'s hindsight pipeline (its defaults: the select writer, SFT on hindsight
   keep-lists and on right answers sampled on hindsight notes, GRPO on the writer with the dense
   reward), 1 training and 1 held-out stream, the student itself as the teacher (``hf:``, no
   hosted LM) and the students served by transformers. Needs promptmem's own dependencies (DSPy):
   without them the stage is recorded as skipped.

The student: ``scratch`` (a Qwen2-architecture model with random weights and a tokenizer trained
from synthetic-suite text, made by ``tests/helpers/scratch_student.py``: no download), or an alias or
path that ``promptmem distill --student`` takes (qwen-0.5b, qwen-4b when in the HF cache, …).
Writes OUT/gpu_check.json: device, dtype, student size, seconds per SFT and GRPO step, the
pipeline's seconds per step of each stage, flat GRPO groups and held-out rows, wall time.

    python -m benchmarks.system.gpu_check --out /tmp/gpu           # what benchmarks/system/gpu_check.sh runs on a GPU
    python -m benchmarks.system.gpu_check --student qwen-0.5b --sft-steps 1 --grpo-steps 1 --pipeline-tasks 6   # CPU smoke
    python -m benchmarks.system.gpu_check --hidden 64 --layers 2 --sft-steps 2 --grpo-steps 1 --pipeline-tasks 6   # tiny
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks import ROOT
from promptmem.distill.students import resolve_student
from promptmem.distill.training import TrainConfig, grpo, logged_steps, sft
from promptmem.files import write_json
from promptmem.suites import make_suite

SCRATCH_STUDENT = ROOT / "tests" / "helpers" / "scratch_student.py"


@dataclass(frozen=True)
class Row:
    """A trace row's two fields training reads."""

    prompt: list[dict]
    completion: str
    answer: str


def question_rows(count: int) -> list[Row]:
    """Actor-shaped rows from synthetic questions: observation and question in, JSON answer out."""
    rows = []
    for stream in make_suite("synthetic", tasks=24).streams(max(1, count // 12), seed=5000):
        for task in stream.tasks:
            if task.is_question and len(rows) < count:
                prompt = [
                    {"role": "system", "content": "Answer the question from the observation. Reply in JSON."},
                    {
                        "role": "user",
                        "content": f"[[ ## observation ## ]]\n{task.observation}\n\n"
                        f"[[ ## question ## ]]\n{task.question}",
                    },
                ]
                rows.append(Row(prompt, json.dumps({"answer": task.answer[0]}), task.answer[0]))
    return rows


def scratch_student(out: Path, args: argparse.Namespace) -> Path:
    """The tests' scratch student at ``out``, ``args.hidden`` wide and ``args.layers`` deep, made
    by running tests/helpers/scratch_student.py (a command: benchmarks import nothing from tests/)."""
    size = ["--hidden", args.hidden, "--layers", args.layers, "--heads", args.heads, "--vocab", 4000]
    subprocess.run([sys.executable, str(SCRATCH_STUDENT), str(out), *map(str, size)], check=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--student", default="scratch", help="scratch (made on the spot) | an alias or path")
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--rows", type=int, default=96)
    parser.add_argument("--sft-steps", type=int, default=20)
    parser.add_argument("--grpo-steps", type=int, default=4)
    parser.add_argument("--pipeline-tasks", type=int, default=8, help="tasks per pipeline stream (0: no pipeline)")
    parser.add_argument("--out", default="runs/gpu-check")
    args = parser.parse_args()
    import torch

    out, start = Path(args.out), time.perf_counter()
    student = scratch_student(out / "student", args) if args.student == "scratch" else resolve_student(args.student)
    rows = question_rows(args.rows)
    batch = 8
    config = TrainConfig(
        sft_epochs=args.sft_steps * batch / len(rows),
        batch_size=batch,
        grpo_steps=args.grpo_steps,
        generations=8,
        prompts_per_step=4,
        max_completion_tokens=48,
        lora=True,
        save_steps=1000,
        gradient_checkpointing=False,
    )
    timings = {}
    for stage, run in (
        ("sft", lambda: sft(student, rows, out / "sft", config)),
        ("grpo", lambda: grpo(out / "sft" / "model", rows, [reward(rows)], out / "grpo", config)),
    ):
        began = time.perf_counter()
        run()
        steps = logged_steps(out / stage)
        timings[stage] = {
            "steps": steps,
            "seconds": round(time.perf_counter() - began, 1),
            "seconds_per_step": round((time.perf_counter() - began) / max(steps, 1), 2),
        }
    gpu = torch.cuda.is_available()
    result = {
        "benchmark": "gpu_check",
        "device": torch.cuda.get_device_name(0) if gpu else "cpu",
        "dtype": "bfloat16" if gpu else "float32",
        "torch": torch.__version__,
        "student": {
            "name": args.student,
            "parameters": sum(p.numel() for p in _model(out / "grpo" / "model").parameters()),
            **({"hidden": args.hidden, "layers": args.layers} if args.student == "scratch" else {}),
        },
        "rows": len(rows),
        **timings,
        "pipeline": pipeline_check(student, out / "pipeline", args.pipeline_tasks, args.grpo_steps),
        "wall_seconds": round(time.perf_counter() - start, 1),
    }
    write_json(out / "gpu_check.json", result)
    print(json.dumps(result, indent=1))


def pipeline_check(student: Path, out: Path, tasks: int, grpo_steps: int) -> dict:
    """``promptmem distill``'s default (hindsight) pipeline on one training and one held-out
    stream of ``tasks`` tasks, the student its own teacher: timings, flat groups, held-out rows."""
    if not tasks:
        return {"skipped": "--pipeline-tasks 0"}
    try:
        from promptmem.distill.pipeline import DistillConfig, distill
        from promptmem.lm.specs import LMConfig
    except ImportError as err:
        return {"skipped": f"promptmem's dependencies are not installed ({err})"}
    config = DistillConfig(
        student=str(student),
        train_streams=1,
        tasks=tasks,
        test_streams=1,
        schedule=(("writer",),),
        actor_samples=2,
        compare=("student+grpo",),
        serve="hf",
        train=TrainConfig(
            sft_epochs=1,
            batch_size=4,
            grpo_steps=grpo_steps,
            generations=4,
            prompts_per_step=2,
            max_completion_tokens=48,
            save_steps=1000,
            gradient_checkpointing=False,
        ),
    )
    summary = distill(config, LMConfig(spec=f"hf:{student}", max_tokens=64), out, say=print)
    keep = ("score", "notes_recall", "seconds_per_task")
    return {
        "timings": summary["timings"],
        "flat_share": summary["flat_share"],
        "sft_sources": summary["sft_sources"],
        "held_out": {label: {k: row[k] for k in keep} for label, row in summary["comparison"].items()},
    }


def reward(rows: list[Row]):
    """TRL reward: 1 when the completion holds the row's answer, plus 0.01 per character up to 40."""

    def gold_answer(prompts, completions, row, **_) -> list[float]:
        texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
        return [float(rows[i].answer in text) + 0.01 * min(len(text), 40) for text, i in zip(texts, row)]

    return gold_answer


def _model(path: Path):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(path)


if __name__ == "__main__":
    main()
