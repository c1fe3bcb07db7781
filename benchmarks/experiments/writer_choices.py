"""What a select writer kept, statement by statement, judged in hindsight.

An analysis of finished runs: the hindsight labels (``promptmem.signals.hindsight``) read the
later answers of the run's own streams, so this describes what a writer did on held-out
streams; it trains nothing. For each eval run directory of a select-writer agent (a
`promptmem eval --writer select` run, or a row of a comparison such as a distill run's
``eval/teacher`` and ``eval/student+grpo``): the statements shown and kept per write, the
share of the statements a later question needed that the writer kept (write recall), the share of
the statements of facts the world tracks that it kept (where the suite lists them), and what its
kept statements were (needed by a later question, superseded, never needed; tracked).

    python -m benchmarks.experiments.writer_choices runs/bench-hindsight-household-h12/eval/teacher \\
        runs/bench-hindsight-household-h12/eval/student+grpo --out benchmarks/results/writer_choices_household_h12.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from promptmem.comparison import agent_results
from promptmem.evaluate import run_streams
from promptmem.files import write_json
from promptmem.signals.hindsight import by_task, hindsight_labels


def writer_choices(run: Path) -> dict:
    """Per write (a task whose observation had statements): shown, kept, and the kept
    statements by label; the write recall of the needed statements."""
    settings = json.loads((run / "config.json").read_text())["eval"]
    if settings["writer"] != "select":
        raise SystemExit(f"{run}: a {settings['writer']} writer's run; this reads select-writer runs")
    suite, streams = run_streams(settings)
    count: Counter = Counter()
    for result in agent_results(run):
        labels = by_task(hindsight_labels(streams[result.stream_id], suite))
        for record in result.records:
            shown = labels.get(record.task_id, [])
            added = {op["text"] for op in record.ops if op["kind"] == "ADD"}
            kept = [label for label in shown if label.text in added]
            count.update(writes=bool(shown), shown=len(shown), kept=len(kept))
            count.update(needed=sum(label.label == "needed" for label in shown))
            count.update(tracked=sum(label.tracked for label in shown), kept_tracked=sum(x.tracked for x in kept))
            count.update(f"kept {label.label}" for label in kept)
    writes = max(count["writes"], 1)
    return {
        "writes": count["writes"],
        "shown_per_write": round(count["shown"] / writes, 2),
        "kept_per_write": round(count["kept"] / writes, 2),
        "needed_statements": count["needed"],
        "write_recall": round(count["kept needed"] / count["needed"], 3) if count["needed"] else None,
        "tracked_statements": count["tracked"],
        "tracked_recall": round(count["kept_tracked"] / count["tracked"], 3) if count["tracked"] else None,
        "kept_tracked": round(count["kept_tracked"] / max(count["kept"], 1), 3),
        "kept": {
            label: round(count[f"kept {label}"] / max(count["kept"], 1), 3)
            for label in ("needed", "superseded", "never")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "runs",
        nargs="+",
        type=Path,
        help="eval run directories of select-writer agents (a row each, named by its folder)",
    )
    parser.add_argument("--out", help="a JSON file for the results (default: printed only)")
    args = parser.parse_args()
    names = [run.name for run in args.runs]
    if len(set(names)) < len(names):
        raise SystemExit(f"the rows are named by their folders, and two are alike: {', '.join(names)}")
    result = {run.name: {"run": str(run), **writer_choices(run)} for run in args.runs}
    if args.out:
        write_json(args.out, result, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
