"""The end-of-run summary as a terminal shows it: the columns a person reads first, within
80 columns; every other column stays in summary.md and report.json."""

from __future__ import annotations

from rich.table import Table

from promptmem.metrics import HeldSplit, Report, Summary

HEADERS = ("agent", "score", "memory gain", "notes recall", "s/task")


def _cells(s: Summary, gain: float | None) -> tuple[str, ...]:
    recall = "–" if s.notes_recall is None else f"{s.notes_recall:.3f}"
    return (
        s.agent,
        f"{s.score:.3f}",
        "–" if gain is None else f"{gain:+.3f}",
        recall,
        f"{s.cost.seconds_per_task:.2f}",
    )


def _where_misses_are(held: HeldSplit) -> str:
    """One line that splits the misses between the roles."""
    questions = held.held + held.missed
    scores = [f"{score:.2f}" if score is not None else "–" for score in (held.score_when_held, held.score_when_missed)]
    return (
        f"The notes held the answer for {held.held} of {questions} questions: "
        f"the actor scored {scores[0]} on those, {scores[1]} on the rest."
    )


def summary_table(report: Report) -> Table:
    """The agent's row, then the no-memory reference's (memory gain is the agent's score
    minus the reference's on the same streams). Headers never wrap; an agent name too long
    for its column folds onto the next line rather than being cut. Under the table: where the
    agent's misses are (writer or actor, when the suite knows the answers' evidence), and the
    LM calls that failed with the streams they left unfinished."""
    rows = [_cells(report.agent, report.memory_gain)]
    if report.baseline and report.baseline.agent != report.agent.agent:
        rows.append(_cells(report.baseline, None))
    table = Table(title=f"promptmem eval: {report.agent.agent}", title_justify="left", caption_justify="left")
    table.add_column(HEADERS[0], overflow="fold")
    for header in HEADERS[1:]:
        table.add_column(header, justify="right", no_wrap=True, min_width=len(header))
    for row in rows:
        table.add_row(*row)
    summaries = [report.agent] + ([report.baseline] if len(rows) > 1 else [])
    caption = [_where_misses_are(report.agent.held)] if report.agent.held else []
    failed = sum(s.failed_calls for s in summaries)
    if failed:
        unfinished = sum(s.unfinished for s in summaries)
        caption.append(f"[red]{failed} LM calls failed; {unfinished} streams unfinished: rerun to retry them[/red]")
    table.caption = "\n".join(caption) or None
    return table
