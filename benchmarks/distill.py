"""A distilled student against its teacher pipeline, held out, on CPU: `promptmem distill` under
--out-run (resumable), the students written back into llama.cpp as GGUF (the teacher's
quantization) and compared with the teacher on held-out streams with paired statistics
(wins/losses, sign test, bootstrap 95% CI over streams).

--pipeline hindsight (the default): the seed agent with the select writer on the embedded 1.5B
teaches the embedded 0.5B. SFT on the select writer's hindsight keep-lists (--hindsight-share of
its prompts, the rest the teacher's keep-lists) and on right answers sampled from the teacher
and the untrained student over the notes a writer that knew the future holds; GRPO on the writer
with the dense hindsight reward (--waste-weight) at --temperature. Worlds: synthetic (generated;
training seed 3000, held-out seed 4000) and household (benchmarks/data/household_train.jsonl
for training, household_heldout.jsonl held out). Its defaults are sized to about an hour on 2
CPU cores, estimated from earlier runs' per-call and per-step times: teacher traces of 2
streams x 24 tasks ~6 min, answers sampled on hindsight notes ~5 min, 1 SFT epoch (~30 steps)
~15 min, 6 writer GRPO steps of 2 groups ~12 min, GGUF exports ~5 min, the held-out comparison
of the teacher and the final student on 6 streams x 24 tasks ~25 min (--compare
student+sft,student+grpo adds ~7 min). timings.json in the run says what each step took here.
Writes benchmarks/results/distill_hindsight_<world>.json.

--pipeline teacher: the earlier recipe (the GEPA-optimized program of benchmarks/optimize.py,
or the seed agent with the ops writer; SFT on the teacher's traces; GRPO on both roles with the
notes-recall writer reward). Writes benchmarks/results/distill.json (the README's tables).

Both write the comparison, the seconds per step of every stage, the share of flat GRPO groups
per step, the SFT rows by source, the issue's targets (score difference and its CI, notes
recall gain, seconds per task ratio, flat share) and the settings.

    python benchmarks/distill.py --world synthetic
    python benchmarks/distill.py --world household
    python benchmarks/distill.py --world synthetic --hindsight-share 0.5 --out-run runs/bench-hindsight-mixed \\
        --out benchmarks/results/distill_hindsight_synthetic_mixed.json
    python benchmarks/distill.py --world household --hindsight-streams 12 --out-run runs/bench-hindsight-household-h12 \\
        --out benchmarks/results/distill_hindsight_household_h12.json
    python benchmarks/distill.py --world household --hindsight-streams 8 --hindsight-target stated \\
        --out-run runs/bench-hindsight-household-stated --out benchmarks/results/distill_hindsight_household_stated.json
    python benchmarks/distill.py --world household --hindsight-streams 12 --hindsight-target stated \\
        --teacher-from runs/bench-hindsight-household-stated --out-run runs/bench-hindsight-household-stated12 \\
        --out benchmarks/results/distill_hindsight_household_stated12.json
    python benchmarks/distill.py --world synthetic --hindsight-streams 12 --hindsight-target stated \\
        --out-run runs/bench-hindsight-synthetic-stated12 --out benchmarks/results/distill_hindsight_synthetic_stated12.json
    python benchmarks/distill.py --pipeline teacher --student qwen-0.5b --grpo-steps 40
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
from promptmem.signals.hindsight import TARGETS

DATA = Path(__file__).parent / "data"
WORLDS = {
    "synthetic": {"suite": "synthetic", "seed": 3000, "test_seed": 4000},
    "household": {
        "suite": "jsonl",
        "data": str(DATA / "household_train.jsonl"),
        "test_data": str(DATA / "household_heldout.jsonl"),
        "seed": 0,
        "test_seed": 0,
        "tasks": None,  # the file's streams, 24 tasks each
    },
}


def targets(summary: dict) -> dict:
    """The issue's targets, read from the run: the final student against the teacher."""
    rows = summary["comparison"]
    final = rows[list(rows)[-1]]
    teacher = rows["teacher"]
    paired = final["paired"]["teacher"]
    flat = [p["flat_share"] for p in summary["grpo_rewards"] if p.get("flat_share") is not None]
    recall = (final.get("notes_recall"), teacher.get("notes_recall"))
    return {
        "student": list(rows)[-1],
        "score_diff": paired["diff"],
        "score_diff_ci": [paired["ci_low"], paired["ci_high"]],
        "score_target_met": paired["ci_low"] >= 0 and paired["diff"] >= 0,
        "notes_recall_gain": round(recall[0] - recall[1], 4) if None not in recall else None,
        "seconds_per_task_ratio": round(final["seconds_per_task"] / teacher["seconds_per_task"], 3)
        if teacher["seconds_per_task"]
        else None,
        "max_flat_share": max(flat, default=None),
    }


