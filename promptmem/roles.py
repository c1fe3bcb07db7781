"""The two roles' contracts: what a writer returns, the writer protocols (any writer; one
whose write is one LM call), what the grammar needs of a typed output item, and which role a
predictor plays. Everything that runs, scores or trains writers reads these, so they sit
below the programs that implement them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

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


@runtime_checkable
class OneCallWriter(Writer, Protocol):
    """A writer whose write is one LM call, so GRPO can re-roll a write from one completion:
    ``output_field`` names the predictor output that holds it; ``to_write`` turns that output
    (typed, or raw text) into the write it makes over ``notes`` within ``budget``."""

    output_field: str

    def to_write(self, notes: Sequence[Note], value: object, budget: int) -> Write: ...


@dataclass(frozen=True)
class ItemGrammar:
    """What the writer grammar (``promptmem.lm.grammar``) needs to know of a typed output item,
    declared on its pydantic model as ``item_grammar: ClassVar[ItemGrammar]``. A list of such
    items holds 1 to ``MAX_ITEMS``, and output cut at the token limit fails to parse. With
    ``id_field``, the item names a note: for the ``naming`` values of ``action_field`` the id
    must be one of the notes shown; for the other actions it is ""."""

    id_field: str = ""
    action_field: str = ""
    naming: tuple[str, ...] = ()


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
