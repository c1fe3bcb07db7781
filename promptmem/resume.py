"""Per-task resume: a stream's finished tasks are kept as they end, so a kill loses at most the
task in progress.

``StreamProgress`` appends each finished task's record (one JSON line, fsynced) to the stream's
progress file; the record holds the ops the store applied, so ``resume_stream`` rebuilds the
memory by applying them again to a fresh store (the store's rules are deterministic: same ops,
same notes, same verdicts) and runs the stream on from the next task. A task whose LM call
failed for now (``TaskRecord.failed_calls``) is not kept, nor is any task after it: the next
run retries the stream from there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

import dspy

from promptmem.files import RunDirError, append_jsonl, complete_lines, read_json
from promptmem.memory import Memory, Op
from promptmem.runner import StreamResult, TaskRecord, run_tasks, stream_context, when_of
from promptmem.tasks import Stream, Suite

SUFFIX = ".progress.jsonl"


class StreamProgress:
    """The progress file of one stream at ``path`` (see the module docstring)."""

    def __init__(self, path: Path, stream_id: str):
        self.path, self.stream_id = Path(path), stream_id

    def error(self, problem: str) -> RunDirError:
        """A RunDirError naming the file, its ``problem`` and how to run the stream again."""
        return RunDirError(
            f"{self.path} {problem}; delete it to run stream {self.stream_id!r} again from its first task"
        )

    def load(self) -> list[TaskRecord]:
        """The records kept so far; a last line cut short by a kill is dropped from the file."""
        try:
            lines = complete_lines(self.path)  # drops the task being written when the run was killed
        except OSError as err:
            raise self.error(f"cannot be read ({err.strerror})") from err
        records = []
        for number, line in enumerate(lines, start=1):
            try:
                records.append(TaskRecord(**json.loads(line)))
            except (ValueError, TypeError) as err:
                raise self.error(f"line {number} is not a task record ({type(err).__name__}: {err})") from err
        return records

    def append(self, record: TaskRecord) -> None:
        """Keep ``record``: one line, on disk before this returns."""
        append_jsonl(self.path, asdict(record))

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def read_finished(path: Path) -> StreamResult:
    """A finished stream's file read back; an unreadable or malformed one is a RunDirError that
    names it and says how to run the stream again."""
    redo = "delete it and rerun the run's command to run that stream again"
    data = read_json(path, redo)
    try:
        return StreamResult.from_json(data)
    except (KeyError, TypeError, AttributeError) as err:
        raise RunDirError(f"{path} is not a finished stream ({type(err).__name__}: {err}); {redo}") from err


def finished_streams(folder: Path) -> list[StreamResult]:
    """Every finished stream file in ``folder`` (``read_finished``), in file name order."""
    return [read_finished(path) for path in sorted(Path(folder).glob("*.json"))]


def _op(entry: dict) -> Op:
    return Op(
        entry["kind"],
        entry.get("text", ""),
        entry.get("note_id"),
        entry.get("importance"),
        entry.get("eviction", False),
    )


def _replay(memory: Memory, records: list[TaskRecord], stream: Stream, progress: StreamProgress) -> None:
    """Apply the kept records' ops to ``memory`` (fresh) in order; a record that does not
    belong to this stream, or notes that come out otherwise than they did, are a RunDirError."""
    for position, (record, task) in enumerate(zip(records, stream.tasks)):
        if record.task_id != task.id or record.position != position:
            raise progress.error(f"line {position + 1} holds task {record.task_id!r}, not {task.id!r}")
        memory.apply([_op(entry) for entry in record.ops], step=task.id, when=when_of(task, position))
        notes = memory.notes()
        if (len(notes), sum(len(n.text) for n in notes)) != (record.notes_count, record.notes_chars):
            raise progress.error(f"line {position + 1} does not rebuild the notes its task left")
    if len(records) > len(stream.tasks):
        raise progress.error(f"holds {len(records)} tasks; the stream has {len(stream.tasks)}")


def resume_stream(
    agent,
    stream: Stream,
    suite: Suite,
    lm: dspy.BaseLM,
    memory: Memory,
    progress: StreamProgress | None,
    *,
    adapter: dspy.Adapter | None = None,
    on_task: Callable[[TaskRecord], None] | None = None,
) -> StreamResult:
    """``run_tasks`` over a fresh ``memory`` from the first task ``progress`` does not hold,
    keeping each task as it ends (``progress`` None: the whole stream, nothing kept)."""
    done = progress.load() if progress else []
    if done:
        _replay(memory, done, stream, progress)
    keeping = progress is not None

    def keep(record: TaskRecord) -> None:
        nonlocal keeping
        keeping = keeping and not record.failed_calls
        if keeping:
            progress.append(record)
        if on_task:
            on_task(record)

    with stream_context(lm, adapter):
        rest = replace(stream, tasks=stream.tasks[len(done) :])
        result = run_tasks(agent, rest, suite, memory, on_task=keep, first_position=len(done))
    return replace(result, records=done + result.records, initial_notes=[])
