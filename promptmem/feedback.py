"""The continual metric with per-role feedback, computed from the suite's ground truth
(``Suite.evidence``) and the run's trace. One plain function over a ``StreamResult`` and its
suite, on any suite: GEPA's feedback reads it; the GRPO rewards share its note matching.

Writer feedback says what the notes lacked when a question came (and why: never written,
deleted, rejected over budget), which stale values they still held, and which notes no
question ever used. Actor feedback says when the notes held the answer but the answer
was wrong, and when the answer was a stale value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from promptmem.memory import replay_steps
from promptmem.metrics import stream_score
from promptmem.runner import StreamResult, TaskRecord
from promptmem.tasks import Evidence, Fact, Suite, Task


@dataclass
class StreamFeedback:
    """``score`` is the mean headline question score; ``writer``/``actor`` are feedback
    lines for each role, most useful first; ``text(role)`` joins them for a prompt."""

    score: float
    writer: list[str] = field(default_factory=list)
    actor: list[str] = field(default_factory=list)

    def text(self, role: str | None = None, max_lines: int = 8) -> str:
        lines = {"writer": self.writer, "actor": self.actor}.get(role, self.writer + self.actor)
        more = [f"(and {len(lines) - max_lines} more like these)"] if len(lines) > max_lines else []
        return "\n".join(lines[:max_lines] + more) or "No problems found: every question was answered correctly."


def notes_timeline(result: StreamResult) -> list[dict[str, str]]:
    """The notes (id -> text) in front of each task, replayed from the op trace over the notes
    the run started from."""
    start = {n["id"]: n["text"] for n in result.initial_notes}
    return [step.before for step in replay_steps(result.trace, [r.task_id for r in result.records], start)]


def mentions(text: str, *values: str) -> bool:
    """Whether ``text`` contains every value (case-insensitively)."""
    low = text.lower()
    return all(v.lower() in low for v in values)


def holding(notes: dict[str, str], *values: str) -> list[str]:
    """The notes (as ``[id] text``) that mention every value."""
    return [f"[{i}] {t}" for i, t in notes.items() if mentions(t, *values)]


def holding_fact(notes: dict[str, str], fact: Fact, partial: bool = False) -> list[str]:
    """The notes that mention the fact's value and subject; ``partial``: every word of the
    value, in any order."""
    values = re.findall(r"\w+", fact.value) if partial else [fact.value]
    return holding(notes, *values, *([fact.subject] if fact.subject else []))


def record_task(record: TaskRecord) -> Task:
    """The task a record answered, as far as the record keeps it (no observation or scorer):
    enough for ``Suite.evidence``, which reads the id, question, answers and meta."""
    return Task(record.task_id, "", record.question, tuple(record.gold), meta=record.meta)


def _why_missing(result: StreamResult, upto: int, value: str) -> str:
    """What happened to a fact before the run's ``upto``-th record: rejected, deleted, or never written."""
    for record in reversed(result.records[:upto]):
        for op in record.ops:
            if value.lower() in op["text"].lower() and not op["applied"]:
                return f"; writing it was rejected at {record.task_id} ({op['reason']})"
    return (
        "; it was never written"
        if not any(value.lower() in op["text"].lower() for r in result.records[:upto] for op in r.ops if op["applied"])
        else "; it was written but later deleted or overwritten"
    )


def _question_feedback(
    result: StreamResult,
    record: TaskRecord,
    evidence: Evidence,
    notes: dict[str, str],
    writer: list[str],
    actor: list[str],
) -> None:
    answered = record.answer is not None  # None: a writer-only run, judged by notes recall
    if record.score == 1.0 or (not answered and record.notes_recall == 1.0):
        return
    gold = evidence.needed[0]
    held = [f.value for f in evidence.needed if holding_fact(notes, f, evidence.partial)]
    if held and answered:
        actor.append(f"{record.task_id}: the notes held the answer ({held[0]}) but you answered {record.answer!r}.")
    elif not held and not evidence.current:
        origin = f", stated in {', '.join(evidence.stated_in)}" if evidence.stated_in else ""
        writer.append(
            f"{record.task_id} asked {record.question!r}: the answer ({gold.value}{origin}) "
            f"was not in the notes{_why_missing(result, result.records.index(record), gold.value)}."
        )
    _stale_feedback(record, evidence, notes, writer, actor)


def _stale_feedback(
    record: TaskRecord, evidence: Evidence, notes: dict[str, str], writer: list[str], actor: list[str]
) -> None:
    """Stale values in the answer (actor) and still in the notes (writer)."""
    gold = evidence.needed[0]
    last = evidence.updated_in[-1] if evidence.updated_in else ""
    changed = f"it changed to {gold.value}" + (f" in {last}" if last else "")
    after = f" after {last} changed it to {gold.value}" if last else f"; it is now {gold.value}"
    for stale in evidence.stale:
        if record.answer and stale.lower() in record.answer.lower():
            actor.append(f"{record.task_id}: you answered with the stale value {stale}; {changed}.")
        for line in holding_fact(notes, Fact(stale, gold.subject)):
            writer.append(f"{record.task_id}: the notes still held the stale value {stale} ({line}){after}.")


def _unused_notes(result: StreamResult, limit: int) -> list[str]:
    golds = [g for r in result.records if r.question is not None for g in r.gold]
    unused = [f"[{n['id']}] {n['text']}" for n in result.final_notes if not any(mentions(n["text"], g) for g in golds)]
    if not unused:
        return []
    return [f"No question in this stream was answered by these notes: {'; '.join(unused[:limit])}"]


def stream_feedback(result: StreamResult, suite: Suite, unused_limit: int = 3) -> StreamFeedback:
    """Score and per-role feedback for one agent's run over one of ``suite``'s streams;
    questions the suite has no evidence for get none."""
    timeline = notes_timeline(result)
    writer: list[str] = []
    actor: list[str] = []
    for record, notes in zip(result.records, timeline):
        evidence = suite.evidence(record_task(record)) if record.question is not None else None
        if evidence is not None and evidence.needed:
            _question_feedback(result, record, evidence, notes, writer, actor)
    writer += _unused_notes(result, unused_limit)
    writer += [f"{r.task_id}: the write failed: {r.write_error}" for r in result.records if r.write_error][:3]
    return StreamFeedback(stream_score(result.records), writer, actor)