OPTIMIZED = Path("runs/bench-optimize-facts/program.json")
PIPELINES = {  # each option's default per pipeline (None: the option's own)
    "hindsight": {
        "teacher": "seed",
        "writer": "select",
        "train_streams": 2,
        "tasks": 24,
        "test_streams": 6,
        "hindsight_share": 1.0,
        "actor_samplers": "teacher,student",
        "actor_samples": 2,
        "min_actor_score": 1.0,
        "sft_epochs": 1.0,
        "schedule": "writer",
        "writer_reward": "hindsight",
        "grpo_steps": 6,
        "prompts_per_step": 2,
        "temperature": 1.2,
        "max_resamples": 1,
        "max_completion_tokens": 48,
        "compare": "student+grpo",
    },
    "teacher": {
        "teacher": str(OPTIMIZED) if OPTIMIZED.is_file() else "seed",
        "writer": "ops",
        "train_streams": 8,
        "tasks": 10,
        "test_streams": 3,
        "hindsight_share": 0.0,
        "actor_samplers": "",
        "actor_samples": 1,
        "min_actor_score": 0.5,
        "sft_epochs": 3.0,
        "schedule": "actor+writer",
        "writer_reward": "recall",
        "grpo_steps": 12,
        "prompts_per_step": 4,
        "temperature": 1.0,
        "max_resamples": 2,
        "max_completion_tokens": 160,
        "compare": "student,student+sft,student+grpo",
    },
}


