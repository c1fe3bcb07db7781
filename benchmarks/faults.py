"""Faults survived: SIGKILL at random moments of eval and optimize runs, and a failing hosted
LM server. Writes benchmarks/results/faults.json.

Kills use the test harness (tests/kill_harness.py: scripted LMs, a subprocess per run); each
killed run is rerun to the end and compared with an uninterrupted one. Server faults run
`evaluate` against tests/fake_openai.py with every fault kind.

    python benchmarks/faults.py                     # 20 eval kills, 10 optimize kills
    python benchmarks/faults.py --eval-kills 3 --optimize-kills 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from fake_openai import FAULTS, FakeOpenAI  # noqa: E402
from kill_harness import kill_and_resume, results, run  # noqa: E402

from promptmem.files import write_json  # noqa: E402


def kills(target: str, count: int, seed: int, root: Path) -> dict:
    start = time.perf_counter()
    run(target, root / "reference")
    duration = time.perf_counter() - start
    reference = results(target, root / "reference")
    rng = random.Random(seed)
    outcomes = [kill_and_resume(target, root / f"killed-{i}", reference, rng, duration) for i in range(count)]
    return {
        "runs": count,
        "killed": sum(o["killed"] for o in outcomes),
        "results_lost": sum(not o["kept_unchanged"] for o in outcomes),
        "finished_units_before_kills": sum(o["finished_before_kill"] for o in outcomes),
        "equal_to_uninterrupted": sum(o["equal_to_reference"] for o in outcomes),
        "uninterrupted_seconds": round(duration, 2),
        "outcomes": outcomes,
    }


def server_faults(root: Path) -> dict:
    from test_hosted_faults import KEY, reply

    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.lm.specs import LMConfig

    os.environ["OPENAI_API_KEY"] = KEY
    rows = {}
    for fault in FAULTS[1:]:
        out = root / f"server-{fault}"
        with FakeOpenAI([fault] * 3, reply, hang=2.0) as server:
            try:
                report = evaluate(
                    EvalConfig(streams=1, tasks=6, threads=1, baseline=False),
                    LMConfig(spec="openai/fake-model", api_base=server.url, timeout=1.0),
                    out,
                    show_progress=False,
                )
                crashed, failures = False, report.agent.write_failures
            except Exception:  # noqa: BLE001 - counted: a crash is what this measures
                crashed, failures = True, None
        leaked = [p.name for p in out.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
        rows[fault] = {
            "requests": server.requests,
            "crashed": crashed,
            "failed_writes": failures,
            "key_in_run_dir": bool(leaked),
        }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval-kills", type=int, default=20)
    parser.add_argument("--optimize-kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="benchmarks/results/faults.json")
    args = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="promptmem-faults-") as tmp:
        root = Path(tmp)
        result = {
            "benchmark": "faults",
            "kills": {
                "eval": kills("eval", args.eval_kills, args.seed, root / "eval"),
                "optimize": kills("optimize", args.optimize_kills, args.seed, root / "optimize"),
            },
            "server_faults": server_faults(root),
        }
    result["wall_seconds"] = round(time.perf_counter() - start, 1)
    write_json(args.out, result)
    summary = {
        k: {m: v[m] for m in ("runs", "killed", "results_lost", "equal_to_uninterrupted")}
        for k, v in result["kills"].items()
    }
    print(json.dumps({"kills": summary, "server_faults": result["server_faults"]}, indent=2))


if __name__ == "__main__":
    main()
