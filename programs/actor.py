"""Actors: solve one task from the current notes.

``Actor`` answers from the notes it is shown. ``FilterActor`` (Memory-R1's answer agent)
first selects the notes that bear on the question (from a large retrieved top-N), then
answers from those alone, so distractors in the retrieved notes do not reach the answer.
"""

from __future__ import annotations

from typing import Literal

import dspy

from promptmem.memory import NOTE_LINE, shown_ids

NONE_SELECTED = "(no note bears on this question)"


class SolveTask(dspy.Signature):
    """Answer the question. Use your notes from earlier tasks and the current observation.
    If neither contains the answer, give your best guess."""

    notes: str = dspy.InputField(desc="notes you kept from earlier tasks")
    observation: str = dspy.InputField(desc="what you see in this task")
    question: str = dspy.InputField()
    answer: str = dspy.OutputField(desc="only the answer, in the format the question asks for")


class SelectNotes(dspy.Signature):
    """Select the notes that bear on the question: the ones holding facts needed to answer it.
    Leave out notes about other things."""

    notes: str = dspy.InputField(desc="candidate notes, each with its id in brackets")
    question: str = dspy.InputField()
    relevant: list[str] = dspy.OutputField(desc="ids of the notes needed to answer, most useful first")


class Actor(dspy.Module):
    """notes + observation + question -> answer text."""

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(SolveTask)

    def forward(self, notes: str, observation: str, question: str) -> str:
        return str(self.predict(notes=notes, observation=observation or "(nothing)", question=question).answer).strip()


def selected_lines(notes: str, ids: list[str]) -> str:
    """The notes of ``notes`` (an ``[id] text`` line and the lines after it up to the next
    note) whose ids are in ``ids``, in the order of ``ids`` (unknown ids ignored), or
    ``NONE_SELECTED``."""
    blocks: dict[str, list[str]] = {}
    current: list[str] = []  # lines before the first note belong to none
    for line in notes.splitlines():
        if match := NOTE_LINE.match(line):
            current = blocks.setdefault(match.group(1), [])
        current.append(line)
    wanted = dict.fromkeys(str(i).strip().strip("[]") for i in ids)
    return "\n".join("\n".join(blocks[i]) for i in wanted if i in blocks) or NONE_SELECTED


class FilterActor(dspy.Module):
    """Select the relevant notes (one call), then answer from them (a second call); with no
    notes to choose from, answer at once."""

    def __init__(self):
        super().__init__()
        self.select = dspy.Predict(SelectNotes)
        self.predict = dspy.Predict(SolveTask)

    def forward(self, notes: str, observation: str, question: str) -> str:
        if shown_ids(notes):  # placeholders such as "(no notes yet)" have none
            notes = selected_lines(notes, self.select(notes=notes, question=question).relevant)
        return str(self.predict(notes=notes, observation=observation or "(nothing)", question=question).answer).strip()


ActorKind = Literal["plain", "filter"]  # the names of ACTORS
ACTORS = {"plain": Actor, "filter": FilterActor}