def arguments() -> argparse.Namespace:
    """The options, each defaulting to its --pipeline's value (``PIPELINES``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", choices=sorted(PIPELINES), default="hindsight")
    parser.add_argument("--world", choices=sorted(WORLDS), default="synthetic")
    parser.add_argument("--teacher", help="seed | a program.json")
    parser.add_argument("--writer", help="the seed teacher's writer")
    parser.add_argument("--lm", default="local:qwen2.5-coder-1.5b", help="the teacher's LM")
    parser.add_argument("--student", default="qwen-0.5b")
    parser.add_argument("--train-streams", type=int, help="training streams the teacher is traced on")
    parser.add_argument(
        "--hindsight-streams", type=int, help="training streams the writer's hindsight rows come from (no model calls)"
    )
    parser.add_argument("--tasks", type=int, help="synthetic: tasks per stream")
    parser.add_argument("--test-streams", type=int)
    parser.add_argument("--samples", type=int, default=1, help="rejection sampling: teacher samples per traced call")
    parser.add_argument("--hindsight-share", type=float, help="writer SFT targets: 1 hindsight, 0 the teacher's")
    parser.add_argument(
        "--hindsight-target",
        choices=TARGETS,
        default="needed",
        help="hindsight keep-lists: what later questions needed | every statement of a tracked fact too",
    )
    parser.add_argument("--actor-samplers", help='actor rows on hindsight notes sampled from; "" for none')
    parser.add_argument("--actor-samples", type=int, help="answers tried per question and model")
    parser.add_argument("--min-actor-score", type=float, help="an actor row's least score (1: right answers)")
    parser.add_argument("--sft-epochs", type=float)
    parser.add_argument("--schedule", help="GRPO phases, e.g. writer or writer,actor+writer")
    parser.add_argument("--writer-reward", help="hindsight (select writer) | recall | credit")
    parser.add_argument("--waste-weight", type=float, default=0.5, help="dense writer reward: weight of the waste")
    parser.add_argument("--grpo-streams", type=int, default=0, help="hindsight streams held back from SFT for GRPO")
    parser.add_argument("--grpo-steps", type=int)
    parser.add_argument("--grpo-lr", type=float, default=2e-5, help="LoRA learning rate for GRPO")
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--prompts-per-step", type=int, help="GRPO groups per optimizer step")
    parser.add_argument("--temperature", type=float, help="GRPO sampling temperature")
    parser.add_argument("--max-resamples", type=int, help="GRPO dynamic sampling: regenerations of flat groups")
    parser.add_argument("--max-completion-tokens", type=int, help="GRPO completion limit")
    parser.add_argument("--compare", help="students compared with the teacher")
    parser.add_argument("--serve", default="gguf", help="students in the comparison: gguf (the teacher's engine) | hf")
    parser.add_argument(
        "--serve-quantization", default="q8_0", help="GGUF students: q8_0 | f16 | teacher (the teacher's Q4_K_M)"
    )
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for the local models")
    parser.add_argument(
        "--teacher-from",
        help="a finished run whose teacher traces and held-out row (and SFT, where its settings match) this one adopts",
    )
    parser.add_argument("--out-run", help="default runs/bench-hindsight-<world> | runs/bench-distill")
    parser.add_argument("--out", help="default benchmarks/results/distill_hindsight_<world>.json | distill.json")
    args = parser.parse_args()
    for key, value in PIPELINES[args.pipeline].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return args


def main() -> None:
    args = arguments()
    hindsight = args.pipeline == "hindsight"
    world = {"tasks": args.tasks, **WORLDS[args.world]}
    config = DistillConfig(
        student=args.student,
        teacher=args.teacher,
        writer=args.writer,
        train_streams=args.train_streams,
        hindsight_streams=args.hindsight_streams,
        grpo_streams=args.grpo_streams,
        test_streams=args.test_streams,
        horizon=2,
        discovery_weight=0.0,  # no writer call per sampled answer (CPU budget)
        samples=args.samples,
        hindsight_share=args.hindsight_share,
        hindsight_target=args.hindsight_target,
        actor_samplers=tuple(m for m in args.actor_samplers.split(",") if m),
        actor_samples=args.actor_samples,
        min_actor_score=args.min_actor_score,
        schedule=tuple(tuple(phase.split("+")) for phase in args.schedule.split(",")),
        writer_reward=args.writer_reward,
        waste_weight=args.waste_weight,
        compare=tuple(args.compare.split(",")),
        serve=args.serve,
        serve_quantization=args.serve_quantization,
        train=TrainConfig(
            sft_epochs=args.sft_epochs,
            batch_size=2,
            grpo_steps=args.grpo_steps,
            grpo_lr=args.grpo_lr,
            generations=args.generations,
            prompts_per_step=args.prompts_per_step,
            max_resamples=args.max_resamples,
            temperature=args.temperature,
            max_completion_tokens=args.max_completion_tokens,
            gradient_checkpointing=False,
        ),
        **world,
    )
    teacher = LMConfig(spec=args.lm, max_tokens=160, threads=args.threads)
    out_run = args.out_run or (f"runs/bench-hindsight-{args.world}" if hindsight else "runs/bench-distill")
    start = time.perf_counter()
    summary = distill(config, teacher, out_run, teacher_from=args.teacher_from)
    teacher_score = summary["comparison"]["teacher"]["score"]
    result = {
        "benchmark": f"distill_{args.pipeline}",
        "world": args.world,
        "config": asdict(config),
        "teacher_lm": asdict(teacher),
        "teacher_from": args.teacher_from,
        "wall_seconds_this_invocation": round(time.perf_counter() - start, 1),
        "score_vs_teacher": {
            label: round(row["score"] / teacher_score, 3) if teacher_score else None
            for label, row in summary["comparison"].items()
            if label != "teacher"
        },
        "targets": targets(summary),
        "sampling": json.loads((Path(out_run) / "traces" / "sampling.json").read_text()),
        **summary,
    }
    default_out = f"distill_hindsight_{args.world}.json" if hindsight else "distill.json"
    out = Path(args.out or Path("benchmarks/results") / default_out)
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps({"comparison": summary["comparison"], "targets": result["targets"]}, indent=1))


if __name__ == "__main__":
    main()
