"""A comparison's files, rendered from its rows (``promptmem.comparison`` runs the entries):
``comparison.json``, ``comparison.md`` (the table, then the paired statistics of every row
after the first against each earlier one) and ``comparison.png``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from promptmem.files import write_json
from promptmem.metrics import Report


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


def write_comparison(rows: dict[str, dict], out: Path, first: str = "program") -> None:
    """Write ``rows`` (``row_of`` each, with its ``paired`` statistics) to ``out``'s
    comparison.json, comparison.md and comparison.png; ``first`` heads the label column."""
    write_json(out / "comparison.json", rows)
    pairs = labelled_pairs(rows)
    (out / "comparison.md").write_text(markdown_table(rows, first) + ("\n" + paired_table(pairs) if pairs else ""))
    plot_comparison(rows, out / "comparison.png")
