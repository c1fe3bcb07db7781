"""``promptmem report RUN_DIR... --html OUT.html``: one self-contained page comparing runs --
scores and cost, learning curves, the notes over time (written, dropped, kept) and, per
question, the note that held its answer or the write that lost it (``promptmem.report.story``)."""

from __future__ import annotations

import html
import io
from pathlib import Path

from promptmem.outputs import check_output, write_output
from promptmem.report.finished import FinishedRun, load_run
from promptmem.report.story import question_story, replay

STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f3f3f3}.ok{color:#1a7f37}.miss{color:#b42318}details{margin:.3em 0}
code{font-size:12px}"""


def _svg(draw) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3))
    draw(ax)
    ax.legend(fontsize=8)
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]  # inline: without the XML declaration and doctype


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _run_section(run: FinishedRun) -> str:
    suite = run.suite
    tasks = {(s.id, t.id): t for s in run.streams.values() for t in s.tasks}
    parts = [f"<h2>{html.escape(run.name)}: questions and notes</h2>"]
    for result in run.results:
        before, steps = replay(result)
        positions = {r.task_id: i for i, r in enumerate(result.records)}
        rows = []
        for i, record in enumerate(result.records):
            if record.question is None:
                continue
            task = tasks.get((result.stream_id, record.task_id))
            story = question_story(suite.evidence(task) if task else None, i, before, steps, positions)
            mark = "ok" if record.score else "miss"
            rows.append(
                [
                    record.task_id,
                    html.escape(record.question),
                    html.escape(", ".join(record.gold)),
                    f'<span class="{mark}">{html.escape(record.answer or "")}</span>',
                    f"{record.score:.2f}" if record.score is not None else "–",
                    html.escape(story),
                ]
            )
        timeline = _table(
            ["task", "written", "dropped", "notes"],
            [
                [
                    s.step,
                    "<br>".join(map(html.escape, s.written)),
                    "<br>".join(map(html.escape, s.dropped)),
                    str(s.notes_after),
                ]
                for s in steps
            ],
        )
        parts += [
            f"<h3>stream {html.escape(result.stream_id)}</h3>",
            _table(["task", "question", "gold", "answer", "score", "the notes and this question"], rows),
            f"<details><summary>notes over time ({len(result.final_notes)} kept at the end)</summary>"
            f"{timeline}</details>",
        ]
    return "\n".join(parts)


def _summary_row(run: FinishedRun) -> list[str]:
    agent, cost = run.report["agent"], run.report["agent"]["cost"]
    return [
        html.escape(run.name),
        html.escape(agent["agent"]),
        html.escape(run.config["lm"]["spec"]),
        f"{agent['score']:.3f}",
        "–" if run.report.get("memory_gain") is None else f"{run.report['memory_gain']:+.3f}",
        "–" if agent.get("notes_recall") is None else f"{agent['notes_recall']:.3f}",
        f"{cost.get('prompt_tokens_per_task', 0) + cost.get('completion_tokens_per_task', 0):.0f}",
        f"{cost.get('seconds_per_task', 0):.2f}",
        str(agent.get("write_failures", 0)),
    ]


def html_report(run_dirs: list[Path]) -> str:
    """The page for ``run_dirs`` (each a finished eval run), as one HTML string."""
    runs = [load_run(d) for d in run_dirs]
    summary = _table(
        ["run", "agent", "LM", "score", "memory gain", "notes recall", "tokens/task", "s/task", "failed writes"],
        [_summary_row(run) for run in runs],
    )

    def curves(ax):
        for run in runs:
            points = [(i + 1, v) for i, v in enumerate(run.report["agent"]["learning_curve"]) if v is not None]
            if points:
                ax.plot(*zip(*points), marker="o", label=f"{run.name} ({run.report['agent']['score']:.2f})")
        ax.set(xlabel="task position in stream", ylabel="mean score", ylim=(-0.05, 1.05))

    def notes_size(ax):
        for run in runs:
            if run.results:
                steps = replay(run.results[0])[1]
                ax.step(range(1, len(steps) + 1), [s.notes_after for s in steps], where="post", label=run.name)
        ax.set(xlabel="task position (first stream)", ylabel="notes kept")

    body = [
        f"<h1>promptmem report: {len(runs)} run(s)</h1>",
        summary,
        "<h2>Learning curves</h2>",
        _svg(curves),
        "<h2>Notes kept over time</h2>",
        _svg(notes_size),
    ]
    body += [_run_section(run) for run in runs]
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>promptmem report</title>"
        f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>"
    )


def write_html_report(run_dirs: list[Path], out: Path) -> None:
    """The page comparing ``run_dirs`` at ``out`` (its folder made if missing; never a file of a
    run: ``promptmem.outputs``)."""
    check_output(out, run_dirs, "--html")
    write_output(out, html_report(run_dirs), "--html", run_dirs)
