"""What a learning signal costs on the local engine: seconds per GEPA metric call.

A metric call runs the agent over one window of synthetic tasks. Three paths, side by side
in one invocation on the same windows, per model (the seed agent with the ops writer):

- shared: one llama.cpp context for every call (the path before per-family contexts);
- per-role: one context per prompt family (actor, writer), each reusing its own prefix;
- per-role + recall: the writer alone, scored by notes recall (``--objective recall``).

Each condition starts with a fresh LM (cold caches) and the conditions alternate per window,
so machine noise spreads over all three. Greedy answers and writes of shared and per-role are
compared call by call. Results: benchmarks/results/engine.json.

``--oversubscription`` measures instead what another local model process on the same cores
costs: the per-role window of the first model alone, beside a rival process that generates
without pause with the same model (both with a thread per usable CPU), and with each pinned to
a core of its own (``--lm-threads 1``); it adds ``oversubscription`` to the results file.

    python -m benchmarks.system.engine                                 # defaults used for the README
    python -m benchmarks.system.engine --models local:qwen2.5-coder-0.5b --windows 1 --window 4
    python -m benchmarks.system.engine --oversubscription --models local:qwen2.5-coder-0.5b --window 6
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

from promptmem.lm.cores import shared_cores_warning, usable_cpus
from promptmem.lm.specs import LMConfig, adapter_for, make_lm
from promptmem.metrics import stream_recall, stream_score
from promptmem.programs.agent import build_agent
from promptmem.runner import run_stream
from promptmem.suites import make_suite

CONDITIONS = {"shared": (1, True), "per-role": (4, True), "per-role + recall": (4, False)}


def run_window(spec: str, contexts: int, act: bool, stream, suite, threads: int | None = None) -> dict:
    lm = make_lm(LMConfig(spec=spec, contexts=contexts, threads=threads))
    start = time.perf_counter()
    result = run_stream(
        build_agent("seed", "ops"), stream, suite, lm, budget=suite.notes_budget, adapter=adapter_for(spec), act=act
    )
    seconds = time.perf_counter() - start
    records = result.records
    prompt = sum(r.prompt_tokens for r in records)
    reused = sum(r.prompt_tokens_reused for r in records)
    return {
        "seconds": round(seconds, 2),
        "calls": sum(r.calls for r in records),
        "prompt_tokens": prompt,
        "prompt_tokens_reused": reused,
        "prompt_tokens_processed": prompt - reused,
        "completion_tokens": sum(r.completion_tokens for r in records),
        "score": stream_score(records) if act else None,
        "notes_recall": stream_recall(records),
        "outputs": [(r.answer, r.write_raw) for r in records],
    }


def summarize(runs: list[dict]) -> dict:
    keys = ("seconds", "calls", "prompt_tokens", "prompt_tokens_reused", "prompt_tokens_processed", "completion_tokens")
    total = {key: sum(run[key] for run in runs) for key in keys}
    return {
        **{f"{key}_per_call": round(total[key] / len(runs), 1) for key in keys},
        "reused_share": round(total["prompt_tokens_reused"] / max(total["prompt_tokens"], 1), 3),
        "per_window": [{k: v for k, v in run.items() if k != "outputs"} for run in runs],
    }


def run_model(spec: str, args) -> dict:
    suite = make_suite("synthetic", tasks=args.window)
    streams = suite.streams(args.windows, seed=args.seed)
    runs = {name: [] for name in CONDITIONS}
    for i, stream in enumerate(streams):
        names = list(CONDITIONS) if i % 2 == 0 else list(reversed(CONDITIONS))
        for name in names:
            runs[name].append(run_window(spec, *CONDITIONS[name], stream, suite))
            print(f"{spec} window {i} {name}: {runs[name][-1]['seconds']} s", flush=True)
    pairs = [(a, b) for x, y in zip(runs["shared"], runs["per-role"]) for a, b in zip(x["outputs"], y["outputs"])]
    result = {name: summarize(items) for name, items in runs.items()}
    shared = result["shared"]["seconds_per_call"]
    return {
        "conditions": result,
        "speedup_per_role": round(shared / result["per-role"]["seconds_per_call"], 2),
        "speedup_per_role_recall": round(shared / result["per-role + recall"]["seconds_per_call"], 2),
        "identical_steps_shared_vs_per_role": f"{sum(a == b for a, b in pairs)}/{len(pairs)}",
    }


RIVAL = """
from promptmem.lm.specs import LMConfig, make_lm
lm = make_lm(LMConfig(spec={spec!r}, threads={threads!r}, max_tokens=256))
lm("Say hi.")
print("ready", flush=True)
while True:
    lm("Write a long story about a lighthouse keeper and the ships she guides.")
