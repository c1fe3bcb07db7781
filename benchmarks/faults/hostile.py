"""Hostile observations on the local model: how much of a clean stream's score and notes recall
each writer keeps when observations carry attacks on it (promptmem.suites.hostile: instructions
to DELETE every note, fake note ids with false values, op words inside facts, 50 kB snippets),
without and with the cheap guards (--max-deletes, --max-observation). Same streams, same
questions and ground truth in every condition. Writes benchmarks/results/hostile.json.

    python -m benchmarks.faults.hostile                                # the README's numbers
    python -m benchmarks.faults.hostile --lm local:qwen2.5-coder-0.5b --streams 1 --tasks 8
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, make_lm
from promptmem.runner import StreamResult

WRITERS = {"append-raw": ("append-raw", "ops"), "facts": ("seed", "facts"), "typed ops": ("seed", "ops")}


def attack_counts(run: Path) -> dict:
    """Attacked observations, observations cut by the guard, DELETEs the guard rejected."""
    records = [
        r
        for path in sorted((run / "streams" / "agent").glob("*.json"))
        for r in StreamResult.from_json(json.loads(path.read_text())).records
    ]
    return {
        "attacked": sum(bool(r.meta.get("hostile")) for r in records),
        "observations_cut": sum(bool(r.meta.get("observation_cut")) for r in records),
        "deletes_rejected": sum(op["kind"] == "DELETE" and not op["applied"] for r in records for op in r.ops),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the local model (default: all)")
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7000, help="held out: tests use seeds < 1000")
    parser.add_argument("--rate", type=float, default=0.3, help="share of observations attacked")
    parser.add_argument("--max-deletes", type=int, default=2)
    parser.add_argument("--max-observation", type=int, default=2000)
    parser.add_argument("--runs", default="runs/bench-hostile")
    parser.add_argument("--out", default="benchmarks/results/hostile.json")
    args = parser.parse_args()
    lm_config = LMConfig(spec=args.lm, threads=args.threads)
    lm = make_lm(lm_config)
    conditions = {
        "clean": {},
        "hostile": {"hostile": args.rate},
        "hostile + guards": {
            "hostile": args.rate,
            "max_deletes": args.max_deletes,
            "max_observation": args.max_observation,
        },
    }
    rows, start = [], time.perf_counter()
    for label, (agent, writer) in WRITERS.items():
        clean = None
        for condition, guards in conditions.items():
            run = Path(args.runs) / f"{label.replace(' ', '-')}" / condition.replace(" + ", "-")
            report = evaluate(
                EvalConfig(
                    agent=agent,
                    writer=writer,
                    streams=args.streams,
                    tasks=args.tasks,
                    seed=args.seed,
                    threads=1,
                    baseline=False,
                    **guards,
                ),
                lm_config,
                run,
                lm=lm,
                show_progress=False,
            ).agent
            clean = clean or report
            rows.append(
                {
                    "writer": label,
                    "condition": condition,
                    "score": round(report.score, 4),
                    "notes_recall": report.notes_recall,
                    "questions": report.questions,
                    "score_kept": round(report.score / clean.score, 3) if clean.score else None,
                    "final_notes_chars": report.final_notes_chars,
                    **attack_counts(run),
                }
            )
            print(json.dumps(rows[-1]))
    write_json(
        args.out,
        {
            "benchmark": "hostile",
            "lm": args.lm,
            "streams": args.streams,
            "tasks": args.tasks,
            "seed": args.seed,
            "rate": args.rate,
            "max_deletes": args.max_deletes,
            "max_observation": args.max_observation,
            "wall_seconds": round(time.perf_counter() - start, 1),
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
