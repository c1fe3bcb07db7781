"""LLM judges: free-form answers (the Mem0 paper's J: CORRECT or WRONG), and the discovery
an edit of the notes makes (the actor's GRPO bonus where no ground truth exists)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import dspy

from promptmem.memory import Note, render_notes
from promptmem.scoring import normalize
from promptmem.tasks import Task


class JudgeAnswer(dspy.Signature):
    """Label the generated answer CORRECT or WRONG against the gold answer. Be generous:
    it is CORRECT if it refers to the same fact as the gold answer, even if it is longer or
    worded differently; a date or time in another format is CORRECT if it is the same one."""

    question: str = dspy.InputField()
    gold_answer: str = dspy.InputField()
    generated_answer: str = dspy.InputField()
    label: Literal["CORRECT", "WRONG"] = dspy.OutputField()


class Judge(dspy.Module):
    """question + gold + answer -> 1.0 (CORRECT) or 0.0 (WRONG)."""

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(JudgeAnswer)

    def forward(self, question: str, gold: str, answer: str) -> float:
        label = self.predict(question=question, gold_answer=gold, generated_answer=answer or "(no answer)").label
        return float(label == "CORRECT")


# function words: rewording with these alone adds nothing to the notes
_FUNCTION_WORDS = frozenset(
    "is are was were be been being am of on in at to for from by with as and or but not no its it this that "
    "these those there here has have had do does did so than then now also which who whom whose what when where how".split()
)


def content_words(texts: Iterable[str]) -> set[str]:
    """Normalized words of ``texts`` other than function words."""
    return {w for text in texts for w in normalize(text).split()} - _FUNCTION_WORDS


class JudgeDiscovery(dspy.Signature):
    """After a task, the notes were edited. Judge what the new or changed notes teach beyond
    the notes before: a new fact, a corrected belief or a concrete lead useful for later tasks
    is a discovery; rewording, reordering or repeating what the notes already said is none."""

    task: str = dspy.InputField(desc="what the task showed and asked")
    notes_before: str = dspy.InputField()
    new_notes: str = dspy.InputField(desc="notes added or changed by the edit")
    discovery: Literal["none", "minor", "major"] = dspy.OutputField()


class DiscoveryJudge(dspy.Module):
    """(notes before, notes after, task) -> 0.0 / 0.5 / 1.0. An edit that brings no new
    content word (a paraphrase, a reorder, a deletion) is 0.0 without asking the LM."""

    VALUES = {"none": 0.0, "minor": 0.5, "major": 1.0}

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(JudgeDiscovery)

    def forward(self, before: Sequence[Note], after: Sequence[Note], task: Task) -> float:
        old = {note.text for note in before}
        new = [note.text for note in after if note.text not in old]
        if not content_words(new) - content_words(old):
            return 0.0
        shown = "\n".join(part for part in (task.observation, task.question and f"Q: {task.question}") if part)
        verdict = self.predict(
            task=shown or "(nothing shown)", notes_before=render_notes(before), new_notes="\n".join(new)
        ).discovery
        return self.VALUES[verdict]
