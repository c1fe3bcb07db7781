"""LoCoMo on the embedded models: full-context, no-memory, append-raw + retrieval,
mem0-style, the seed agent, the facts and select writers, the filter actor and the real mem0 library,
with the same LM, notes budget and retrieval settings (mem0 keeps every memory: no budget);
and retrieval over every turn of the conversation kept as its own dated note (``lines-*``:
a budget that holds the whole conversation), plain actor at top 8 and 30, filter actor at 30.

Writes benchmarks/results/locomo.json: per condition F1 / BLEU-1 / EM overall (categories
1-4) and per category (5 reported apart), tokens and seconds per question, notes size, and
with --judge the LLM-judge score J (`promptmem judge`). Each condition is a resumable
`evaluate` run under --runs.

    python -m benchmarks.experiments.locomo --data ../shared/data/locomo/locomo_dev2.json
    python -m benchmarks.experiments.locomo --data ../shared/data/locomo/locomo_dev2.json --conditions append-raw,facts,filter --judge
    python -m benchmarks.experiments.locomo --data ../shared/data/locomo/locomo_dev2.json --conditions lines-8,lines-30,lines-filter
    python -m benchmarks.experiments.locomo --data locomo10.json --model local:qwen2.5-coder-1.5b --questions-at-end
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path
from statistics import mean

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import write_json
from promptmem.judgments import judge_run
from promptmem.lm.specs import LMConfig, make_lm

WHOLE_CONVERSATION = 100_000  # chars: a budget that holds every turn of a LoCoMo conversation (conv 1: 61,672)
LINES = {"store": "sqlite", "budget": WHOLE_CONVERSATION, "show_time": True}
# key: (label, agent, writer, options); one LM, one budget and retrieval setting unless options say otherwise
CONDITIONS = {
    "full-context": ("full-context", "full-context", "ops", {}),
    "no-memory": ("no-memory", "no-memory", "ops", {}),
    "append-raw": ("append-raw + retrieval", "append-raw", "ops", {"store": "sqlite", "retrieve": True}),
    "mem0-style": ("mem0-style", "seed", "mem0", {"store": "sqlite", "retrieve": True}),
    "seed": ("seed (ops writer)", "seed", "ops", {"store": "sqlite", "retrieve": True}),
    "facts": ("facts writer + retrieval", "seed", "facts", {"store": "sqlite", "retrieve": True}),
    "select": ("select writer + retrieval", "seed", "select", {"store": "sqlite", "retrieve": True}),
    "filter": (
        "filter actor over append-raw (top 30)",
        "append-raw",
        "ops",
        {"store": "sqlite", "top_k": 30, "actor": "filter"},
    ),
    "mem0": ("mem0 (mem0ai library)", "mem0", "ops", {"retrieve": True}),
    "lines-8": ("turns as dated notes, all kept, top 8", "append-lines", "ops", {**LINES, "top_k": 8}),
    "lines-30": ("turns as dated notes, all kept, top 30", "append-lines", "ops", {**LINES, "top_k": 30}),
    "lines-filter": (
        "filter actor over turns as dated notes (top 30)",
        "append-lines",
        "ops",
        {**LINES, "top_k": 30, "actor": "filter"},
    ),
}


def run_condition(key, args, lm_config, lm, judge_lm) -> dict:
    label, agent, writer, options = CONDITIONS[key]
    budget = options.get("budget", args.budget)
    config = EvalConfig(
        suite="locomo",
        data=args.data,
        agent=agent,
        writer=writer,
        actor=options.get("actor", "plain"),
        streams=args.conversations,
        budget=budget,
        threads=1,
        show_time=options.get("show_time", False),
        baseline=False,
        questions_at_end=args.questions_at_end,
        questions=args.questions,
        store=options.get("store", "memory"),
        top_k=options.get("top_k", args.top_k if options.get("retrieve") else None),
    )
    out = Path(args.runs) / key
    summary = evaluate(config, lm_config, out, lm=lm).agent
    streams = [json.loads(p.read_text()) for p in sorted((out / "streams" / "agent").glob("*.json"))]
    all_records = [r for stream in streams for r in stream["records"]]
    questions = [r for r in all_records if r["score"] is not None]
    judged = judge_run(out, judge_lm) if judge_lm else None
    return {
        "condition": label,
        "f1": summary.metrics.get("f1", 0.0),
        "bleu1": summary.metrics.get("bleu1", 0.0),
        "em": summary.metrics.get("em", 0.0),
        "by_category": summary.breakdown["category_name"],
        "questions": len(questions),
        "tokens_per_question": round(
            sum(r["prompt_tokens"] + r["completion_tokens"] for r in all_records) / max(len(questions), 1), 1
        ),
        "seconds_per_question": round(sum(r["seconds"] for r in all_records) / max(len(questions), 1), 2),
        "final_notes_chars": summary.final_notes_chars,
        "write_failures": summary.write_failures,
        "applied_ops": applied_ops(all_records),
        **({"budget_chars": budget} if budget != args.budget else {}),
        **({"show_time": True} if config.show_time else {}),
        **(
            {"j": judged["j"], "j_by_category": judged["breakdown"], "judge_vs_f1": judge_vs_f1(out, streams)}
            if judged
            else {}
        ),
        "run_dir": str(out),
    }


def applied_ops(records: list[dict]) -> dict:
    """The writer's applied ops by kind, and how many UPDATEs restated a note's text unchanged
    (replayed in order: an ADD's text under its result id, an UPDATE's under its note id)."""
    texts, kinds, restated = {}, Counter(), 0
    for op in (op for r in records for op in r.get("ops") or [] if op["applied"]):
        kinds[op["kind"]] += 1
        restated += op["kind"] == "UPDATE" and texts.get(op["note_id"]) == op["text"]
        texts[op["result_id"] or op["note_id"]] = op["text"]
    return {**kinds, "unchanged_updates": restated}


def judge_vs_f1(out: Path, streams: list[dict]) -> dict:
    """A check on the judge: how often it said CORRECT where token F1 finds the answer right
    (F1 ≥ 0.5) and where F1 finds no overlap at all (0)."""
    verdicts = json.loads((out / "judge_cache.json").read_text())
    pairs = [
        (r["score"], verdicts[key])
        for stream in streams
        for r in stream["records"]
        if (key := f"{stream['stream_id']}/{r['task_id']}") in verdicts
    ]

    def rate(judged: list[float]) -> dict:
        return {"n": len(judged), "judged_correct": round(mean(judged), 3) if judged else None}

    return {
        "f1_at_least_half": rate([j for f1, j in pairs if f1 >= 0.5]),
        "f1_zero": rate([j for f1, j in pairs if f1 == 0]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="official LoCoMo JSON")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--budget", type=int, default=2000, help="notes budget (chars) for every condition")
    parser.add_argument("--top-k", type=int, default=8, help="notes retrieved per question")
    parser.add_argument("--questions-at-end", action="store_true")
    parser.add_argument(
        "--questions",
        type=int,
        default=None,
        help="an evenly spaced sample of N questions per conversation (default: all)",
    )
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for the local model (default: all)")
    parser.add_argument(
        "--conditions",
        default=",".join(CONDITIONS),
        help=f"comma-separated condition keys (default: all): {', '.join(CONDITIONS)}",
    )
    parser.add_argument("--judge", action="store_true", help="add the LLM-judge score J, judged by --model")
    parser.add_argument("--runs", default="runs/bench-locomo")
    parser.add_argument(
        "--out",
        default="benchmarks/results/locomo.json",
        help="results JSON; rows of conditions not run now are kept when the settings match",
    )
    args = parser.parse_args()
    wanted = args.conditions.split(",")
    if unknown := [key for key in wanted if key not in CONDITIONS]:
        parser.error(f"unknown condition(s) {', '.join(unknown)}; known: {', '.join(CONDITIONS)}")
    lm_config = LMConfig(spec=args.model, threads=args.threads)
    lm = make_lm(lm_config)
    judge_lm = make_lm(replace(lm_config, max_tokens=32)) if args.judge else None
    settings = {
        "benchmark": "locomo",
        "data": args.data,
        "lm": asdict(lm_config),
        "conversations": args.conversations,
        "budget_chars": args.budget,
        "top_k": args.top_k,
        "questions_at_end": args.questions_at_end,
        "questions_per_conversation": args.questions,
        "headline": "categories 1-4 (adversarial apart)",
        **({"judge_lm": args.model} if args.judge else {}),
    }
    for key in (key for key in CONDITIONS if key in wanted):
        start = time.perf_counter()
        row = run_condition(key, args, lm_config, lm, judge_lm)
        save_row(Path(args.out), settings, row, time.perf_counter() - start)
        print(json.dumps({k: row.get(k) for k in ("condition", "f1", "bleu1", "em", "j", "seconds_per_question")}))


def save_row(out: Path, settings: dict, row: dict, seconds: float) -> None:
    """Write ``row`` into ``out`` as soon as its condition is done: added to the table there
    when that table has the same settings (replacing a row of the same condition), else a new one."""
    previous = json.loads(out.read_text()) if out.is_file() else {}
    same = previous and all(previous.get(k) == v for k, v in settings.items())
    order = [label for label, *_ in CONDITIONS.values()]
    rows = sorted(
        [r for r in (previous["rows"] if same else []) if r["condition"] != row["condition"]] + [row],
        key=lambda r: order.index(r["condition"]),
    )
    wall = round(seconds + (previous["wall_seconds"] if same else 0.0), 1)
    write_json(out, {**settings, "wall_seconds": wall, "rows": rows})


if __name__ == "__main__":
    main()
