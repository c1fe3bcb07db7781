"""Hindsight labels: what a selection writer should have kept, known once a stream has ended.

Every statement a selection writer is shown (``programs.select.statements`` of each task's
observation, numbered from 1 as shown) is labelled from the suite's evidence (``Suite.evidence``):

- **needed**: a later question needs it: the question's evidence names a fact the statement
  holds (value and subject, ``recall.line_holds``; free-text answers: at least half of the
  answer's content words), in a task that stated it (``stated_in``; any earlier task where the
  suite does not say). A question about its own observation (``current``) needs no memory;
- **superseded**: not needed, and a later question's evidence lists a value it holds (with the
  subject) as stale: a task after it (``updated_in``) changed the fact;
- **never**: neither.

Apart from the label, a statement is **tracked** when it states a fact the world keeps track of
(``Suite.stated`` of its own task: a count, a holder, a date, not the chatter around it), asked
later or not. Two keep-list targets follow: ``needed`` (only what a later question needed: a
one-in-eight choice no writer can make without the future) and ``stated`` (every tracked
statement, and whatever was needed: the distinction a writer can learn; suites that do not list
their facts, LoCoMo, give the ``needed`` list).

The labels read the answers of later questions: compute them on training streams only, never
on held-out ones. One label set, three consumers: the select writer's GEPA feedback
(``signals.select_feedback``), the SFT target (``hindsight_keep``) and the GRPO reward
(``write_reward``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from promptmem.programs.select import statements
from promptmem.recall import line_holds
from promptmem.tasks import Fact, Stream, Suite, Task

Target = Literal["needed", "stated"]  # what a hindsight keep-list keeps (see the module)
TARGETS = get_args(Target)

_STOP = frozenset(
    "a an and are at by for he her his i in is it my of on or she the their they to was we were with".split()
)


@dataclass(frozen=True)
class Need:
    """A later question that needs a statement: its id and text, how many tasks after the
    statement it came, and what the suite knows of it (``question_kind``)."""

    question_id: str
    question: str
    after: int
    kind: str


@dataclass(frozen=True)
class StatementLabel:
    """One shown statement: its task (id and index in the stream), its number as shown (from 1),
    its text, the questions that needed it (earliest first), the task that superseded it
    ("" when none did) and whether it is tracked (see the module)."""

    task_id: str
    position: int
    number: int
    text: str
    needed_by: tuple[Need, ...] = ()
    superseded_in: str = ""
    tracked: bool = False

    @property
    def label(self) -> str:
        """needed | superseded | never (see the module)."""
        return "needed" if self.needed_by else "superseded" if self.superseded_in else "never"

    @property
    def last_need(self) -> int:
        """The stream index of the last question that needs it (-1: none)."""
        return max((self.position + need.after for need in self.needed_by), default=-1)

    def wanted(self, target: str) -> bool:
        """Whether a keep-list of ``target`` (``TARGETS``) keeps it."""
        return bool(self.needed_by) or (target == "stated" and self.tracked)


def question_kind(task: Task, suite: Suite) -> str:
    """What the suite knows of a question: ``meta.kind``, else the first of the suite's
    ``breakdown_keys`` in its meta (LoCoMo: the category), else ""."""
    keys = ("kind", *suite.breakdown_keys)
    return str(next((task.meta[key] for key in keys if key in task.meta), ""))


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if w not in _STOP}


def statement_holds(text: str, fact: Fact, partial: bool = False) -> bool:
    """Whether one statement holds ``fact`` (module doc: whole words; ``partial``: half the
    value's content words)."""
    if not partial:
        return line_holds([text], fact)
    wanted = _content_words(fact.value)
    return bool(wanted) and 2 * len(wanted & _content_words(text)) >= len(wanted)


def hindsight_labels(stream: Stream, suite: Suite) -> list[StatementLabel]:
    """Every shown statement of ``stream``, in order, labelled (see the module)."""
    shown = [statements(task.observation) for task in stream.tasks]
    index = {task.id: p for p, task in enumerate(stream.tasks)}
    needs: dict[tuple[int, int], list[Need]] = defaultdict(list)
    superseded: dict[tuple[int, int], str] = {}
    for q, task in enumerate(stream.tasks):
        evidence = suite.evidence(task) if task.is_question else None
        if evidence is None or evidence.current or not evidence.needed:
            continue
        origins = [index[i] for i in evidence.stated_in if i in index] if evidence.stated_in else range(q)
        need = (task.id, task.question, question_kind(task, suite))
        for p in (p for p in origins if p < q):
            for n, text in enumerate(shown[p], 1):
                if any(statement_holds(text, fact, evidence.partial) for fact in evidence.needed):
                    needs[p, n].append(Need(need[0], need[1], q - p, need[2]))
        updates = sorted(index[i] for i in evidence.updated_in if i in index)
        stale = [Fact(value, fact.subject) for value in evidence.stale for fact in evidence.needed]
        for p in range(updates[-1] if updates else 0):
            first_after = stream.tasks[next(u for u in updates if u > p)].id
            for n, text in enumerate(shown[p], 1):
                if any(line_holds([text], fact) for fact in stale):
                    superseded.setdefault((p, n), first_after)
    tracked = [suite.stated(task) for task in stream.tasks]
    return [
        StatementLabel(
            task.id,
            p,
            n,
            text,
            tuple(sorted(needs.get((p, n), ()), key=lambda need: need.after)),
            superseded.get((p, n), ""),
            any(line_holds([text], fact) for fact in tracked[p]),
        )
        for p, task in enumerate(stream.tasks)
        for n, text in enumerate(shown[p], 1)
    ]


def by_task(labels: Sequence[StatementLabel]) -> dict[str, list[StatementLabel]]:
    """The labels grouped by task id, in stream order."""
    grouped: dict[str, list[StatementLabel]] = defaultdict(list)
    for label in labels:
        grouped[label.task_id].append(label)
    return dict(grouped)


def hindsight_keep(labels: Sequence[StatementLabel], budget: int, target: str = "needed") -> dict[str, list[int]]:
    """What a writer that knew the future would keep: task id -> statement numbers, ascending.

    Rule: tasks in order; at each write the room left is ``budget`` minus the characters of the
    statements kept before that a question after this task still needs; this task's needed
    statements are taken most needs per character first (ties: the first shown) and kept while
    they fit. Statements whose last question has come free their room. ``target`` "stated"
    also keeps every tracked statement (the buffer drops the oldest notes when they overflow)."""
    keep: dict[str, list[int]] = {}
    held: list[StatementLabel] = []
    for task_id, group in by_task(labels).items():
        position = group[0].position
        held = [label for label in held if label.last_need > position]
        room = budget - sum(len(label.text) for label in held)
        chosen = []
        ranked = sorted((g for g in group if g.needed_by), key=lambda g: (-len(g.needed_by) / len(g.text), g.number))
        for label in ranked:
            if len(label.text) <= room:
                chosen.append(label)
                room -= len(label.text)
        held += chosen
        extra = [g for g in group if target == "stated" and g.tracked and g not in chosen]
        keep[task_id] = sorted(label.number for label in chosen + extra)
    return keep


def write_reward(
    labels: Sequence[StatementLabel], kept: Collection[int], budget: int, weight: float = 0.5, target: str = "needed"
) -> float:
    """The dense reward of one write, from the labels of the statements it was shown and the
    numbers it kept: the share of the statements ``target`` wants kept (``StatementLabel.wanted``;
    1.0 when it wants none) minus ``weight`` × the share of the budget taken by kept statements it
    does not want (for "needed": superseded or never; capped at the whole budget)."""
    wanted = [label for label in labels if label.wanted(target)]
    recall = sum(label.number in kept for label in wanted) / len(wanted) if wanted else 1.0
    waste = sum(len(label.text) for label in labels if label.number in kept and not label.wanted(target))
    return recall - weight * min(1.0, waste / budget)
