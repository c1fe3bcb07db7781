"""A compact instruction proposer for GEPA: the reflection LM sees the current instructions
and the concrete failures they caused, deduplicated and capped, not whole traces.

GEPA's default reflection prompt shows every predictor call of a minibatch (a stream is
dozens of calls, each with the notes in full); a 1.5B reflection model drowns in that. The
failures are already named by the metric's per-role feedback, so that is what it gets.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import dspy

ROLES = {"writer": "the writer, which edits the notes after each task for the tasks to come",
         "actor": "the actor, which answers each question from the notes and the current observation"}


class ImproveInstructions(dspy.Signature):
    """You improve the instructions of one step of an agent that keeps notes across a stream
    of tasks. Read the current instructions and the failures they led to. Write complete new
    instructions that keep what works and add short, general rules that would have prevented
    these failures. Do not copy names or values from the failures into the instructions."""

    step: str = dspy.InputField(desc="which step these instructions drive")
    current_instructions: str = dspy.InputField()
    failures: str = dspy.InputField(desc="what went wrong with the current instructions, one per line")
    new_instructions: str = dspy.OutputField(desc="the complete improved instructions")


def failure_lines(items: Sequence[Mapping[str, Any]], max_lines: int, max_chars: int) -> list[str]:
    """The distinct feedback lines of a component's reflective dataset, first seen first."""
    lines: list[str] = []
    for item in items:
        for line in str(item.get("Feedback", "")).splitlines():
            line = line.strip()[:max_chars]
            if line and line not in lines:
                lines.append(line)
    return lines[:max_lines]


def role_of(pred_name: str | None) -> str | None:
    """'writer' / 'actor' for a predictor name such as 'agent.writer.predict'; None: both."""
    for role in ("writer", "actor"):
        if pred_name and role in pred_name.split("."):
            return role
    return None


class CompactProposer:
    """GEPA ``instruction_proposer``: one short reflection call per component to update.
    A component with no failures, or an empty proposal, keeps its instructions."""

    def __init__(self, reflection_lm: dspy.BaseLM, max_lines: int = 10, max_chars: int = 240):
        self.lm, self.max_lines, self.max_chars = reflection_lm, max_lines, max_chars
        self.improve = dspy.Predict(ImproveInstructions)

    def __call__(self, candidate: dict[str, str], reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
                 components_to_update: list[str]) -> dict[str, str]:
        proposals = {}
        for name in components_to_update:
            failures = failure_lines(reflective_dataset.get(name, ()), self.max_lines, self.max_chars)
            if not failures:
                continue
            with dspy.context(lm=self.lm):
                text = str(self.improve(step=ROLES[role_of(name) or "actor"], current_instructions=candidate[name],
                                        failures="\n".join(failures)).new_instructions).strip()
            if text:
                proposals[name] = text
        return proposals
