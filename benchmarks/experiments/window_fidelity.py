"""Does a GEPA window measure what a full stream measures? Fidelity of the window metric.

Each program runs on the same held-out streams three ways: the full stream (what deployment
sees), cold windows (``--window`` tasks from empty notes: GEPA's examples until now) and warm
windows (the same windows, each starting from the notes the reference program, the seed select
writer, held at that position: ``promptmem.optimize.windows``). For each program the mean
question score (and notes recall) of each way; then how far each window metric is from the
stream's, and whether it ranks the programs as the streams do (Spearman). The no-memory actor
keeps no state, so its window scores are its stream scores by construction (not rerun).

    python -m benchmarks.experiments.window_fidelity --model local:qwen2.5-coder-0.5b --streams 3
Writes benchmarks/results/window_fidelity.json (each run kept under --runs, so a rerun resumes).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import dspy
from scipy.stats import spearmanr

from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, adapter_for, make_lm
from promptmem.metrics import stream_recall
from promptmem.optimize.gepa import StreamProgram
from promptmem.optimize.windows import cut_windows
from promptmem.programs import build_agent
from promptmem.runner import StreamResult, TaskRecord
from promptmem.suites import make_suite

PROGRAMS = {
    "no-memory": ("no-memory", "ops"),
    "append-raw": ("append-raw", "ops"),
    "seed (select writer)": ("seed", "select"),
    "seed (facts writer)": ("seed", "facts"),
    "seed (ops writer)": ("seed", "ops"),
}
REFERENCE = "seed (select writer)"


def _run(path: Path, agent, stream, suite, budget: int, start=(), position: int = 0) -> StreamResult:
    """One run, read back from ``path`` when a previous invocation finished it."""
    if path.exists():
        return StreamResult.from_json(json.loads(path.read_text()))
    result = StreamProgram(agent, suite, budget)(stream=stream, start=start, position=position).result
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, result.to_json(), indent=1)
    return result


def _questions(results: list[StreamResult]) -> list[TaskRecord]:
    return [r for result in results for r in result.records if r.score is not None]


def _summary(records: list[TaskRecord]) -> dict:
    return {
        "questions": len(records),
        "score": round(sum(r.score for r in records) / max(len(records), 1), 3),
        "notes_recall": None if (recall := stream_recall(records)) is None else round(recall, 3),
    }


def measure(args) -> dict:
    suite = make_suite("synthetic", tasks=args.tasks)
    streams = suite.streams(args.streams, seed=args.seed)
    budget = suite.notes_budget
    runs = Path(args.runs)
    rows, started = {}, time.perf_counter()
    with dspy.context(lm=make_lm(LMConfig(spec=args.model, threads=args.threads)), adapter=adapter_for(args.model)):
        reference = build_agent("seed", writer="select")
        ways = {
            "cold": cut_windows(streams, args.window, suite=suite, budget=budget),
            "warm": cut_windows(
                streams, args.window, suite=suite, budget=budget, reference=reference, cache=runs / "reference-notes"
            ),
        }
        for label, (name, writer) in PROGRAMS.items():
            if args.programs and label not in args.programs.split(","):
                continue
            agent, key = build_agent(name, writer=writer), label.split(" (")[-1].rstrip(")").replace(" ", "-")
            full = [_run(runs / key / "full" / f"{i}.json", agent, s, suite, budget) for i, s in enumerate(streams)]
            row = {"stream": _summary(_questions(full))}
            for way, windows in ways.items():
                if not agent.uses_memory:  # no state: a window scores what the stream scored
                    row[way] = dict(row["stream"])
                    continue
                done = [
                    _run(runs / key / way / f"{i}.json", agent, w.stream, suite, budget, w.notes, w.position)
                    for i, w in enumerate(windows)
                ]
                row[way] = _summary(_questions(done))
            rows[label] = row
            print(label, row, flush=True)
    return {"rows": rows, "fidelity": fidelity(rows), "seconds": round(time.perf_counter() - started, 1)}


def fidelity(rows: dict) -> dict:
    """Per window way: the largest gap to the stream score and Spearman's rank correlation."""
    out = {}
    stream = [row["stream"]["score"] for row in rows.values()]
    for way in ("cold", "warm"):
        scores = [row[way]["score"] for row in rows.values()]
        gaps = {label: round(row[way]["score"] - row["stream"]["score"], 3) for label, row in rows.items()}
        rho = spearmanr(stream, scores).statistic
        out[way] = {
            "gap_by_program": gaps,
            "max_abs_gap": max(abs(g) for g in gaps.values()),
            "spearman": None if rho != rho else round(float(rho), 3),
        }
    return out


def _earlier_rows(out: Path, settings: dict, measured: set[str]) -> dict:
    """The rows of ``out`` (an earlier run with the same settings) of the programs not in
    ``measured``: ``--programs`` adds rows to a results file rather than replacing it."""
    if not out.exists():
        return {}
    earlier = json.loads(out.read_text())
    differs = [k for k, v in settings.items() if earlier.get(k) != v]
    if differs:
        raise SystemExit(f"{out}: measured with other settings ({', '.join(differs)}); give another --out")
    return {label: row for label, row in earlier["rows"].items() if label not in measured}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the local model")
    parser.add_argument(
        "--programs",
        default="",
        help="only these labels, comma-separated (runs resume per file); the other programs' rows are kept from --out",
    )
    parser.add_argument("--streams", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--seed", type=int, default=4000, help="held-out streams (other benchmarks use 1000-3000)")
    parser.add_argument("--runs", default="runs/bench-window-fidelity")
    parser.add_argument("--out", default="benchmarks/results/window_fidelity.json")
    args = parser.parse_args()
    settings = {
        "benchmark": "window_fidelity",
        "model": args.model,
        "streams": args.streams,
        "tasks": args.tasks,
        "window": args.window,
        "seed": args.seed,
        "reference": REFERENCE,
    }
    kept = _earlier_rows(Path(args.out), settings, set(args.programs.split(","))) if args.programs else {}
    measured = measure(args)
    rows = {label: kept.get(label) or measured["rows"][label] for label in PROGRAMS if label in kept | measured["rows"]}
    result = {**settings, "rows": rows, "fidelity": fidelity(rows), "seconds": measured["seconds"]}
    if kept:
        result["rows_from_the_earlier_run"] = sorted(kept)
    write_json(args.out, result, indent=1)
    print(json.dumps(result["fidelity"], indent=1))


if __name__ == "__main__":
    main()
