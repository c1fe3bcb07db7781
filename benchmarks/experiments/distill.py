"""A finished `promptmem distill` run as a results file: the CLI does the run, this records it.

    promptmem distill --suite jsonl --data benchmarks/data/oncall_train.jsonl \\
        --test-data benchmarks/data/oncall_heldout.jsonl --out runs/distill-oncall
    python -m benchmarks.experiments.distill runs/distill-oncall --world oncall --annotations none
        # -> benchmarks/results/distill_own_oncall.json

    promptmem distill --config recipes/household_stated12.yaml --max-tokens 160 --out runs/household-stated12
    python -m benchmarks.experiments.distill runs/household-stated12 --world household --annotations full \\
        --out benchmarks/results/distill_own_household_annotated.json

    promptmem distill --config recipes/transfer_to_oncall.yaml --out runs/transfer-oncall
    python -m benchmarks.experiments.distill runs/transfer-oncall --world oncall --annotations none --transfer
        # -> benchmarks/results/distill_transfer_oncall.json (trained without the world, issue 39 item 6)

    promptmem distill --config recipes/synthetic_inferred.yaml --schedule actor \\
        --compare student+sft,student+grpo --out runs/synthetic-actor
    python -m benchmarks.experiments.distill runs/synthetic-actor --world synthetic --annotations none \\
        --student student+sft                 # -> distill_own_synthetic.json, the SFT student
    python -m benchmarks.experiments.distill runs/synthetic-actor --world synthetic --annotations none --rl
        # -> benchmarks/results/distill_rl_synthetic.json (what GRPO added to SFT, issue 40)

The file holds the run's resolved ``config`` and teacher LM (its ``config.json``), the
``comparison`` (teacher and students held out), the final student's (or ``--student``'s) paired
statistics against the teacher under ``vs_teacher`` (``diff``, ``ci_low``, ``ci_high``,
wins/losses), the run's student card, ``annotations`` (what the training file carried: ``none``
for gold answers only), each stage's seconds (``timings``, with their sum) and every row's score per held-out question
(``question_scores``: row, stream id, task id), so that students of two runs on the same
held-out streams compare paired: ``--vs OTHER.json`` puts this student against OTHER's under
``vs_students``. ``--transfer`` records a student trained on other worlds' streams and held
out on ``--world`` (``recipes/transfer_to_*.yaml``) as benchmark ``distill_transfer``, in its
own file, out of the worlds table that reads ``distill_own_*``; ``--rl`` records a run that
compared the student after SFT and after GRPO as ``distill_rl``, the second against the first
under ``vs_sft`` (paired, with both notes recalls); a run that adopted its SFT stage
(``--teacher-from``) pairs with that run's ``student+sft`` row instead.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from benchmarks import RESULTS
from promptmem.comparison import agent_results
from promptmem.stats import compare_scores, question_scores

SFT, GRPO = "student+sft", "student+grpo"  # the comparison rows of one run's students


def record(run: Path, world: str, annotations: str, benchmark: str = "distill_own", student: str | None = None) -> dict:
    """The results file's content for the finished distill run in ``run`` as ``benchmark``
    (distill_transfer: trained without ``world``; distill_rl: with ``vs_sft``), ``student`` its
    comparison row recorded as the run's student (default: the last, the one the card is of)."""
    config = json.loads((run / "config.json").read_text())
    summary = json.loads((run / "summary.json").read_text())
    comparison = summary["comparison"]
    final = student or list(comparison)[-1]
    if final not in comparison:
        raise ValueError(f"{run} compared {', '.join(comparison)}, not {final}")
    timings = summary["timings"]
    return {
        "benchmark": benchmark,
        "world": world,
        "annotations": annotations,
        "run": str(run),
        "config": config["distill"],
        "teacher_lm": config["teacher_lm"],
        "comparison": comparison,
        "student": final,
        "vs_teacher": comparison[final]["paired"]["teacher"],
        "card": json.loads((Path(summary["student_card"]).parent / "student.json").read_text()),
        "timings": timings,
        "stage_seconds": {stage: t.get("seconds") for stage, t in timings.items()},
        "seconds_in_all": round(sum(t.get("seconds", 0) for t in timings.values()), 1),
        "sft_rows": summary["sft_rows"],
        "sft_sources": summary["sft_sources"],
        "actor_cases": summary["actor_cases"],
        "flat_share": summary["flat_share"],
        "grpo_rewards": summary["grpo_rewards"],
        "question_scores": {label: _scores(run / "eval" / label) for label in comparison},
    }


def _scores(row: Path) -> dict[str, dict[str, float]]:
    """A comparison row's score per held-out question, by stream id, then task id."""
    by_stream: dict[str, dict[str, float]] = {}
    for (stream, task), score in question_scores(agent_results(row)).items():
        by_stream.setdefault(stream, {})[task] = score
    return by_stream


def _keyed(by_stream: dict[str, dict[str, float]]) -> dict[tuple[str, str], float]:
    """Per-question scores by stream id, then task id, keyed by (stream id, task id)."""
    return {(stream, task): v for stream, tasks in by_stream.items() for task, v in tasks.items()}


