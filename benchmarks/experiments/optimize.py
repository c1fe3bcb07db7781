"""Seed vs GEPA-optimized prompts on held-out synthetic streams, with the embedded models.

Task LM (actor and writer) and reflection LM are local llama.cpp models; the run is a
resumable `optimize` run under --out-run. Writes benchmarks/results/optimize.json: seed and
optimized held-out score, memory gain, tokens and seconds per task, metric calls used, wall
time, and both sets of instructions.

    python -m benchmarks.experiments.optimize                                  # the README's numbers
    python -m benchmarks.experiments.optimize --objective continual --max-metric-calls 14  # the continual objective
    python -m benchmarks.experiments.optimize --writer select --max-metric-calls 150 --minibatch 5 --test-streams 6 --seed 5000 \
        --out-run runs/bench-optimize-select-warm --out benchmarks/results/optimize_select_warm.json
    python -m benchmarks.experiments.optimize --suite jsonl --data FILE ...     # streams from a file (train, val, test in order)
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path
from statistics import correlation, mean

from promptmem.lm.specs import LMConfig
from promptmem.metrics import headline_records, held_split
from promptmem.optimize.gepa import OptimizeConfig, optimize
from promptmem.runner import StreamResult


def recall_vs_score(run_dirs: list[Path]) -> dict:
    """How well notes recall predicts the actor's score, over the questions of finished eval
    runs: the score when the notes held the answer and when they did not, and the Pearson
    correlation of per-stream recall and score (is the cheap objective a fair proxy?)."""
    results = [
        StreamResult.from_json(json.loads(path.read_text()))
        for run in run_dirs
        for path in sorted((run / "streams" / "agent").glob("*.json"))
    ]
    split = held_split([record for result in results for record in result.records])
    streams = []
    for result in results:
        scored = [(r.notes_recall, r.score) for r in headline_records(result.records) if r.notes_recall is not None]
        if scored:
            streams.append((mean(p[0] for p in scored), mean(p[1] for p in scored)))
    spread = len({x for x, _ in streams}) > 1 and len({y for _, y in streams}) > 1
    return {
        "questions": split.held + split.missed if split else 0,
        "questions_notes_held": split.held if split else 0,
        "score_when_notes_held": split.score_when_held if split else None,
        "score_when_notes_missed": split.score_when_missed if split else None,
        "streams": len(streams),
        "pearson_stream_recall_vs_score": round(correlation(*zip(*streams)), 3) if spread else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="synthetic", help="synthetic | jsonl (with --data)")
    parser.add_argument("--data", default=None, help="jsonl: the streams file (train, then val, then test streams)")
    parser.add_argument("--warm-start", default="seed", help="seed | none: where each window's notes start")
    parser.add_argument("--demos", type=int, default=0, help="also compare with K hindsight demos per role")
    parser.add_argument("--lm", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--reflection-lm", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--writer", default="facts")
    parser.add_argument("--max-metric-calls", default="40", help="GEPA metric calls")
    parser.add_argument("--objective", default="recall", help="recall (writer alone) | continual")
    parser.add_argument("--proposer", default="compact", help="compact | topics (no reflection LM) | gepa")
    parser.add_argument("--minibatch", type=int, default=3, help="GEPA reflection minibatch size")
    parser.add_argument("--train-streams", type=int, default=6)
    parser.add_argument("--val-streams", type=int, default=3)
    parser.add_argument("--test-streams", type=int, default=3)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--test-tasks", type=int, default=24)
    parser.add_argument("--seed", type=int, default=2000, help="held out: tests use seeds < 1000")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads per local model (default: all)")
    parser.add_argument("--max-tokens", type=int, default=LMConfig.max_tokens, help="task LM completion limit")
    parser.add_argument("--out-run", default="runs/bench-optimize-facts")
    parser.add_argument("--out", default="benchmarks/results/optimize.json")
    args = parser.parse_args()
    config = OptimizeConfig(
        suite=args.suite,
        data=args.data,
        warm_start=args.warm_start,
        demos=args.demos,
        writer=args.writer,
        max_metric_calls=args.max_metric_calls,
        train_streams=args.train_streams,
        val_streams=args.val_streams,
        test_streams=args.test_streams,
        window=args.window,
        test_tasks=args.test_tasks,
        seed=args.seed,
        minibatch=args.minibatch,
        objective=args.objective,
        proposer=args.proposer,
    )
    task = LMConfig(spec=args.lm, threads=args.threads, max_tokens=args.max_tokens)
    reflection = LMConfig(spec=args.reflection_lm, temperature=1.0, max_tokens=400, context=8192, threads=args.threads)
    start = time.perf_counter()
    summary = optimize(config, task, reflection, args.out_run)
    result = {
        "benchmark": "optimize",
        "config": asdict(config),
        "lm": asdict(task),
        "reflection_lm": None if args.proposer == "topics" else asdict(reflection),
        "wall_seconds_this_invocation": round(time.perf_counter() - start, 1),
        **summary,
        "recall_vs_score": recall_vs_score([Path(args.out_run) / "test" / label for label in summary["test"]]),
    }
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(
        json.dumps(
            {k: result[k] for k in ("metric_calls", "seed_val_score", "best_val_score", "test", "recall_vs_score")},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
