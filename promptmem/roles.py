"""The two roles' contracts: what a writer returns, the writer protocol, and which role a
predictor plays. Everything that runs, scores or trains writers reads these, so they sit
below the programs that implement them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from promptmem.memory import Note, Op
from promptmem.tasks import Outcome, Task


@dataclass
class Write:
    """A writer's decision: the ops to apply, why any output was unusable, the raw output."""

    ops: list[Op] = field(default_factory=list)
    error: str = ""
    raw: str = ""

    def with_error(self, error: str) -> Write:
        """This write with ``error`` added to its errors."""
        return Write(self.ops, "; ".join(filter(None, [self.error, error])), self.raw)


class Writer(Protocol):
    def __call__(
        self, notes: Sequence[Note], task: Task, answer: str | None, outcome: Outcome | None, budget: int
    ) -> Write: ...


def role_of(pred_name: str | None) -> str | None:
    """'writer' / 'actor' for a predictor name such as 'agent.writer.predict'; None: both."""
    for role in ("writer", "actor"):
        if pred_name and role in pred_name.split("."):
            return role
    return None


@dataclass(frozen=True)
class Abilities:
    """What a role's step can do, in words shown to the reflection model, and the actions it
    cannot take: a proposed rule asking for one of those (a word starting with one of
    ``cannot``) is rejected before it costs a metric call."""

    can: str
    cannot: tuple[str, ...] = ()


WRITER_ABILITIES = Abilities("edits the notes after each task (add, update, delete notes) for the tasks to come")
ACTOR_ABILITIES = Abilities(
    "answers each question from the notes shown and the current observation; it cannot change the notes",
    cannot=("store", "save", "record", "write down", "add a note", "update the note", "delete"),
)