def versus(result: dict, other: dict) -> dict:
    """``result``'s student against ``other``'s (two results files of this script) on the held-out
    questions both scored: paired statistics, ``other`` as run a."""
    scores = (_keyed(r["question_scores"][r["student"]]) for r in (other, result))
    return {"results": other["run"], **compare_scores(*scores, random.Random(0)).to_json()}


def _sft_student(result: dict, sft_from: dict | None = None) -> tuple[dict, dict, str]:
    """The SFT student the GRPO student compares with: the run's own ``student+sft`` row, or
    ``sft_from``'s (a results file of this script recording that SFT model as its student), or,
    where the run adopted its SFT stage (``--teacher-from``), the row of the same model in the run
    that trained it; (per-question scores, the row, that run). A ValueError when none has one."""
    if SFT in result["comparison"]:
        return _keyed(result["question_scores"][SFT]), result["comparison"][SFT], result["run"]
    if sft_from and sft_from["student"] == SFT:
        return _keyed(sft_from["question_scores"][SFT]), sft_from["comparison"][SFT], sft_from["run"]
    source = result["timings"].get("sft", {}).get("adopted_from")
    summary = Path(source or "-") / "summary.json"
    rows = json.loads(summary.read_text())["comparison"] if summary.is_file() else {}
    if SFT not in rows:
        raise ValueError(
            f"{result['run']} compared {', '.join(result['comparison'])} and its SFT stage "
            f"{f'came from {source}, which did not compare {SFT}' if source else 'is its own'}: "
            f"run it with --compare {SFT},{GRPO}"
        )
    return _keyed(_scores(Path(source) / "eval" / SFT)), rows[SFT], source


def rl_versus_sft(result: dict, sft_from: dict | None = None) -> dict:
    """What GRPO added (issue 40): the run's student after GRPO against its student after SFT
    alone (``_sft_student``) on the same held-out questions (paired, the SFT student as run a),
    with each one's notes recall; a ValueError when there is no SFT student's row."""
    if GRPO not in result["comparison"]:
        raise ValueError(f"{result['run']} compared {', '.join(result['comparison'])}, not {GRPO}")
    sft_scores, sft_row, source = _sft_student(result, sft_from)
    stats = compare_scores(sft_scores, _keyed(result["question_scores"][GRPO]), random.Random(0)).to_json()
    recall = {SFT: sft_row["notes_recall"], GRPO: result["comparison"][GRPO]["notes_recall"]}
    return {
        **stats,
        "sft_row_from": source,
        "notes_recall": recall,
        "notes_recall_gain": round(recall[GRPO] - recall[SFT], 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a finished `promptmem distill` run directory")
    parser.add_argument("--world", required=True, help="the world's name in the results file")
    parser.add_argument(
        "--annotations", required=True, help="what the training file carried: none (gold answers only) | full | ..."
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument(
        "--transfer",
        action="store_const",
        const="distill_transfer",
        dest="benchmark",
        default="distill_own",
        help="the student never saw --world: trained on other worlds' streams",
    )
    kind.add_argument(
        "--rl",
        action="store_const",
        const="distill_rl",
        dest="benchmark",
        help=f"what GRPO added: the run compared {SFT},{GRPO}; vs_sft holds the second against the first",
    )
    parser.add_argument(
        "--sft-from",
        type=Path,
        help="with --rl: a results file of this script whose student is the SFT model this run's GRPO started from",
    )
    parser.add_argument(
        "--student", help="the comparison row recorded as the run's student (default: the last; e.g. student+sft)"
    )
    parser.add_argument("--out", type=Path, help="default benchmarks/results/distill_{own,transfer,rl}_<world>.json")
    parser.add_argument(
        "--vs",
        type=Path,
        action="append",
        default=[],
        help="another results file of this script held out on the same streams: its student against this one, paired, under vs_students",
    )
    args = parser.parse_args()
    others = {path: json.loads(path.read_text()) for path in args.vs}
    if unpaired := [str(path) for path, other in others.items() if "question_scores" not in other]:
        parser.error(f"--vs {', '.join(unpaired)}: recorded without per-question scores, so nothing pairs with it")
    try:
        result = record(args.run, args.world, args.annotations, args.benchmark, args.student)
        if args.benchmark == "distill_rl":
            result["vs_sft"] = rl_versus_sft(result, args.sft_from and json.loads(args.sft_from.read_text()))
    except ValueError as error:
        parser.error(str(error))
    result["vs_students"] = {path.stem: versus(result, other) for path, other in others.items()}
    out = args.out or RESULTS / f"{result['benchmark']}_{args.world}.json"
    out.write_text(json.dumps(result, indent=1))
    vs = result["vs_teacher"]
    print(f"{out}: {result['student']} vs teacher {vs['diff']:+.3f} [{vs['ci_low']:+.3f}, {vs['ci_high']:+.3f}]")
    if vs := result.get("vs_sft"):
        print(f"  {GRPO} vs {SFT}: {vs['diff']:+.3f} [{vs['ci_low']:+.3f}, {vs['ci_high']:+.3f}]")
    for name, vs in result["vs_students"].items():
        print(f"  vs the student of {name}: {vs['diff']:+.3f} [{vs['ci_low']:+.3f}, {vs['ci_high']:+.3f}]")


if __name__ == "__main__":
    main()
