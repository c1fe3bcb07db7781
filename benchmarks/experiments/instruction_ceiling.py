"""How far can an instruction move the writer? The select writer's notes recall on an optimize
run's validation windows (warm-started, the writer alone: GEPA's recall metric, the same
windows and scores GEPA selects by) under the seed's instructions and under hand-written ones.

A hand-written instruction that names exactly the kinds of fact the world's questions ask
about is what a good optimizer would hope to discover; the gap it opens over the seed shows how
much instructions can move this task model at all.

    python -m benchmarks.experiments.instruction_ceiling runs/bench-optimize-select-1.5b-topics \\
        benchmarks/experiments/instructions/synthetic_topics_rewritten.txt benchmarks/experiments/instructions/synthetic_topics_appended.txt \\
        --held-out synthetic_topics_rewritten --out benchmarks/results/instruction_ceiling_synthetic_1.5b.json

Reads the run's config (task LM, windows) and its cached warm starts; writes per-window recall,
and with --held-out the named instructions' held-out scores beside the seed's (paired statistics).
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path
from statistics import mean

import dspy

from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, adapter_for, make_lm
from promptmem.optimize.examples import gepa_examples, split_streams
from promptmem.optimize.gepa import OptimizeConfig, StreamProgram, held_out_comparison, recall_metric
from promptmem.options import with_current_names
from promptmem.programs.agent import in_process, resolve_agent, save_agent


def seed_agent(config: OptimizeConfig, instructions: str | None = None, name: str = "ceiling"):
    """The run's seed agent, its writer given ``instructions`` (None: the seed's own)."""
    agent = in_process(resolve_agent(config.agent, config.writer, config.buffer_share, config.actor), name)
    if instructions:
        agent.writer.predict.signature = agent.writer.predict.signature.with_instructions(instructions)
    return agent


def window_recall(valset: list, agent, suite, budget: int) -> list[float]:
    """Notes recall of ``agent``'s writer alone on each validation window (in the LM context)."""
    program = StreamProgram(agent, suite, budget, act=False)
    return [round(recall_metric(x, program(**x.inputs())).score, 4) for x in valset]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="an optimize run directory (its warm starts are reused)")
    parser.add_argument("instructions", nargs="+", type=Path, help="files, one writer instruction each")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/instruction_ceiling.json"))
    parser.add_argument(
        "--held-out",
        nargs="+",
        default=[],
        metavar="NAME",
        help="instructions (file names without .txt) to run on the run's held-out streams too, beside its seed row",
    )
    args = parser.parse_args()
    if unknown := set(args.held_out) - {p.stem for p in args.instructions}:
        parser.error(f"--held-out names no instructions file given: {', '.join(sorted(unknown))}")
    stored = json.loads((args.run / "config.json").read_text())
    config = OptimizeConfig(**with_current_names(OptimizeConfig, stored["optimize"]))  # a run from before a rename too
    lm_config = LMConfig(**stored["lm"])
    lm, budget = make_lm(lm_config), stored["notes_budget"]
    suite, train, val, _ = split_streams(config)
    context = partial(dspy.context, lm=lm, adapter=adapter_for(lm_config.spec))
    with context():  # the windows and their warm starts, read from the run (the seed's notes)
        _, valset, _ = gepa_examples(config, seed_agent(config), suite, budget, train, val, args.run)
    rows = {}
    for label, path in [("seed", None)] + [(p.stem, p) for p in args.instructions]:
        start = time.perf_counter()
        text = path.read_text().strip() if path else None
        with context():
            windows = window_recall(valset, seed_agent(config, text), suite, budget)
        rows[label] = {
            "instructions": text or "(the seed's)",
            "val_recall": round(mean(windows), 4),
            "windows": windows,
            "seconds": round(time.perf_counter() - start),
        }
        print(label, rows[label]["val_recall"], flush=True)
    for row in rows.values():
        row["better_windows"] = sum(a > b for a, b in zip(row["windows"], rows["seed"]["windows"]))
        row["worse_windows"] = sum(a < b for a, b in zip(row["windows"], rows["seed"]["windows"]))
    result = {"benchmark": "instruction_ceiling", "run": str(args.run), "lm": stored["lm"], "rows": rows}
    write_json(args.out, result)  # the windows' numbers are kept if the held-out part is interrupted
    if args.held_out:  # each instruction as a saved program, on the held-out streams (the seed's row resumed)
        (args.run / "ceiling").mkdir(exist_ok=True)
        programs = [("seed", config.agent)]
        for label in args.held_out:
            path = args.run / "ceiling" / f"{label}.json"
            save_agent(seed_agent(config, rows[label]["instructions"], label), path)
            programs.append((label, str(path)))
        result["test"] = held_out_comparison(
            config, lm_config, args.run / "ceiling", lm, programs, runs=args.run / "test"
        )
    write_json(args.out, result)


if __name__ == "__main__":
    main()
