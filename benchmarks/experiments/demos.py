"""Demonstrations as a lever, without GEPA: the seed select writer with and without K hindsight
demos per role (labelled on training streams, ``promptmem.optimize.demos``), side by side on
held-out streams, with paired statistics (``comparison.json``'s ``paired``).

    python -m benchmarks.experiments.demos --lm local:qwen2.5-coder-0.5b                 # synthetic
    python -m benchmarks.experiments.demos --roles writer --streams 6 --runs runs/bench-demos-writer \\
        --out benchmarks/results/demos_writer.json                          # writer demos alone
    python -m benchmarks.experiments.demos --data benchmarks/data/household_train.jsonl \\
        --held-out benchmarks/data/household_heldout.jsonl --out benchmarks/results/demos_household.json
    python -m benchmarks.experiments.demos --lm local:qwen2.5-coder-1.5b --max-tokens 160 --threads 1 --target stated \\
        --data benchmarks/data/household_train.jsonl --held-out benchmarks/data/household_heldout.jsonl \\
        --runs runs/bench-demos-household-stated --out benchmarks/results/demos_household_stated.json
--target picks the keep-lists the demos show (``signals.hindsight.TARGETS``): what later questions
needed, or every statement of a fact the world tracks too.
Writes benchmarks/results/demos.json (runs kept under --runs: a rerun resumes).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from promptmem.comparison import Entry, compare
from promptmem.evaluate import EvalConfig
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, make_lm
from promptmem.optimize.demos import hindsight_demos, with_demos
from promptmem.programs import build_agent, save_agent
from promptmem.signals.hindsight import TARGETS
from promptmem.suites import make_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the local model")
    parser.add_argument("--max-tokens", type=int, default=256, help="completion limit per LM call")
    parser.add_argument("--target", choices=TARGETS, default="needed", help="the demos' keep-lists")
    parser.add_argument("--demos", type=int, default=4, help="demos per role")
    parser.add_argument("--roles", default="writer,actor", help="the roles that get demos: writer, actor or both")
    parser.add_argument("--data", default=None, help="JSONL training streams (default: synthetic)")
    parser.add_argument("--held-out", default=None, help="JSONL held-out streams (with --data)")
    parser.add_argument("--train-streams", type=int, default=6, help="training streams the demos come from")
    parser.add_argument("--streams", type=int, default=6, help="held-out streams")
    parser.add_argument("--tasks", type=int, default=24, help="synthetic: tasks per stream")
    parser.add_argument("--seed", type=int, default=6000, help="synthetic: train seed; held out: seed + 1")
    parser.add_argument("--runs", default="runs/bench-demos")
    parser.add_argument("--out", default="benchmarks/results/demos.json")
    args = parser.parse_args()
    if args.data:
        train_suite = make_suite("jsonl", path=args.data)
        held_out = {"suite": "jsonl", "data": str(Path(args.held_out).resolve()), "seed": 0, "tasks": None}
        train = train_suite.streams(args.train_streams)
    else:
        train_suite = make_suite("synthetic", tasks=args.tasks)
        train = train_suite.streams(args.train_streams, seed=args.seed)
        held_out = {"tasks": args.tasks, "seed": args.seed + 1}
    roles = set(args.roles.split(","))
    if roles - {"writer", "actor"}:
        parser.error(f"--roles: writer, actor or writer,actor (got {args.roles!r})")
    demos = hindsight_demos(train, train_suite, train_suite.notes_budget, args.demos, args.target)
    demos = {role: examples if role in roles else [] for role, examples in demos.items()}
    runs = Path(args.runs)
    program = runs / f"seed_demos_{args.target}.json"
    runs.mkdir(parents=True, exist_ok=True)
    save_agent(with_demos(build_agent("seed", writer="select"), demos), program)
    lm_config = LMConfig(spec=args.lm, max_tokens=args.max_tokens, threads=args.threads)
    lm = make_lm(lm_config)
    entries = [
        Entry(
            label, EvalConfig(agent=agent, writer="select", streams=args.streams, threads=1, **held_out), lm_config, lm
        )
        for label, agent in (("seed", "seed"), (f"seed + {args.target} demos", str(program)))
    ]
    start = time.perf_counter()
    rows = compare(entries, runs, first="select writer")
    result = {
        "benchmark": "demos",
        "lm": args.lm,
        "train": [s.id for s in train],
        "held_out": held_out | {"streams": args.streams},
        "roles": sorted(roles),
        "target": args.target,
        "demos": {role: [example.toDict() for example in examples] for role, examples in demos.items()},
        "wall_seconds_this_invocation": round(time.perf_counter() - start, 1),
        "rows": rows,
    }
    write_json(args.out, result, indent=1)
    print(
        json.dumps(
            {k: {m: v[m] for m in ("score", "notes_recall", "paired") if m in v} for k, v in rows.items()}, indent=1
        )
    )


if __name__ == "__main__":
    main()