"""


@contextmanager
def rival(spec: str, threads: int | None, cpus: set[int]):
    """For the block: another process generating without pause with ``spec`` on ``cpus``
    (started, its model loaded and its first call made before the block begins)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", RIVAL.format(spec=spec, threads=threads)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, cpus),
    )
    try:
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the rival process for {spec} did not start")
        yield proc
    finally:
        proc.kill()
        proc.wait()


def oversubscription(spec: str, args) -> dict:
    """The per-role window alone, beside a rival on the same cores, and each on its own core."""
    suite = make_suite("synthetic", tasks=args.window)
    stream = suite.streams(1, seed=args.seed)[0]
    cpus = sorted(usable_cpus())
    rows = {"alone": run_window(spec, 4, True, stream, suite)}
    with rival(spec, None, set(cpus)):
        warning = shared_cores_warning(len(cpus))
        rows["beside another, shared cores"] = run_window(spec, 4, True, stream, suite)
    if len(cpus) > 1:
        with rival(spec, 1, {cpus[0]}):
            os.sched_setaffinity(0, {cpus[1]})
            try:
                rows["beside another, a core each (--lm-threads 1)"] = run_window(spec, 4, True, stream, suite, 1)
            finally:
                os.sched_setaffinity(0, set(cpus))
    alone = rows["alone"]["outputs"]
    return {
        "cpus": len(cpus),
        "tasks": args.window,
        "warned": bool(warning),
        "rows": {
            name: {
                "seconds": row["seconds"],
                "slowdown": round(row["seconds"] / rows["alone"]["seconds"], 2),
                "identical_outputs": f"{sum(a == b for a, b in zip(row['outputs'], alone))}/{len(alone)}",
            }
            for name, row in rows.items()
        },
    }


def markdown(models: dict) -> str:
    lines = [
        "| model | path | s per metric call | speedup | prompt tokens processed / reused per call | reused share | LM calls |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec, data in models.items():
        for name, row in data["conditions"].items():
            speedup = data["conditions"]["shared"]["seconds_per_call"] / row["seconds_per_call"]
            lines.append(
                f"| {spec} | {name} | {row['seconds_per_call']:.1f} | {speedup:.2f}× | "
                f"{row['prompt_tokens_processed_per_call']:.0f} / {row['prompt_tokens_reused_per_call']:.0f} | "
                f"{row['reused_share']:.0%} | {row['calls_per_call']:.0f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["local:qwen2.5-coder-0.5b", "local:qwen2.5-coder-1.5b"])
    parser.add_argument("--windows", type=int, default=2, help="windows per model (one metric call each)")
    parser.add_argument("--window", type=int, default=8, help="tasks per window")
    parser.add_argument("--seed", type=int, default=6000, help="synthetic generator seed (held out from tests)")
    parser.add_argument("--out", default="benchmarks/results/engine.json")
    parser.add_argument(
        "--oversubscription", action="store_true", help="measure a rival local model instead (first --models only)"
    )
    args = parser.parse_args()
    if args.oversubscription:
        payload = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {"benchmark": "engine"}
        payload["oversubscription"] = {args.models[0]: oversubscription(args.models[0], args)}
        Path(args.out).write_text(json.dumps(payload, indent=2))
        print(json.dumps(payload["oversubscription"], indent=2))
        return
    models = {spec: run_model(spec, args) for spec in args.models}
    payload = {
        "benchmark": "engine",
        "settings": vars(args),
        "platform": platform.platform(),
        "promptmem": version("promptmem"),
        "llama_cpp_python": version("llama-cpp-python"),
        "models": models,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(payload, indent=2))
    print(markdown(models))


if __name__ == "__main__":
    main()
