"""Baselines and writers on held-out synthetic streams with the embedded models.

Each condition (``agent[:writer[:buffer share[:actor]]]``) runs on the same streams, per model, as a
resumable `evaluate` run under --runs; the table goes to --out (JSON) and stdout (Markdown,
for the README).

    python -m benchmarks.experiments.baseline                      # baselines and seed writers (baseline.json)
    python -m benchmarks.experiments.baseline --conditions no-memory,append-raw,seed:ops,seed:facts,seed:facts:0.5 \
        --runs runs/bench-writers --out benchmarks/results/writers.json   # the writers table
    python -m benchmarks.experiments.baseline --models local:qwen2.5-coder-0.5b --streams 1 --tasks 6
    python -m benchmarks.experiments.baseline --data benchmarks/data/household_heldout.jsonl --streams 6 --seed 0 \
        --conditions no-memory,append-raw,seed:select --runs runs/bench-household --out benchmarks/results/household.json

Every row after a model's first carries, under ``paired``, its paired statistics against each
earlier row of that model on the same questions (wins, losses, sign test, bootstrap 95% CI over
streams: ``promptmem.stats``).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import asdict
from importlib.metadata import version
from pathlib import Path

from promptmem.comparison import agent_results, paired_rows
from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, make_lm

CONDITIONS = "no-memory,append-raw,seed:notes,seed:ops"


def parse_condition(text: str) -> tuple[str, str, float, str]:
    """``agent[:writer[:buffer share[:actor]]]`` -> (agent, writer, share, actor); defaults:
    the ops writer, no buffer, the plain actor."""
    parts = text.split(":")
    agent, writer, share, actor = parts + ["ops", "0", "plain"][len(parts) - 1 :]
    return agent, writer, float(share), actor


def label(agent: str, writer: str, share: float, actor: str) -> str:
    name = (
        agent
        if agent != "seed"
        else (f"hybrid ({writer} writer, {share:.0%} buffer)" if share else f"seed ({writer} writer)")
    )
    return name + (f" + {actor} actor" if actor != "plain" else "")


def run_model(spec: str, args) -> list[dict]:
    lm_config = LMConfig(spec=spec, threads=args.threads)
    lm = make_lm(lm_config)
    rows, reference = [], None
    for condition in args.conditions.split(","):
        agent, writer, share, actor = parse_condition(condition)
        suite = {"suite": "jsonl", "data": args.data} if args.data else {"tasks": args.tasks}
        config = EvalConfig(
            **suite,
            agent=agent,
            writer=writer,
            buffer_share=share,
            actor=actor,
            streams=args.streams,
            seed=args.seed,
            threads=1,
            baseline=False,
        )
        out = Path(args.runs) / spec.replace(":", "-") / condition.replace(":", "-")
        start = time.perf_counter()
        summary = evaluate(config, lm_config, out, lm=lm).agent
        reference = summary.score if agent == "no-memory" else reference
        cost = summary.cost
        rows.append(
            {
                "model": spec,
                "agent": label(agent, writer, share, actor),
                "score": summary.score,
                "notes_recall": summary.notes_recall,
                "memory_gain": round(summary.score - reference, 4),
                "per_stream": summary.per_stream,
                "breakdown": summary.breakdown,
                "tokens_per_task": round(cost.prompt_tokens_per_task + cost.completion_tokens_per_task, 1),
                "prompt_tokens_per_task": cost.prompt_tokens_per_task,
                "completion_tokens_per_task": cost.completion_tokens_per_task,
                "calls_per_task": cost.calls_per_task,
                "seconds_per_task": cost.seconds_per_task,
                "write_failures": summary.write_failures,
                "rejected_ops": summary.rejected_ops,
                "final_notes_chars": summary.final_notes_chars,
                "questions": summary.questions,
                "wall_seconds_this_invocation": round(time.perf_counter() - start, 1),
                "run_dir": str(out),
                "budget_chars": json.loads((out / "config.json").read_text()).get("budget"),
            }
        )
    paired = paired_rows({row["agent"]: agent_results(Path(row["run_dir"])) for row in rows})
    for row in rows:
        row["paired"] = {a: stats.to_json() for a, stats in paired.get(row["agent"], {}).items()}
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [
        "| model | agent | score | memory gain | notes recall | tokens/task | s/task | failed writes | final notes (chars) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        recall = "–" if r.get("notes_recall") is None else f"{r['notes_recall']:.3f}"
        lines.append(
            f"| {r['model']} | {r['agent']} | {r['score']:.3f} | {r['memory_gain']:+.3f} | {recall} | "
            f"{r['tokens_per_task']:.0f} | {r['seconds_per_task']:.1f} | "
            f"{r['write_failures']} | {r['final_notes_chars']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="local:qwen2.5-coder-0.5b,local:qwen2.5-coder-1.5b")
    parser.add_argument(
        "--conditions", default=CONDITIONS, help="agent[:writer[:buffer share[:actor]]], comma-separated"
    )
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument(
        "--seed", type=int, default=1000, help="held out: tests use seeds < 1000 (--data: first stream)"
    )
    parser.add_argument(
        "--data", default=None, help="a JSONL streams file (the jsonl suite) instead of synthetic streams"
    )
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the local models (default: all)")
    parser.add_argument("--runs", default="runs/bench-baseline")
    parser.add_argument("--out", default="benchmarks/results/baseline.json")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = [row for spec in args.models.split(",") for row in run_model(spec, args)]
    result = {
        "benchmark": "baseline",
        "suite": "jsonl" if args.data else "synthetic",
        "data": args.data,
        "conditions": args.conditions,
        "streams": args.streams,
        "tasks_per_stream": None if args.data else args.tasks,  # --data: the file's streams decide
        "seed": args.seed,
        "budget_chars": rows[0]["budget_chars"] if rows else None,
        "lm": asdict(LMConfig()) | {"spec": args.models, "threads": args.threads},
        "machine": {
            "python": platform.python_version(),
            "cpu": platform.machine(),
            "dspy": version("dspy"),
            "llama_cpp_python": version("llama_cpp_python"),
        },
        "wall_seconds": round(time.perf_counter() - start, 1),
        "rows": rows,
    }
    write_json(args.out, result)
    print(markdown(rows))


if __name__ == "__main__":
    main()
