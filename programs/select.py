"""Selected statements: the writer only chooses which statements of an observation to keep.

The observation is cut into statements (lines, and sentences within a line), shown numbered
``[1] …``; the writer answers with the numbers worth remembering. With local models the
grammar allows only the numbers shown (``promptmem.lm.grammar``), so a write cannot misquote,
merge or invent a fact: the kept statements are stored verbatim, one note each, in a recency
buffer (the oldest notes are evicted to fit the budget). What is left to the model is the
judgment this project is about: what is worth keeping.
"""

from __future__ import annotations

import json
import re

import dspy

from promptmem.memory import Op
from promptmem.programs.baselines import buffer_ops
from promptmem.roles import Abilities, Write

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")  # "version 7.2.5. next" splits after "7.2.5."
_BULLET = re.compile(r"^[-*•]\s+")


def statements(observation: str) -> list[str]:
    """The observation's non-empty lines split into sentences, bullets stripped, in order."""
    found = []
    for line in observation.splitlines():
        found += [s for s in (_BULLET.sub("", part.strip()).strip() for part in _SENTENCE_END.split(line.strip())) if s]
    return found


def numbered(found: list[str]) -> str:
    """The statements as the select writer shows them: ``[n] statement`` one per line, from 1."""
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(found, 1))


class SelectStatements(dspy.Signature):
    """You keep notes that help you answer future questions. Each statement of the task's
    observation is shown with its number. Choose the statements worth remembering: facts about
    the state of things that a later question could ask about (who owns or does what, where
    something is, versions, settings, names, dates, plans, changes to any of these). Leave out
    headers and greetings, and details that no later question is likely to need. The chosen
    statements are kept word for word; older notes make room for them."""

    lines: str = dspy.InputField(desc="the observation's statements, one per line: [number] statement")
    keep: list[int] = dspy.OutputField(desc="the numbers of the statements worth remembering, at least one")


class SelectWriter(dspy.Module):
    """Keeps the statements the model selects (see the module docstring); numbers that name
    no statement are dropped and reported in ``Write.error``; no statements, a NOOP."""

    abilities = Abilities(
        "chooses which numbered statements of the observation to keep; the kept statements are stored word for "
        "word, one note each, and the oldest notes are dropped when the budget is full; it cannot rewrite, merge, "
        "summarise, update or delete notes",
        cannot=(
            "rewrite",
            "merge",
            "summar",
            "update",
            "edit",
            "delete",
            "remove",
            "correct",
            "combine",
            "paraphras",
            "shorten",
            "abbreviat",
            "reformat",
        ),
    )

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(SelectStatements)

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        found = statements(task.observation)
        if not found:
            return Write([Op("NOOP")])
        keep = self.predict(lines=numbered(found)).keep
        named = [isinstance(n, int) and 1 <= n <= len(found) for n in keep]
        chosen = sorted({n for n, ok in zip(keep, named) if ok})
        unknown = [n for n, ok in zip(keep, named) if not ok]
        error = f"numbers naming no statement dropped: {unknown}" if unknown else ""
        ops = buffer_ops(list(notes), [found[n - 1] for n in chosen], budget) or [Op("NOOP")]
        return Write(ops, error, json.dumps(keep))
