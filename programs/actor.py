"""The actor: solves one task from the current notes."""

from __future__ import annotations

import dspy


class SolveTask(dspy.Signature):
    """Answer the question. Use your notes from earlier tasks and the current observation.
    If neither contains the answer, give your best guess."""

    notes: str = dspy.InputField(desc="notes you kept from earlier tasks")
    observation: str = dspy.InputField(desc="what you see in this task")
    question: str = dspy.InputField()
    answer: str = dspy.OutputField(desc="only the answer, in the format the question asks for")


class Actor(dspy.Module):
    """notes + observation + question -> answer text."""

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(SolveTask)

    def forward(self, notes: str, observation: str, question: str) -> str:
        return str(self.predict(notes=notes, observation=observation or "(nothing)",
                                question=question).answer).strip()
