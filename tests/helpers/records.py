"""Hand-built run records: a memory op as the runner logs it, a task's record, a stream result
whose trace is its records' ops."""

from promptmem.runner import StreamResult, TaskRecord


def op(kind, text="", note_id=None, applied=True, reason="", result_id=None) -> dict:
    return {
        "kind": kind,
        "text": text,
        "note_id": note_id,
        "applied": applied,
        "reason": reason,
        "result_id": result_id,
    }


def add(text, note_id) -> dict:
    """An applied ADD that made note ``note_id``."""
    return op("ADD", text, result_id=note_id)


def record(position, ops=(), question=None, answer=None, gold=(), score=None, task_id=None, meta=None) -> TaskRecord:
    """A step's record (task id ``t{position:02d}`` unless given), no cost counted."""
    return TaskRecord(
        task_id=f"t{position:02d}" if task_id is None else task_id,
        position=position,
        question=question,
        answer=answer,
        gold=list(gold),
        score=score,
        feedback="",
        ops=list(ops),
        notes_chars=0,
        notes_count=0,
        calls=0,
        prompt_tokens=0,
        completion_tokens=0,
        seconds=0.0,
        meta=dict(meta or {}),
    )


def task_record(task, position, ops=(), answer=None, score=None) -> TaskRecord:
    """The record of ``task`` (its id, question, gold answers and meta) at ``position``."""
    return record(position, ops, task.question, answer, task.answer, score, task_id=task.id, meta=task.meta)


def stream_result(records, final_notes=(), stream_id="s") -> StreamResult:
    """A seed run of ``records``, its trace the records' ops in order."""
    trace = [{"step": r.task_id, **o} for r in records for o in r.ops]
    return StreamResult(stream_id, "seed", list(records), trace, list(final_notes))
