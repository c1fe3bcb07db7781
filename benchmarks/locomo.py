"""LoCoMo on the embedded models: full-context, no-memory, append-raw + retrieval,
mem0-style and the seed agent, with the same LM, notes budget and retrieval settings.

Writes benchmarks/results/locomo.json: per condition F1 / BLEU-1 / EM overall (categories
1-4) and per category (5 reported apart), tokens and seconds per question, notes size.
Each condition is a resumable `evaluate` run under --runs.

    python benchmarks/locomo.py --data ../shared/data/locomo/locomo_dev2.json
    python benchmarks/locomo.py --data locomo10.json --model local:qwen2.5-coder-1.5b --questions-at-end
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.lm import LMConfig, make_lm

# (label, agent, writer, store options): one LM, one budget, one retrieval setting for all
CONDITIONS = [
    ("full-context", "full-context", "ops", {}),
    ("no-memory", "no-memory", "ops", {}),
    ("append-raw + retrieval", "append-raw", "ops", {"store": "sqlite", "retrieve": True}),
    ("mem0-style", "seed", "mem0", {"store": "sqlite", "retrieve": True}),
    ("seed (ops writer)", "seed", "ops", {"store": "sqlite", "retrieve": True}),
]


def run_condition(label, agent, writer, options, args, lm_config, lm) -> dict:
    config = EvalConfig(suite="locomo", data=args.data, agent=agent, writer=writer,
                        streams=args.conversations, budget=args.budget, threads=1,
                        baseline=False, questions_at_end=args.questions_at_end, questions=args.questions,
                        store=options.get("store", "memory"),
                        top_k=args.top_k if options.get("retrieve") else None)
    out = Path(args.runs) / label.split()[0]
    summary = evaluate(config, lm_config, out, lm=lm).agent
    records = [json.loads(p.read_text())["records"] for p in sorted((out / "streams" / "agent").glob("*.json"))]
    questions = [r for stream in records for r in stream if r["score"] is not None]
    all_records = [r for stream in records for r in stream]
    return {
        "condition": label, "f1": summary.metrics.get("f1", 0.0), "bleu1": summary.metrics.get("bleu1", 0.0),
        "em": summary.metrics.get("em", 0.0), "by_category": summary.breakdown["category_name"],
        "questions": len(questions),
        "tokens_per_question": round(sum(r["prompt_tokens"] + r["completion_tokens"] for r in all_records)
                                     / max(len(questions), 1), 1),
        "seconds_per_question": round(sum(r["seconds"] for r in all_records) / max(len(questions), 1), 2),
        "final_notes_chars": summary.final_notes_chars, "write_failures": summary.write_failures,
        "run_dir": str(out)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="official LoCoMo JSON")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--budget", type=int, default=2000, help="notes budget (chars) for every condition")
    parser.add_argument("--top-k", type=int, default=8, help="notes retrieved per question")
    parser.add_argument("--questions-at-end", action="store_true")
    parser.add_argument("--questions", type=int, default=None,
                        help="an evenly spaced sample of N questions per conversation (default: all)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for the local model (default: all)")
    parser.add_argument("--conditions", default=",".join(c[0].split()[0] for c in CONDITIONS),
                        help="comma-separated first words of the condition labels")
    parser.add_argument("--runs", default="runs/bench-locomo")
    parser.add_argument("--out", default="benchmarks/results/locomo.json",
                        help="results JSON; rows of conditions not run now are kept when the settings match")
    args = parser.parse_args()
    lm_config = LMConfig(spec=args.model, threads=args.threads)
    lm = make_lm(lm_config)
    wanted = set(args.conditions.split(","))
    start, rows = time.perf_counter(), []
    for label, agent, writer, options in CONDITIONS:
        if label.split()[0] in wanted:
            rows.append(run_condition(label, agent, writer, options, args, lm_config, lm))
            print(json.dumps({k: rows[-1][k] for k in ("condition", "f1", "bleu1", "em", "seconds_per_question")}))
    settings = {"benchmark": "locomo", "data": args.data, "lm": asdict(lm_config),
                "conversations": args.conversations, "budget_chars": args.budget, "top_k": args.top_k,
                "questions_at_end": args.questions_at_end, "questions_per_conversation": args.questions,
                "headline": "categories 1-4 (adversarial apart)"}
    out = Path(args.out)
    previous = json.loads(out.read_text()) if out.is_file() else {}
    wall = time.perf_counter() - start
    if previous and all(previous.get(k) == v for k, v in settings.items()):  # same table: add to it
        done = {row["condition"] for row in rows}
        order = [label for label, *_ in CONDITIONS]
        rows = sorted([r for r in previous["rows"] if r["condition"] not in done] + rows,
                      key=lambda r: order.index(r["condition"]))
        wall += previous["wall_seconds"]
    wall = round(wall, 1)
    out.write_text(json.dumps({**settings, "wall_seconds": wall, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
