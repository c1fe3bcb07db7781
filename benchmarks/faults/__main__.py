"""Faults survived: SIGKILL at random moments of eval, LoCoMo, optimize and distill runs, a failing hosted
LM server (every fault kind of tests/helpers/fake_openai.py, 400 and 422 included), every adversarial input
of issue #28, the careless-user cases of issue #42 and the earlier malformed-file probes.
Writes benchmarks/results/faults.json.

Kills use the test harness (tests/helpers/kill_harness.py: scripted LMs, a subprocess per run); each
killed run is rerun to the end and compared with an uninterrupted one, and an eval kill counts
the tasks it lost (started, not kept). Server faults run `evaluate` against tests/helpers/fake_openai.py
with every fault kind, then rerun it against a healthy server. The input cases
(benchmarks/faults/cases.py, on the harness of benchmarks/faults/bench.py) run the command line in-process.

    python -m benchmarks.faults                     # 20 eval, 10 LoCoMo, 10 optimize, 10 distill kills
    python -m benchmarks.faults --eval-kills 3 --locomo-kills 2 --optimize-kills 1 --distill-kills 0
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from benchmarks.faults.cases import fault_cases
from promptmem.files import write_json
from tests.helpers.fake_openai import FAULTS, KEY, FakeOpenAI, reply
from tests.helpers.kill_harness import EVALS, kill_and_resume, prepare, results, run


def kills(target: str, count: int, seed: int, root: Path) -> dict:
    prepare(target, root)
    start = time.perf_counter()
    run(target, root / "reference")
    duration = time.perf_counter() - start
    reference = results(target, root / "reference")
    rng = random.Random(seed)
    outcomes = [kill_and_resume(target, root / f"killed-{i}", reference, rng, duration) for i in range(count)]
    row = {
        "runs": count,
        "killed": sum(o["killed"] for o in outcomes),
        "results_lost": sum(not o["kept_unchanged"] for o in outcomes),
        "finished_units_before_kills": sum(o["finished_before_kill"] for o in outcomes),
        "equal_to_uninterrupted": sum(not o["differences"] for o in outcomes),
        "uninterrupted_seconds": round(duration, 2),
    }
    if target == "distill":
        drifts = [d for o in outcomes for d in o["weight_drift"].values() if d is not None]
        row |= {
            "bit_equal": sum(all(d == 0.0 for d in o["weight_drift"].values()) for o in outcomes),
            "largest_weight_drift": max(drifts, default=None),
        }
    if target in EVALS:
        row |= {
            "tasks_started_before_kills": sum(o["tasks_started"] for o in outcomes),
            "tasks_lost": sum(o["tasks_lost"] for o in outcomes),
            "most_tasks_lost_by_one_kill": max(o["tasks_lost"] for o in outcomes),
        }
    return {**row, "outcomes": outcomes}


def server_fault(fault: str, out: Path) -> dict:
    """``fault`` on the first three requests (a call and its two retries), then a rerun against
    a healthy server: what the first run did, and whether the rerun finished every stream."""
    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.failures import LMUnavailable
    from promptmem.lm.specs import LMConfig

    config = EvalConfig(writer="ops", streams=1, tasks=6, threads=1, baseline=False)
    row = {"stopped": "", "failed_calls": 0}
    with FakeOpenAI([fault] * 3, reply, hang=2.0) as server:
        lm = LMConfig(spec="openai/fake-model", api_base=server.url, timeout=1.0)
        try:
            report = evaluate(config, lm, out, show_progress=False)
            row |= {"failed_calls": report.agent.failed_calls, "unfinished_streams": report.agent.unfinished}
        except LMUnavailable as err:
            row["stopped"] = str(err).partition("; ")[2].partition(". ")[0]
        row["requests"] = server.requests
        row["finished_streams"] = len(list(out.glob("streams/*/*.json")))
        server.faults.clear()  # healthy from here on
        rerun = evaluate(config, lm, out, show_progress=False)
    leaked = [p.name for p in out.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    return {**row, "finished_after_rerun": rerun.agent.unfinished == 0, "key_in_run_dir": bool(leaked)}


def server_faults(root: Path) -> dict:
    os.environ["OPENAI_API_KEY"] = KEY
    return {fault: server_fault(fault, root / f"server-{fault}") for fault in FAULTS[1:]}


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.faults", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--eval-kills", type=int, default=20)
    parser.add_argument("--locomo-kills", type=int, default=10)
    parser.add_argument("--optimize-kills", type=int, default=10)
    parser.add_argument("--distill-kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="benchmarks/results/faults.json")
    args = parser.parse_args()
    start = time.perf_counter()
    counts = {
        "eval": args.eval_kills,
        "locomo": args.locomo_kills,
        "optimize": args.optimize_kills,
        "distill": args.distill_kills,
    }
    with tempfile.TemporaryDirectory(prefix="promptmem-faults-") as tmp:
        root = Path(tmp)
        result = {
            "benchmark": "faults",
            "kills": {target: kills(target, n, args.seed, root / target) for target, n in counts.items() if n},
            "server_faults": server_faults(root),
            "inputs": fault_cases(root / "inputs"),
        }
    result["wall_seconds"] = round(time.perf_counter() - start, 1)
    write_json(args.out, result)
    summary = {
        k: {m: v[m] for m in ("runs", "killed", "results_lost", "equal_to_uninterrupted", "tasks_lost") if m in v}
        for k, v in result["kills"].items()
    }
    unhandled = [r["case"] for r in result["inputs"]["rows"] if not r["handled"]]
    print(json.dumps({"kills": summary, "server_faults": result["server_faults"], "unhandled": unhandled}, indent=2))


if __name__ == "__main__":
    main()
