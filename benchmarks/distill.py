"""Teacher pipeline vs a distilled student on held-out synthetic streams, on CPU.

Teacher: the GEPA-optimized program from `benchmarks/optimize.py` (or the seed agent) on the
embedded 1.5B model. Student: an embedded GGUF dequantized to a transformers checkpoint
(default SmolLM2-135M: the CPU budget allows it). Runs `promptmem distill` under --out-run
(resumable) and writes benchmarks/results/distill.json: the comparison (score, memory gain,
tokens and seconds per task for teacher, student, +SFT, +GRPO), the GRPO reward curve, the
student/teacher score ratios, and the settings.

    python benchmarks/distill.py                                   # the README's numbers
    python benchmarks/distill.py --student qwen-0.5b --grpo-steps 40
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path

from promptmem.distill.pipeline import DistillConfig, distill
from promptmem.distill.training import TrainConfig

from promptmem.lm.specs import LMConfig

OPTIMIZED = Path("runs/bench-optimize-facts/program.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--teacher", default=str(OPTIMIZED) if OPTIMIZED.is_file() else "seed")
    parser.add_argument("--lm", default="local:qwen2.5-coder-1.5b", help="teacher (and reward re-rollout) LM")
    parser.add_argument("--student", default="qwen-0.5b")
    parser.add_argument("--train-streams", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--test-streams", type=int, default=3)
    parser.add_argument("--sft-epochs", type=float, default=3.0)
    parser.add_argument("--grpo-steps", type=int, default=12)
    parser.add_argument("--grpo-lr", type=float, default=2e-5, help="LoRA learning rate for GRPO")
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--prompts-per-step", type=int, default=4, help="GRPO groups per optimizer step")
    parser.add_argument(
        "--max-resamples", type=int, default=2, help="GRPO dynamic sampling: regenerations of flat groups"
    )
    parser.add_argument("--samples", type=int, default=1, help="rejection sampling: teacher samples per call")
    parser.add_argument("--serve", default="gguf", help="students in the comparison: gguf (the teacher's engine) | hf")
    parser.add_argument(
        "--discovery-weight", type=float, default=0.0, help="0 skips the writer call per sampled answer (CPU budget)"
    )
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for the local teacher")
    parser.add_argument("--out-run", default="runs/bench-distill")
    parser.add_argument("--out", default="benchmarks/results/distill.json")
    args = parser.parse_args()
    config = DistillConfig(
        student=args.student,
        teacher=args.teacher,
        train_streams=args.train_streams,
        tasks=args.tasks,
        test_streams=args.test_streams,
        horizon=2,
        discovery_weight=args.discovery_weight,
        samples=args.samples,
        serve=args.serve,
        train=TrainConfig(
            sft_epochs=args.sft_epochs,
            batch_size=2,
            grpo_steps=args.grpo_steps,
            grpo_lr=args.grpo_lr,
            generations=args.generations,
            prompts_per_step=args.prompts_per_step,
            max_resamples=args.max_resamples,
            max_completion_tokens=160,
            gradient_checkpointing=False,
        ),
    )
    teacher = LMConfig(spec=args.lm, max_tokens=160, threads=args.threads)
    start = time.perf_counter()
    summary = distill(config, teacher, args.out_run)
    rows, teacher_score = summary["comparison"], summary["comparison"]["teacher"]["score"]
    ratios = {
        label: round(row["score"] / teacher_score, 3) if teacher_score else None
        for label, row in rows.items()
        if label != "teacher"
    }
    sampling = Path(args.out_run) / "traces" / "sampling.json"  # rejection sampling: rows, pass@1, pass@k
    result = {
        "benchmark": "distill",
        "config": asdict(config),
        "teacher_lm": asdict(teacher),
        "wall_seconds_this_invocation": round(time.perf_counter() - start, 1),
        "score_vs_teacher": ratios,
        "sampling": json.loads(sampling.read_text()),
        **summary,
    }
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps({"comparison": rows, "score_vs_teacher": ratios}, indent=1))


if __name__ == "__main__":
    main()
