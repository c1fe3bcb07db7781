"""Side-by-side evaluation of several programs (or models) on the same held-out streams.

Each entry is a resumable ``evaluate`` run under ``runs/<label>``; the comparison is written
as ``comparison.json``, ``comparison.md`` and ``comparison.png`` in ``out``. Every row after
the first holds, under ``paired``, its paired statistics against each earlier row on the same
questions (``promptmem.stats``: wins, losses, sign test, bootstrap 95% CI over streams).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import dspy

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig
from promptmem.metrics import Report
from promptmem.resume import finished_streams
from promptmem.runner import StreamResult
from promptmem.stats import PairedComparison, paired_comparison


@dataclass(frozen=True)
class Entry:
    """One row of a comparison: what to run, with which LM (``lm``: an already built one)."""

    label: str
    config: EvalConfig
    lm_config: LMConfig
    lm: dspy.BaseLM | None = None


def row_of(report: Report) -> dict:
    """A comparison row: score, memory gain, notes recall and where the misses are (``held``:
    the actor's score where the notes held the answer and where not; the writer's applied ops
    per task), per-stream scores, cost."""
    agent = report.agent
    return {
        "score": agent.score,
        "memory_gain": report.memory_gain,
        "notes_recall": agent.notes_recall,
        "held": asdict(agent.held) if agent.held else None,
        "applied_ops_per_task": agent.applied_ops_per_task,
        "per_stream": agent.per_stream,
        "tokens_per_task": agent.cost.prompt_tokens_per_task + agent.cost.completion_tokens_per_task,
        "seconds_per_task": agent.cost.seconds_per_task,
    }


def markdown_table(rows: dict[str, dict], first: str = "program") -> str:
    lines = [f"| {first} | score | memory gain | notes recall | tokens/task | s/task |", "|---|---|---|---|---|---|"]
    lines += [
        f"| {k} | {v['score']:.3f} | {v['memory_gain']:+.3f} | "
        f"{'–' if v.get('notes_recall') is None else format(v['notes_recall'], '.3f')} | "
        f"{v['tokens_per_task']:.0f} | {v['seconds_per_task']:.1f} |"
        for k, v in rows.items()
    ]
    return "\n".join(lines) + "\n"


def labelled_pairs(rows: dict[str, dict]) -> list[tuple[str, dict]]:
    """``("b vs a", statistics)`` for every row ``b`` and each earlier row ``a`` it is paired with."""
    return [(f"{b} vs {a}", s) for b, row in rows.items() for a, s in row.get("paired", {}).items()]


def paired_table(pairs: Sequence[tuple[str, dict]]) -> str:
    """Markdown of paired statistics (``PairedComparison.to_json()``), one row per ``(label, statistics)``."""
    lines = [
        "| b vs a | questions | b − a | 95% CI (streams) | wins / losses / ties | sign test p | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {label} | {s['questions']} | {s['diff']:+.3f} | [{s['ci_low']:+.3f}, {s['ci_high']:+.3f}] | "
        f"{s['wins']} / {s['losses']} / {s['ties']} | {'<0.001' if s['p'] < 0.001 else format(s['p'], '.3f')} | "
        f"{s['verdict']} |"
        for label, s in pairs
    ]
    return "\n".join(lines) + "\n"


def agent_results(run: Path) -> list[StreamResult]:
    """The agent's stream results an ``evaluate`` run directory holds."""
    return finished_streams(run / "streams" / "agent")


def paired_rows(results: dict[str, list[StreamResult]]) -> dict[str, dict[str, PairedComparison]]:
    """For each label after the first, its paired comparison against every earlier label
    (bootstrap seeded with 0 per pair: the numbers do not depend on the order of pairs)."""
    labels = list(results)
    return {
        b: {a: paired_comparison(results[a], results[b], random.Random(0)) for a in labels[:i]}
        for i, b in enumerate(labels)
        if i
    }


def plot_comparison(rows: dict[str, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(rows)
    fig, (left, right) = plt.subplots(1, 2, figsize=(4 + 1.2 * len(labels), 3.2))
    left.bar(labels, [rows[k]["score"] for k in labels], color="tab:blue")
    left.set_title("held-out score")
    left.set_ylim(0, 1)
    right.bar(labels, [rows[k]["seconds_per_task"] for k in labels], color="tab:gray")
    right.set_title("seconds per task")
    for axis in (left, right):
        axis.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def compare(
    entries: Sequence[Entry], out: str | Path, runs: str | Path | None = None, first: str = "program"
) -> dict[str, dict]:
    """Evaluate every entry (resuming finished ones; runs under ``runs``, default ``out``)
    and write the comparison files, with the paired statistics of every pair of entries."""
    out = Path(out)
    runs = Path(runs) if runs else out
    rows = {e.label: row_of(evaluate(e.config, e.lm_config, runs / e.label, lm=e.lm)) for e in entries}
    paired = paired_rows({e.label: agent_results(runs / e.label) for e in entries})
    for label, pairs in paired.items():
        rows[label]["paired"] = {a: stats.to_json() for a, stats in pairs.items()}
    write_json(out / "comparison.json", rows)
    table = markdown_table(rows, first)
    (out / "comparison.md").write_text(table + ("\n" + paired_table(labelled_pairs(rows)) if paired else ""))
    plot_comparison(rows, out / "comparison.png")
    return rows
