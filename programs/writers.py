"""Writers: after each task, decide how the notes change for the tasks to come.

A writer is called as ``writer(notes, task, answer, outcome, budget) -> Write`` and never
edits memory itself: it returns ops that the store applies (and may reject).
``NotesWriter`` rewrites the whole notes (RIME style) and the rewrite becomes ops by a
line diff; ``OpsWriter`` emits typed ADD/UPDATE/DELETE/NOOP ops (Memory-R1 / mem0 style).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import dspy
from pydantic_core import to_jsonable_python

from promptmem.memory import EMPTY_NOTES, Note, Op, notes_size, render_notes
from promptmem.programs.typed_ops import MemoryOp, predict_items, to_ops
from promptmem.roles import Abilities, Write
from promptmem.tasks import Outcome, Task


def task_inputs(task: Task, answer: str | None, outcome: Outcome | None) -> dict[str, str]:
    """The task as the writer's prompt shows it (observe-only steps say so)."""
    return {
        "observation": task.observation or "(nothing)",
        "question": task.question or "(no question in this task: observe only)",
        "answer": answer if answer is not None else "(none)",
        "outcome": outcome.feedback if outcome is not None else "(none)",
    }


def budget_line(notes: Sequence[Note], budget: int) -> str:
    return f"at most {budget} characters in total (now {notes_size(notes)})"


class WriterInputs(dspy.Signature):
    """What every writer sees after a task."""

    notes: str = dspy.InputField(desc="your current notes")
    observation: str = dspy.InputField()
    question: str = dspy.InputField()
    answer: str = dspy.InputField(desc="the answer you gave")
    outcome: str = dspy.InputField(desc="feedback on your answer")
    limit: str = dspy.InputField(desc="size limit for the notes")


class RewriteNotes(WriterInputs):
    """You keep notes that help you answer future questions. After each task, rewrite
    your notes so they hold what will be useful later. Keep them short: one fact per line."""

    new_notes: str = dspy.OutputField(desc="the complete new notes, one fact per line")


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\[n?\d+\])\s*")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*$")


def note_lines(text: str) -> list[str]:
    """Non-empty lines of a notes rewrite, without bullets, ids, fences or duplicates."""
    lines = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw).strip()
        if line and not _FENCE.match(line) and line != EMPTY_NOTES and line not in lines:
            lines.append(line)
    return lines


def diff_ops(notes: Sequence[Note], lines: Sequence[str]) -> list[Op]:
    """Ops turning ``notes`` into ``lines``: DELETE what went, then ADD what is new."""
    wanted = set(lines)
    kept = {note.text for note in notes}
    deletes = [Op("DELETE", note_id=note.id) for note in notes if note.text not in wanted]
    adds = [Op("ADD", text=line) for line in lines if line not in kept]
    return deletes + adds or [Op("NOOP")]


class NotesWriter(dspy.Module):
    """Whole-notes rewrite. An empty rewrite of non-empty notes is treated as a failed
    write (the notes are kept), since small models often return nothing by mistake."""

    output_field = "new_notes"  # the predictor's output that ``to_write`` reads
    abilities = Abilities("rewrites the whole notes after each task, within the notes budget, for the tasks to come")

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(RewriteNotes)

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        plain = "\n".join(note.text for note in notes) or EMPTY_NOTES
        raw = str(
            self.predict(notes=plain, limit=budget_line(notes, budget), **task_inputs(task, answer, outcome)).new_notes
        )
        return self.to_write(notes, raw, budget)

    @staticmethod
    def to_write(notes, raw, budget: int) -> Write:
        """The write a ``new_notes`` output makes of ``notes`` (the store enforces ``budget``)."""
        raw = str(raw)
        lines = note_lines(raw)
        if not lines and notes:
            return Write([Op("NOOP")], "empty rewrite ignored: the notes were kept", raw)
        return Write(diff_ops(notes, lines), "", raw)


class EditNotes(WriterInputs):
    """You keep notes that help you answer future questions. After each task, decide how
    to change the notes: ADD a new note, UPDATE a note (by its id) whose fact changed,
    DELETE a note (by its id) that is wrong or useless, or NOOP to keep them as they are.
    Your current notes show each note's id in brackets."""

    operations: list[MemoryOp] = dspy.OutputField(desc="the edits, in order (NOOP alone to keep the notes)")


class TypedWriter(dspy.Module):
    """A one-call writer whose output ``output_field`` of ``signature_type`` is a list of
    ``item`` objects, decoded under a grammar with local models; subclasses say what write a
    list makes (``to_write``). An output cut at the token limit keeps its complete items."""

    signature_type: type[dspy.Signature]
    item: type
    output_field: str  # the predictor's output that ``to_write`` reads

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(self.signature_type)

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        value, dropped = predict_items(
            self.predict,
            self.output_field,
            self.item,
            notes=render_notes(notes),
            limit=budget_line(notes, budget),
            **task_inputs(task, answer, outcome),
        )
        return self.to_write(notes, value, budget).with_error(dropped)

    @staticmethod
    def to_write(notes, value, budget: int) -> Write:
        raise NotImplementedError


class OpsWriter(TypedWriter):
    """Typed ADD/UPDATE/DELETE/NOOP ops (``MemoryOp``); what cannot be read is reported in
    ``Write.error``."""

    signature_type, item, output_field = EditNotes, MemoryOp, "operations"
    abilities = Abilities("edits the notes after each task with ADD / UPDATE / DELETE / NOOP operations on notes by id")

    @staticmethod
    def to_write(notes, value, budget: int) -> Write:
        """The write an ``operations`` output makes: a ``MemoryOp`` list, or raw completion
        text (``notes`` and ``budget`` unused: ops name their ids, the store enforces the budget)."""
        ops, errors = to_ops(value)
        raw = value if isinstance(value, str) else json.dumps(to_jsonable_python(value))
        return Write(ops, "; ".join(errors), raw)
