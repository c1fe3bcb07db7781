"""An LLM judge for free-form answers (the Mem0 paper's J: CORRECT or WRONG)."""

from __future__ import annotations

from typing import Literal

import dspy


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
