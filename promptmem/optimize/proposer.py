"""A compact instruction proposer for GEPA, sized for small reflection models.

GEPA's default reflection prompt shows every predictor call of a minibatch (a stream is
dozens of calls, each with the notes in full) and asks for whole new instructions; a 1.5B
reflection model drowns in the input and, asked to rewrite, drifts (measured here: it wrote
memory ops instead of instructions, one op repeated until the token limit). This proposer
shows the current instructions and the concrete failures the metric's per-role feedback
already names, deduplicated and capped, and asks for one new rule, which is appended to the
instructions. Candidates grow by one checked sentence per accepted step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import dspy

from promptmem.roles import role_of

ROLES = {
    "writer": "the writer, which edits the notes after each task for the tasks to come",
    "actor": "the actor, which answers each question from the notes and the current observation",
}
MAX_RULE_CHARS = 300
_OP_LIKE = re.compile(r"\b(?:ADD|UPDATE|DELETE|NOOP)\b.*\b(?:ADD|UPDATE|DELETE|NOOP)\b")


class ProposeRule(dspy.Signature):
    """An agent keeps notes across a stream of tasks. One of its steps follows the current
    instructions and made the mistakes listed. Write ONE new rule for that step: a single
    plain-English sentence, general enough to prevent mistakes of this kind on other tasks.
    Do not repeat names or values from the mistakes, and do not write notes or operations."""

    step: str = dspy.InputField(desc="which step the instructions drive")
    current_instructions: str = dspy.InputField()
    mistakes: str = dspy.InputField(desc="what went wrong, one per line")
    rule: str = dspy.OutputField(desc="one sentence")


def failure_lines(items: Sequence[Mapping[str, Any]], max_lines: int, max_chars: int) -> list[str]:
    """The distinct feedback lines of a component's reflective dataset, first seen first."""
    lines: list[str] = []
    for item in items:
        for line in str(item.get("Feedback", "")).splitlines():
            line = line.strip()[:max_chars]
            if line and line not in lines:
                lines.append(line)
    return lines[:max_lines]


def usable_rule(text: str, instructions: str) -> str | None:
    """The first sentence of ``text`` if it reads as a new rule: not empty, not already in the
    instructions, not op syntax, at most ``MAX_RULE_CHARS``; else None."""
    sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0].strip()
    if not sentence or len(sentence) > MAX_RULE_CHARS or _OP_LIKE.search(sentence):
        return None
    return None if sentence.lower() in instructions.lower() else sentence


class CompactProposer:
    """GEPA ``instruction_proposer``: one short reflection call per component to update,
    whose rule is appended to the component's instructions. A component with no failures,
    a failed call or an unusable rule keeps its instructions (``rejected`` counts those)."""

    def __init__(self, reflection_lm: dspy.BaseLM, max_lines: int = 8, max_chars: int = 200):
        self.lm, self.max_lines, self.max_chars = reflection_lm, max_lines, max_chars
        self.propose = dspy.Predict(ProposeRule)
        self.rejected: list[str] = []

    def __call__(
        self,
        candidate: dict[str, str],
        reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
        components_to_update: list[str],
    ) -> dict[str, str]:
        proposals = {}
        for name in components_to_update:
            failures = failure_lines(reflective_dataset.get(name, ()), self.max_lines, self.max_chars)
            if not failures:
                continue
            try:
                with dspy.context(lm=self.lm):
                    text = str(
                        self.propose(
                            step=ROLES[role_of(name) or "actor"],
                            current_instructions=candidate[name],
                            mistakes="\n".join(failures),
                        ).rule
                    )
            except Exception as err:  # noqa: BLE001 - an unusable proposal is skipped, not fatal
                self.rejected.append(f"{type(err).__name__}: {str(err)[:200]}")
                continue
            rule = usable_rule(text, candidate[name])
            if rule is None:
                self.rejected.append(text[:200])
                continue
            proposals[name] = f"{candidate[name].rstrip()}\n{rule}"
        return proposals
