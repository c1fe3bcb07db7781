"""Render a Report as files: report.json, summary.md and learning_curve.png."""

from __future__ import annotations

from pathlib import Path

from promptmem.files import write_json, write_text
from promptmem.metrics import Report, Summary


def _row(s: Summary) -> str:
    c = s.cost
    recall = "–" if s.notes_recall is None else f"{s.notes_recall:.3f}"
    processed = c.prompt_tokens_per_task - c.prompt_tokens_reused_per_task
    return (
        f"| {s.agent} | {s.score:.3f} | {recall} | {s.questions} | {c.calls_per_task:.2f} | "
        f"{c.prompt_tokens_per_task + c.completion_tokens_per_task:.0f} | "
        f"{processed:.0f} / {c.prompt_tokens_reused_per_task:.0f} | "
        f"{c.seconds_per_task:.2f} | {s.failed_calls} | {s.write_failures} | {s.rejected_ops} | "
        f"{s.final_notes_chars:.0f} |"
    )


def summary_markdown(report: Report) -> str:
    cfg = report.config
    summaries = [report.agent]
    if report.baseline and report.baseline is not report.agent and report.baseline.agent != report.agent.agent:
        summaries.append(report.baseline)
    lines = [
        f"# promptmem eval: {report.agent.agent}",
        "",
        f"suite `{cfg.get('suite', {}).get('name', '?')}`, LM `{cfg.get('lm', {}).get('spec', '?')}`, "
        f"{report.agent.streams} streams, notes budget {cfg.get('budget', '?')} chars",
        "",
        "| agent | score | notes recall | questions | LM calls/task | tokens/task "
        "| prompt tokens/task processed / reused | s/task | failed LM calls | failed writes | rejected ops "
        "| final notes (chars) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *map(_row, summaries),
    ]
    failed = sum(s.failed_calls for s in summaries)
    if failed:
        unfinished = sum(s.unfinished for s in summaries)
        lines += [
            "",
            f"**{failed} LM calls failed**; {unfinished} streams unfinished: rerun the same command to retry them.",
        ]
    if report.memory_gain is not None:
        lines += ["", f"**Memory gain** over no-memory on the same streams: {report.memory_gain:+.3f}"]
    lines += [
        "",
        "*Notes recall*: the share of questions whose shown notes (after retrieval) held the "
        "gold answer and no stale value of it; no LM judges it.",
    ]
    for key, groups in report.agent.breakdown.items():
        names = [k for k in next(iter(groups.values()), {}) if k != "n"]
        lines += [
            "",
            f"By `{key}`:",
            "",
            f"| {key} | n | " + " | ".join(names) + " |",
            "|---|---|" + "---|" * len(names),
        ]
        lines += [
            f"| {group} | {stats['n']:.0f} | " + " | ".join(f"{stats[k]:.3f}" for k in names) + " |"
            for group, stats in groups.items()
        ]
    lines += ["", "![learning curve](learning_curve.png)", ""]
    return "\n".join(lines)


def plot_learning_curve(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    summaries = [report.agent] + (
        [report.baseline] if report.baseline and report.baseline.agent != report.agent.agent else []
    )
    for summary in summaries:
        points = [(i + 1, v) for i, v in enumerate(summary.learning_curve) if v is not None]
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", label=f"{summary.agent} (mean {summary.score:.2f})")
    ax.set(
        xlabel="task position in stream", ylabel="mean score across streams", ylim=(-0.05, 1.05), title="Learning curve"
    )
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report: Report, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "report.json", report.to_json())
    write_text(out / "summary.md", summary_markdown(report))
    plot_learning_curve(report, out / "learning_curve.png")
