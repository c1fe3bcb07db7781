"""Run one agent over one stream: act, score, write, apply — and record everything."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import dspy
from dspy.utils.usage_tracker import track_usage

from promptmem.failures import describe, stop_for, transient
from promptmem.memory import EMPTY_NOTES, InMemoryStore, Memory, When, WriteFailed
from promptmem.recall import notes_recall
from promptmem.redact import redact
from promptmem.roles import Write
from promptmem.tasks import Stream, Suite, Task


@dataclass
class TaskRecord:
    """Everything one step did. ``score`` is None on observe-only steps (and on every step of
    a writer-only run); ``notes_recall`` is whether the notes shown for the question held its
    answer (``promptmem.recall``; None where memory is not needed or not used);
    ``prompt_tokens_reused`` counts prompt tokens served from a cached prefix instead of being
    processed; ``error`` and ``write_error`` say why the actor's answer or the writer's output
    was unusable; ``failed_calls`` counts the LM calls among those that failed for now
    (``promptmem.failures.transient``: a rerun retries the task)."""

    task_id: str
    position: int
    question: str | None
    answer: str | None
    gold: list[str]
    score: float | None
    feedback: str
    ops: list[dict]
    notes_chars: int
    notes_count: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    metrics: dict[str, float] = field(default_factory=dict)
    notes_recall: float | None = None
    prompt_tokens_reused: int = 0
    error: str = ""
    write_error: str = ""
    write_raw: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    failed_calls: int = 0


@dataclass
class StreamResult:
    """One agent's run over one stream: per-task records, the op trace, the final notes, and
    the notes it started from (empty but for a warm-started window)."""

    stream_id: str
    agent: str
    records: list[TaskRecord]
    trace: list[dict]
    final_notes: list[dict]
    initial_notes: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> StreamResult:
        records = [TaskRecord(**record) for record in data["records"]]
        return cls(
            data["stream_id"],
            data["agent"],
            records,
            data["trace"],
            data["final_notes"],
            data.get("initial_notes", []),
        )


def _lm_failure(err: Exception, role: str) -> int:
    """1 when ``err`` is an LM call that failed for now, 0 for the task's own failure; an LM
    that cannot answer at all stops the run (``LMUnavailable``, saying what to fix)."""
    if stop := stop_for(err, role):
        raise stop from err
    return int(transient(err))


def _usage(tracker) -> dict[str, int]:
    entries = [entry for calls in tracker.usage_data.values() for entry in calls]
    return {
        "calls": len(entries),
        "prompt_tokens": sum(entry.get("prompt_tokens") or 0 for entry in entries),
        "completion_tokens": sum(entry.get("completion_tokens") or 0 for entry in entries),
        "prompt_tokens_reused": sum(
            (entry.get("prompt_tokens_details") or {}).get("cached_tokens") or 0 for entry in entries
        ),
    }


def when_of(task: Task, position: int) -> When:
    """When a task happens: its position, labelled by the suite's ``meta["time"]`` (e.g. a
    LoCoMo session date) or else as ``task N``."""
    return When(position, str(task.meta.get("time") or f"task {position}"))


def run_task(agent, task: Task, position: int, suite: Suite, memory: Memory, act: bool = True) -> TaskRecord:
    """One step. LM failures (the actor's, the writer's, a store's ``WriteFailed``) are
    recorded and the stream goes on, unless the LM cannot answer at all (``LMUnavailable``,
    ``promptmem.failures.fatal``). With ``act=False`` the actor is not called (a writer-only
    run: notes recall, no score)."""
    start = time.perf_counter()
    answer = outcome = recall = None
    error, failed = "", 0
    with track_usage() as tracker:
        notes = EMPTY_NOTES
        if task.is_question and agent.uses_memory:
            notes = memory.render(task.question)
            recall = notes_recall(suite.evidence(task), notes)
        if task.is_question and act:
            try:
                answer = agent.actor(notes=notes, observation=task.observation, question=task.question)
            except Exception as err:  # noqa: BLE001 - any LM/adapter failure is data here
                answer, error, failed = "", f"actor failed: {describe(err)}", _lm_failure(err, "actor")
            outcome = suite.score(task, answer)
        write = Write()
        if agent.writer is not None:
            try:
                write = agent.writer(memory.notes(), task, answer, outcome, memory.budget)
            except Exception as err:  # noqa: BLE001
                write, failed = Write(error=f"writer failed: {describe(err)}"), failed + _lm_failure(err, "writer")
        try:  # inside the tracker: a store's own LM calls (mem0's) count in the step's cost
            results = memory.apply(write.ops, step=task.id, when=when_of(task, position))
        except WriteFailed as err:
            results, write = err.results, write.with_error(f"memory write failed: {err}")
    usage = _usage(tracker)
    notes = memory.notes()
    return TaskRecord(
        task_id=task.id,
        position=position,
        question=task.question,
        answer=answer,
        gold=list(task.answer),
        score=outcome.score if outcome else None,
        feedback=outcome.feedback if outcome else "",
        ops=[r.to_json() for r in results],
        metrics=dict(outcome.metrics) if outcome else {},
        notes_chars=sum(len(n.text) for n in notes),
        notes_count=len(notes),
        notes_recall=recall,
        **usage,
        seconds=round(time.perf_counter() - start, 3),
        error=error,
        write_error=redact(write.error),  # a store's own failure (mem0's) may quote its key
        write_raw=redact(write.raw),
        meta=dict(task.meta),
        failed_calls=failed,
    )


def stream_context(lm: dspy.BaseLM, adapter: dspy.Adapter | None = None):
    """The DSPy context a stream runs in: ``lm`` under ``adapter`` (default: a ``ChatAdapter``)."""
    return dspy.context(lm=lm, adapter=adapter or dspy.ChatAdapter())


def run_stream(
    agent,
    stream: Stream,
    suite: Suite,
    lm: dspy.BaseLM,
    *,
    budget: int,
    adapter: dspy.Adapter | None = None,
    memory: Memory | None = None,
    act: bool = True,
) -> StreamResult:
    """Run the stream's tasks in order with one memory (default: an empty one of ``budget``) on
    ``lm`` under ``adapter`` (``stream_context``); ``act=False``: the writer alone (see
    ``run_task``). ``run_tasks`` runs a window of a longer stream, or reports each task."""
    with stream_context(lm, adapter):
        return run_tasks(agent, stream, suite, memory if memory is not None else InMemoryStore(budget), act=act)


def run_tasks(
    agent,
    stream: Stream,
    suite: Suite,
    memory: Memory,
    *,
    act: bool = True,
    first_position: int = 0,
    on_task: Callable[[TaskRecord], None] | None = None,
) -> StreamResult:
    """``run_stream`` in the current DSPy context (``stream_context``), from the notes
    ``memory`` holds: ``on_task`` sees each record; ``first_position``: the position of the
    first task when the stream is a window of a longer one (``memory`` then holds its notes)."""
    initial = [asdict(note) for note in memory.notes()]
    records = []
    for position, task in enumerate(stream.tasks, start=first_position):
        record = run_task(agent, task, position, suite, memory, act)
        records.append(record)
        if on_task:
            on_task(record)
    final = [asdict(note) for note in memory.notes()]
    return StreamResult(stream.id, agent.name, records, list(memory.trace), final, initial)
