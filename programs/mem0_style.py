"""A mem0-style writer: extract candidate facts, retrieve similar notes, decide one op per fact.

Costs one LM call to extract plus one per fact (at most ``max_facts``).
"""

from __future__ import annotations

import dspy

from promptmem.memory import EMPTY_NOTES, render_notes, similar_notes
from promptmem.programs.ops_format import parse_ops
from promptmem.programs.writers import note_lines, task_inputs
from promptmem.roles import Abilities, Write


class ExtractCandidateFacts(dspy.Signature):
    """Extract the facts from this task that are worth remembering for future questions.
    Write one short fact per line, or NONE."""

    observation: str = dspy.InputField()
    question: str = dspy.InputField()
    answer: str = dspy.InputField(desc="the answer you gave")
    outcome: str = dspy.InputField(desc="feedback on your answer")
    facts: str = dspy.OutputField(desc="one fact per line, or NONE")


class DecideOp(dspy.Signature):
    """Decide how a new fact changes your notes. Write exactly one operation:
    ADD <note> if it is new | UPDATE <note id> <new text> if it changes a note |
    DELETE <note id> if it shows a note is wrong | NOOP if the notes already hold it."""

    fact: str = dspy.InputField()
    similar_notes: str = dspy.InputField(desc="the most similar existing notes, each with its id in brackets")
    operation: str = dspy.OutputField(desc="one operation")


class Mem0StyleWriter(dspy.Module):
    """Extract facts, then ADD/UPDATE/DELETE/NOOP each against its ``top_k`` similar notes."""

    abilities = Abilities(
        "extracts short facts from each task, then for each fact adds a note, updates or deletes one of the most "
        "similar notes, or does nothing"
    )

    def __init__(self, max_facts: int = 4, top_k: int = 3):
        super().__init__()
        self.extract = dspy.Predict(ExtractCandidateFacts)
        self.decide = dspy.Predict(DecideOp)
        self.max_facts, self.top_k = max_facts, top_k

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        raw = str(self.extract(**task_inputs(task, answer, outcome)).facts)
        facts = [f for f in note_lines(raw) if f.upper() != "NONE"][: self.max_facts]
        ops, errors, raws = [], [], [raw]
        for fact in facts:
            shown = render_notes(similar_notes(fact, notes, self.top_k)) if notes else EMPTY_NOTES
            decision = str(self.decide(fact=fact, similar_notes=shown).operation)
            raws.append(decision)
            parsed = parse_ops(decision)
            ops += parsed.ops[:1]
            errors += parsed.errors
        return Write(ops, "; ".join(errors), "\n---\n".join(raws))
